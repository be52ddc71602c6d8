"""Strict, typed reading of parsed YAML, as kube-scheduler's strict v1 decoder: unknown fields and
wrong types are refused, since a silently ignored typo would explain a scheduler that does not exist.
JSON `null` means unset, like Go's zero value.
"""
from __future__ import annotations

import re
from typing import Any, Collection

from kexplain.apimachinery.fielderrors import child, go_quote, index

INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)


class DecodeError(Exception):
    """Input the v1 decoder would refuse; `path` is where (empty for the document)."""

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.path = path


def _describe(v: object) -> str:
    if isinstance(v, bool):
        return f"bool {str(v).lower()}"
    if isinstance(v, (int, float)):
        return f"number {v}"
    if isinstance(v, str):
        return f"string {go_quote(v)}"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return type(v).__name__


def obj(v: object, path: str, fields: Collection[str]) -> dict[str, Any]:
    """A mapping with only known fields; None reads as an empty object."""
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise DecodeError(f"expected an object, got {_describe(v)}", path)
    unknown = [str(k) for k in v if k not in fields]
    if unknown:
        raise DecodeError("strict decoding error: "
                          + ", ".join(f'unknown field {go_quote(child(path, k))}' for k in unknown))
    return v


def integer(v: object, path: str, bounds: tuple[int, int] = INT32) -> int | None:
    """An integer in `bounds`; an integral float (YAML `1.0`) is accepted as Go does."""
    if v is None:
        return None
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int):
        raise DecodeError(f"expected an integer, got {_describe(v)}", path)
    if not bounds[0] <= v <= bounds[1]:
        bits = 32 if bounds == INT32 else 64
        raise DecodeError(f"number {v} overflows int{bits}", path)
    return v


def _typed(v: Any, path: str, kind: type, what: str) -> Any:
    """`v` when it is a `kind` (None stays None: unset), else the decoder's refusal."""
    if v is not None and not isinstance(v, kind):
        raise DecodeError(f"expected {what}, got {_describe(v)}", path)
    return v


def string(v: object, path: str) -> str | None:
    return _typed(v, path, str, "a string")


def boolean(v: object, path: str) -> bool | None:
    return _typed(v, path, bool, "a boolean")


def array(v: object, path: str) -> list[Any] | None:
    """A list; None stays None because some checks tell nil from empty (Go slices)."""
    return _typed(v, path, list, "an array")


def strings(v: object, path: str) -> list[str]:
    return [string(x, index(path, i)) or "" for i, x in enumerate(array(v, path) or [])]


# --- metav1.Duration (Go time.ParseDuration / Duration.String) -------------------------

_UNITS = {"ns": 1, "us": 10**3, "µs": 10**3, "μs": 10**3, "ms": 10**6,
          "s": 10**9, "m": 60 * 10**9, "h": 3600 * 10**9}
_PART = re.compile(r"(\d*)(?:\.(\d*))?([a-zµμ]+)")


def parse_duration(text: str) -> int | None:
    """Nanoseconds, or None when Go's time.ParseDuration would fail."""
    s = text
    sign = -1 if s.startswith("-") else 1
    s = s[1:] if s[:1] in "+-" else s
    if s == "0":
        return 0
    if not s:
        return None
    total = 0
    pos = 0
    while pos < len(s):
        m = _PART.match(s, pos)
        if not m or (not m.group(1) and not m.group(2)) or m.group(3) not in _UNITS:
            return None
        unit = _UNITS[m.group(3)]
        whole = int(m.group(1) or "0") * unit
        frac = m.group(2) or ""
        if frac:
            whole += int(frac) * unit // 10 ** len(frac)
        total += whole
        pos = m.end()
    return sign * total


def _frac(v: int, prec: int) -> str:
    whole, rest = divmod(v, 10**prec)
    digits = str(rest).rjust(prec, "0").rstrip("0")
    return f"{whole}.{digits}" if digits else str(whole)


def format_duration(ns: int) -> str:
    """Go's `time.Duration.String()`, so defaulted and echoed values look like v1 output."""
    if ns == 0:
        return "0s"
    u = abs(ns)
    if u < 10**9:
        if u < 10**3:
            s = f"{u}ns"
        elif u < 10**6:
            s = _frac(u, 3) + "µs"
        else:
            s = _frac(u, 6) + "ms"
    else:
        h, rem = divmod(u, 3600 * 10**9)
        m, rem = divmod(rem, 60 * 10**9)
        s = (f"{h}h" if h else "") + (f"{m}m" if h or m else "") + _frac(rem, 9) + "s"
    return ("-" if ns < 0 else "") + s


def duration(v: object, path: str) -> int | None:
    text = string(v, path)
    if text is None:
        return None
    ns = parse_duration(text)
    if ns is None:
        raise DecodeError(f"time: invalid duration {go_quote(text)}", path)
    return ns
