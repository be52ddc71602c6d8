"""API values written on one line as kubectl writes them (a quantity, a selector requirement, a label
selector, a toleration), so that neither JSON readers nor renderers need to know a unit or a selector.
"""
from __future__ import annotations

from typing import Any

from kexplain.apimachinery.quantity import BINARY_SUFFIXES, DECIMAL_SUFFIXES, format_milli

BYTE_RESOURCES = frozenset({"memory", "ephemeral-storage", "storage"})
# The exact units a byte count is tried in, largest first: binary, then decimal.
_BYTE_UNITS = (*((s, 1 << e) for s, e in sorted(BINARY_SUFFIXES.items(), key=lambda kv: -kv[1])),
               *((s, 10 ** e) for s, e in sorted(DECIMAL_SUFFIXES.items(), key=lambda kv: -kv[1]) if e > 0))


def format_quantity(name: str, amount: int) -> str:
    """An integer amount of resource `name` as a quantity string (cpu in millicores, memory-like in bytes,
    else a count)."""
    if name == "cpu":
        return format_milli(amount)
    if amount and (name in BYTE_RESOURCES or name.startswith("hugepages-")):
        for suffix, size in _BYTE_UNITS:
            if amount % size == 0:
                return f"{amount // size}{suffix}"
    return str(amount)


def format_expression(expr: dict[str, Any]) -> str:
    """A selector requirement (`{key, operator, values}`: label selector, node selector or
    matchFields) as kubectl would write it: `disktype In [ssd]`, `gpu Exists`."""
    key, op = str(expr.get("key") or ""), str(expr.get("operator") or "")
    values = expr.get("values") or []
    if op in ("Exists", "DoesNotExist") or not values:
        return f"{key} {op}".strip()
    return f"{key} {op} [{', '.join(str(v) for v in values)}]"


def format_label_selector(raw: Any) -> str:
    """A LabelSelector (matchLabels and matchExpressions) as one line: `app=web, tier In [db]`;
    `<none>` for a null selector (matches nothing), `<all>` for an empty one."""
    if not isinstance(raw, dict):
        return "<none>"
    parts = [f"{k}={v}" for k, v in sorted((raw.get("matchLabels") or {}).items())]
    parts += [format_expression(e) for e in raw.get("matchExpressions") or () if isinstance(e, dict)]
    return ", ".join(parts) if parts else "<all>"


def format_parsed_selector(selector: Any) -> str:
    """A parsed label selector (`kexplain.model.labels.LabelSelector`: `nothing` and
    `requirements` of key, op, values) as one line, as `format_label_selector` writes a raw one."""
    if selector.nothing:
        return "<none>"
    if not selector.requirements:
        return "<all>"
    return ", ".join(f"{r.key}={next(iter(r.values))}" if r.op == "In" and len(r.values) == 1 else
                     format_expression({"key": r.key, "operator": r.op, "values": sorted(r.values)})
                     for r in selector.requirements)


def format_toleration(tol: dict[str, Any]) -> str:
    """A toleration as one line: `key=value:NoSchedule`, `key:Exists`, `Exists` (every taint)."""
    key, value = str(tol.get("key") or ""), str(tol.get("value") or "")
    effect = f":{tol['effect']}" if tol.get("effect") else ""
    if (tol.get("operator") or "Equal") == "Exists":
        return f"{key}:Exists{effect}" if key else f"Exists{effect}"
    return f"{key}={value}{effect}"
