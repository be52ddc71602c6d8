"""resource.Quantity as k8s.io/apimachinery v1.35 parses, rounds and prints it: one parser and one
printer for every layer. The exact value (a `Fraction` rounded up to nano precision as ParseQuantity
does) and its format are kept, because the canonical text depends on the format (`0.5` is `500m`);
`value` / `milli_value` are Value() / MilliValue(). kexplain.cel.quantity builds on `split`,
`interpret` and `canonical_parts`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

from kexplain.apimachinery.strconv import parse_int64

GRAMMAR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
ERR_NUMERIC = "unable to parse numeric part of quantity"
ERR_SUFFIX = "unable to parse quantity's suffix"

DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"

DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}   # powers of two
_DECIMAL_BY_EXP = {v: k for k, v in DECIMAL_SUFFIXES.items()}
_BINARY_BY_EXP = {v // 10: k for k, v in BINARY_SUFFIXES.items()}   # by power of 1024
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
INT64_MAX = (1 << 63) - 1
_MAX_BINARY = Fraction(INT64_MAX)
_NANO = Fraction(1, 10**9)
MAX_DIGITS = 1000   # Go takes any length (the request size limits it); Python's int() stops at 4,300
MAX_EXPONENT = 1000  # a quantity's decimal exponent: values stay printable (str() of an int)


class QuantityError(ValueError):
    """The text does not decode as a quantity; the API server refuses the object. The message is Go's."""


@dataclass(frozen=True)
class Quantity:
    """An exact quantity value and its print format; `text`: the string ParseQuantity kept as already
    canonical, which String() prints as is (arithmetic drops it, as Go's does)."""

    value: Fraction
    fmt: str = DECIMAL_SI
    text: str | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return canonical(self)


def _digits_end(text: str, pos: int) -> int:
    while pos < len(text) and "0" <= text[pos] <= "9":
        pos += 1
    return pos


def split(text: str) -> tuple[bool, str, str, str, str]:
    """parseQuantityString: (positive, value, num, denom, suffix); `num` without leading zeros
    ("0" when none is left), `value` the signed number as written (what inf.Dec parses)."""
    positive, pos, end = True, 0, len(text)
    if text[:1] in ("+", "-"):
        positive = text[0] == "+"
        pos = 1
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    i = _digits_end(text, pos)
    if i >= end:
        return positive, text, text[pos:], "", ""
    num, pos = text[pos:i] or "0", i
    denom = ""
    if text[pos] == ".":
        i = _digits_end(text, pos + 1)
        denom = text[pos + 1:i]
        if i >= end:
            return positive, text, num, denom, ""
        pos = i
    number, start = text[:pos], pos
    while pos < end and text[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    if _digits_end(text, pos) < end:
        raise QuantityError(GRAMMAR)
    return positive, number, num, denom, text[start:]


def interpret(suffix: str) -> tuple[int, int, str]:
    """quantitySuffixer.interpret: (base, exponent, format). An exponent suffix's exponent is
    returned as written (an int64; Go narrows it to int32 afterwards)."""
    if suffix in DECIMAL_SUFFIXES:
        return 10, DECIMAL_SUFFIXES[suffix], DECIMAL_SI
    if suffix in BINARY_SUFFIXES:
        return 2, BINARY_SUFFIXES[suffix], BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        exp = parse_int64(suffix[1:])
        if exp is not None:
            return 10, exp, DECIMAL_EXPONENT
    raise QuantityError(ERR_SUFFIX)


@lru_cache(maxsize=65536)
def parse_text(text: str) -> Quantity:
    """ParseQuantity (after the JSON decoder's TrimSpace): exact value, rounded up to nano
    precision, and format."""
    text = text.strip()
    if not text:
        raise QuantityError(GRAMMAR)
    if text == "0":
        return Quantity(Fraction(0))
    positive, _, num, denom, suffix = split(text)
    if len(num.lstrip("0")) + len(denom) > MAX_DIGITS:
        raise QuantityError(f"quantities of more than {MAX_DIGITS:,} digits are not supported")
    base, exponent, fmt = interpret(suffix)
    if abs(exponent) > MAX_EXPONENT:
        raise QuantityError(ERR_SUFFIX)
    magnitude = Fraction(int(num) * 10 ** len(denom) + int(denom or "0"), 10 ** len(denom)) \
        * Fraction(base) ** exponent
    if magnitude.denominator != 1:
        magnitude = Fraction(math.ceil(magnitude / _NANO)) * _NANO
    if fmt == BINARY_SI and magnitude > _MAX_BINARY:
        magnitude = _MAX_BINARY
    if fmt == BINARY_SI and 0 < magnitude < 1:
        fmt = DECIMAL_SI
    return Quantity(magnitude if positive else -magnitude, fmt)


_MAX_INT64_FACTORS = 18   # maxInt64Factors: decimal digits an int64 always holds


def _keeps_text(text: str) -> bool:
    """ParseQuantity's fast path (int64Amount), and its test whether the text is already in
    canonical form, in which case Go keeps it as the quantity's string."""
    positive, _, num, denom, suffix = split(text)
    base, exponent, fmt = interpret(suffix)
    if fmt == BINARY_SI:
        if exponent < 0 or denom:
            return False
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
        scale, mantissa = 0, 1 << exponent
    else:
        precision = _MAX_INT64_FACTORS - (len(num) + len(denom))
        scale, mantissa = exponent, 1
    if precision < 0:
        return False
    scale -= len(denom)
    shifted = num + denom
    if scale < -9 or parse_int64(shifted) is None or abs(int(shifted) * mantissa) > INT64_MAX:
        return False
    if fmt == BINARY_SI:
        return exponent % 10 == 0 and int(shifted) & 0x07 != 0
    return scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"


def must_parse(text: str) -> Quantity:
    """resource.MustParse as Karpenter's providers use it on their own texts: the value, and the text when
    ParseQuantity keeps it (`2.147483648e+09` prints back so)."""
    q = parse_text(text)
    if text != "0" and _keeps_text(text):
        return Quantity(q.value, q.fmt, text)
    return q


def new_quantity(value: int | Fraction, fmt: str = DECIMAL_SI) -> Quantity:
    """resource.NewQuantity / NewMilliQuantity (pass a Fraction): a value in a format, no text."""
    return Quantity(Fraction(value), fmt)


def add(q: Quantity, y: Quantity) -> Quantity:
    """q.Add(y) on a copy: the sum, in q's format unless q is zero (then y's)."""
    return Quantity(q.value + y.value, y.fmt if q.value == 0 else q.fmt)


def sub(q: Quantity, y: Quantity) -> Quantity:
    """q.Sub(y) on a copy: the difference, in q's format unless q is zero (then y's)."""
    return Quantity(q.value - y.value, y.fmt if q.value == 0 else q.fmt)


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


def parse_quantity(raw: object) -> Fraction:
    """The exact value of a quantity the scheduler reads (a string, an int or a float; a null
    quantity is no quantity here)."""
    if raw is None:
        raise QuantityError("quantities must be a string or a number")
    return parse(raw).value


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
    while n >= base and n % base == 0:
        n //= base
        times += 1
    return n, times


def canonical_parts(exact: Fraction, fmt: str) -> tuple[str, str]:
    """CanonicalizeBytes: the number and suffix String() prints, as v1.35 stores it (beyond exa a decimal
    SI value prints its mantissa alone: `1000E` as `1`)."""
    if exact == 0:
        return "0", ""
    sign = "-" if exact < 0 else ""
    magnitude = abs(exact)
    if fmt == BINARY_SI and (magnitude < 1024 or magnitude.denominator != 1):
        fmt = DECIMAL_SI
    if fmt == BINARY_SI:
        amount, times = _remove_factors(int(magnitude), 1024)
        return f"{sign}{amount}", _BINARY_BY_EXP.get(times, "")
    exponent = 0
    while magnitude.denominator != 1:
        magnitude *= 10
        exponent -= 1
    amount, times = _remove_factors(int(magnitude), 10)
    exponent += times
    while exponent % 3:
        amount *= 10
        exponent -= 1
    if fmt == DECIMAL_EXPONENT:
        return f"{sign}{amount}", f"e{exponent}" if exponent else ""
    return f"{sign}{amount}", _DECIMAL_BY_EXP.get(exponent, "")


def canonical(q: Quantity) -> str:
    """Quantity.String(): the canonical text the API server prints and stores (or the parsed
    text Go kept, see `must_parse`)."""
    if q.text is not None:
        return q.text
    number, suffix = canonical_parts(q.value, q.fmt)
    return number + suffix


def text_of(raw: object) -> str:
    """Canonical text of a raw YAML quantity (assumed decodable)."""
    return canonical(parse(raw))


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
    for suffix, exponent in reversed(BINARY_SUFFIXES.items()):
        size = 1 << exponent
        if n and n % size == 0:
            return f"{n // size}{suffix}"
    return str(n)
