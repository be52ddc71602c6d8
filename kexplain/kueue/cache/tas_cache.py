"""The TAS cache (tas_cache.go, tas_flavor.go, tas_nodes_cache.go, tas_non_tas_pod_cache.go): the
Topologies and TAS flavors, the Nodes TAS may place on (Ready and schedulable), the usage of pods
bound to them that TAS did not place, and, per cycle, one snapshot per TAS flavor with the usage of
the Workloads holding quota on it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

import msgspec
from msgspec import Raw, Struct

from kexplain.apimachinery import quantity
from kexplain.apimachinery.stored_pods import StoredPod
from kexplain.kueue.apis.resourceflavor import ResourceFlavor
from kexplain.kueue.apis.topology import PREFERRED_ANNOTATION, REQUIRED_ANNOTATION, SLICE_REQUIRED_ANNOTATION, \
    UNCONSTRAINED_ANNOTATION, Topology, TopologyAssignment
from kexplain.kueue.cache.tas_snapshot import TASFlavorSnapshot
from kexplain.kueue.resources import PODS, Requests, pod_spec_requests, resource_value, scaled
from kexplain.kueue.workload.info import Info
from kexplain.model.pod import facts_spec
from kexplain.model.shapes import stored_facts_key

TAS_POD_ANNOTATIONS = (REQUIRED_ANNOTATION, PREFERRED_ANNOTATION, SLICE_REQUIRED_ANNOTATION,
                       "kueue.x-k8s.io/podset-slice-required-topology-constraints", UNCONSTRAINED_ANNOTATION)
TERMINATED = ("Succeeded", "Failed")


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def schedulable_and_ready(node: Mapping[str, Any]) -> bool:
    """nodesCache.sync: a Node TAS keeps (not unschedulable, its Ready condition True)."""
    spec = node.get("spec") if isinstance(node.get("spec"), Mapping) else {}
    status = node.get("status") if isinstance(node.get("status"), Mapping) else {}
    ready = next((c for c in status.get("conditions") or () if isinstance(c, Mapping) and c.get("type") == "Ready"),
                 None)
    return not spec.get("unschedulable") and ready is not None and ready.get("status") == "True"


def allocatable(node: Mapping[str, Any]) -> Requests:
    status = node.get("status") if isinstance(node.get("status"), Mapping) else {}
    out = {}
    for name, q in (status.get("allocatable") or {}).items():
        try:
            out[str(name)] = resource_value(str(name), quantity.parse(q).value)
        except quantity.QuantityError:
            continue
    return out


def non_tas_usage(pod: Mapping[str, Any], shapes: dict[bytes, Requests] | None = None
                  ) -> tuple[str, Requests] | None:
    """belongsToNonTASCache: a pod bound to a node, not terminated, not placed by TAS (none of the
    topology annotations); its node and requests plus the pod itself. A dump's pod is read from its
    view (`_stored_usage`), its requests worked out once per shape in `shapes`."""
    if type(pod) is StoredPod:
        found = _stored_usage(pod, {} if shapes is None else shapes)
        if found is not _WHOLE:
            return found
    annotations = _meta(pod).get("annotations") or {}
    if any(a in annotations for a in TAS_POD_ANNOTATIONS):
        return None
    spec = pod.get("spec") if isinstance(pod.get("spec"), Mapping) else {}
    status = pod.get("status") if isinstance(pod.get("status"), Mapping) else {}
    if not spec.get("nodeName") or status.get("phase") in TERMINATED:
        return None
    usage = pod_spec_requests(spec)
    usage[PODS] = usage.get(PODS, 0) + 1
    return str(spec["nodeName"]), usage


class _AnnotationsMeta(Struct):
    annotations: dict[str, Raw] | None = None


class _Annotated(Struct):
    """What of a pod's text says whether TAS placed it: its annotations' keys (values left as text)."""

    metadata: _AnnotationsMeta | None = None


_annotated = msgspec.json.Decoder(_Annotated).decode
_WHOLE = object()       # (`_stored_usage`: the pod is read as its object)


def _stored_usage(pod: StoredPod, shapes: dict[bytes, Requests]) -> tuple[str, Requests] | None | object:
    """non_tas_usage of a dump's pod from its view and its annotations' keys (cut from its text in C),
    never its whole object; `_WHOLE` when its text holds annotations the cut cannot read."""
    view = pod.view
    status = view.status
    if not view.spec.nodeName or (status is not None and status.phase in TERMINATED):
        return None
    try:
        meta = _annotated(pod.raw).metadata
    except msgspec.MsgspecError:
        return _WHOLE
    if meta is not None and meta.annotations and any(a in meta.annotations for a in TAS_POD_ANNOTATIONS):
        return None
    key = stored_facts_key(view, "")
    usage = shapes.get(key)
    if usage is None:
        usage = shapes[key] = pod_spec_requests(facts_spec(view))
        usage[PODS] = usage.get(PODS, 0) + 1
    return view.spec.nodeName, usage


def node_matches_flavor(labels: Mapping[str, str], flavor: ResourceFlavor, levels: Iterable[str]) -> bool:
    """NodeMatchesFlavor: the flavor's node labels and every level's label."""
    return all(labels.get(k) == v for k, v in flavor.node_labels.items()) and all(lv in labels for lv in levels)


@dataclass
class TASCache:
    """The TAS flavors (those naming a Topology that exists), the Nodes kept, and non-TAS usage by
    node; each flavor's snapshot built once (Nodes and non-TAS usage do not change in a pass),
    its TAS usage counted again for each cycle."""

    topologies: dict[str, Topology]
    flavors: dict[str, ResourceFlavor]
    nodes: list[Mapping[str, Any]] = field(default_factory=list)
    node_usage: dict[str, Requests] = field(default_factory=dict)
    _built: dict[str, TASFlavorSnapshot] = field(default_factory=dict, repr=False)
    # per flavor, per Workload: the Info, admission and requests its usage was counted from, and that usage
    _held: dict[str, dict[str, tuple[Info, Any, Any, list[tuple[str, Requests]]]]] = \
        field(default_factory=dict, repr=False)
    # per flavor, per Workload: the identities of that Info, admission and requests (alive in `_held`)
    _held_ids: dict[str, dict[str, tuple[int, int, int]]] = field(default_factory=dict, repr=False)

    @classmethod
    def build(cls, topologies: Mapping[str, Topology], flavors: Mapping[str, ResourceFlavor],
              nodes: Iterable[Mapping[str, Any]], pods: Iterable[Mapping[str, Any]]) -> "TASCache":
        tas = {n: f for n, f in flavors.items() if f.topology_name is not None and f.topology_name in topologies}
        if not tas:         # no TAS flavor: the Nodes and pods are not read (a dump's pods stay undecoded)
            return cls(dict(topologies), {n: f for n, f in flavors.items() if f.topology_name is not None})
        out = cls(dict(topologies), tas, [n for n in nodes if isinstance(n, Mapping) and schedulable_and_ready(n)])
        shapes: dict[bytes, Requests] = {}
        for pod in pods:
            found = non_tas_usage(pod, shapes)
            if found is not None:
                usage = out.node_usage.setdefault(found[0], {})
                for k, v in found[1].items():
                    usage[k] = usage.get(k, 0) + v
        return out

    def topology_of(self, flavor: str) -> Topology | None:
        """Get: the flavor's Topology (None: not a TAS flavor, or its Topology is missing)."""
        rf = self.flavors.get(flavor)
        return self.topologies.get(rf.topology_name) if rf is not None and rf.topology_name else None

    def snapshots(self, workloads: Iterable[Info]) -> dict[str, TASFlavorSnapshot]:
        """One snapshot per TAS flavor with a Topology: its Nodes, non-TAS usage, and the TAS usage
        of `workloads`. Each flavor's snapshot is built once and carried from cycle to cycle: what a
        cycle changed in it is undone, and only the usage of the Workloads gained or lost since (or
        whose admission changed) is counted (`_held`, compared by identity first, `_held_ids`)."""
        infos = {i.key: i for i in workloads if i.obj.admission is not None}
        ids = {key: (id(i), id(i.obj.admission), id(i.total_requests)) for key, i in infos.items()}
        out = {}
        for name in self.flavors:
            snap = self._built.get(name) or self._build(name)
            if snap is None:
                continue
            held = self._held.setdefault(name, {})
            changes = [] if self._held_ids.get(name) == ids else self._changes(held, infos, name)
            self._held_ids[name] = ids
            snap.begin_cycle(changes)
            out[name] = snap
        return out

    @staticmethod
    def _changes(held: dict[str, tuple[Info, Any, Any, list[tuple[str, Requests]]]], infos: Mapping[str, Info],
                 name: str) -> list[tuple[str, Requests, int]]:
        """The usage on flavor `name` of the Workloads in `infos` not in `held` (or held as another Info,
        admission or requests), less that of those held and no longer there; `held` brought up to date."""
        changes = []
        for key, (info, admission, requests, usage) in list(held.items()):
            now = infos.get(key)
            if now is not info or now.obj.admission is not admission or now.total_requests is not requests:
                del held[key]
                changes += [(domain_id, u, -1) for domain_id, u in usage]
        for key, info in infos.items():
            if key not in held:
                usage = tas_usage(info, name)
                held[key] = (info, info.obj.admission, info.total_requests, usage)
                changes += [(domain_id, u, 1) for domain_id, u in usage]
        return changes

    def _build(self, name: str) -> TASFlavorSnapshot | None:
        flavor, topology = self.flavors[name], self.topology_of(name)
        if topology is None:
            return None
        snap = TASFlavorSnapshot(topology.name, topology.levels, flavor.tolerations)
        by_node = {}
        for node in self.nodes:
            labels = _meta(node).get("labels") or {}
            if node_matches_flavor(labels, flavor, topology.levels):
                by_node[str(_meta(node).get("name") or "")] = snap.add_node(node, allocatable(node))
        snap.initialize()
        for node_name, usage in self.node_usage.items():
            if node_name in by_node:
                snap.add_non_tas_usage(by_node[node_name], usage)
        self._built[name] = snap
        return snap


def domain_usage(assignment: TopologyAssignment, single_pod: Requests) -> list[tuple[str, Requests]]:
    """ComputeUsagePerDomain: each domain's id and its pods' requests plus the pods."""
    out = []
    for d in assignment.domains:
        usage = scaled({k: v for k, v in single_pod.items() if k != PODS}, d.count)
        usage[PODS] = d.count
        out.append((",".join(d.values), usage))
    return out


def tas_usage(info: Info, flavor: str) -> list[tuple[str, Requests]]:
    """Info.TASUsage for one flavor: the domains of each pod set placed on it."""
    admission = info.obj.admission
    if admission is None:
        return []
    out = []
    for psa, ps in zip(admission.pod_set_assignments, info.total_requests):
        if psa.topology_assignment is not None and flavor in set(psa.flavors.values()):
            out += domain_usage(psa.topology_assignment, ps.single_pod_requests())
    return out
