"""kueue.x-k8s.io/v1beta1, which Kueue v0.17.8 still serves: an object of that version as its
conversion webhook hands it to the storage version v1beta2 (apis/kueue/v1beta1/*_conversion.go).

The two versions share every field but these: a ClusterQueue's `cohort` (v1beta2 `cohortName`),
its `admissionChecks` (names: v1beta2 `admissionChecksStrategy.admissionChecks[].name`, which they
replace when given) and its flavor fungibility's `Borrow` and `Preempt` (v1beta2 `MayStopSearch`);
a Workload's `priorityClassSource` and `priorityClassName` (v1beta2 `priorityClassRef`), its
status's `accumulatedPastExexcutionTimeSeconds` (sic) and a topology assignment's `domains` (v1beta2
`slices`, one compact slice); a LocalQueue's status `flavorUsage` (v1beta2 `flavorsUsage`). Fields
only v1beta2 has are unknown under v1beta1, as its schema leaves them out."""
from __future__ import annotations

import copy
from typing import Any, Mapping

from kexplain.apimachinery.fielderrors import INVALID, FieldError, GoString
from kexplain.kueue.apis.constants import GROUP, MAY_STOP_SEARCH

V1BETA1, V1BETA2 = "v1beta1", "v1beta2"
SERVED = (V1BETA1, V1BETA2)
# v1beta1's priorityClassSource values and the v1beta2 reference each becomes
PRIORITY_SOURCES = {"kueue.x-k8s.io/workloadpriorityclass": (GROUP, "WorkloadPriorityClass"),
                    "scheduling.k8s.io/priorityclass": ("scheduling.k8s.io", "PriorityClass")}
# The v1beta2 fields v1beta1's schema does not have (unknown fields when written under v1beta1)
V1BETA2_ONLY: dict[str, tuple[tuple[str, ...], ...]] = {
    "ClusterQueue": (("spec", "cohortName"),),
    "Workload": (("spec", "priorityClassRef"), ("spec", "preemptionGates")),
}
# v1beta1's CEL rule the conversion would hide (v1beta2's asks for priorityClassRef instead)
PRIORITY_RULE = "priority should not be nil when priorityClassName is set"


def version_of(obj: Mapping[str, Any]) -> str:
    """The object's version of Kueue's group (`v1beta2` when it names another group or none)."""
    api = obj.get("apiVersion")
    group, _, version = api.partition("/") if isinstance(api, str) else ("", "", "")
    return version if group == GROUP and version in SERVED else V1BETA2


def _dict(parent: dict[str, Any], key: str) -> dict[str, Any] | None:
    value = parent.get(key)
    return value if isinstance(value, dict) else None


def to_v1beta2(kind: str, obj: Mapping[str, Any]) -> tuple[dict[str, Any], list[str], list[FieldError]]:
    """The v1beta1 object `obj` as v1beta2 (a copy), the v1beta2-only fields it gave (unknown under
    v1beta1, as dotted paths) and the errors of v1beta1's own rules."""
    out = copy.deepcopy(dict(obj))
    out["apiVersion"] = f"{GROUP}/{V1BETA2}"
    unknown = []
    for path in V1BETA2_ONLY.get(kind, ()):
        parent: Any = out
        for part in path[:-1]:
            parent = parent.get(part) if isinstance(parent, dict) else None
        if isinstance(parent, dict) and path[-1] in parent:
            unknown.append(".".join(path))
            del parent[path[-1]]
    errors: list[FieldError] = []
    spec, status = _dict(out, "spec"), _dict(out, "status")
    if kind == "ClusterQueue" and spec is not None:
        _cluster_queue(spec)
    elif kind == "Workload":
        if spec is not None:
            errors += _workload_spec(spec)
        if status is not None:
            _workload_status(status)
    elif kind == "LocalQueue" and status is not None:
        if "flavorUsage" in status:
            status["flavorsUsage"] = status.pop("flavorUsage")
        status.pop("flavors", None)
    return out, unknown, errors


def _cluster_queue(spec: dict[str, Any]) -> None:
    if "cohort" in spec:
        spec["cohortName"] = spec.pop("cohort")
    checks = spec.pop("admissionChecks", None)
    if isinstance(checks, list) and checks:
        spec["admissionChecksStrategy"] = {"admissionChecks": [{"name": name} for name in checks]}
    fungibility = _dict(spec, "flavorFungibility")
    if fungibility is not None:
        if fungibility.get("whenCanPreempt") == "Preempt":
            fungibility["whenCanPreempt"] = MAY_STOP_SEARCH
        if fungibility.get("whenCanBorrow") == "Borrow":
            fungibility["whenCanBorrow"] = MAY_STOP_SEARCH


def _workload_spec(spec: dict[str, Any]) -> list[FieldError]:
    errors = []
    name = spec.pop("priorityClassName", None)
    if name is not None and spec.get("priority") is None:
        errors.append(FieldError(INVALID, "spec", GoString("object"), PRIORITY_RULE))
    ref = PRIORITY_SOURCES.get(str(spec.pop("priorityClassSource", "") or ""))
    if ref is not None:
        spec["priorityClassRef"] = {"group": ref[0], "kind": ref[1], "name": "" if name is None else name}
    return errors


def _workload_status(status: dict[str, Any]) -> None:
    if "accumulatedPastExexcutionTimeSeconds" in status:
        status["accumulatedPastExecutionTimeSeconds"] = status.pop("accumulatedPastExexcutionTimeSeconds")
    admission = _dict(status, "admission")
    for psa in (admission or {}).get("podSetAssignments") or ():
        assignment = _dict(psa, "topologyAssignment") if isinstance(psa, dict) else None
        if assignment is not None:
            psa["topologyAssignment"] = topology_slices(assignment)


def topology_slices(assignment: Mapping[str, Any]) -> dict[str, Any]:
    """A v1beta1 topology assignment (levels, domains of values and a count) as v1beta2's one
    compact slice (tas.V1Beta2From: a level's values universal when every domain shares it, pod
    counts universal when equal; the prefix and suffix compression, a choice of representation,
    left out)."""
    levels = list(assignment.get("levels") or [])
    domains = [d for d in assignment.get("domains") or () if isinstance(d, Mapping)]
    if not domains:
        return {"levels": levels, "slices": []}
    values_per_level = []
    for i in range(len(levels)):
        values = [str((d.get("values") or [""] * len(levels))[i]) for d in domains]
        values_per_level.append({"universal": values[0]} if len(set(values)) == 1
                                else {"individual": {"roots": values}})
    counts = [int(d.get("count") or 0) for d in domains]
    pod_counts = {"universal": counts[0]} if len(set(counts)) == 1 else {"individual": counts}
    return {"levels": levels, "slices": [{"domainCount": len(domains), "valuesPerLevel": values_per_level,
                                          "podCounts": pod_counts}]}


def cohort_field(obj: Mapping[str, Any]) -> str:
    """The spec field naming a ClusterQueue's cohort in the object's own version."""
    return "cohort" if version_of(obj) == V1BETA1 else "cohortName"


def cohort_of(obj: Mapping[str, Any]) -> str:
    """A ClusterQueue object's cohort, whichever served version it is written in."""
    spec = obj.get("spec") if isinstance(obj.get("spec"), Mapping) else {}
    return str(spec.get(cohort_field(obj)) or "")
