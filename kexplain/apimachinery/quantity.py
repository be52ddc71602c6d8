"""Exact resource quantities, as the API's `resource.Quantity`.

Quantities are kept as `Fraction`s so that fitting never meets a float; the
scheduler reads them through `Value()` (bytes, counts: rounded up) and
`MilliValue()` (cpu: rounded up), which `value` and `milli_value` mirror.
"""
from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache

_NUMBER = re.compile(r"^([+-]?)(\d*)(?:\.(\d*))?(.*)$")
_BINARY = {"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50, "Ei": 1 << 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_EXPONENT = re.compile(r"^[eE]([+-]?\d+)$")
MAX_DIGITS = 1000
_MAX_BINARY = (1 << 63) - 1


class QuantityError(ValueError):
    """The text is not a valid quantity (the API server would refuse to decode it)."""


@lru_cache(maxsize=65536)
def _parse_text(text: str) -> Fraction:
    match = _NUMBER.match(text)
    if not match or not text:
        raise QuantityError(f"quantities must match the regular expression "
                            f"'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    sign, whole, frac, suffix = match.groups()
    digits = whole + (frac or "")   # none at all ("." "+" "Ki"): zero, as the API server reads it
    if len(digits.lstrip("0")) > MAX_DIGITS:   # int() refuses 4,300 digits, and slows down long before
        raise QuantityError(f"quantities of more than {MAX_DIGITS:,} digits are not supported")
    value = Fraction(int(digits.lstrip("0") or "0"), 10 ** len(frac or ""))
    if suffix in _BINARY:
        value = min(value * _BINARY[suffix], _MAX_BINARY)   # Go caps binary-suffixed quantities there
    elif suffix in _DECIMAL:
        value *= Fraction(10) ** _DECIMAL[suffix]
    else:
        exp = _EXPONENT.match(suffix)
        if not exp or len(exp.group(1)) > 6 or abs(int(exp.group(1))) > 1000:
            raise QuantityError("unable to parse quantity's suffix")
        value *= Fraction(10) ** int(exp.group(1))
    return -value if sign == "-" else value


def parse_quantity(raw: object) -> Fraction:
    """Parse a quantity written as YAML gives it: a string, an int or a float."""
    if isinstance(raw, bool) or raw is None:
        raise QuantityError("quantities must be a string or a number")
    if isinstance(raw, int):
        return Fraction(raw)
    if isinstance(raw, float):
        if not math.isfinite(raw):
            raise QuantityError("quantities must be finite")
        raw = repr(raw)
    if not isinstance(raw, str):
        raise QuantityError("quantities must be a string or a number")
    return _parse_text(raw.strip())


def value(q: Fraction) -> int:
    """`Quantity.Value()`: the integer value, rounded up."""
    return math.ceil(q)


def milli_value(q: Fraction) -> int:
    """`Quantity.MilliValue()`: the value in thousandths, rounded up."""
    return math.ceil(q * 1000)


def format_milli(milli: int) -> str:
    """A millicore count the way people write it (`1500m`, `2`)."""
    return str(milli // 1000) if milli % 1000 == 0 else f"{milli}m"


def format_bytes(n: int) -> str:
    """Bytes in the largest exact binary unit (`512Mi`, `3Gi`)."""
    for suffix, size in reversed(_BINARY.items()):
        if n and n % size == 0:
            return f"{n // size}{suffix}"
    return str(n)
