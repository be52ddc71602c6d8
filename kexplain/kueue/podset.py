"""What Kueue writes into a job's pod templates when it starts an admitted Workload (`pkg/podset`,
`getPodSetsInfoFromStatus`), merged as `podset.Merge` does."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from kexplain.apimachinery.fielderrors import go_quote
from kexplain.apimachinery.names import is_dns1123_label
from kexplain.kueue.apis.resourceflavor import ResourceFlavor
from kexplain.kueue.apis.topology import IndexLabels, TopologyAssignment, domains_view
from kexplain.kueue.controller.tas.ungater import Ranks, rank_offsets
from kexplain.kueue.workload.workload import Workload

# pkg/constants, apis/kueue/v1beta2 (topology_types.go)
POD_SET_LABEL = "kueue.x-k8s.io/podset"
LOCAL_QUEUE_LABEL = "kueue.x-k8s.io/local-queue-name"
CLUSTER_QUEUE_LABEL = "kueue.x-k8s.io/cluster-queue-name"
WORKLOAD_ANNOTATION = "kueue.x-k8s.io/workload"     # set while TopologyAwareScheduling is on (the default)
INVALID_UPDATE = "invalid admission check PodSetUpdate"


class Conflict(ValueError):
    """podset.Merge refused: a key of the template has another value (BadPodSetsUpdateError)."""


@dataclass(frozen=True)
class PodSetInfo:
    """PodSetInfo: what starting an admitted Workload sets on one pod set's template."""

    name: str
    count: int
    flavors: tuple[str, ...] = ()      # the flavors assigned, in the order their node labels were copied
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    node_selector: Mapping[str, str] = field(default_factory=dict)
    tolerations: tuple[Mapping[str, Any], ...] = ()
    # TAS: the levels whose assigned domains differ, each with the values its pods may take
    topology_in: tuple[tuple[str, tuple[str, ...]], ...] = ()
    topology: Mapping[str, Any] | None = None       # the assignment's domains (`topologyDomains`)
    # what the topology ungater reads to give each pod its domain (`controller.tas.ungater`)
    assignment: TopologyAssignment | None = field(default=None, compare=False)
    index: IndexLabels | None = field(default=None, compare=False)
    ranks: Ranks = field(default=Ranks(0, 0), compare=False)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "count": self.count, "flavors": list(self.flavors),
                "nodeSelector": dict(self.node_selector), "tolerations": [dict(t) for t in self.tolerations],
                "labels": dict(self.labels), "annotations": dict(self.annotations),
                **({"topology": dict(self.topology)} if self.topology is not None else {})}


def infos(wl: Workload, flavors: Mapping[str, ResourceFlavor]) -> list[PodSetInfo]:
    """getPodSetsInfoFromStatus for an admitted Workload: per assignment FromAssignment (flavors by
    resource name, where Go's map order is random), the labels and annotation Kueue adds."""
    assert wl.admission is not None
    out = []
    pod_sets = {ps.name: ps for ps in wl.spec.pod_sets}
    ranks = rank_offsets([(psa.name, _count(psa, pod_sets), _group(pod_sets.get(psa.name)))
                          for psa in wl.admission.pod_set_assignments])
    for psa in wl.admission.pod_set_assignments:
        seen: list[str] = []
        selector: dict[str, str] = {}
        tolerations: list[Mapping[str, Any]] = []
        for _, name in sorted(psa.flavors.items()):
            if name in seen:
                continue
            seen.append(name)
            flavor = flavors.get(name)
            if flavor is None:
                continue
            selector.update(flavor.node_labels)
            tolerations += flavor.tolerations
        labels = {POD_SET_LABEL: psa.name, LOCAL_QUEUE_LABEL: wl.spec.queue_name}
        if not is_dns1123_label(wl.admission.cluster_queue):
            labels[CLUSTER_QUEUE_LABEL] = wl.admission.cluster_queue
        pod_set = pod_sets.get(psa.name)
        count = _count(psa, pod_sets)
        topology_in: tuple[tuple[str, tuple[str, ...]], ...] = ()
        if psa.topology_assignment is not None:
            common, topology_in = topology_selector(psa.topology_assignment)
            selector.update(common)
        info = PodSetInfo(psa.name, count, tuple(seen), labels, {WORKLOAD_ANNOTATION: wl.meta.name}, selector,
                          tuple(tolerations), topology_in,
                          None if psa.topology_assignment is None else domains_view(psa.topology_assignment),
                          psa.topology_assignment, _index(pod_set), ranks[psa.name])
        out.append(_with_check_updates(info, wl))
    return out


def _count(psa: Any, pod_sets: Mapping[str, Any]) -> int:
    pod_set = pod_sets.get(psa.name)
    return psa.count if psa.count is not None else (pod_set.count if pod_set is not None else 0)


def _group(pod_set: Any) -> str | None:
    return pod_set.topology_request.pod_set_group if pod_set is not None and pod_set.topology_request else None


def _index(pod_set: Any) -> IndexLabels | None:
    return pod_set.topology_request.index if pod_set is not None and pod_set.topology_request else None


def topology_selector(assignment: TopologyAssignment
                      ) -> tuple[dict[str, str], tuple[tuple[str, tuple[str, ...]], ...]]:
    """What Kueue's topology ungater gives the pod set's pods, as one template: the node labels every
    assigned domain shares (each pod's node selector), and for a level whose domains differ the
    values its pods are spread over (each pod gets one of them; a required node affinity `In` them)."""
    common: dict[str, str] = {}
    spread = []
    for i, level in enumerate(assignment.levels):
        values = tuple(dict.fromkeys(d.values[i] for d in assignment.domains))
        if len(values) == 1:
            common[level] = values[0]
        elif values:
            spread.append((level, values))
    return common, tuple(spread)


def _with_check_updates(info: PodSetInfo, wl: Workload) -> PodSetInfo:
    """getPodSetsInfoFromStatus's second step: each check's PodSetUpdate for this pod set merged in
    (PodSetInfo.Merge: a key set to another value is a conflict, said with the check's name)."""
    for check in wl.admission_checks:
        update = next((u for u in check.pod_set_updates if u.name == info.name), None)
        if update is None:
            continue
        try:
            for what, have, add in (("annotations", info.annotations, update.annotations),
                                    ("labels", info.labels, update.labels),
                                    ("nodeSelector", info.node_selector, update.node_selector)):
                _conflict(what, have, add)
        except Conflict as err:
            raise Conflict(f"in admission check {go_quote(check.name)}: {err}") from None
        tolerations = list(info.tolerations)
        tolerations += [t for t in update.tolerations if not any(_same_toleration(e, t) for e in tolerations)]
        info = replace(info, annotations={**info.annotations, **update.annotations},
                       labels={**info.labels, **update.labels},
                       node_selector={**info.node_selector, **update.node_selector}, tolerations=tuple(tolerations))
    return info




def _conflict(what: str, have: Mapping[str, Any], add: Mapping[str, Any]) -> None:
    for k, v in have.items():
        if k in add and add[k] != v:
            raise Conflict(f"{INVALID_UPDATE}: conflict for {what}: conflict for key={k}, value1={v}, "
                           f"value2={add[k]}")


def _same_toleration(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """utiltolerations.Equal: key, operator (empty is Equal), value and effect."""
    return all((a.get(k) or ("Equal" if k == "operator" else "")) == (b.get(k) or ("Equal" if k == "operator" else ""))
               for k in ("key", "operator", "value", "effect"))


def merged(template: Mapping[str, Any], info: PodSetInfo) -> dict[str, Any]:
    """The pod template with `info` merged in (podset.Merge), `template` unchanged."""
    out = copy.deepcopy(dict(template))
    for key in ("metadata", "spec"):
        if not isinstance(out.get(key), dict):
            out[key] = {}
    meta, spec = out["metadata"], out["spec"]
    for what, have, add in (("annotations", meta.get("annotations") or {}, info.annotations),
                            ("labels", meta.get("labels") or {}, info.labels),
                            ("nodeSelector", spec.get("nodeSelector") or {}, info.node_selector)):
        _conflict(what, have, add)
    for key, where, add in (("annotations", meta, info.annotations), ("labels", meta, info.labels),
                            ("nodeSelector", spec, info.node_selector)):
        if add:
            where[key] = {**(where.get(key) or {}), **add}
    if info.topology_in:
        _require(spec, [{"key": k, "operator": "In", "values": list(v)} for k, v in info.topology_in])
    tolerations = list(spec.get("tolerations") or ())
    for t in info.tolerations:
        if not any(_same_toleration(e, t) for e in tolerations):
            tolerations.append(dict(t))
    if tolerations:
        spec["tolerations"] = tolerations
    return out


def _require(spec: dict[str, Any], expressions: list[dict[str, Any]]) -> None:
    """Every required node affinity term (a new one without) also asks for `expressions`."""
    affinity = spec.setdefault("affinity", {})
    node = affinity.setdefault("nodeAffinity", {})
    required = node.setdefault("requiredDuringSchedulingIgnoredDuringExecution", {})
    terms = required.get("nodeSelectorTerms") or [{}]
    required["nodeSelectorTerms"] = [{**t, "matchExpressions": [*(t.get("matchExpressions") or ()), *expressions]}
                                     for t in terms]
