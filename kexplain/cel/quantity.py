"""`resource.Quantity` as the Kubernetes CEL quantity library sees it: Go's int64-or-inf.Dec
representation, which `isInteger()`/`asInteger()` answer from, on top of the shared grammar of
`kexplain.apimachinery.quantity`; comparisons stay exact. Why it is needed: docs/internals/cel.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from kexplain.apimachinery.quantity import (BINARY_SI, DECIMAL_EXPONENT, DECIMAL_SI, ERR_NUMERIC, GRAMMAR as ERR_FORMAT,
                                            INT64_MAX as _INT64_MAX, QuantityError, canonical_parts, interpret, split)

QuantityParseError = QuantityError   # the CEL library's name for it: ParseQuantity refused the text
_INT64_MIN = -(1 << 63)
_MAX_SCALE = 100_000   # decimal digits kexplain will materialise for one quantity


@dataclass(frozen=True, slots=True)
class Quantity:
    """A parsed quantity, unscaled * 10**scale: `dec` when Go holds an `inf.Dec` (AsInt64 fails), `boxed`
    for the pointer `add`/`sub` return, which `Quantity.Equal` refuses."""

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
        return canonical_parts(self.value, self.fmt)


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


def _interpret(suffix: str) -> tuple[int, int, str]:
    """The suffix's base, exponent and format, the exponent narrowed to int32 as Go does."""
    base, exponent, fmt = interpret(suffix)
    return base, (exponent + (1 << 31)) % (1 << 32) - (1 << 31), fmt


def parse(text: str) -> Quantity:
    """Go's `resource.ParseQuantity`, representation included."""
    if not text:
        raise QuantityParseError(ERR_FORMAT)
    if text == "0":
        return Quantity(0, 0, False, DECIMAL_SI)
    positive, value, num, denom, suffix = split(text)
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
