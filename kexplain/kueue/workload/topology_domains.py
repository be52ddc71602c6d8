"""A stored topology assignment read back as its domains (each the values of its levels and a pod
count): v1beta2's compact slices (pkg/workload/tas: each level's values universal, or individual
roots between a prefix and a suffix; pod counts universal or individual) or v1beta1's domains. What
kexplain shows of a Workload the cluster stores beside the assignment it computes."""
from __future__ import annotations

from typing import Any, Mapping


def _values(level: Mapping[str, Any], count: int) -> list[str]:
    if level.get("universal") is not None:
        return [str(level["universal"])] * count
    individual = level.get("individual") if isinstance(level.get("individual"), Mapping) else {}
    prefix, suffix = str(individual.get("prefix") or ""), str(individual.get("suffix") or "")
    return [f"{prefix}{root}{suffix}" for root in individual.get("roots") or ()]


def _counts(pod_counts: Mapping[str, Any], count: int) -> list[int]:
    if pod_counts.get("universal") is not None:
        return [int(pod_counts["universal"])] * count
    return [int(n) for n in pod_counts.get("individual") or ()]


def stored_domains(assignment: Any) -> list[dict[str, Any]]:
    """Each domain of a stored topologyAssignment, in order: {"values": [one per level], "count": pods}."""
    if not isinstance(assignment, Mapping):
        return []
    if assignment.get("domains") is not None:       # v1beta1
        return [{"values": [str(v) for v in d.get("values") or ()], "count": int(d.get("count") or 0)}
                for d in assignment["domains"] if isinstance(d, Mapping)]
    out: list[dict[str, Any]] = []
    for piece in assignment.get("slices") or ():
        if not isinstance(piece, Mapping):
            continue
        count = int(piece.get("domainCount") or 0)
        per_level = [_values(level, count) for level in piece.get("valuesPerLevel") or () if isinstance(level, Mapping)]
        counts = _counts(piece.get("podCounts") if isinstance(piece.get("podCounts"), Mapping) else {}, count)
        for i in range(count):
            out.append({"values": [values[i] if i < len(values) else "" for values in per_level],
                        "count": counts[i] if i < len(counts) else 0})
    return out
