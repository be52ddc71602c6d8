"""Consumable capacity (1.36 on by default): what a request consumes of a device capacity under
its requestPolicy, and whether one more share fits."""
from __future__ import annotations

from fractions import Fraction

import pytest

from kexplain.apimachinery.quantity import parse
from kexplain.plugins.dra import capacity as cc
from kexplain.plugins.dra.features import Capacity

GI = 2**30
RANGE = {"default": "1Gi", "validRange": {"min": "1Gi", "max": "8Gi", "step": "2Gi"}}
VALUES = {"validValues": ["1Gi", "4Gi", "16Gi"]}


def cap(value="16Gi", policy=None):
    return Capacity(parse(value).value, policy)


@pytest.mark.parametrize("requested, policy, want", [
    (None, None, 16 * GI),          # no request, no policy: all of it
    (None, RANGE, 1 * GI),          # the policy's default
    ("3Gi", None, 3 * GI),          # no policy: as asked
    ("500Mi", RANGE, 1 * GI),       # below the range's minimum
    ("2Gi", RANGE, 3 * GI),         # up to the next step from the minimum
    ("3Gi", RANGE, 3 * GI),
    ("2Gi", VALUES, 4 * GI),        # the next valid value
    ("20Gi", VALUES, 20 * GI),      # past the valid values: as asked
])
def test_consumed(requested, policy, want):
    got = cc.consume(parse(requested) if requested else None, cap(policy=policy))
    assert got.value == Fraction(want)


def test_violations():
    assert cc.violates(parse("9Gi"), RANGE)            # above the maximum
    assert cc.violates(parse("2Gi"), RANGE)            # off the step (1Gi + 2Gi k)
    assert not cc.violates(parse("1Gi"), RANGE)        # the default
    assert cc.violates(parse("2Gi"), VALUES) and not cc.violates(parse("4Gi"), VALUES)


def test_fits_adds_what_is_allocated_and_allocating():
    caps = {"memory": cap("8Gi")}
    assert cc.fits({"memory": "4Gi"}, caps, {"memory": parse("2Gi")}, {"memory": parse("2Gi")})
    assert not cc.fits({"memory": "4Gi"}, caps, {"memory": parse("2Gi")}, {"memory": parse("3Gi")})
    with pytest.raises(cc.UnknownCapacity):
        cc.fits({"cores": "1"}, caps, {}, {})
