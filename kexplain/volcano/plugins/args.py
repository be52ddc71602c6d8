"""framework.Arguments (framework/arguments.go): a plugin's arguments read by key, a value of the
wrong type leaving the default."""
from __future__ import annotations

from typing import Any, Mapping


def get_float(args: Mapping[str, Any], key: str, default: float) -> float:
    v = args.get(key)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else default


def get_int(args: Mapping[str, Any], key: str, default: int) -> int:
    v = args.get(key)
    return int(v) if isinstance(v, int) and not isinstance(v, bool) else default


def get_bool(args: Mapping[str, Any], key: str, default: bool) -> bool:
    v = args.get(key)
    return v if isinstance(v, bool) else default
