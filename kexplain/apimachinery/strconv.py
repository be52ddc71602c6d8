"""Go's strconv: ParseInt(s, 10, 64), which label selectors (Gt, Lt) and quantity exponents use,
and FormatFloat's shortest forms, which Karpenter prints prices and computed quantities with."""
from __future__ import annotations

import math
from decimal import Decimal

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



def _shortest_digits(f: float) -> tuple[str, int]:
    """The fewest decimal digits that read back as `f` (as Go's shortest formatting) and the decimal
    point's position: 0.0832 is ("832", -1)."""
    _, digits, exponent = Decimal(repr(abs(f))).as_tuple()
    text = "".join(map(str, digits))
    stripped = text.lstrip("0")
    if not stripped:
        return "0", 1
    point = len(text) + exponent - (len(text) - len(stripped))
    return stripped.rstrip("0"), point


def format_float(f: float, fmt: str) -> str:
    """strconv.FormatFloat(f, fmt, -1, 64) for fmt 'f', 'e' and 'g' ('g' is what fmt's %v prints
    for a float64): the shortest digits that read back as `f`, laid out as Go lays them out."""
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    sign = "-" if math.copysign(1.0, f) < 0 else ""
    digits, point = _shortest_digits(f)
    exp = point - 1
    if fmt == "g":   # shortest %g takes %e below 1e-4 and from 1e+06 on
        fmt = "e" if exp < -4 or exp >= 6 else "f"
    if fmt == "e":
        frac = digits[1:]
        return f"{sign}{digits[0]}{'.' + frac if frac else ''}e{'+' if exp >= 0 else '-'}{abs(exp):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    whole, frac = digits.ljust(point, "0")[:point], digits[point:]
    return f"{sign}{whole}{'.' + frac if frac else ''}"
