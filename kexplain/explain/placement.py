"""Replicas and a DaemonSet's pods placed one by one, each bound before the next (`nextStartIndex` carried)."""
from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from typing import Any, Iterator, Sequence

from kexplain.admission.pipeline import copy_json
from kexplain.admission.podtopologylabels import labels_on_bind
from kexplain.apimachinery.labels import (ANN_BIND_COMPLETED as _BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER as _BOUND_BY_CONTROLLER,
                                          ANN_SELECTED_NODE as _SELECTED_NODE)
from kexplain.explain.carryover import Carryover
from kexplain.explain.pod_inputs import Inputs, with_template_claims
from kexplain.explain.request import RunOptions
from kexplain.explain.run import explain, framework_for
from kexplain.framework.cycle_state import CycleState
from kexplain.controllers.workloads import Copies, pin_to_node
from kexplain.model.labels import SelectorError, parse_selector
from kexplain.model.nodeinfo import Node
from kexplain.model.nodeselector import RequiredNodeAffinity
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot
from kexplain.model.taints import NO_EXECUTE, NO_SCHEDULE, find_untolerated, taint_to_string
from kexplain.framework.trace import SCHEDULED, Trace
from kexplain.plugins.names import VOLUME_BINDING

_COPY_UID_NAMESPACE = uuid.UUID("0b3c6f0e-5c2d-4a8e-9f61-7d2a4c1e9b35")


@dataclass(frozen=True)
class Placement:
    """One pod (or copy) scheduled in turn: its inputs, start index, trace and node (None: no fit)."""

    index: int
    inputs: Inputs
    trace: Trace
    node: str | None
    start_index: int = 0
    shared: bool = False        # an earlier pod's cycle, renamed (`explain.shared_cycles`): what
                                # the queue's `on_first_unfit` added to that trace, it has

    @property
    def next_start_index(self) -> int:
        """The round-robin position after this attempt: where the next pod's search starts."""
        return self.trace.search.next_start_index if self.trace.search is not None else self.start_index


def chosen_node(trace: Trace) -> str | None:
    """The node a scheduled copy is bound to (see the module docstring), None if it did not fit."""
    result = trace.result
    if result.status != SCHEDULED:
        return None
    if trace.search is not None and not trace.search.order_deterministic and result.selected_nodes:
        return min(result.selected_nodes)
    return result.suggested_host or (min(result.selected_nodes) if result.selected_nodes else None)


def pending_copy(pod: PodInfo, index: int, naming: Copies | None = None) -> dict[str, Any]:
    """The pending pod object of copy `index`, named as `naming` names it, with its own uid."""
    obj = copy_json(pod.obj)
    meta = obj.setdefault("metadata", {})
    (naming or Copies.of_pod(pod.name)).apply(obj, index)
    meta["uid"] = str(uuid.uuid5(_COPY_UID_NAMESPACE, f"{pod.namespace}/{meta['name']}"))
    return obj


def bound_copy(obj: dict[str, Any], node_name: str, copied: dict[str, str]) -> PodInfo:
    """The copy as stored after binding: spec.nodeName and PodTopologyLabels' labels set."""
    bound = copy_json(obj)
    bound.setdefault("spec", {})["nodeName"] = node_name
    if copied:
        meta = bound.setdefault("metadata", {})
        meta["labels"] = {**(meta.get("labels") or {}), **copied}
    return PodInfo(bound)


def _uses_claims(pod: PodInfo) -> bool:
    return any(isinstance(v, dict) and (v.get("persistentVolumeClaim") or v.get("ephemeral"))
               for v in pod.spec.get("volumes") or ())


def _with_volumes_bound(snapshot: Snapshot, inputs: Inputs, options: RunOptions, node: str) -> Snapshot:
    """The snapshot with the pod's claims bound for `node`, as VolumeBinding's Reserve and PreBind leave them."""
    if not _uses_claims(inputs.pod):
        return snapshot
    fw = framework_for(replace(inputs, snapshot=snapshot), options)
    plugin = fw.plugins.get(VOLUME_BINDING)
    info = snapshot.get(node)
    if plugin is None or info is None:
        return snapshot
    state = CycleState()
    try:
        _, status = plugin.pre_filter(state, inputs.pod, snapshot.node_infos)
        if not status.is_success or not plugin.filter(state, inputs.pod, info).is_success:
            return snapshot
        found = state.get(VOLUME_BINDING).pod_volumes_by_node.get(node)
    except Exception:  # noqa: BLE001 - the binding decides nothing the trace has not said
        return snapshot
    if found is None or not (found.static_bindings or found.dynamic_provisions):
        return snapshot
    volumes: dict[int, dict[str, Any]] = {}
    claims: dict[int, dict[str, Any]] = {}
    for pvc, pv in found.static_bindings:
        bound_pv = copy_json(pv)
        pvc_meta = pvc.get("metadata") or {}
        bound_pv.setdefault("spec", {})["claimRef"] = {
            "kind": "PersistentVolumeClaim", "apiVersion": "v1", "namespace": pvc_meta.get("namespace") or "default",
            "name": pvc_meta.get("name") or "", "uid": pvc_meta.get("uid") or ""}
        bound_pv.setdefault("metadata", {}).setdefault("annotations", {})[_BOUND_BY_CONTROLLER] = "yes"
        bound_pv["status"] = {**(bound_pv.get("status") or {}), "phase": "Bound"}
        volumes[id(pv)] = bound_pv
        bound_pvc = copy_json(pvc)
        bound_pvc.setdefault("spec", {})["volumeName"] = (pv.get("metadata") or {}).get("name") or ""
        bound_pvc.setdefault("metadata", {}).setdefault("annotations", {})[_BIND_COMPLETED] = "yes"
        bound_pvc["status"] = {**(bound_pvc.get("status") or {}), "phase": "Bound"}
        claims[id(pvc)] = bound_pvc
    for pvc in found.dynamic_provisions:
        selected = copy_json(pvc)
        selected.setdefault("metadata", {}).setdefault("annotations", {})[_SELECTED_NODE] = node
        claims[id(pvc)] = selected
    objects = dict(snapshot.objects)
    objects["PersistentVolume"] = [volumes.get(id(o), o) for o in snapshot.of_kind("PersistentVolume")]
    objects["PersistentVolumeClaim"] = [claims.get(id(o), o) for o in snapshot.of_kind("PersistentVolumeClaim")]
    return snapshot.with_objects(snapshot.namespaces, objects)


def bind(snapshot: Snapshot, inputs: Inputs, options: RunOptions, obj: dict[str, Any], node: str) -> Snapshot:
    """The snapshot after `obj` is bound to `node`, its resource and volume claims with it."""
    from kexplain.explain.dra_binding import with_claims_allocated     # (start-up: DRA's allocator, ~20 ms)

    info = snapshot.get(node)
    labels = labels_on_bind(info.node.labels, inputs.config.kube) if info is not None else {}
    snapshot = with_claims_allocated(snapshot, replace(inputs, pod=PodInfo(obj), snapshot=snapshot), options, node)
    snapshot = _with_volumes_bound(snapshot, replace(inputs, pod=PodInfo(obj), snapshot=snapshot), options, node)
    return snapshot.with_pod_bound(bound_copy(obj, node, labels))


def quiet_options(options: RunOptions) -> RunOptions:
    """How a copy nobody reads in full runs: no filterAll, no extra keys, no preemption dry run."""
    return replace(options.plain(), filter_all=False, preemption=False)


def _run(inputs: Inputs, options: RunOptions, carry: Carryover | None, shown: bool = True) -> Trace:
    """One cycle; a copy not `shown` runs quietly, and again in full only when it does not fit."""
    if shown:
        return carry.run(inputs, options) if carry is not None else explain(inputs, options)
    quiet = quiet_options(options)
    if carry is not None:
        return carry.run(inputs, options, quiet)
    trace = explain(inputs, quiet)
    return trace if trace.result.status == SCHEDULED else explain(inputs, options)


def place(inputs: Inputs, options: RunOptions, carry: Carryover | None = None) -> Placement:
    """`inputs.pod` itself scheduled from `options.start_index`, its template claims made."""
    inputs = with_template_claims(inputs)
    trace = _run(inputs, options, carry)
    return Placement(0, inputs, trace, chosen_node(trace), options.start_index)


def iter_placements(inputs: Inputs, options: RunOptions, copies: int,
                    naming: Copies | None = None, carry: Carryover | None = None) -> Iterator[Placement]:
    """Schedule up to `copies` copies one after another, each bound before the next, until one does not
    fit, unless the copies are placed each on its own (`Copies.each_on_its_own`)."""
    snapshot = inputs.snapshot
    start = options.start_index
    for i in range(copies):
        copy_inputs = with_template_claims(replace(inputs, pod=PodInfo(pending_copy(inputs.pod, i, naming)),
                                                   snapshot=snapshot))     # each copy: its own claims
        trace = _run(copy_inputs, options.at(start), carry, shown=i in (0, copies - 1))
        placement = Placement(i, copy_inputs, trace, chosen_node(trace), start)
        yield placement
        if placement.node is None:
            if naming is None or not naming.each_on_its_own:
                return
            start = placement.next_start_index
            continue
        snapshot = bind(copy_inputs.snapshot, copy_inputs, options, copy_inputs.pod.obj, placement.node)
        start = placement.next_start_index


# -- DaemonSets -----------------------------------------------------------------------------------
NOT_SELECTED = "node selector or affinity does not match"


@dataclass(frozen=True)
class DaemonNodes:
    """The nodes a DaemonSet's controller would create a pod for, and why not the others."""

    eligible: tuple[str, ...]
    excluded: dict[str, str]
    not_created: tuple[str, ...] = ()

    def created(self, pods: int) -> "DaemonNodes":
        """The nodes as the controller could create only `pods` pods: the first ones."""
        return DaemonNodes(self.eligible[:pods], self.excluded, self.eligible[pods:])


def _evicting_or_blocking(taint: dict[str, Any]) -> bool:
    return taint.get("effect") in (NO_SCHEDULE, NO_EXECUTE)


def should_run_daemon_pod(pod: PodInfo, node: Node, required: RequiredNodeAffinity | None = None) -> str | None:
    """The DaemonSet controller's NodeShouldRunDaemonPod: None when it runs its pod on `node`, else why."""
    if pod.node_name and pod.node_name != node.name:
        return f"spec.nodeName is {pod.node_name}"
    if not (required or RequiredNodeAffinity.from_pod(pod)).matches(node):
        return NOT_SELECTED
    tolerations = [t for t in pod.spec.get("tolerations") or () if isinstance(t, dict)]
    taint = find_untolerated(node.taints, tolerations, _evicting_or_blocking)
    if taint is not None:
        return f"untolerated taint {taint_to_string(taint)}"
    return None


def daemon_nodes(pod: PodInfo, snapshot: Snapshot) -> DaemonNodes:
    """The nodes of `snapshot` the DaemonSet whose pod is `pod` runs on, and why not the others."""
    required = RequiredNodeAffinity.from_pod(pod)
    eligible: list[str] = []
    excluded: dict[str, str] = {}
    for info in sorted(snapshot.node_infos, key=lambda ni: ni.node.name):
        why = should_run_daemon_pod(pod, info.node, required)
        if why is None:
            eligible.append(info.node.name)
        else:
            excluded[info.node.name] = why
    return DaemonNodes(tuple(eligible), excluded)


def _selects(raw: Any, labels: dict[str, str]) -> bool:
    """Whether a label selector selects `labels`; True when it does not parse (to be safe)."""
    try:
        return parse_selector(raw).matches(labels)
    except (SelectorError, AttributeError, TypeError):
        return True


def siblings_matter(pod: PodInfo, inputs: Inputs) -> bool:
    """Whether a DaemonSet pod's verdict on one node can depend on its copies on other nodes."""
    spec = pod.spec
    labels = pod.labels
    affinity = spec.get("affinity") if isinstance(spec.get("affinity"), dict) else {}
    for kind in ("podAffinity", "podAntiAffinity"):
        terms = (affinity.get(kind) or {}).get("requiredDuringSchedulingIgnoredDuringExecution") or ()
        if any(isinstance(t, dict) and _selects(t.get("labelSelector"), labels) for t in terms):
            return True
    for constraint in spec.get("topologySpreadConstraints") or ():
        if isinstance(constraint, dict) and constraint.get("whenUnsatisfiable") != "ScheduleAnyway" \
                and _selects(constraint.get("labelSelector"), labels):
            return True
    if spec.get("resourceClaims"):
        return True
    for volume in spec.get("volumes") or ():
        if isinstance(volume, dict) and (volume.get("persistentVolumeClaim") or volume.get("ephemeral")):
            return True
    if spec.get("topologySpreadConstraints"):
        return False          # its own constraints replace the profile's default ones
    try:
        profile = inputs.config.profile_for(spec.get("schedulerName") or "default-scheduler")
    except Exception:  # noqa: BLE001 - explain reports an unknown scheduler name itself
        return False
    args = profile.args.get("PodTopologySpread") or {}
    if args.get("defaultingType") == "List":
        return any(isinstance(c, dict) and c.get("whenUnsatisfiable") != "ScheduleAnyway"
                   for c in args.get("defaultConstraints") or ())
    return False


def daemon_copy(pod: PodInfo, index: int, node_name: str, naming: Copies | None = None) -> dict[str, Any]:
    """The pod the DaemonSet controller creates for `node_name`, pinned to it."""
    obj = pending_copy(pod, index, naming)
    pin_to_node(obj.setdefault("spec", {}), node_name)
    return obj


def iter_daemon_placements(inputs: Inputs, options: RunOptions, nodes: Sequence[str],
                           bind_each: bool | None = None, naming: Copies | None = None,
                           carry: Carryover | None = None) -> Iterator[Placement]:
    """Schedule one pinned DaemonSet pod on each of `nodes` in order; `bind_each` when `siblings_matter`."""
    if bind_each is None:
        bind_each = siblings_matter(inputs.pod, inputs)
    snapshot = inputs.snapshot
    start = options.start_index
    for i, name in enumerate(nodes):
        copy_inputs = with_template_claims(replace(inputs, pod=PodInfo(daemon_copy(inputs.pod, i, name, naming)),
                                                   snapshot=snapshot))
        trace = _run(copy_inputs, options.at(start), carry, shown=i in (0, len(nodes) - 1))
        placement = Placement(i, copy_inputs, trace, chosen_node(trace), start)
        yield placement
        if bind_each and placement.node is not None:
            snapshot = bind(copy_inputs.snapshot, copy_inputs, options, copy_inputs.pod.obj, placement.node)
        start = placement.next_start_index
