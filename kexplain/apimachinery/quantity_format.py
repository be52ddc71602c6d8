"""resource.Quantity as the API server decodes, rounds and prints it.

Admission needs more than the value: error messages print a quantity in its
canonical form (`0.5` is shown as `500m`, `1024Mi` as `1Gi`), and defaulting
rounds every resource list up to milli precision. So a parsed quantity keeps
its format (decimal SI, binary SI or decimal exponent) next to its exact value.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

GRAMMAR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"

DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"

_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_BY_EXP = {v: k for k, v in _DECIMAL.items()}
_BINARY_BY_EXP = {v: k for k, v in _BINARY.items()}
_SUFFIX_CHARS = set("eEinumkKMGTP")
_MAX_BINARY = Fraction(2**63 - 1)
_NANO = Fraction(1, 10**9)
MAX_DIGITS = 1000   # Go takes any length (the request size limits it); Python's int() stops at 4,300
MAX_EXPONENT = 1000  # as the scheduler side (model.quantity): values stay printable (str() of an int)


class QuantityError(ValueError):
    """The text does not decode as a quantity; the API server refuses the object."""


@dataclass(frozen=True)
class Quantity:
    """An exact quantity value and the format it prints in."""

    value: Fraction
    fmt: str = DECIMAL_SI

    def __str__(self) -> str:
        return canonical(self)


def _split(text: str) -> tuple[bool, str, str, str]:
    """Sign, integer digits, fraction digits and suffix, as parseQuantityString reads them."""
    pos, end = 0, len(text)
    positive = True
    if text[:1] in "+-":
        positive = text[0] == "+"
        pos = 1
    start = pos
    while pos < end and text[pos].isdigit() and text[pos].isascii():
        pos += 1
    num = text[start:pos]
    denom = ""
    if pos < end and text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos].isdigit() and text[pos].isascii():
            pos += 1
        denom = text[start:pos]
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos].isdigit() and text[pos].isascii():
        pos += 1
    if pos != end:
        raise QuantityError(GRAMMAR)
    return positive, num, denom, text[suffix_start:]


@lru_cache(maxsize=65536)
def parse_text(text: str) -> Quantity:
    """ParseQuantity: exact value (rounded up to nano precision) and format."""
    text = text.strip()
    if not text:
        raise QuantityError("quantities must match the regular expression "
                            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    if text == "0":
        return Quantity(Fraction(0))
    positive, num, denom, suffix = _split(text)
    if len(num.lstrip("0")) + len(denom) > MAX_DIGITS:
        raise QuantityError(f"quantities of more than {MAX_DIGITS:,} digits are not supported")
    if suffix in _DECIMAL:
        fmt, factor = DECIMAL_SI, Fraction(10) ** _DECIMAL[suffix]
    elif suffix in _BINARY:
        fmt, factor = BINARY_SI, Fraction(2 ** _BINARY[suffix])
    elif len(suffix) > 1 and suffix[0] in "eE":
        try:
            exp = int(suffix[1:], 10)
        except ValueError:
            raise QuantityError("unable to parse quantity's suffix") from None
        if abs(exp) > MAX_EXPONENT:
            raise QuantityError("unable to parse quantity's suffix")
        fmt, factor = DECIMAL_EXPONENT, Fraction(10) ** exp
    else:
        raise QuantityError("unable to parse quantity's suffix")
    magnitude = Fraction(int(num.lstrip("0") or "0") * 10 ** len(denom) + int(denom or "0"), 10 ** len(denom)) * factor
    if magnitude and magnitude.denominator != 1:
        magnitude = Fraction(math.ceil(magnitude / _NANO)) * _NANO
    if fmt == BINARY_SI and magnitude > _MAX_BINARY:
        magnitude = _MAX_BINARY
    if fmt == BINARY_SI and 0 < magnitude < 1:
        fmt = DECIMAL_SI
    return Quantity(magnitude if positive else -magnitude, fmt)


def parse(raw: object) -> Quantity:
    """Decode a quantity as YAML gives it: a string, an int, a float or null (zero)."""
    if raw is None:
        return Quantity(Fraction(0))
    if isinstance(raw, bool):
        raise QuantityError("quantities must be a string or a number, not a boolean")
    if isinstance(raw, int):
        return parse_text(str(raw))
    if isinstance(raw, float):
        if not math.isfinite(raw):
            raise QuantityError(GRAMMAR)
        return parse_text(repr(raw).replace("e+", "e"))
    if isinstance(raw, str):
        return parse_text(raw)
    raise QuantityError(f"quantities must be a string or a number, not a {type(raw).__name__}")


def is_valid(raw: object) -> bool:
    """True when `raw` decodes as a quantity."""
    try:
        parse(raw)
    except QuantityError:
        return False
    return True


def round_up_milli(q: Quantity) -> Quantity:
    """SetDefaults_ResourceList: every value is rounded up (away from zero) to milli precision."""
    scaled = q.value * 1000
    if scaled.denominator == 1:
        return q
    rounded = math.ceil(abs(scaled)) * (1 if scaled > 0 else -1)
    return Quantity(Fraction(rounded, 1000), q.fmt)


def _remove_factors(n: int, base: int) -> tuple[int, int]:
    times = 0
    while n and n % base == 0:
        n //= base
        times += 1
    return n, times


def canonical(q: Quantity) -> str:
    """Quantity.String(): the canonical text the API server prints."""
    v = q.value
    if v == 0:
        return "0"
    fmt = q.fmt
    if fmt == BINARY_SI and (-1024 < v < 1024 or v.denominator != 1):
        fmt = DECIMAL_SI
    if fmt == BINARY_SI:
        sign = "-" if v < 0 else ""
        amount, times = _remove_factors(abs(int(v)), 1024)
        while times * 10 not in _BINARY_BY_EXP and times > 0:
            amount *= 1024
            times -= 1
        return f"{sign}{amount}{_BINARY_BY_EXP[times * 10]}" if times else f"{sign}{amount}"
    sign = "-" if v < 0 else ""
    v = abs(v)
    exponent = 0
    while v.denominator != 1:
        v *= 10
        exponent -= 1
    amount, times = _remove_factors(int(v), 10)
    exponent += times
    while exponent % 3:
        amount *= 10
        exponent -= 1
    if fmt == DECIMAL_EXPONENT:
        return f"{sign}{amount}" + (f"e{exponent}" if exponent else "")
    if exponent in _DECIMAL_BY_EXP:
        return f"{sign}{amount}{_DECIMAL_BY_EXP[exponent]}"
    # Beyond exa: Go falls back to the exponent notation.
    return f"{sign}{amount}e{exponent}"


def text_of(raw: object) -> str:
    """Canonical text of a raw YAML quantity (assumed decodable)."""
    return canonical(parse(raw))
