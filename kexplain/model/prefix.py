"""A list shared by the snapshots of a sequence of binds, each reading its own prefix of it: a bind
appends to the very list when the snapshot holds all of it, and copies it otherwise, so no copy per
bind and no reader ever sees an item of a later snapshot.
"""
from __future__ import annotations

from itertools import islice
from typing import Generic, Iterable, Iterator, TypeVar

T = TypeVar("T")


class Prefix(Generic[T]):
    """The first `size` items of `items` (a list nobody changes but by `appended`)."""

    __slots__ = ("_items", "_size")

    def __init__(self, items: Iterable[T] = ()) -> None:
        self._items: list[T] = list(items)
        self._size = len(self._items)

    @classmethod
    def _of(cls, items: list[T], size: int) -> "Prefix[T]":
        out: Prefix[T] = cls.__new__(cls)
        out._items, out._size = items, size
        return out

    def __len__(self) -> int:
        return self._size

    def __bool__(self) -> bool:
        return self._size > 0

    def __iter__(self) -> Iterator[T]:
        items = self._items
        return iter(items) if len(items) == self._size else islice(items, self._size)

    def __repr__(self) -> str:
        return f"Prefix({list(self)!r})"

    def appended(self, item: T) -> "Prefix[T]":
        """These items and `item` after them; this prefix reads what it read before."""
        items = self._items
        if len(items) != self._size:           # another snapshot grew the list already
            items = items[:self._size]
        items.append(item)
        return Prefix._of(items, self._size + 1)
