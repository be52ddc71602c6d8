"""Preference relaxation (provisioning/scheduling/preferences.go)."""
from __future__ import annotations

import copy
from typing import Any, Callable

PREFER_NO_SCHEDULE_TOLERATION = {"operator": "Exists", "effect": "PreferNoSchedule"}


def _block(spec: dict[str, Any], *path: str) -> dict[str, Any] | None:
    node: Any = spec
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            return None
    return node


def _by_weight_descending(terms: list[Any]) -> list[Any]:
    """sort.SliceStable by weight, heaviest first."""
    return sorted(terms, key=lambda t: -(t.get("weight") or 0) if isinstance(t, dict) else 0)


def remove_required_node_affinity_term(spec: dict[str, Any]) -> str | None:
    required = _block(spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    terms = (required or {}).get("nodeSelectorTerms") or []
    if len(terms) > 1:
        required["nodeSelectorTerms"] = terms[1:]
        return "removing: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
    return None


def _remove_preferred(spec: dict[str, Any], kind: str) -> str | None:
    block = _block(spec, "affinity", kind)
    terms = (block or {}).get("preferredDuringSchedulingIgnoredDuringExecution") or []
    if terms:
        block["preferredDuringSchedulingIgnoredDuringExecution"] = _by_weight_descending(terms)[1:]
        return f"removing: spec.affinity.{kind}.preferredDuringSchedulingIgnoredDuringExecution[0]"
    return None


def remove_preferred_pod_affinity_term(spec: dict[str, Any]) -> str | None:
    return _remove_preferred(spec, "podAffinity")


def remove_preferred_pod_anti_affinity_term(spec: dict[str, Any]) -> str | None:
    return _remove_preferred(spec, "podAntiAffinity")


def remove_preferred_node_affinity_term(spec: dict[str, Any]) -> str | None:
    return _remove_preferred(spec, "nodeAffinity")


def remove_topology_spread_schedule_anyway(spec: dict[str, Any]) -> str | None:
    """The first ScheduleAnyway constraint, replaced by the last one (Go's swap-and-truncate)."""
    tscs = spec.get("topologySpreadConstraints")
    if not isinstance(tscs, list):
        return None
    for i, tsc in enumerate(tscs):
        if isinstance(tsc, dict) and tsc.get("whenUnsatisfiable") == "ScheduleAnyway":
            tscs[i] = tscs[-1]
            del tscs[-1]
            return "removing: spec.topologySpreadConstraints"
    return None


def _match_toleration(a: Any, b: dict[str, Any]) -> bool:
    """Toleration.MatchToleration: key, operator, value and effect all equal."""
    return isinstance(a, dict) and all((a.get(k) or "") == (b.get(k) or "") for k in ("key", "operator", "value",
                                                                                      "effect"))


def tolerate_prefer_no_schedule_taints(spec: dict[str, Any]) -> str | None:
    tolerations = spec.get("tolerations") if isinstance(spec.get("tolerations"), list) else []
    if any(_match_toleration(t, PREFER_NO_SCHEDULE_TOLERATION) for t in tolerations):
        return None
    spec["tolerations"] = [*tolerations, dict(PREFER_NO_SCHEDULE_TOLERATION)]
    return "adding: toleration for PreferNoSchedule taints"


class Preferences:
    """What may be relaxed; `tolerate_prefer_no_schedule` when some NodePool taints PreferNoSchedule."""

    def __init__(self, tolerate_prefer_no_schedule: bool = False) -> None:
        self.tolerate_prefer_no_schedule = tolerate_prefer_no_schedule

    def relax(self, spec: dict[str, Any]) -> str | None:
        """One relaxation step on the pod's spec (in place): what was relaxed, None when nothing is left."""
        steps: list[Callable[[dict[str, Any]], str | None]] = [
            remove_required_node_affinity_term, remove_preferred_pod_affinity_term,
            remove_preferred_pod_anti_affinity_term, remove_preferred_node_affinity_term,
            remove_topology_spread_schedule_anyway]
        if self.tolerate_prefer_no_schedule:
            steps.append(tolerate_prefer_no_schedule_taints)
        for step in steps:
            reason = step(spec)
            if reason is not None:
                return reason
        return None


def relaxable_copy(obj: dict[str, Any]) -> dict[str, Any]:
    """pod.DeepCopy() as far as relaxation reaches: the spec's affinity, tolerations and spread
    constraints copied, the rest shared."""
    spec = dict(obj.get("spec") or {})
    for key in ("affinity", "tolerations", "topologySpreadConstraints"):
        if key in spec:
            spec[key] = copy.deepcopy(spec[key])
    return {**obj, "spec": spec}
