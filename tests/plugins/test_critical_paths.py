"""PodTopologySpread's critical paths worked out at once (`CriticalPaths.of`) are those the
scheduler's update of every domain in order leaves: ties, an empty domain value, one domain."""
from __future__ import annotations

import random

import pytest

from kexplain.plugins.pod_topology_spread import CriticalPaths


def _one_by_one(counts: dict[str, int]) -> list[list]:
    paths = CriticalPaths()
    for value, num in counts.items():
        paths.update(value, num)
    return paths.paths


@pytest.mark.parametrize("counts", [
    {}, {"a": 3}, {"": 3}, {"a": 5, "": 3}, {"a": 5, "": 7}, {"a": 0, "b": 0}, {"b": 1, "a": 0, "c": 0},
    {"c": 2, "a": 1, "b": 0, "d": 1}, {"a": 1, "b": 1, "c": 1},
])
def test_the_paths_of_the_counts_are_the_updates_in_order(counts: dict[str, int]) -> None:
    assert CriticalPaths.of(counts).paths == _one_by_one(counts)


def test_random_counts_with_many_ties() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        names = rng.sample(["", "a", "b", "c", "d", "e", "f", "g"], rng.randint(0, 8))
        counts = {name: rng.randint(0, 3) for name in names}
        assert CriticalPaths.of(counts).paths == _one_by_one(counts), counts
