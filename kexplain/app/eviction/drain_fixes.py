"""Fixes for a blocked drain, each checked by draining again: the flags kubectl names for its
refusals; then, for each budget that refused an eviction, relaxing it (minAvailable or
maxUnavailable set so it allows what the drain spends) or scaling its workload up by the pods the
drain takes (the new pods scheduled with the node cordoned, a StatefulSet's with the claims its
controller creates for them, and counted healthy only where they fit); for a budget the disruption
controller cannot sync for want of its pods' owner, that owner given; for a pod two budgets select,
deleting one of them. A changed budget's status is the disruption controller's again, as its next
sync would write it."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Optional, Sequence

from kexplain.app.eviction.drain_index import DrainIndex, key_of
from kexplain.app.eviction.replacements import Replacement, placements
from kexplain.apimachinery.names import is_dns1123_subdomain
from kexplain.controllers.workloads import pod_from_workload, statefulset_claims
from kexplain.errors import KexplainError, Source
from kexplain.controllers.disruption import is_ready, unfound_owners
from kexplain.eviction.api import MULTIPLE, REFUSED, SPENT
from kexplain.model.owners import controller_ref
from kexplain.model.pod import PodInfo
from kexplain.model.shapes import pending_key, shape_key
from kexplain.state.cluster import ClusterState

FLAG_OPTIONS = {"--ignore-daemonsets": "ignore_daemonsets", "--delete-emptydir-data": "delete_emptydir_data",
                "--force": "force"}
READY = {"type": "Ready", "status": "True"}
SYNC_FAILED = "SyncFailed"      # the DisruptionAllowed condition's reason when the controller cannot sync
SCALED = Source("<scale>")      # where a scale fix's new objects come from
Drain = Callable[[DrainIndex, Mapping[str, Any]], Any]      # (objects, options) -> Drained


@dataclass(frozen=True)
class Fix:
    """One change to the drain's inputs: its words, the objects as changed, the options as changed."""

    fix: str
    objects: DrainIndex = field(repr=False)
    options: Mapping[str, Any] = field(default_factory=dict)
    unverified: str = ""        # why it could not be checked (new pods that do not fit)
    budget: str = ""            # the budget it is for ("": the whole drain)
    change: Optional[tuple[Any, Any]] = field(default=None, repr=False)    # (old object, new or None): composable


PLACED_KEPT = 256       # scale fixes' answers kept per cordoned cluster (a drain asks a few dozen)


@dataclass(frozen=True)
class Cordoned:
    """The cluster with the drained node cordoned, where a scale fix's new pods are scheduled, and
    where they land by what decides it: a blocked drain's rounds ask the same again, `kexplain
    cluster`'s drains of nodes cordoned already share one (the same cluster for each), and a
    workload asked again with more pods has the answers of its first ones already."""

    state: ClusterState
    placed: dict[Any, tuple[Any, list[Optional[str]]]] = field(default_factory=dict, repr=False)

    def nodes(self, creator: Mapping[str, Any], first: int, new: list[dict],
              evicted: PodInfo) -> list[Optional[str]]:
        """The node each of `creator`'s `new` pods (ordinals from `first`) lands on, placed one after
        another over the cordoned cluster with their claims (None: it does not fit); `evicted`, the
        pod they stand for, is not read by the placing. Asked once per question: new pods of the
        shapes (`pending_key`: all a pod's verdict reads of it) and claims of pods placed before land
        where those did, and as pod i's node depends on the pods before it only, a workload asked
        for fewer pods than before (without claims) has its answer in the longer one's."""
        claims = new_claims(self.state, creator, first, len(new))
        key = placed_key(claims, new)
        found = self._kept(key, creator, first, len(new))
        if found is not None:
            return found
        state = self.state.extended([], [(c, SCALED) for c in claims]) if claims else self.state
        answers = placements(state, [Replacement(evicted, pod=p, source=SCALED) for p in new])
        nodes = [(answers.get(i) or {}).get("node") for i in range(len(new))]
        if len(self.placed) >= PLACED_KEPT:
            self.placed.clear()
        self.placed[key if key is not None else (id(creator), first, len(new))] = (creator, nodes)
        return nodes

    def _kept(self, key: Optional[tuple], creator: Mapping[str, Any], first: int, n: int
              ) -> Optional[list[Optional[str]]]:
        """The nodes kept for `key`, or for a longer question it begins (a pod not keyed: for this
        very workload object, ordinals and count)."""
        if key is None:
            kept = self.placed.get((id(creator), first, n))
            return kept[1] if kept is not None and kept[0] is creator else None
        kept = self.placed.get(key)
        if kept is not None:
            return kept[1]
        for longer, (_, nodes) in self.placed.items():
            if len(longer) > len(key) and longer[0] == key[0] == b"" and longer[:len(key)] == key:
                return nodes[:n]
        return None


def new_claims(state: ClusterState, creator: Mapping[str, Any], first: int, n: int) -> list[dict]:
    """The claims a StatefulSet's controller creates for its `n` new pods from `first` on (its
    volumeClaimTemplates, `<template>-<set>-<ordinal>`), as `kexplain FILE` creates a StatefulSet's
    (`controllers.workloads.statefulset_claims`): only those missing from `state` (the controller
    creates only what is missing); none for another workload. `ClusterState.extended` admits them
    and hands them to the PersistentVolume controller."""
    made = statefulset_claims(dict(creator), first + n)
    per_pod = len(made) // (first + n) if made else 0
    have = {key_of(c) for c in state.snapshot.of_kind("PersistentVolumeClaim")} if made else set()
    return [c for c in made[per_pod * first:] if key_of(c) not in have]     # (one kept from before stays)


def placed_key(claims: list[dict], new: list[dict]) -> Optional[tuple]:
    """What the placing of `new` pods with `claims` added reads besides the cluster: the claims
    (b"": none) and each pod's shape, with whether its name is one the API server takes (its
    only part admission reads); None when a pod's verdict is its own (`pending_key`)."""
    parts: list[Any] = [shape_key(claims) if claims else b""]
    for obj in new:
        try:
            shape = pending_key(PodInfo(obj))
        except (AttributeError, TypeError):     # (not a pod: its placing says why)
            return None
        if shape is None or parts[0] is None:
            return None
        parts.append((shape, not is_dns1123_subdomain(str((obj.get("metadata") or {}).get("name") or ""))))
    return tuple(parts)


def replaced(objects: DrainIndex, old: Mapping[str, Any], new: Optional[dict]) -> DrainIndex:
    """`objects` with `old` replaced by `new` (None: removed)."""
    return objects.replaced({id(old): new})


def recomputed(pdb: Mapping[str, Any], spec: Mapping[str, Any]) -> dict:
    """A budget with a new spec and no status: the disruption controller's next sync writes it."""
    meta = dict(pdb.get("metadata") or {})
    meta["generation"] = (meta.get("generation") if isinstance(meta.get("generation"), int) else 1) + 1
    return {k: v for k, v in {**pdb, "metadata": meta, "spec": dict(spec)}.items() if k != "status"}


def flag_fix(drained: Any, objects: DrainIndex, options: Mapping[str, Any]) -> Optional[Fix]:
    """The flags that override kubectl's refusals, together."""
    flags = sorted({i.status.flag for i in drained.listed.items if i.status.reason == "Error" and i.status.flag})
    if not flags:
        return None
    return Fix(f"add {' '.join(flags)}", objects, {**options, **{FLAG_OPTIONS[f]: True for f in flags}})


def needs(drained: Any) -> dict[str, int]:
    """Per budget that refused an eviction: how many disruptions the drain spends from it."""
    refused = {e.before.key for e in drained.evictions if e.answer.rule == REFUSED and e.before is not None}
    out: dict[str, int] = {}
    for e in drained.evictions:
        if e.before is not None and e.before.key in refused and e.answer.rule in (SPENT, REFUSED):
            out[e.before.key] = out.get(e.before.key, 0) + 1
    return out


def relax_fix(budget: Any, n: int, pdb: Mapping[str, Any], objects: DrainIndex,
              options: Mapping[str, Any]) -> Optional[Fix]:
    """The budget set to allow the `n` disruptions the drain spends, from its current health."""
    spec = dict(pdb.get("spec") or {})
    desired = max(budget.current_healthy - n, 0)
    if spec.get("maxUnavailable") is not None:
        value, field_name = max(budget.expected_pods - desired, 0), "maxUnavailable"
    elif spec.get("minAvailable") is not None:
        value, field_name = desired, "minAvailable"
    else:
        return None
    was = spec.get(field_name)
    if value == was or budget.expected_pods <= 0:   # (no expected pod: the controller allows nothing)
        return None
    spec[field_name] = value
    new = recomputed(pdb, spec)
    return Fix(f"set {budget.key} {field_name} to {value} (was {was})", replaced(objects, pdb, new), options,
               budget=budget.key, change=(pdb, new))


def always_allow_fix(budget: Any, drained: Any, pdb: Mapping[str, Any], objects: DrainIndex,
                     options: Mapping[str, Any]) -> Optional[Fix]:
    """For a budget refusing pods that are not ready: unhealthyPodEvictionPolicy AlwaysAllow."""
    unready = [e for e in drained.evictions if e.before is not None and e.before.key == budget.key
               and e.answer.rule == REFUSED and not is_ready(e.pod)]
    if not unready or (pdb.get("spec") or {}).get("unhealthyPodEvictionPolicy") == "AlwaysAllow":
        return None
    new = recomputed(pdb, {**(pdb.get("spec") or {}), "unhealthyPodEvictionPolicy": "AlwaysAllow"})
    return Fix(f"set {budget.key} unhealthyPodEvictionPolicy to AlwaysAllow ({len(unready)} of its pods are not "
               "ready)", replaced(objects, pdb, new), options, budget=budget.key, change=(pdb, new))


def delete_fix(key: str, pdb: Mapping[str, Any], objects: DrainIndex, options: Mapping[str, Any]) -> Fix:
    return Fix(f"delete PodDisruptionBudget {key}", replaced(objects, pdb, None), options, budget=key,
               change=(pdb, None))


def owners_missing(budget: Any, objects: DrainIndex) -> list[Mapping[str, Any]]:
    """The owners of the budget's pods that the disruption controller's finders do not find among
    the objects (its sync fails: "found no controllers for pod"); none for a budget that syncs."""
    if budget.selector is None or not any(c.get("reason") == SYNC_FAILED for c in budget.conditions):
        return []
    return unfound_owners(objects.pods_in(budget.namespace).selected(budget.selector), objects.controllers)


def owner_text(ref: Mapping[str, Any], namespace: str) -> str:
    return f"{ref.get('kind')} {namespace}/{ref.get('name')}"


def owner_fix(budget: Any, pdb: Mapping[str, Any], objects: DrainIndex, options: Mapping[str, Any]) -> Optional[Fix]:
    """For a budget the disruption controller cannot sync because its pods' owner is not among the
    objects (a `kubectl get pods` without its ReplicaSet): the owner given, checked with as many
    replicas as its pods read (what its controller keeps), the budget synced again."""
    missing = owners_missing(budget, objects)
    if not missing:
        return None
    pods = objects.pods_in(budget.namespace)
    added = {}
    for ref in missing:
        count = sum(1 for p in pods if (controller_ref(p) or {}).get("name") == ref.get("name")
                    and (controller_ref(p) or {}).get("kind") == ref.get("kind"))
        meta = {"name": ref.get("name"), "namespace": budget.namespace,
                **({"uid": ref["uid"]} if ref.get("uid") else {})}
        owner = {"apiVersion": ref.get("apiVersion"), "kind": ref.get("kind"), "metadata": meta,
                 "spec": {"replicas": count}}
        added[key_of(owner)] = owner
    new = recomputed(pdb, pdb.get("spec") or {})
    changed = objects.replaced({id(pdb): new})
    words = ", ".join(owner_text(r, budget.namespace) for r in missing)
    get = " ".join(f"{str(r.get('kind')).lower()}/{r.get('name')}" for r in missing)
    return Fix(f"give {words}, the owner of {budget.key}'s pods, with the cluster's objects (kubectl get {get} "
               f"-n {budget.namespace} -o yaml): the disruption controller then finds its scale",
               replace(changed, workloads={**changed.workloads, **added}), options, budget=budget.key)


def workload_of(pod: PodInfo, index: Mapping[tuple[str, str, str], dict]) -> tuple[Optional[dict], Optional[dict]]:
    """The object whose replicas scale the pod's pods (a ReplicaSet's Deployment), and the one that
    creates them (the ReplicaSet itself)."""
    ref = controller_ref(pod)
    if ref is None:
        return None, None
    creator = index.get((str(ref.get("kind")), pod.namespace, str(ref.get("name"))))
    if creator is None or creator.get("kind") not in ("ReplicaSet", "StatefulSet", "ReplicationController"):
        return None, None
    owner = next((r for r in (creator.get("metadata") or {}).get("ownerReferences") or ()
                  if isinstance(r, dict) and r.get("controller") is True and r.get("kind") == "Deployment"), None)
    scaled = index.get(("Deployment", pod.namespace, str(owner.get("name")))) if owner else None
    return (scaled or creator), creator


def with_replicas(obj: Mapping[str, Any], more: int) -> dict:
    spec = dict(obj.get("spec") or {})
    replicas = spec.get("replicas") if isinstance(spec.get("replicas"), int) else 1
    return {**obj, "spec": {**spec, "replicas": replicas + more}}


def scale_fix(key: str, n: int, drained: Any, cordoned: Cordoned, objects: DrainIndex,
              options: Mapping[str, Any]) -> Optional[Fix]:
    """The budget's workload scaled up by what it lacks for the `n` disruptions the drain spends:
    the new pods scheduled over `cordoned` (the cluster with the node cordoned, one overlay for every
    fix), and, where they fit, running and ready when the drain runs again."""
    allowed = next((b.disruptions_allowed for b, _ in drained.budgets if b.key == key), 0)
    n = max(n - max(allowed, 0), 1)
    pod = next((e.pod for e in drained.evictions if e.before is not None and e.before.key == key), None)
    scaled, creator = workload_of(pod, objects.workloads) if pod is not None else (None, None)
    if scaled is None or creator is None:
        return None
    replicas = (creator.get("spec") or {}).get("replicas")
    count = replicas if isinstance(replicas, int) else 1
    # a StatefulSet's new pods take the next ordinals; another's are named apart from today's pods
    first = count if creator.get("kind") == "StatefulSet" else count + 100
    try:
        new = [pod_from_workload(creator, SCALED, first + i) for i in range(n)]
        nodes = cordoned.nodes(creator, first, new, pod)
    except KexplainError:
        return None
    bound = [{**p, "spec": {**p["spec"], "nodeName": node}, "status": {"phase": "Running", "conditions": [READY]}}
             for p, node in zip(new, nodes) if node]
    changes: dict[int, Optional[dict]] = {id(o): with_replicas(o, n) for o in (scaled, creator)}
    changes.update({id(o): recomputed(o, o.get("spec") or {}) for k, o in objects.pdbs_by_key.items() if k == key})
    kind, namespace, name = key_of(scaled)
    words = f"scale {kind} {namespace}/{name} to {with_replicas(scaled, n)['spec']['replicas']} replicas"
    unfit = n - len(bound)
    return Fix(words, objects.replaced(changes, bound), options,
               f"{unfit} of the {n} new pods do not fit with the node cordoned" if unfit else "", budget=key)


def remove_fixes(drained: Any, objects: DrainIndex, options: Mapping[str, Any]) -> list[Fix]:
    """For a pod two budgets select: each of them deleted, one at a time."""
    budgets = objects.pdbs_by_key
    keys: list[str] = []
    for e in drained.evictions:
        if e.answer.rule == MULTIPLE:
            keys += [b.key for b in drained.after.values() if b.selects(e.pod) and b.key not in keys]
    return [delete_fix(k, budgets[k], objects, options) for k in keys if k in budgets]


def candidates(drained: Any, cordoned: Cordoned, objects: DrainIndex, options: Mapping[str, Any]) -> list[Fix]:
    """The fixes to check for a blocked drain (`drained`, with `options` already the flag fix's;
    `cordoned`: the cluster with the node cordoned)."""
    pdbs = objects.pdbs_by_key
    out: list[Fix] = []
    for key, n in needs(drained).items():
        if key not in pdbs:
            continue
        before = next(e.before for e in drained.evictions if e.before is not None and e.before.key == key)
        owner = owner_fix(before, pdbs[key], objects, options)
        relax = always_allow_fix(before, drained, pdbs[key], objects, options) or \
            relax_fix(before, n, pdbs[key], objects, options) or delete_fix(key, pdbs[key], objects, options)
        scale = scale_fix(key, n, drained, cordoned, objects, options) if owner is None else None
        out += [f for f in (owner, relax, scale) if f is not None]
    return out + remove_fixes(drained, objects, options)


def together(found: Sequence[Fix], objects: DrainIndex, options: Mapping[str, Any]) -> Optional[Fix]:
    """The budget changes of `found` together, one per budget, and of a pod's two budgets only the
    first deleted; None when there is none."""
    changes: dict[int, Any] = {}
    words: list[str] = []
    seen: set[str] = set()
    deleted_with: set[str] = set()      # budgets whose pod another deleted budget already frees
    for fix in found:
        if fix.change is None or fix.budget in seen or fix.budget in deleted_with:
            continue
        if fix.change[1] is None and fix.fix.startswith("delete"):
            deleted_with |= {f.budget for f in found if f.change is not None and f.change[1] is None} - {fix.budget}
        seen.add(fix.budget)
        changes[id(fix.change[0])] = fix.change[1]
        words.append(fix.fix)
    if not words:
        return None
    return Fix("; ".join(words), objects.replaced(changes), options)


ROUNDS = 3      # a combination checked, then what still blocks it fixed on top, at most this often


def settled(found: Sequence[Fix], drained: Any, cordoned: Cordoned, objects: DrainIndex,
            options: Mapping[str, Any], drain: Drain) -> Optional[tuple[Fix, Any]]:
    """The budget changes together, drained again, and what still blocks fixed on top (a pod's
    second budget once the first is gone), until the drain goes or nothing more helps; with its
    drain (the last one run: the fixes' list reads it, not a drain again)."""
    words: list[str] = []
    current, fix, again = objects, None, None
    for _ in range(ROUNDS):
        step = together(found, current, options)
        if step is None:
            break
        words.append(step.fix)
        fix = Fix("; then ".join(words), step.objects, options)
        again = drain(fix.objects, options)
        if not again.blocked:
            break
        current = fix.objects
        found = candidates(again, cordoned, current, options)
    return (fix, again) if fix is not None and len(words) + words[0].count(";") > 1 else None


def outcome(drained: Any) -> str:
    errors = len(drained.listed.errors())
    if errors:
        return f"kubectl refuses: {errors} error(s)"
    refused = sum(1 for e in drained.evictions if not e.answer.evicted)
    return f"{len(drained.evictions) - refused} evicted, {refused} refused"


def fixes(drained: Any, cordoned: Cordoned, objects: DrainIndex, options: Mapping[str, Any],
          drain: Drain) -> list[dict[str, Any]]:
    """The document's `fixes`: each candidate, the drain run again with it, and what that answered
    (`cordoned`: the cluster with the node cordoned, where a scale fix's new pods are scheduled)."""
    out = []
    flags = flag_fix(drained, objects, options)
    base, base_options = drained, options
    for _ in range(len(FLAG_OPTIONS)):      # a pod kubectl refuses twice needs two flags: each named in turn
        if flags is None:
            break
        base, base_options = drain(objects, flags.options), flags.options
        more = flag_fix(base, objects, base_options)
        if more is None:
            break
        flags = Fix(f"{flags.fix} {more.fix.removeprefix('add ')}", objects, more.options)
    if flags is not None:
        out.append({"fix": flags.fix, "drains": not base.blocked, "result": outcome(base)})
    if not base.blocked:
        return out
    found = candidates(base, cordoned, objects, base_options)
    combined = settled(found, base, cordoned, objects, base_options, drain)
    for fix, drained_with in [*((f, None) for f in found), *([combined] if combined is not None else [])]:
        again = drained_with if drained_with is not None else drain(fix.objects, fix.options)
        words = f"{flags.fix}; {fix.fix}" if flags is not None else fix.fix
        item = {"fix": words, "drains": not again.blocked and not fix.unverified, "result": outcome(again)}
        if fix.budget:
            item["budget"] = fix.budget
            item["result"] = cleared(again, fix.budget) + "; " + item["result"]
        if fix.unverified:
            item["result"] += f"; {fix.unverified}"
        out.append(item)
    return out


def cleared(again: Any, key: str) -> str:
    """How many of the budget's pods the drain evicts with the fix."""
    pods = [e for e in again.evictions if e.before is not None and e.before.key == key]
    if not pods:
        return f"{key} holds none of the drained pods now"
    return f"{sum(1 for e in pods if e.answer.evicted)} of its {len(pods)} pods evicted"
