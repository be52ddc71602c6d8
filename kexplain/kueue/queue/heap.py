"""pkg/util/heap over Go's container/heap: a keyed binary heap whose ties come out in the order
Go's sift-up and sift-down leave them (so equal Workloads pop as Kueue pops them)."""
from __future__ import annotations

from typing import Callable, Generic, Hashable, TypeVar

T = TypeVar("T")


class Heap(Generic[T]):
    def __init__(self, key: Callable[[T], Hashable], less: Callable[[T, T], bool]) -> None:
        self._key = key
        self._less = less
        self._items: list[T] = []
        self._index: dict[Hashable, int] = {}

    def __len__(self) -> int:
        return len(self._items)

    def _lt(self, i: int, j: int) -> bool:
        return self._less(self._items[i], self._items[j])

    def _swap(self, i: int, j: int) -> None:
        items = self._items
        items[i], items[j] = items[j], items[i]
        self._index[self._key(items[i])] = i
        self._index[self._key(items[j])] = j

    def _up(self, j: int) -> None:
        while True:
            i = (j - 1) // 2 if j > 0 else 0
            if i == j or not self._lt(j, i):
                break
            self._swap(i, j)
            j = i

    def _down(self, i0: int, n: int) -> bool:
        i = i0
        while True:
            j1 = 2 * i + 1
            if j1 >= n:
                break
            j = j1
            j2 = j1 + 1
            if j2 < n and self._lt(j2, j1):
                j = j2
            if not self._lt(j, i):
                break
            self._swap(i, j)
            i = j
        return i > i0

    def _push(self, item: T) -> None:
        self._index[self._key(item)] = len(self._items)
        self._items.append(item)
        self._up(len(self._items) - 1)

    def _pop_last(self) -> T:
        item = self._items.pop()
        del self._index[self._key(item)]
        return item

    def push_or_update(self, item: T) -> None:
        key = self._key(item)
        if key in self._index:
            i = self._index[key]
            self._items[i] = item
            if not self._down(i, len(self._items)):
                self._up(i)
        else:
            self._push(item)

    def push_if_not_present(self, item: T) -> bool:
        if self._key(item) in self._index:
            return False
        self._push(item)
        return True

    def delete(self, key: Hashable) -> None:
        i = self._index.get(key)
        if i is None:
            return
        n = len(self._items) - 1
        if n != i:
            self._swap(i, n)
            if not self._down(i, n):
                self._up(i)
        self._pop_last()

    def pop(self) -> T:
        n = len(self._items) - 1
        self._swap(0, n)
        self._down(0, n)
        return self._pop_last()

    def rebuild(self) -> None:
        """rebuildAll: every item pushed again in the list's order (its order keys changed)."""
        for item in list(self._items):
            self.push_or_update(item)

    def get(self, key: Hashable) -> T | None:
        i = self._index.get(key)
        return None if i is None else self._items[i]

    def items(self) -> list[T]:
        return list(self._items)
