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
    """A bool, or a string strconv.ParseBool reads."""
    v = args.get(key)
    if isinstance(v, bool):
        return v
    if isinstance(v, str):
        return {"1": True, "t": True, "T": True, "true": True, "TRUE": True, "True": True, "0": False, "f": False,
                "F": False, "false": False, "FALSE": False, "False": False}.get(v, default)
    return default
