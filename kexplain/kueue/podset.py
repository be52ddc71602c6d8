"""What Kueue writes into a job's pod templates when it starts an admitted Workload (`pkg/podset`,
`getPodSetsInfoFromStatus`), merged as `podset.Merge` does."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from kexplain.apimachinery.fielderrors import go_quote
from kexplain.apimachinery.names import is_dns1123_label
from kexplain.kueue.apis.resourceflavor import ResourceFlavor
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

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "count": self.count, "flavors": list(self.flavors),
                "nodeSelector": dict(self.node_selector), "tolerations": [dict(t) for t in self.tolerations],
                "labels": dict(self.labels), "annotations": dict(self.annotations)}


def infos(wl: Workload, flavors: Mapping[str, ResourceFlavor]) -> list[PodSetInfo]:
    """getPodSetsInfoFromStatus for an admitted Workload: per assignment FromAssignment (flavors by
    resource name, where Go's map order is random), the labels and annotation Kueue adds."""
    assert wl.admission is not None
    out = []
    pod_sets = {ps.name: ps for ps in wl.spec.pod_sets}
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
        count = psa.count if psa.count is not None else (pod_set.count if pod_set is not None else 0)
        info = PodSetInfo(psa.name, count, tuple(seen), labels, {WORKLOAD_ANNOTATION: wl.meta.name}, selector,
                          tuple(tolerations))
        out.append(_with_check_updates(info, wl))
    return out


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
    tolerations = list(spec.get("tolerations") or ())
    for t in info.tolerations:
        if not any(_same_toleration(e, t) for e in tolerations):
            tolerations.append(dict(t))
    if tolerations:
        spec["tolerations"] = tolerations
    return out
