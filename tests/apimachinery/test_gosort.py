"""Go's sort.Slice order: sorted, insertion-stable up to 12 elements, pdqsort's moves beyond."""
from __future__ import annotations

import json
import random

from kexplain.apimachinery.gosort import go_sort
from tests.support.paths import DATA


def test_sorts_whatever_the_input():
    rng = random.Random(7)
    for n in range(0, 200):
        items = [rng.randint(0, 6) for _ in range(n)]
        got = list(items)
        go_sort(got, lambda a, b: a < b)
        assert got == sorted(items)


def test_twelve_or_fewer_keep_the_order_of_equals():
    items = [(i % 3, i) for i in range(12)]
    go_sort(items, lambda a, b: a[0] > b[0])
    assert items == sorted(items, key=lambda x: -x[0])       # Python's sort is stable


def test_equal_elements_beyond_twelve_are_left_in_place_when_already_sorted():
    items = [(0, i) for i in range(40)]
    go_sort(items, lambda a, b: a[0] > b[0])
    assert items == [(0, i) for i in range(40)]


def test_equal_priorities_beyond_twelve_are_not_kept_in_order():
    # pdqsort partitions around a pivot: pods of one priority end out of file order
    items = [(i % 2, i) for i in range(30)]
    go_sort(items, lambda a, b: a[0] > b[0])
    assert [p for p, _ in items] == [1] * 15 + [0] * 15
    assert [i for p, i in items if p == 1] != sorted(i for p, i in items if p == 1)


def test_the_order_real_go_leaves():
    """tests/data/gosort/sort_slice.json: 54 key lists (13 to 1,000 elements: few distinct keys,
    organ pipes, sawtooth, halves, random) and the order Go's sort.Slice left their indexes in,
    sorted by key descending, recorded with Go 1.24.3 and 1.26.0 (the same for both). They need
    the pattern breaker, whose xorshift changed in Go 1.24 (13, 7, 17; before 13, 17, 5)."""
    cases = json.loads((DATA / "gosort" / "sort_slice.json").read_text())
    assert len(cases) == 54
    for case in cases:
        keys = case["keys"]
        order = list(range(len(keys)))
        go_sort(order, lambda a, b: keys[a] > keys[b])
        assert order == case["order"], f"{len(keys)} keys"
