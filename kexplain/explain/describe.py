"""Wording read off a trace that both the views and lint's findings use, so the two say the same thing."""
from __future__ import annotations

from typing import Any, Mapping


def gate(trace: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The PreEnqueue plugin that held the pod back, if any."""
    return next((e for e in trace.get("preEnqueue") or () if e.get("code") != "Success"), None)


def counted(name: str, count: int) -> str:
    """`name`, or `name ×3` for three copies on one node."""
    return name if count == 1 else f"{name} ×{count}"
