"""Go's fixed-width integers: a value converted to, or computed in, intN wraps rather than grows
(`int32(v)`, `time.Duration(s) * time.Second`)."""
from __future__ import annotations


def wrap(value: int, bits: int) -> int:
    """`value` as a Go signed integer of `bits` bits holds it: two's complement, wrapped."""
    half = 1 << (bits - 1)
    return (value + half) % (half << 1) - half
