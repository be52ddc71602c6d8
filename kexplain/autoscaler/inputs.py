"""What one CA loop starts from: the pending pods, the cluster, the node groups and the settings,
admitted as the API server would and completed as the CA cases' README says (creation times,
Ready conditions); the snapshot in cluster order without expendable pods (docs/internals/autoscaler.md)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from kexplain.admission import admit
from kexplain.admission.shapes import ShapeIndex
from kexplain.apimachinery import columns
from kexplain.apimachinery.fielderrors import go_quote
from kexplain.apimachinery.stored_pods import StoredPod
from kexplain.admission.workloads import object_uid
from kexplain.autoscaler.cloudprovider import CLUSTER_API_KINDS
from kexplain.autoscaler.cloudprovider.provider import Chosen, choose
from kexplain.autoscaler.gpu import listed_gpu_ready
from kexplain.autoscaler.nodegroups import NodeGroup
from kexplain.autoscaler.params import Settings, read_settings
from kexplain.autoscaler.provisioningrequest.conditions import ENABLE_FLAG
from kexplain.autoscaler.provisioningrequest.pods import requests_note
from kexplain.autoscaler.readiness import node_readiness
from kexplain.autoscaler.taints import TaintConfig, as_listed
from kexplain.controllers.disruption import Statuses, notes as budget_notes
from kexplain.controllers.persistentvolume import settle
from kexplain.errors import AdmissionRejected, Source
from kexplain.explain.inputs import read_config
from kexplain.explain.pending_pass import creation_order, creation_time, with_victims
from kexplain.explain.pod_events import parse_time
from kexplain.features import KubeVersion
from kexplain.load.manifests import check_objects
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot
from kexplain.state.apply import cluster_with
from kexplain.state.build import build_cluster
from kexplain.state.cluster import ClusterState
from kexplain.state.objects import CLUSTER_KINDS, Objects, of_kinds

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.autoscaler.cloudprovider import Discovery
    from kexplain.explain.pending_pass import PendingPass

CA_KUBERNETES = "1.36"      # the scheduler the reference CA embeds (Kubernetes v1.36.2 vendored)
PENDING_AGE = timedelta(minutes=10)
NODE_AGE = timedelta(hours=2)
# Kinds read from --nodes besides the scheduler's: DaemonSets (templates), ConfigMaps (the
# priority expander's), Jobs and Deployments (controllers of pods).
EXTRA_KINDS = frozenset({"DaemonSet", "ConfigMap", "Job", "Deployment"})
LISTED_KINDS = frozenset({"DaemonSet", "ConfigMap", "Job"})     # ... those CA's listing keeps


@dataclass(frozen=True)
class NodeFacts:
    """What CA reads of a Node besides what the scheduler does."""

    name: str
    ready: bool
    ready_since: datetime | None     # the Ready condition's last transition
    created: datetime
    group: str | None                # the node group it is an instance of


@dataclass
class LoopInputs:
    """The loaded loop: settings, groups (with members, cluster order), the snapshot, pods."""

    settings: Settings
    kube: KubeVersion
    now: datetime
    groups: list[NodeGroup]
    group_members: dict[str, list[str]]
    nodes: list[NodeFacts]                    # cluster order
    snapshot: Snapshot                        # nodes in cluster order, non-expendable bound pods
    pending: list[PodInfo]                    # pods.yaml order, admitted
    pending_created: list[datetime]
    daemonsets: list[dict[str, Any]]          # cluster order
    config_maps: list[dict[str, Any]]
    scheduler_config: Any
    warnings: list[str] = field(default_factory=list)
    jobs: list[dict[str, Any]] = field(default_factory=list)   # what scale-down's drainability rules look up
    base: Snapshot | None = None    # the snapshot before `with_pending` put pods on nodes (None: `snapshot`)
    provider: Chosen = field(default_factory=Chosen)     # the cloud provider followed, and how it was found
    # what the simulations of these inputs found, shared with the copies `replace` makes of them
    # (a loop run again with a change): scheduler configuration (by identity) -> `SimMemo`
    memo: dict[int, Any] = field(default_factory=dict, compare=False, repr=False)


def loop_of_read(cluster_objs: Objects, groups: "Discovery", settings_path: str | None, kube: KubeVersion, *,
                 max_bytes: int, validate: str = "strict", now: datetime | None = None,
                 applied: "PendingPass | None" = None) -> LoopInputs:
    """One loop's inputs from a cluster read but in no state (explain's stored pod, a file whose pods
    were all refused), checked and admitted here once, `applied`'s set joining it; as a stored state's."""
    settings = read_settings(settings_path, max_bytes)
    return _admitted_loop(_listed(cluster_objs), [], settings, groups, kube, now or datetime.now(timezone.utc),
                          validate, applied)


class _AdmittedOnce:
    """The last stored state's objects as CA's loop checks and admits them (`_admitted_loop`), by
    the objects read (`ClusterState.read`: each the very object, in order; the report's pending
    pass reads a copy of the list), the validation and version: the report's CA loops (its pending
    pass and its scale-down) read one cluster, whose admission cannot differ between them.
    With them, what CA's listers make of them (`listed`: budget notes, the groups' members, the snapshot), which
    the loops' clocks do not change. Bounded: one list, held strongly (objects compared with `is`:
    equal ones read again are not the same)."""

    def __init__(self) -> None:
        self.read: Any = None
        self.entries: dict[tuple, Any] = {}

    def get(self, read: Any, key: tuple) -> "tuple | None":
        return self.entries.get(key) if self._same(read) else None

    def put(self, read: Any, key: tuple, value: tuple) -> None:
        if not self._same(read):
            self.read, self.entries = read, {}
        self.entries[key] = value

    def listed(self, read: Any, key: tuple, settings: Settings, groups: "Discovery",
               make: "Callable[[], tuple[_Listed, Snapshot]]") -> "tuple[_Listed, Snapshot]":
        """What CA's listers make of the admitted objects kept for `key` (`_listed_of`), and the snapshot
        built of it, made once per settings and groups equal to these (the report's loops each read the
        groups' file again): a snapshot is never edited in place (`Snapshot.with_pod_bound`), so every
        loop over the listing starts from this one (and finds the indexes the plugins cached on it)."""
        if not self._same(read):
            return make()
        made = self.entries.setdefault(("listed", *key), [])
        for kept_settings, kept_groups, listed, snapshot in made:
            if kept_settings == settings and kept_groups == groups:
                return listed, snapshot
        listed, snapshot = make()
        if len(made) < LISTED_KEPT:
            made.append((settings, groups, listed, snapshot))
        return listed, snapshot

    def once(self, read: Any, key: tuple, make: "Callable[[], Any]") -> Any:
        """What `make` makes of the objects read, made once while they are the last read (a note on them)."""
        if not self._same(read):
            return make()
        found = self.entries.get(key, self)
        if found is self:
            found = self.entries[key] = make()
        return found

    def _same(self, read: Any) -> bool:
        """The same objects, each the very one, in the same order (a copy of the list is the same)."""
        kept = self.read
        return kept is not None and len(kept) == len(read) and all(a is b for a, b in zip(kept, read))


_ADMITTED = _AdmittedOnce()
MEMO = "memo"       # where a listing keeps its loops' `LoopInputs.memo` (`_Listed.shared`)
LISTED_KEPT = 4     # listings kept per admission (settings and groups told apart)


def _admitted_loop(cluster_objs: Objects, pod_objs: Objects, settings: Settings, groups: "Discovery",
                   kube: KubeVersion, now: datetime, validate: str, applied: "PendingPass | None",
                   read: "Objects | None" = None) -> LoopInputs:
    """The loop of objects read and never admitted (`applied`'s set joining them), checked and
    admitted here once, the pending pods of `pod_objs` with them; `read`: the stored state's objects
    as read (`ClusterState.read`) they are: alone (no set, no pod) checked and admitted once for
    every loop over them."""
    set_sources = set()
    if applied is not None:
        cluster_objs = applied.applied_to(cluster_objs)
        set_sources = {id(s) for _, s in (*applied.objects, *applied.created)}
    pending_src = [(o, s) for o, s in pod_objs if o.get("kind") == "Pod" and not (o.get("spec") or {}).get("nodeName")]
    pending_objs = {id(o) for o, _ in pending_src}
    others = [(o, s) for o, s in pod_objs if id(o) not in pending_objs]
    refuse_repeats((cluster_objs, others), pending_src)
    alone = read is not None and not pod_objs and not set_sources and not (applied is not None and applied.victims)
    key = (validate, kube)
    hit = _ADMITTED.get(read, key) if alone else None
    if hit is None:
        kinds = CLUSTER_KINDS | EXTRA_KINDS
        cluster = _of_kinds(cluster_objs + others if others else cluster_objs, kinds)
        index = ShapeIndex()
        checked = check_objects([*cluster, *pending_src] if pending_src else cluster, kinds, validate=validate,
                                shape_index=index, kube=kube)
        admitted = admit(_of_kinds(checked.objects, CLUSTER_KINDS), None, shape_index=index, kube=kube)
        hit = (checked, admitted)
        if alone:
            _ADMITTED.put(read, key, hit)
    checked, admitted = hit
    enabled = settings.flag(ENABLE_FLAG)
    said = _ADMITTED.once(read, ("requests", enabled), lambda: requests_note(enabled, cluster_objs)) if alone \
        else requests_note(enabled, cluster_objs)      # (alone: of the objects read, as they are)
    warnings = list(checked.warnings) + said
    warnings += admitted.warnings
    pending_ids = {id(s) for _, s in pending_src}
    if not alone:
        return _loop_of(admitted.objects, checked.objects, settings, groups, admitted.kube, now, warnings,
                        set_sources, pending_ids)
    listed, snapshot = _ADMITTED.listed(read, key, settings, groups, lambda: _listed_of(
        admitted.objects, checked.objects, settings, groups, set_sources, pending_ids))
    return _loop_of(admitted.objects, checked.objects, settings, groups, admitted.kube, now, warnings, set_sources,
                    pending_ids, listed, snapshot)


def loop_of_state(state: ClusterState, groups: "Discovery", settings_path: str | None, *, max_bytes: int,
                  validate: str = "strict", now: datetime | None = None,
                  applied: "PendingPass | None" = None, given: Objects = (), held: Objects = ()) -> LoopInputs:
    """One loop's inputs from a cluster state, admitted once: CA's overlays copy-on-write over its
    objects (`applied`'s victims terminating, its set and the `given` pending pods through
    `ClusterState.with_set`), only what joins it checked here; its warnings are the loop's. `held`:
    pending pods of PODS the state holds (read with the cluster), pending after the cluster's own."""
    now = now or datetime.now(timezone.utc)
    settings = read_settings(settings_path, max_bytes)
    if state.stored:        # nothing admitted: the loop admits the objects as read, once
        return _admitted_loop(_listed(state.read or []), [*given, *held], settings, groups, state.kube, now,
                              validate, applied, state.read)
    view, set_sources, extras = state, set(), of_kinds(state.other_kinds, EXTRA_KINDS)
    set_objects: Objects = []
    created: Objects = []
    if applied is not None:
        if applied.victims:
            view = state.overlaid(with_victims(state.objects, applied.victims))
        set_objects, created = list(applied.objects), list(applied.created)
        extras = cluster_with(extras, set_objects, kinds=EXTRA_KINDS, kube=state.kube)
        set_sources = {id(s) for _, s in (*applied.objects, *applied.created)}
    fresh, warnings = _given(view, given, validate)
    warnings += requests_note(settings.flag(ENABLE_FLAG), state.other_kinds)
    objects = view.objects
    if set_objects or created or fresh:
        objects, said = view.with_set([*set_objects, *fresh], created)
        warnings += said
    checked = check_objects(extras, EXTRA_KINDS, validate=validate, kube=state.kube)
    return _loop_of(objects, checked.objects, settings, groups, state.kube, now, [*checked.warnings, *warnings],
                    set_sources, {id(s) for _, s in (*given, *held)})


def _given(state: ClusterState, given: Objects, validate: str) -> tuple[Objects, list[str]]:
    """The pending pods `given`, checked as kubectl sends them (a pod named as one of the cluster's
    refused), and what the checks said."""
    if not given:
        return [], []
    refuse_repeats((state.objects,), list(given))
    checked = check_objects(given, CLUSTER_KINDS, validate=validate, kube=state.kube)
    return list(checked.objects), list(checked.warnings)


@dataclass(frozen=True)
class _Listed:
    """What CA's listers make of an admitted cluster, whatever the loop's clock: read once per state for
    every loop over it (`_AdmittedOnce.listed`); each loop wraps its pods and copies its lists anew."""

    daemonsets: list[dict[str, Any]]
    config_maps: list[dict[str, Any]]
    jobs: list[dict[str, Any]]
    provider: Chosen
    scheduler_objects: Objects          # what CA's snapshot is built of (not the snapshot: memory)
    node_objs: list[dict[str, Any]]
    group_members: dict[str, list[str]]
    pending: list[dict[str, Any]]       # own in creation order, then those of `pending_ids`
    notes: list[str]                    # the disruption controller's budget notes
    # ... and the statuses they were computed from, by budget (`disruption.notes`' `kept`): what the
    # snapshot gives each budget written without one (`build_cluster`), not computed again per loop
    budgets: Statuses = field(default_factory=dict)
    # What every loop over the listing shares (`listing_memo`): the scheduler configuration read per
    # version, and the simulations' memo (`LoopInputs.memo`): the report's pending and scale-down loops
    # run over one snapshot and the same pods, the second replaying the first's searches.
    shared: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)


def _loop_of(objects: Objects, extras: Objects, settings: Settings, groups: "Discovery", kube: KubeVersion,
             now: datetime, warnings: list[str], set_sources: set[int], pending_ids: set[int],
             listed: _Listed | None = None, snapshot: Snapshot | None = None) -> LoopInputs:
    """The loop's inputs from the admitted cluster (`objects`) and its checked extra kinds (`extras`),
    as CA lists them (`_listed_of`, unless `listed` holds it), at `now`: its nodes' facts, its pending pods'
    creation times."""
    if listed is None:
        listed, snapshot = _listed_of(objects, extras, settings, groups, set_sources, pending_ids)
    if snapshot is None:
        snapshot = _listed_snapshot(listed.scheduler_objects, listed.node_objs, listed.budgets)
    owner = {n: g for g, names in listed.group_members.items() for n in names}
    order = [(o.get("metadata") or {}).get("name") or "" for o in listed.node_objs]
    facts = [_node_facts(o, now, owner.get(n)) for o, n in zip(listed.node_objs, order)]
    config = listed.shared.get(kube)
    if config is None:      # (one configuration per listing and version: the key of its loops' `memo`)
        config = listed.shared[kube] = read_config(None, kube=kube)
    members = {g: list(names) for g, names in listed.group_members.items()}
    loop = LoopInputs(settings, kube, now, list(groups.groups), members, facts, snapshot, [], [],
                      list(listed.daemonsets), list(listed.config_maps), config, [*warnings, *listed.notes],
                      list(listed.jobs), base=snapshot, provider=listed.provider,
                      memo=listed.shared.setdefault(MEMO, {}))
    return with_pending(loop, [PodInfo(o) for o in listed.pending])


def _listed_of(objects: Objects, extras: Objects, settings: Settings, groups: "Discovery", set_sources: set[int],
               pending_ids: set[int]) -> "tuple[_Listed, Snapshot]":
    """The cluster as CA lists it: the set's claims settled, pending pods (own in creation order, then
    those of `pending_ids`), expendable pods left out, nodes as CA's listers leave them, the groups' members."""
    # admission keeps the scheduler's kinds: DaemonSets and ConfigMaps are read as checked
    listers = _of_kinds(extras, LISTED_KINDS)       # (one pass over the 150,000 objects, then over these few)
    daemonsets = [_with_uid(o) for o, _ in _of_kinds(listers, {"DaemonSet"})]
    config_maps = [o for o, _ in _of_kinds(listers, {"ConfigMap"})]
    cutoff = settings.flag("expendable-pods-priority-cutoff")
    taint_config = TaintConfig.of(settings)
    if set_sources and any(o.get("kind") in ("PersistentVolumeClaim", "PersistentVolume") for o, _ in objects):
        objects = settle(objects, lambda o, src: id(src) in set_sources).objects   # the set's claims, as the PV controller binds them
    nodes = [o for o, _ in objects if type(o) is not StoredPod and o.get("kind") == "Node"]  # (a stored pod: a Pod)
    provider = _provider(settings, groups, nodes)
    scheduler_objects = []
    node_objs: list[dict[str, Any]] = []
    given: list[PodInfo] = []
    own: list[PodInfo] = []
    for obj, src in objects:
        kind = obj.get("kind")
        if kind == "Pod" and type(obj) is StoredPod:      # (a dump's stored, bound pod: its view)
            prio = obj.view.spec.priority
            if (prio if prio is not None else 0) < cutoff:
                continue
        elif kind == "Pod":
            spec = obj.get("spec") or {}
            if not spec.get("nodeName"):
                if id(src) in pending_ids:
                    given.append(PodInfo(obj))
                elif (obj.get("status") or {}).get("phase") not in ("Succeeded", "Failed"):
                    own.append(PodInfo(obj))        # the cluster's own pending pods
                continue
            prio = spec.get("priority")
            if (prio if isinstance(prio, int) else 0) < cutoff:
                continue          # expendable: not in CA's snapshot
        if kind == "Node":     # FilterOutNodesWithUnreadyResources (GPUs), FilterOutNodesWithStartupTaints
            obj = as_listed(listed_gpu_ready(obj, provider.provider), taint_config)
            node_objs.append(obj)
        if kind in CLUSTER_KINDS:
            scheduler_objects.append((obj, src))
    budgets: Statuses = {}      # (a budget without a status: the disruption controller's, for notes and snapshot)
    notes = budget_notes(scheduler_objects, kept=budgets)
    order = [(o.get("metadata") or {}).get("name") or "" for o in node_objs]
    snapshot = _listed_snapshot(scheduler_objects, node_objs, budgets)
    given_members = groups.members_among((n, snapshot.get(n).node.labels) for n in order)
    group_members = in_cluster(groups.groups, given_members, order)
    jobs = [o for o, _ in _of_kinds(listers, {"Job"})]
    own.sort(key=lambda p: creation_order(creation_time(p)))
    return _Listed(daemonsets, config_maps, jobs, provider, scheduler_objects, node_objs, group_members,
                   [p.obj for p in own + given], notes, budgets), snapshot


def _listed_snapshot(scheduler_objects: Objects, node_objs: list[dict[str, Any]], budgets: Statuses) -> Snapshot:
    """CA's snapshot of the objects listed, its nodes in the listing's order (else as built: its indexes kept);
    `budgets`: the statuses `disruption.notes` computed of these very objects."""
    snapshot, _ = build_cluster(scheduler_objects, budgets)
    order = [(o.get("metadata") or {}).get("name") or "" for o in node_objs]
    if [ni.name for ni in snapshot.node_infos] != order:
        snapshot = snapshot.with_node_infos([snapshot.get(n) for n in order])
    return snapshot


def _provider(settings: Settings, groups: "Discovery", nodes: Sequence[dict[str, Any]]) -> Chosen:
    """The cloud provider the loop follows (`cloudprovider.provider.choose`): --cloud-provider,
    else what the groups' ids or the nodes' providerIDs name, else CA's test provider."""
    templates = {g.name: g.template for g in groups.groups}
    cluster_api = "Cluster API" in groups.sources and any(n.startswith(CLUSTER_API_KINDS) for n in templates)
    return choose(settings.given.get("cloud-provider"), templates, cluster_api, nodes)


def with_pending(loop: LoopInputs, pending: Sequence[PodInfo], bound: Sequence[PodInfo] = (),
                 created: Sequence[datetime | None] = ()) -> LoopInputs:
    """`loop` with `pending` as its pending pods, in order, created at `created` (else their
    creationTimestamp, else ten minutes ago plus a second each), `bound` in its snapshot and a
    nominated pod CA does not ignore put on its node, as CA's snapshot does; from `LoopInputs.base`."""
    snapshot = loop.base if loop.base is not None else loop.snapshot
    for pod in bound:
        if snapshot.get(pod.spec.get("nodeName") or "") is not None:
            snapshot = snapshot.with_pod_bound(pod)
    cutoff = loop.settings.flag("expendable-pods-priority-cutoff")
    for pod in pending:
        name = pod.status.get("nominatedNodeName")
        if name and snapshot.get(name) is not None and _priority(pod.obj) >= cutoff:
            snapshot = snapshot.with_pod_bound(PodInfo({**pod.obj, "spec": {**pod.spec, "nodeName": name}}))
    given = list(created) + [None] * (len(pending) - len(created))
    times = [c or creation_time(p) or loop.now - PENDING_AGE + timedelta(seconds=i)
             for i, (p, c) in enumerate(zip(pending, given))]
    return replace(loop, snapshot=snapshot, pending=list(pending), pending_created=times,
                   base=loop.base if loop.base is not None else loop.snapshot)


def in_cluster(groups: Sequence[NodeGroup], given: Mapping[str, Sequence[str]], order: Sequence[str]
               ) -> dict[str, list[str]]:
    """Each group's members among the cluster's nodes, in cluster order (`given`: group name to
    member node names, however they were found); a group without any has none."""
    owner = {n: g for g, names in given.items() for n in names}
    out: dict[str, list[str]] = {g.name: [] for g in groups}
    for name in order:
        if owner.get(name) in out:
            out[owner[name]].append(name)
    return out


def _listed(objs: list[tuple[dict, Source]]) -> list[tuple[dict, Source]]:
    """A list of its own of `objs` (a dump's with its rows, `columns.Dump.same`); a plain list of a dump's
    objects (the report's pending pass reads a copy) gets them again, each object's kind read once, in C for
    a stored pod, for the passes over it (the kinds admitted, the ProvisioningRequests looked for)."""
    if columns.rows_of(objs) is not None:
        return objs.same()      # type: ignore[attr-defined]
    dump = columns.Dump(objs)
    return dump if columns.rows_of(dump) is not None else list(objs)


def _of_kinds(objs: list[tuple[dict, Source]], kinds: "frozenset[str] | set[str]") -> list[tuple[dict, Source]]:
    """The objects of `kinds`, in order; a dump's (`columns.Dump`) asked of its rows, and kept one."""
    rows = columns.rows_of(objs)
    if rows is None:
        return [(o, s) for o, s in objs if o.get("kind") in kinds]
    return objs.taken(list(map(kinds.__contains__, rows.kinds)))     # type: ignore[attr-defined]


def _priority(obj: dict[str, Any]) -> int:
    prio = (obj.get("spec") or {}).get("priority")
    return prio if isinstance(prio, int) else 0


def _with_uid(ds: dict[str, Any]) -> dict[str, Any]:
    """A DaemonSet without a uid gets the one its pods' owner references carry when kexplain
    makes them (`admission.workloads.object_uid`)."""
    meta = ds.get("metadata") or {}
    if meta.get("uid"):
        return ds
    return {**ds, "metadata": {**meta, "uid": object_uid(ds)}}


def _node_facts(obj: dict[str, Any], now: datetime, group: str | None) -> NodeFacts:
    meta = obj.get("metadata") or {}
    created = parse_time(meta.get("creationTimestamp")) or now - NODE_AGE
    readiness = node_readiness(obj, now - NODE_AGE)        # CA's GetNodeReadiness
    return NodeFacts(meta.get("name") or "", readiness.ready, readiness.last_transition, created, group)


def refuse_repeats(clusters: Sequence[list[tuple[dict, Source]]], pending: list[tuple[dict, Source]]) -> None:
    """A pending pod named as a pod of the cluster (any of `clusters`) is refused, as the API server refuses
    a second object of one name; only the pending pods' names are looked for (a dump's rows, a stored
    pod's view: nothing of the cluster decoded for this)."""
    if not pending:
        return
    keys = [_pod_key(obj) for obj, _ in pending]
    wanted = set(keys)
    names = set()
    for objs in clusters:
        names.update(key for key in _pod_keys(objs) if key in wanted)
    for key, (obj, src) in zip(keys, pending):
        if key in names:
            raise AdmissionRejected(f"pods {go_quote(str(key[1]))} already exists", source=src, obj=obj)
        names.add(key)


def _pod_key(obj: dict[str, Any]) -> tuple[str, Any]:
    meta = obj.get("metadata") or {}
    return meta.get("namespace") or "default", meta.get("name")


def _pod_keys(objs: list[tuple[dict, Source]]) -> list[tuple[str, Any]]:
    """The (namespace, name) of each Pod of `objs`, in order: of a dump's rows when it has them."""
    rows = columns.rows_of(objs)
    if rows is not None:
        return [(ns or "default", name) for kind, ns, name in zip(rows.kinds, rows.namespaces, rows.names)
                if kind == "Pod"]
    out = []
    for obj, _ in objs:
        if type(obj) is StoredPod:          # (its view: the object is not decoded)
            meta = obj.view.metadata
            out.append((meta.namespace or "default", meta.name))
        elif obj.get("kind") == "Pod":
            out.append(_pod_key(obj))
    return out
