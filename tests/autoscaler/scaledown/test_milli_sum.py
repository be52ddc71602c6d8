"""A node's requests summed as CA's utilization reads them (`utilization._milli_sum`): the milli-value of
the exact sum, worked out in integers over the amounts' common denominator (no Fraction made per node)."""
from __future__ import annotations

from fractions import Fraction

import pytest

from kexplain.apimachinery.quantity import milli_value, parse_quantity
from kexplain.autoscaler.scaledown import utilization
from kexplain.autoscaler.scaledown.utilization import Requested, _milli_sum

AMOUNTS = [["975m", "1", "250m"], ["0.0005", "0.0005"], ["1Gi", "100Mi", "1"], ["1.5", "1/3"], ["3"], []]


def _exact(counts: dict[Requested, int]) -> int:
    return milli_value(sum((r.amounts["cpu"] * n for r, n in counts.items()), Fraction(0)))


@pytest.mark.parametrize("written", AMOUNTS)
def test_the_sum_is_the_exact_sums_milli_value(written: list[str]) -> None:
    counts = {Requested({"cpu": Fraction(1, 3) if w == "1/3" else parse_quantity(w)}): i + 1
              for i, w in enumerate(written)}
    assert _milli_sum(counts, "cpu") == _exact(counts)


def test_the_sum_makes_no_fraction(monkeypatch: pytest.MonkeyPatch) -> None:
    counts = {Requested({"cpu": parse_quantity(w)}): 3 for w in ("975m", "250m", "1", "0.0005")}
    monkeypatch.setattr(utilization, "Fraction", None)      # (a Fraction made would fail)
    assert _milli_sum(counts, "cpu") == 3 * (975 + 250 + 1000) + 2      # 1.5m, rounded up once
