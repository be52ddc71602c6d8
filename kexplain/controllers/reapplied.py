"""What the controllers do when a Deployment or StatefulSet the cluster runs is applied again
(`kubectl apply` onto it): the pods they create now, beside the running ones, and the running pods
they delete first. The Deployment controller (pkg/controller/deployment: `sync`'s `scale`,
`rolloutRolling`, `rolloutRecreate`, deployment_util's `NewRSNewReplicas`) and the StatefulSet
controller (stateful_set_control.go `updateStatefulSet`), from the cluster's ReplicaSets and pods.
Details: docs/internals/controllers.md.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from kexplain.apimachinery.stored_pods import StoredPod, plain
from kexplain.controllers import controller_utils as cu
from kexplain.controllers.existing import Children, ToCreate, statefulset_to_create
from kexplain.controllers.workloads import replica_count
from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion

_TERMINAL = frozenset({"Succeeded", "Failed"})
_PERCENT = re.compile(r"^([0-9]+)%$")
REVISION = "deployment.kubernetes.io/revision"


@dataclass(frozen=True)
class Rollout:
    """What the controllers do now with a workload applied onto the one the cluster runs: `copies`
    new pods (a StatefulSet's from the ordinal `skip` places after its first), the running pods
    they delete first (`deleted`, names in the workload's namespace), and what happened (`said`)."""

    copies: int
    skip: int = 0
    deleted: tuple[str, ...] = ()
    said: str = ""
    details: dict[str, Any] = field(default_factory=dict, compare=False)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _name(obj: Mapping[str, Any]) -> str:
    return str(_dict(obj.get("metadata")).get("name") or "")


def _owner(obj: Any) -> tuple[str, str, str] | None:
    """(kind, namespace, name) of the object's controller, a dump's stored pod read off its view."""
    if type(obj) is StoredPod:
        meta = obj.view.metadata
        refs, namespace = (obj.view.owner_references(), meta.namespace) if meta is not None else (None, None)
    else:
        meta = _dict(obj.get("metadata"))
        refs, namespace = meta.get("ownerReferences"), meta.get("namespace")
    for ref in refs if isinstance(refs, list) else ():
        if isinstance(ref, dict) and ref.get("controller") is True:
            return str(ref.get("kind")), str(namespace or "default"), str(ref.get("name") or "")
    return None


def cluster_children(replica_sets: Iterable[Any], pods: Iterable[Any], workloads: Iterable[Mapping[str, Any]]
                     ) -> Children:
    """The cluster's ReplicaSets of the given Deployments and the pods of those and of the given
    StatefulSets (only those read: a dump's other pods are not decoded)."""
    keys = {(str(w.get("kind")), str(_dict(w.get("metadata")).get("namespace") or "default"), _name(w))
            for w in workloads}
    sets = [plain(o) for o in replica_sets if _owner(o) in keys]
    owners = keys | {("ReplicaSet", str(_dict(rs.get("metadata")).get("namespace") or "default"), _name(rs))
                     for rs in sets}
    return Children([*sets, *(plain(p) for p in pods if _owner(p) in owners)])


def unlisted_deployments(deployments: Iterable[Mapping[str, Any]], replica_sets: Iterable[Any]
                         ) -> dict[tuple[str, str, str], dict[str, Any]]:
    """The given Deployments the cluster runs though its objects do not list them, only their
    ReplicaSets (a `kexplain snapshot` reads ReplicaSets, not Deployments): each as its ReplicaSets
    show it, `replicas` theirs summed and the template of the latest revision, by (kind, namespace,
    name)."""
    wanted = {("Deployment", str(_dict(d.get("metadata")).get("namespace") or "default"), _name(d)): d
              for d in deployments}
    owned: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for rs in replica_sets:
        key = _owner(rs)
        if key in wanted:
            owned.setdefault(key, []).append(plain(rs))
    out: dict[tuple[str, str, str], dict[str, Any]] = {}
    for key, sets in owned.items():
        latest = max(sets, key=lambda rs: (_revision_of(rs),
                                           str(_dict(rs.get("metadata")).get("creationTimestamp") or "")))
        template = _template(latest)
        meta = _dict(template.get("metadata"))
        labels = {k: v for k, v in _dict(meta.get("labels")).items() if k != cu.POD_TEMPLATE_HASH_LABEL}
        spec = {"replicas": sum(replica_count(rs) for rs in sets)}
        if template:
            spec["template"] = {**template, "metadata": {**meta, "labels": labels}}
        out[key] = {"apiVersion": "apps/v1", "kind": "Deployment",
                    "metadata": {"name": key[2], "namespace": key[1]}, "spec": spec}
    return out


def _revision_of(rs: Mapping[str, Any]) -> int:
    raw = _dict(_dict(rs.get("metadata")).get("annotations")).get(REVISION)
    return int(raw) if isinstance(raw, str) and raw.isdigit() else 0


def _active(pods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """controller.FilterActivePods: not terminated, not being deleted."""
    return [p for p in pods if _dict(p.get("status")).get("phase") not in _TERMINAL
            and not _dict(p.get("metadata")).get("deletionTimestamp")]


def _ready(pod: dict[str, Any]) -> bool:
    status = _dict(pod.get("status"))
    return any(isinstance(c, dict) and c.get("type") == "Ready" and c.get("status") == "True"
               for c in status.get("conditions") or ())


def _template(obj: Mapping[str, Any]) -> dict[str, Any]:
    return _dict(_dict(obj.get("spec")).get("template"))


def template_key(template: dict[str, Any], kube: KubeVersion = DEFAULT_VERSION) -> str:
    """What tells two pod templates apart as the controllers do (EqualIgnoreHash): the template
    hash of the template without its `pod-template-hash` label (defaulted, quantities canonical),
    else its JSON."""
    meta = _dict(template.get("metadata"))
    labels = {k: v for k, v in _dict(meta.get("labels")).items() if k != cu.POD_TEMPLATE_HASH_LABEL}
    bare = {**template, "metadata": {**meta, "labels": labels}} if meta else template
    try:
        return "hash:" + cu.pod_template_hash(bare, kube)
    except (cu.NotReproduced, TypeError, ValueError):
        return "json:" + json.dumps(bare, sort_keys=True, default=str)


def int_or_percent(value: Any, total: int, round_up: bool) -> int:
    """intstr.GetScaledValueFromIntOrPercent; a value it refuses counts as 0."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    m = _PERCENT.match(value) if isinstance(value, str) else None
    if m is None:
        return 0
    scaled = int(m.group(1)) * total
    return -(-scaled // 100) if round_up else scaled // 100


@dataclass(frozen=True)
class _Strategy:
    """A Deployment's strategy: its type and, for RollingUpdate, maxSurge and maxUnavailable resolved
    (deployment_util ResolveFenceposts)."""

    kind: str
    surge: int = 0
    unavailable: int = 0

    @classmethod
    def of(cls, deployment: Mapping[str, Any], replicas: int) -> "_Strategy":
        strategy = _dict(_dict(deployment.get("spec")).get("strategy"))
        if strategy.get("type") == "Recreate":
            return cls("Recreate")
        rolling = _dict(strategy.get("rollingUpdate"))
        surge = int_or_percent(rolling.get("maxSurge", "25%"), replicas, True)
        unavailable = int_or_percent(rolling.get("maxUnavailable", "25%"), replicas, False)
        if surge == 0 and unavailable == 0:
            unavailable = 1
        return cls("RollingUpdate", surge, min(unavailable, replicas))     # (MaxUnavailable: at most replicas)

    def words(self) -> str:
        if self.kind == "Recreate":
            return "Recreate"
        return f"RollingUpdate, maxSurge {self.surge}, maxUnavailable {self.unavailable}"


@dataclass(frozen=True)
class _Set:
    """One ReplicaSet of the Deployment: its object, spec.replicas and active pods."""

    obj: dict[str, Any]
    replicas: int
    pods: list[dict[str, Any]]

    @property
    def name(self) -> str:
        return _name(self.obj)

    @property
    def available(self) -> int:
        """Its available pods: Running and Ready (minReadySeconds taken as past)."""
        return sum(1 for p in self.pods if _dict(p.get("status")).get("phase") == "Running" and _ready(p))

    @property
    def created(self) -> str:
        return str(_dict(self.obj.get("metadata")).get("creationTimestamp") or "")


def _deletion_order(pods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The pods a ReplicaSet deletes first (controller.ActivePodsWithRanks, with the ranks of its
    pods on the same node): unassigned, pending, not ready, lower pod-deletion-cost, more of its pods
    on the node, then the newest (Go's sort leaves ties in no set order; kexplain takes the name)."""
    on_node: dict[str, int] = {}
    for p in pods:
        node = str(_dict(p.get("spec")).get("nodeName") or "")
        on_node[node] = on_node.get(node, 0) + 1
    phases = {"Pending": 0, "Unknown": 1, "Running": 2}

    def cost(p: dict[str, Any]) -> int:
        raw = _dict(_dict(p.get("metadata")).get("annotations")).get("controller.kubernetes.io/pod-deletion-cost")
        try:
            return int(raw) if raw is not None else 0
        except ValueError:
            return 0

    def key(p: dict[str, Any]) -> tuple[Any, ...]:
        node = str(_dict(p.get("spec")).get("nodeName") or "")
        created = str(_dict(p.get("metadata")).get("creationTimestamp") or "")
        return (bool(node), phases.get(str(_dict(p.get("status")).get("phase")), 3), _ready(p), cost(p),
                -on_node.get(node, 0), "".join(chr(0x10FFFF - ord(c)) for c in created), _name(p))
    return sorted(pods, key=key)


def _new_replicas(replicas: int, strategy: _Strategy, current: int, new: int) -> int:
    """deployment_util.NewRSNewReplicas: the new ReplicaSet's size this sync, `current` the
    replicas of every ReplicaSet (the new one's `new` among them)."""
    if strategy.kind == "Recreate":
        return replicas
    most = replicas + strategy.surge
    if current >= most:
        return new
    return new + min(most - current, replicas - new)


def _old_scaled(replicas: int, strategy: _Strategy, old: list[_Set]) -> dict[str, int]:
    """reconcileOldReplicaSets with a new ReplicaSet of no pod yet: each old ReplicaSet's size once
    its unhealthy replicas are cleaned up (cleanupUnhealthyReplicas) and the available ones above
    minAvailable scaled down (scaleDownOldReplicaSetsForRollingUpdate), oldest first."""
    sizes = {s.name: s.replicas for s in old}
    minimum = replicas - strategy.unavailable
    most = sum(sizes.values()) - minimum          # maxScaledDown: the new ReplicaSet has none unavailable
    if not sizes or most <= 0:
        return sizes
    ordered = sorted(old, key=lambda s: (s.created, s.name))
    cleaned = 0
    for s in ordered:
        if cleaned >= most or sizes[s.name] == 0 or sizes[s.name] == s.available:
            continue
        down = min(most - cleaned, sizes[s.name] - s.available)
        sizes[s.name] -= down
        cleaned += down
    left = sum(s.available for s in old) - minimum
    for s in ordered:
        if left <= 0:
            break
        down = min(sizes[s.name], left)
        sizes[s.name] -= down
        left -= down
    return sizes


def _deleted(old: list[_Set], sizes: dict[str, int]) -> tuple[str, ...]:
    """The pods the old ReplicaSets delete to come down to `sizes` (getPodsToDelete's order)."""
    gone: list[str] = []
    for s in sorted(old, key=lambda s: (s.created, s.name)):
        extra = len(s.pods) - sizes.get(s.name, s.replicas)
        if extra > 0:
            gone += [_name(p) for p in _deletion_order(s.pods)[:extra]]
    return tuple(gone)


def _revision(s: _Set) -> int:
    return _revision_of(s.obj)


def _pods(count: int) -> str:
    return f"{count} new pod" if count == 1 else f"{count} new pods"


def _run(count: int) -> str:
    return "its pod runs" if count == 1 else f"its {count} pods run"


def _scaled(before: int, after: int) -> str:
    return f"scaled {before} -> {after}" if before != after else f"{after} replicas"


def deployment_rollout(applied: dict[str, Any], live: Mapping[str, Any], children: Children,
                       kube: KubeVersion = DEFAULT_VERSION) -> Rollout | None:
    """What the Deployment controller and its ReplicaSets do with `applied` (kubectl apply's result
    onto `live`); None when the cluster has none of its ReplicaSets (it is explained as written)."""
    sets = [_Set(rs, replica_count(rs), _active(children.of(rs, "Pod"))) for rs in children.of(applied, "ReplicaSet")]
    if not sets:
        return None
    replicas, before = replica_count(applied), replica_count(live)
    key = template_key(_template(applied), kube)
    changed = bool(_template(live)) and key != template_key(_template(live), kube)     # (none read: unknown)
    new = next((s for s in sets if template_key(_template(s.obj), kube) == key), None)
    if new is None and not changed:         # (a template kexplain hashes otherwise: the latest revision)
        new = max(sets, key=lambda s: (_revision(s), s.created, s.name))
    old = [s for s in sets if s is not new]
    strategy = _Strategy.of(applied, replicas)
    head = f"exists on the cluster: {_scaled(before, replicas)}"
    details: dict[str, Any] = {"replicas": {"from": before, "to": replicas}, "templateChanged": changed,
                               "strategy": strategy.kind, "running": sum(len(s.pods) for s in sets)}
    if _dict(applied.get("spec")).get("paused") is True and new is None:
        return Rollout(0, said=f"{head}, the template changed, but the Deployment is paused: its controller "
                               "rolls out no new template until it is resumed", details=details)
    if new is None:
        return _rolled(applied, replicas, strategy, old, head, details, kube)
    details["replicaSet"] = new.name
    active_old = [s for s in old if s.replicas > 0]
    target = replicas
    deleted: tuple[str, ...] = ()
    if active_old and strategy.kind == "Recreate":
        deleted = tuple(_name(p) for s in active_old for p in s.pods)
    elif active_old and new.replicas < replicas:        # a rollout under way: rolloutRolling
        target = _new_replicas(replicas, strategy, sum(s.replicas for s in sets), new.replicas)
    copies = max(0, target - len(new.pods))
    if len(new.pods) > target:          # scaled down: the ReplicaSet deletes its extra pods
        deleted = tuple(_name(p) for p in _deletion_order(new.pods)[:len(new.pods) - target])
    details.update({"created": copies, "deleted": list(deleted)})
    if copies == 0:
        what = f"its ReplicaSet {new.name} keeps {min(target, len(new.pods))} pods"
        what += f" and deletes {', '.join(deleted)}" if deleted else ""
        return Rollout(0, deleted=deleted, details=details,
                       said=f"{head}, {'another' if changed else 'the same'} template: {what}, no new pod")
    said = (f"{head}, {'another' if changed else 'the same'} template: its ReplicaSet {new.name} creates "
            f"{_pods(copies)} beside its {len(new.pods)} running")
    if deleted:
        said += f", after its old pods ({', '.join(deleted)}) are deleted (Recreate)"
    return Rollout(copies, deleted=deleted, said=said, details=details)


def _rolled(applied: dict[str, Any], replicas: int, strategy: _Strategy, old: list[_Set], head: str,
            details: dict[str, Any], kube: KubeVersion) -> Rollout:
    """A template none of its ReplicaSets has: the new ReplicaSet's first pods, as its strategy
    creates them (Recreate: once every old pod is gone; RollingUpdate: up to maxSurge above
    replicas, old pods deleted first within maxUnavailable when the surge leaves no room)."""
    try:
        new_name = f"{_name(applied)}-{cu.pod_template_hash(_template(applied), kube)}"
    except (cu.NotReproduced, TypeError, ValueError):
        new_name = f"{_name(applied)}-<hash>"
    old_names = ", ".join(s.name for s in old)
    details.update({"replicaSet": new_name, "oldReplicaSets": [s.name for s in old]})
    if strategy.kind == "Recreate":
        deleted = tuple(_name(p) for s in old if s.replicas > 0 for p in s.pods)
        details.update({"created": replicas, "deleted": list(deleted)})
        return Rollout(replicas, deleted=deleted, details=details,
                       said=f"{head}, another template (Recreate): the old pods ({len(deleted)}, ReplicaSet "
                            f"{old_names}) are deleted first, then the new ReplicaSet {new_name} creates "
                            f"{_pods(replicas)}")
    sizes = {s.name: s.replicas for s in old}
    copies = _new_replicas(replicas, strategy, sum(sizes.values()), 0)
    if copies == 0 and replicas > 0:        # no room above replicas: old pods go first, within maxUnavailable
        sizes = _old_scaled(replicas, strategy, old)
        copies = _new_replicas(replicas, strategy, sum(sizes.values()), 0)
    deleted = _deleted(old, sizes)
    details.update({"created": copies, "deleted": list(deleted), "maxSurge": strategy.surge,
                    "maxUnavailable": strategy.unavailable})
    running = sum(len(s.pods) for s in old) - len(deleted)
    said = (f"{head}, another template ({strategy.words()}): the new ReplicaSet {new_name} creates "
            f"{copies} of its {replicas} pods beside {running} old ones (ReplicaSet {old_names})")
    if deleted:
        said += f" once {', '.join(deleted)} {'is' if len(deleted) == 1 else 'are'} deleted"
    if copies < replicas:
        said += "; the others follow as the new pods become available"
    return Rollout(copies, deleted=deleted, said=said, details=details)


def _ordinal_of(name: str, pod: Mapping[str, Any]) -> int | None:
    tail = _name(pod)[len(name) + 1:] if _name(pod).startswith(name + "-") else ""
    return int(tail) if tail.isdigit() else None


def _start(sts: Mapping[str, Any]) -> int:
    start = _dict(_dict(sts.get("spec")).get("ordinals")).get("start")
    return start if isinstance(start, int) and not isinstance(start, bool) and start >= 0 else 0


def statefulset_rollout(applied: dict[str, Any], live: Mapping[str, Any], children: Children,
                        kube: KubeVersion = DEFAULT_VERSION) -> Rollout | None:
    """What the StatefulSet controller does with `applied` (kubectl apply's result onto `live`),
    given its pods on the cluster (updateStatefulSet); None when it has none there."""
    pods = _active(children.of(applied, "Pod"))
    if not pods:
        return None
    name, spec = _name(applied), _dict(applied.get("spec"))
    replicas, before, start = replica_count(applied), replica_count(live), _start(applied)
    changed = bool(_template(live)) and template_key(_template(applied), kube) != template_key(_template(live), kube)
    by_ordinal = {o: p for p in pods if (o := _ordinal_of(name, p)) is not None}
    head = f"exists on the cluster: {_scaled(before, replicas)}"
    strategy = str(_dict(spec.get("updateStrategy")).get("type") or "RollingUpdate")
    details: dict[str, Any] = {"replicas": {"from": before, "to": replicas}, "templateChanged": changed,
                               "strategy": strategy, "running": len(pods)}
    condemned = tuple(_name(by_ordinal[o]) for o in sorted(by_ordinal, reverse=True)
                      if not start <= o < start + replicas)
    todo: ToCreate = statefulset_to_create(applied, pods)
    if todo.copies:         # its missing ordinals first, at the update revision
        made = [f"{name}-{start + todo.skip + i}" for i in range(todo.copies)]
        details.update({"created": todo.copies, "pods": made})
        said = (f"{head}: its controller creates {', '.join(made)} beside "
                f"{', '.join(_name(by_ordinal[o]) for o in sorted(by_ordinal))}")
        later = [o for o in range(start, start + replicas) if o not in by_ordinal][todo.copies:]
        if later:
            said += (f"; {', '.join(f'{name}-{o}' for o in later)} once the pod before each is Running and Ready"
                     if (spec.get("podManagementPolicy") or "OrderedReady") != "Parallel" else
                     f"; {', '.join(f'{name}-{o}' for o in later)} too")
        return Rollout(todo.copies, todo.skip, said=said, details=details)
    missing = [o for o in range(start, start + replicas) if o not in by_ordinal]
    details.update({"created": 0, "deleted": list(condemned)})
    if missing:             # OrderedReady: a lower ordinal not Running and Ready yet
        return Rollout(0, said=f"{head}: its controller creates {name}-{missing[0]} only once every pod before "
                               "it is Running and Ready (podManagementPolicy OrderedReady)", details=details)
    gone = f"; it deletes {', '.join(condemned)}" if condemned else ""
    if not changed:
        return Rollout(0, deleted=condemned, said=f"{head}, the same template: {_run(replicas)}{gone}, no new pod",
                       details=details)
    if strategy == "OnDelete":
        return Rollout(0, deleted=condemned, details=details,
                       said=f"{head}, another template (updateStrategy OnDelete): its controller replaces a pod only "
                            f"once someone deletes it{gone}, no new pod now")
    return _rolled_set(applied, by_ordinal, condemned, head, details)


def _rolled_set(sts: dict[str, Any], by_ordinal: dict[int, dict[str, Any]], condemned: tuple[str, ...],
                head: str, details: dict[str, Any]) -> Rollout:
    """RollingUpdate: the pod of the highest ordinal at or above the partition deleted and created
    again at the update revision, once (OrderedReady) every pod is Running and Ready."""
    name, spec = _name(sts), _dict(sts.get("spec"))
    start, replicas = _start(sts), replica_count(sts)
    partition = _dict(_dict(spec.get("updateStrategy")).get("rollingUpdate")).get("partition")
    partition = partition if isinstance(partition, int) and not isinstance(partition, bool) else 0
    in_range = [o for o in sorted(by_ordinal) if start <= o < start + replicas]
    waiting = [o for o in in_range if not (_dict(by_ordinal[o].get("status")).get("phase") == "Running"
                                           and _ready(by_ordinal[o]))]
    if waiting and (spec.get("podManagementPolicy") or "OrderedReady") != "Parallel":
        return Rollout(0, details=details, said=f"{head}, another template (RollingUpdate): its controller waits "
                                                f"for {name}-{waiting[0]} to be Running and Ready, no new pod now")
    targets = [o for o in in_range if o - start >= partition]
    if not targets:
        return Rollout(0, details=details, said=f"{head}, another template (RollingUpdate, partition {partition}): "
                                                "no pod at or above the partition is updated, no new pod")
    target = targets[-1]
    deleted = (*condemned, f"{name}-{target}")
    details.update({"created": 1, "deleted": list(deleted), "pods": [f"{name}-{target}"], "partition": partition})
    return Rollout(1, target - start, deleted, details=details,
                   said=f"{head}, another template (RollingUpdate): its controller deletes {name}-{target}, the "
                        "highest ordinal, and creates it again with the new template; the lower ordinals follow "
                        "one at a time as each new pod is Running and Ready")


def rollout(applied: dict[str, Any], live: Mapping[str, Any], children: Children,
            kube: KubeVersion = DEFAULT_VERSION) -> Rollout | None:
    """What the controllers do with a Deployment or StatefulSet applied onto the one the cluster runs
    (None: another kind, or none of its objects on the cluster: explained as written)."""
    if applied.get("kind") == "Deployment":
        return deployment_rollout(applied, live, children, kube)
    if applied.get("kind") == "StatefulSet":
        return statefulset_rollout(applied, live, children, kube)
    if applied.get("kind") in ("ReplicaSet", "ReplicationController"):
        return _replicas(applied, live, children)
    return None


def _replicas(applied: dict[str, Any], live: Mapping[str, Any], children: Children) -> Rollout | None:
    """A ReplicaSet's or ReplicationController's pods (manageReplicas): `replicas` less its active
    pods, or its extra pods deleted."""
    pods = _active(children.of(applied, "Pod"))
    if not pods:
        return None
    replicas, before = replica_count(applied), replica_count(live)
    copies = max(0, replicas - len(pods))
    deleted = tuple(_name(p) for p in _deletion_order(pods)[:max(0, len(pods) - replicas)])
    details = {"replicas": {"from": before, "to": replicas}, "running": len(pods), "created": copies,
               "deleted": list(deleted)}
    head = f"exists on the cluster: {_scaled(before, replicas)}"
    if copies == 0:
        gone = f"; it deletes {', '.join(deleted)}" if deleted else ""
        return Rollout(0, deleted=deleted, details=details,
                       said=f"{head}: {_run(len(pods) - len(deleted))}{gone}, no new pod")
    return Rollout(copies, details=details, said=f"{head}: it creates {_pods(copies)} beside its {len(pods)} running")
