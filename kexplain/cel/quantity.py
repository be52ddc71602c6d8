"""`resource.Quantity` as the Kubernetes CEL quantity library sees it.

kexplain/model/quantity.py keeps a quantity as an exact `Fraction`, which is all the
scheduler's resource fitting needs. CEL needs more of Go's `resource.Quantity`: the
representation it chose while parsing (an int64 mantissa with a decimal scale, or an
arbitrary-precision `inf.Dec`), because `isInteger()`/`asInteger()` answer from it (`1000m`
is not an integer to Go, `1.5Mi` is not either), the format (`Gi` versus `G` versus `e3`)
for printing, Go's rounding of sub-nano values and its cap on binary-suffixed ones, and the
exact parse errors. This module is that adapter; comparisons stay exact either way.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

ERR_FORMAT = ("quantities must match the regular expression "
              "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
ERR_NUMERIC = "unable to parse numeric part of quantity"
ERR_SUFFIX = "unable to parse quantity's suffix"

DECIMAL_SI, BINARY_SI, DECIMAL_EXPONENT = "DecimalSI", "BinarySI", "DecimalExponent"
_DEC = {"": 0, "n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DEC_BY_EXP = {v: k for k, v in _DEC.items()}
_BIN = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_BIN_BY_EXP = {v // 10: k for k, v in _BIN.items()}
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_MAX_EXPONENT_DIGITS = 400   # Go parses e<int64>; more than this is no quantity anyone stores
_MAX_SCALE = 100_000   # decimal digits kexplain will materialise for one quantity


class QuantityParseError(ValueError):
    """ParseQuantity refused the text; the message is Go's."""


@dataclass(frozen=True, slots=True)
class Quantity:
    """A parsed quantity: value = unscaled * 10**scale.

    `dec` says Go holds it as an `inf.Dec` (then `AsInt64` fails whatever the value); otherwise
    it is Go's `int64Amount{value: unscaled, scale}`. `boxed` marks the pointer that the CEL
    `add`/`sub` functions return: Go's `Quantity.Equal` refuses a pointer as its argument.
    """

    unscaled: int
    scale: int
    dec: bool
    fmt: str
    boxed: bool = False

    @property
    def value(self) -> Fraction:
        if self.scale >= 0:
            return Fraction(self.unscaled * 10 ** self.scale)
        return Fraction(self.unscaled, 10 ** -self.scale)

    def cmp(self, other: "Quantity") -> int:
        a, b = self._aligned(other)
        return (a > b) - (a < b)

    def _aligned(self, other: "Quantity") -> tuple[int, int]:
        s = min(self.scale, other.scale)
        return self.unscaled * 10 ** (self.scale - s), other.unscaled * 10 ** (other.scale - s)

    def sign(self) -> int:
        return (self.unscaled > 0) - (self.unscaled < 0)

    def as_int64(self) -> int | None:
        """Go's `AsInt64`: None where Go answers `false`."""
        if self.dec or self.scale < 0:
            return None
        v = self.unscaled * 10 ** self.scale
        return v if _INT64_MIN <= v <= _INT64_MAX else None

    def approximate_float(self) -> float:
        """Go's `AsApproximateFloat64`: float(mantissa) * Pow10(exponent)."""
        try:
            base = float(self.unscaled)
        except OverflowError:
            base = math.copysign(math.inf, self.unscaled)
        if self.scale == 0:
            return base
        return base * _pow10(self.scale)

    def add(self, other: "Quantity", negate: bool = False) -> "Quantity":
        """Go's `Quantity.Add` (or `Sub` with `negate`) on a copy; the result is boxed."""
        ou = -other.unscaled if negate else other.unscaled
        fmt = self.fmt
        if not self.dec and not other.dec:
            if self.unscaled == 0:
                fmt = other.fmt
            r = _int64_add(self.unscaled, self.scale, ou, other.scale)
            if r is not None:
                return Quantity(r[0], r[1], False, fmt, True)
        elif self.unscaled == 0:
            fmt = other.fmt
        s = min(self.scale, other.scale)
        total = self.unscaled * 10 ** (self.scale - s) + ou * 10 ** (other.scale - s)
        return Quantity(total, s, True, fmt, True)

    def __str__(self) -> str:
        number, suffix = self.canonical_parts()
        return number + suffix

    def canonical_parts(self) -> tuple[str, str]:
        """Go's `CanonicalizeBytes`: the number and suffix that `String()` prints."""
        if self.unscaled == 0:
            return "0", ""
        fmt = self.fmt
        rounded = None
        if fmt == BINARY_SI:
            if -1024 < self.value < 1024:
                fmt = DECIMAL_SI
            else:
                rounded = _round_up(self.value)
                if rounded != self.value:
                    fmt = DECIMAL_SI
        if fmt in (DECIMAL_SI, DECIMAL_EXPONENT):
            mantissa, exponent = self.unscaled, self.scale
            neg = mantissa < 0
            mantissa = abs(mantissa)
            while mantissa >= 10 and mantissa % 10 == 0:
                mantissa //= 10
                exponent += 1
            while exponent % 3:
                mantissa *= 10
                exponent -= 1
            number = ("-" if neg else "") + str(mantissa)
            if fmt == DECIMAL_EXPONENT:
                return number, "" if exponent == 0 else f"e{exponent}"
            return number, _DEC_BY_EXP.get(exponent, "")
        amount = int(rounded)
        neg = amount < 0
        amount = abs(amount)
        times = 0
        while amount >= 1024 and amount % 1024 == 0:
            amount //= 1024
            times += 1
        return ("-" if neg else "") + str(amount), _BIN_BY_EXP.get(times, "")


def _round_up(v: Fraction) -> Fraction:
    """Round to an integer away from zero (inf.RoundUp)."""
    return Fraction(math.ceil(v) if v >= 0 else math.floor(v))


def _int64_add(av: int, ascale: int, bv: int, bscale: int) -> tuple[int, int] | None:
    """Go's `int64Amount.Add`: None where it reports overflow (then Go switches to inf.Dec)."""
    if bv == 0:
        return av, ascale
    if av == 0:
        return bv, bscale
    if ascale == bscale:
        c = av + bv
        return (c, ascale) if _INT64_MIN <= c <= _INT64_MAX else None
    if ascale > bscale:
        c = av * 10 ** (ascale - bscale)
        if not _INT64_MIN <= c <= _INT64_MAX:
            return None
        c += bv
        return (c, bscale) if _INT64_MIN <= c <= _INT64_MAX else None
    c = bv * 10 ** (bscale - ascale)
    if not _INT64_MIN <= c <= _INT64_MAX:
        return None
    c += av
    return (c, ascale) if _INT64_MIN <= c <= _INT64_MAX else None


_POW10TAB = [float(10 ** i) for i in range(32)]
_POW10POSTAB32 = [float(f"1e{32 * i}") for i in range(10)]


def _pow10(n: int) -> float:
    """Go's `math.Pow10`, table for table, so approximate floats round as Go's do."""
    if 0 <= n <= 308:
        return _POW10POSTAB32[n // 32] * _POW10TAB[n % 32]
    if -323 <= n <= 0:
        return 1 / (_POW10TAB[-n % 32] * _POW10POSTAB32[-n // 32])
    return math.inf if n > 0 else 0.0


def _split(text: str) -> tuple[bool, str, str, str, str]:
    """Go's `parseQuantityString`: (positive, value, num, denom, suffix)."""
    positive, pos, end = True, 0, len(text)
    if pos < end and text[0] in "+-":
        positive = text[0] != "-"
        pos += 1
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    i = pos
    while i < end and text[i].isascii() and text[i].isdigit():
        i += 1
    if i >= end:
        return positive, text, text[pos:], "", ""
    num = text[pos:i] or "0"
    pos = i
    denom = ""
    if text[pos] == ".":
        pos += 1
        i = pos
        while i < end and text[i].isascii() and text[i].isdigit():
            i += 1
        denom = text[pos:i]
        if i >= end:
            return positive, text, num, denom, ""
        pos = i
    value = text[:pos]
    start = pos
    i = pos
    while i < end and text[i] in _SUFFIX_CHARS:
        i += 1
    if i >= end:
        return positive, value, num, denom, text[start:]
    pos = i
    if text[pos] in "+-":
        pos += 1
    i = pos
    while i < end and text[i].isascii() and text[i].isdigit():
        i += 1
    if i >= end:
        return positive, value, num, denom, text[start:]
    raise QuantityParseError(ERR_FORMAT)


def _interpret(suffix: str) -> tuple[int, int, str]:
    if suffix in _DEC:
        return 10, _DEC[suffix], DECIMAL_SI
    if suffix in _BIN:
        return 2, _BIN[suffix], BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        digits = suffix[1:]
        body = digits[1:] if digits[:1] in ("+", "-") else digits
        if body.isascii() and body.isdigit() and len(body) <= _MAX_EXPONENT_DIGITS:
            exp = int(digits)
            if _INT64_MIN <= exp <= _INT64_MAX:
                return 10, (exp + (1 << 31)) % (1 << 32) - (1 << 31), DECIMAL_EXPONENT  # int32(parsed)
    raise QuantityParseError(ERR_SUFFIX)


def parse(text: str) -> Quantity:
    """Go's `resource.ParseQuantity`, representation included."""
    if not text:
        raise QuantityParseError(ERR_FORMAT)
    if text == "0":
        return Quantity(0, 0, False, DECIMAL_SI)
    positive, value, num, denom, suffix = _split(text)
    base, exponent, fmt = _interpret(suffix)
    precision, scale, mantissa = 0, 0, 1
    if fmt in (DECIMAL_EXPONENT, DECIMAL_SI):
        scale = exponent
        precision = 18 - (len(num) + len(denom))
    elif exponent >= 0 and not denom:
        mantissa = 1 << exponent
        precision = 15 - len(num) - int(float(exponent) * 3 / 10) - 1
    else:
        precision = -1
    if precision >= 0:
        scale -= len(denom)
        if scale >= -9:
            shifted = num + denom
            v = int(shifted)   # digits only, at most 18 of them
            if v > _INT64_MAX:
                raise QuantityParseError(ERR_NUMERIC)
            result = v * mantissa
            if _INT64_MIN <= result <= _INT64_MAX:
                return Quantity(result if positive else -result, scale, False, fmt)
    # The inf.Dec path: exact, rounded up to nano, binary values capped at int64.
    digits = value.lstrip("+-")
    whole, _, frac = digits.partition(".")
    if not (whole + frac) or not (whole + frac).isascii() or not (whole + frac).isdigit() \
            or len((whole + frac).lstrip("0")) > 4000:
        raise QuantityParseError(ERR_NUMERIC)
    unscaled = int(whole + frac)
    scale = -len(frac)
    if base == 10:
        scale += exponent
    else:
        unscaled <<= exponent
    if unscaled:   # inf.Dec.Round(amount, nano, RoundUp): exactly nine decimals, rounded up
        if scale > _MAX_SCALE:   # Go would build the number; kexplain declines (no real quantity)
            raise QuantityParseError(ERR_NUMERIC)
        if scale >= -9:
            unscaled *= 10 ** (scale + 9)
        elif -9 - scale > len(str(unscaled)) + 1:
            unscaled = 1
        else:
            unscaled = -(-unscaled // 10 ** (-9 - scale))
        scale = -9
    if fmt == BINARY_SI and unscaled * Fraction(10) ** scale > _INT64_MAX:
        unscaled, scale = _INT64_MAX, 0
    if fmt == BINARY_SI and unscaled > 0 and unscaled * Fraction(10) ** scale < 1:
        fmt = DECIMAL_SI
    return Quantity(unscaled if positive else -unscaled, scale, True, fmt)


def from_int(n: int) -> Quantity:
    """Go's `NewQuantity(n, DecimalExponent)`."""
    return Quantity(n, 0, False, DECIMAL_EXPONENT)


def canonical(q: Quantity) -> Quantity:
    """The quantity as the scheduler decodes it after the API server stored `q.String()`."""
    return parse(str(q))
