"""Taints and tolerations, matched as the scheduler matches them.

Lt/Gt toleration operators need the TaintTolerationComparisonOperators gate, which is
off in v1.35.4: such a toleration tolerates nothing.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from kexplain.apimachinery.labels import TAINT_NODE_UNSCHEDULABLE

NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE = "NoSchedule", "PreferNoSchedule", "NoExecute"
UNSCHEDULABLE_TAINT = {"key": TAINT_NODE_UNSCHEDULABLE, "effect": NO_SCHEDULE}


def tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    effect = toleration.get("effect") or ""
    if effect and effect != (taint.get("effect") or ""):
        return False
    key = toleration.get("key") or ""
    if key and key != (taint.get("key") or ""):
        return False
    op = toleration.get("operator") or ""
    if op in ("", "Equal"):
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return op == "Exists"


def tolerations_tolerate(tolerations: Iterable[Mapping[str, Any]], taint: Mapping[str, Any]) -> bool:
    return any(tolerates(t, taint) for t in tolerations)


def find_untolerated(taints: Iterable[Mapping[str, Any]], tolerations: Iterable[Mapping[str, Any]],
                     include: Callable[[Mapping[str, Any]], bool] | None = None) -> Mapping[str, Any] | None:
    """The first taint (of those `include` keeps) that no toleration tolerates, else None."""
    tolerations = tuple(tolerations)
    for taint in taints:
        if include is not None and not include(taint):
            continue
        if not tolerations_tolerate(tolerations, taint):
            return taint
    return None


def taint_to_string(taint: Mapping[str, Any]) -> str:
    """`key=value:effect`, `key:effect` without a value (Taint.ToString)."""
    key, value, effect = taint.get("key") or "", taint.get("value") or "", taint.get("effect") or ""
    return f"{key}={value}:{effect}" if value else f"{key}:{effect}"
