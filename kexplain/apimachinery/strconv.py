"""Go's strconv.ParseInt(s, 10, 64), which label selectors (Gt, Lt) and quantity exponents use."""
from __future__ import annotations

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def parse_int64(s: object) -> int | None:
    """The int64 `s` spells (an optional sign, then ASCII digits), None where Go returns an error."""
    if not isinstance(s, str):
        return None
    negative = s[:1] == "-"
    body = s[1:] if s[:1] in ("+", "-") else s
    if not body or not body.isascii() or not body.isdigit():
        return None
    digits = body.lstrip("0") or "0"      # Go takes any number of leading zeros; int() stops at 4,300 digits
    if len(digits) > 19:
        return None
    v = -int(digits) if negative else int(digits)
    return v if _INT64_MIN <= v <= _INT64_MAX else None
