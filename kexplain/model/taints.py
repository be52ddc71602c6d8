"""Taints and tolerations, matched as the scheduler matches them. Lt/Gt tolerations need the
TaintTolerationComparisonOperators gate (off in v1.35.4: they tolerate nothing); Karpenter v1.13.0
matches with them enabled (`enable_comparison_operators=True`).
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from kexplain.apimachinery.labels import TAINT_NODE_UNSCHEDULABLE

NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE = "NoSchedule", "PreferNoSchedule", "NoExecute"
UNSCHEDULABLE_TAINT = {"key": TAINT_NODE_UNSCHEDULABLE, "effect": NO_SCHEDULE}


def _decimal_integer(value: str) -> int | None:
    """content.IsDecimalInteger then ParseInt: an int64 written canonically (no sign `+`, no
    leading zero), else None."""
    digits = value[1:] if value[:1] == "-" else value
    if not digits or not digits.isascii() or not digits.isdigit() or (digits[0] == "0" and value != "0"):
        return None
    n = int(value) if len(digits) <= 19 else None
    return n if n is not None and -(1 << 63) <= n < (1 << 63) else None


def tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any], *,
              enable_comparison_operators: bool = False) -> bool:
    """Toleration.ToleratesTaint."""
    effect = toleration.get("effect") or ""
    if effect and effect != (taint.get("effect") or ""):
        return False
    key = toleration.get("key") or ""
    if key and key != (taint.get("key") or ""):
        return False
    op = toleration.get("operator") or ""
    if op in ("", "Equal"):
        return (toleration.get("value") or "") == (taint.get("value") or "")
    if op == "Exists":
        return True
    if op in ("Lt", "Gt") and enable_comparison_operators:
        wanted = _decimal_integer(str(toleration.get("value") or ""))
        got = _decimal_integer(str(taint.get("value") or ""))
        if wanted is None or got is None:
            return False
        return got < wanted if op == "Lt" else got > wanted
    return False


def tolerations_tolerate(tolerations: Iterable[Mapping[str, Any]], taint: Mapping[str, Any], *,
                         enable_comparison_operators: bool = False) -> bool:
    return any(tolerates(t, taint, enable_comparison_operators=enable_comparison_operators) for t in tolerations)


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
