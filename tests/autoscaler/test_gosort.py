"""Go's sort.Slice order: sorted, insertion-stable up to 12 elements, pdqsort's moves beyond."""
from __future__ import annotations

import random

from kexplain.autoscaler.gosort import go_sort


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
