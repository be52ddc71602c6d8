"""A copy's top nodes: the n first of all the scored nodes ordered by total (highest first), the
chosen node first among equal totals, then by name — whatever the ties, as a full sort says."""
from __future__ import annotations

import random

from kexplain.explain.copy_summary import _top
from kexplain.framework.trace import NodeScores


def _scores(names: list[str], totals: list[int]) -> NodeScores:
    return NodeScores(names, totals, ["P"], [1], [totals], [totals])


def test_the_top_nodes_are_those_a_full_sort_puts_first() -> None:
    rng = random.Random(55)
    for _ in range(400):
        count = rng.randint(0, 40)
        names = [f"node-{rng.randint(0, 99):02d}-{i}" for i in range(count)]
        totals = [rng.choice((0, 50, 100, rng.randint(0, 300))) for _ in range(count)]
        chosen = rng.choice(names) if names and rng.random() < 0.8 else None
        n = rng.randint(1, 5)
        ranked = sorted(zip(names, totals), key=lambda nt: (-nt[1], nt[0] != chosen, nt[0]))[:n]
        got = _top(_scores(names, totals), chosen, n)
        assert [(e["node"], e["total"]) for e in got] == ranked, (names, totals, chosen, n)
        assert all(e["plugins"] == {"P": e["total"]} for e in got)
