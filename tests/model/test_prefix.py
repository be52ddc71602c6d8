"""Prefix: lists shared by the snapshots of a sequence of binds, each reading its own prefix."""
from __future__ import annotations

from kexplain.model.prefix import Prefix


def test_a_bind_after_another_grows_the_same_list() -> None:
    first = Prefix([1, 2])
    second = first.appended(3)
    third = second.appended(4)
    assert list(first) == [1, 2] and len(first) == 2
    assert list(second) == [1, 2, 3] and list(third) == [1, 2, 3, 4]
    assert second._items is first._items is third._items       # appended in place, not copied


def test_a_second_snapshot_from_the_same_one_copies() -> None:
    base = Prefix(["a"])
    left = base.appended("b")
    right = base.appended("c")            # base's list already holds "b": copied up to base's end
    assert list(base) == ["a"]
    assert list(left) == ["a", "b"] and list(right) == ["a", "c"]
    assert list(left.appended("d")) == ["a", "b", "d"] and list(right.appended("e")) == ["a", "c", "e"]
    assert list(left) == ["a", "b"] and list(right) == ["a", "c"]


def test_empty() -> None:
    empty = Prefix()
    assert not empty and list(empty) == []
    one = empty.appended(1)
    assert list(one) == [1] and not empty and len(one) == 1
