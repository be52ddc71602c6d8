"""Go's `sort.Slice` order (pdqsort, Go 1.19+, the xorshift shifts of Go 1.24+): not stable beyond 12
elements, and which of several equal-priority pods takes a node's room decides the outcome, so lists are
sorted with Go's very comparisons and exchanges (`go_sort(items, less)`, in place). Used by the
scheduler's queue, DefaultPreemption and CA's estimator; details: docs/internals/apimachinery.md.
"""
from __future__ import annotations

from typing import Callable, MutableSequence, TypeVar

T = TypeVar("T")
Less = Callable[[T, T], bool]

_INSERTION_MAX = 12
_NINTHER_MIN = 50
_MAX_SWAPS = 12
_SHIFT_MAX_STEPS = 5
_SHIFT_MIN_LENGTH = 50
_MASK64 = (1 << 64) - 1
_UNKNOWN, _INCREASING, _DECREASING = 0, 1, 2


def go_sort(items: MutableSequence[T], less: Less) -> None:
    """Sort `items` in place in the order Go's sort.Slice(items, less) leaves them."""
    n = len(items)
    if n > 1:
        _Sorter(items, less).pdqsort(0, n, n.bit_length())


class _Sorter:
    """One sort's data and comparison; indexes as in Go's lessSwap."""

    __slots__ = ("d", "less")

    def __init__(self, items: MutableSequence, less: Less) -> None:
        self.d = items
        self.less = less

    def lt(self, i: int, j: int) -> bool:
        return self.less(self.d[i], self.d[j])

    def swap(self, i: int, j: int) -> None:
        d = self.d
        d[i], d[j] = d[j], d[i]

    # -- the main loop ----------------------------------------------------------------------
    def pdqsort(self, a: int, b: int, limit: int) -> None:
        balanced, partitioned = True, True
        while True:
            length = b - a
            if length <= _INSERTION_MAX:
                self.insertion(a, b)
                return
            if limit == 0:
                self.heapsort(a, b)
                return
            if not balanced:
                self.break_patterns(a, b)
                limit -= 1
            pivot, hint = self.choose_pivot(a, b)
            if hint == _DECREASING:
                self.reverse(a, b)
                pivot = (b - 1) - (pivot - a)
                hint = _INCREASING
            if balanced and partitioned and hint == _INCREASING and self.partial_insertion(a, b):
                return
            if a > 0 and not self.lt(a - 1, pivot):
                a = self.partition_equal(a, b, pivot)
                continue
            mid, partitioned = self.partition(a, b, pivot)
            left, right = mid - a, b - mid
            threshold = length // 8
            if left < right:
                balanced = left >= threshold
                self.pdqsort(a, mid, limit)
                a = mid + 1
            else:
                balanced = right >= threshold
                self.pdqsort(mid + 1, b, limit)
                b = mid

    # -- the pieces -------------------------------------------------------------------------
    def insertion(self, a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and self.lt(j, j - 1):
                self.swap(j, j - 1)
                j -= 1

    def sift_down(self, lo: int, hi: int, first: int) -> None:
        root = lo
        while True:
            child = 2 * root + 1
            if child >= hi:
                return
            if child + 1 < hi and self.lt(first + child, first + child + 1):
                child += 1
            if not self.lt(first + root, first + child):
                return
            self.swap(first + root, first + child)
            root = child

    def heapsort(self, a: int, b: int) -> None:
        hi = b - a
        for i in range((hi - 1) // 2, -1, -1):
            self.sift_down(i, hi, a)
        for i in range(hi - 1, -1, -1):
            self.swap(a, a + i)
            self.sift_down(0, i, a)

    def partition(self, a: int, b: int, pivot: int) -> tuple[int, bool]:
        """Elements below the pivot's value before it, the others after; (its new index,
        whether nothing had to move)."""
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while i <= j and self.lt(i, a):
            i += 1
        while i <= j and not self.lt(j, a):
            j -= 1
        if i > j:
            self.swap(j, a)
            return j, True
        self.swap(i, j)
        i, j = i + 1, j - 1
        while True:
            while i <= j and self.lt(i, a):
                i += 1
            while i <= j and not self.lt(j, a):
                j -= 1
            if i > j:
                break
            self.swap(i, j)
            i, j = i + 1, j - 1
        self.swap(j, a)
        return j, False

    def partition_equal(self, a: int, b: int, pivot: int) -> int:
        """Elements equal to the pivot first, then the greater ones; where the greater start."""
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while True:
            while i <= j and not self.lt(a, i):
                i += 1
            while i <= j and self.lt(a, j):
                j -= 1
            if i > j:
                return i
            self.swap(i, j)
            i, j = i + 1, j - 1

    def partial_insertion(self, a: int, b: int) -> bool:
        """A few out-of-order neighbours put right; True when the range ends sorted."""
        i = a + 1
        for _ in range(_SHIFT_MAX_STEPS):
            while i < b and not self.lt(i, i - 1):
                i += 1
            if i == b:
                return True
            if b - a < _SHIFT_MIN_LENGTH:
                return False
            self.swap(i, i - 1)
            if i - a >= 2:
                j = i - 1
                while j >= 1 and self.lt(j, j - 1):
                    self.swap(j, j - 1)
                    j -= 1
            if b - i >= 2:
                j = i + 1
                while j < b and self.lt(j, j - 1):
                    self.swap(j, j - 1)
                    j += 1
        return False

    def break_patterns(self, a: int, b: int) -> None:
        length = b - a
        if length < 8:
            return
        state = length
        modulus = 1 << length.bit_length()
        start = a + (length // 4) * 2 - 1
        for idx in range(start, start + 3):
            state ^= (state << 13) & _MASK64
            state ^= state >> 7
            state ^= (state << 17) & _MASK64
            other = state & (modulus - 1)
            if other >= length:
                other -= length
            self.swap(idx, a + other)

    def choose_pivot(self, a: int, b: int) -> tuple[int, int]:
        length = b - a
        swaps = [0]
        i, j, k = a + length // 4, a + length // 4 * 2, a + length // 4 * 3
        if length >= 8:
            if length >= _NINTHER_MIN:
                i = self.median(i - 1, i, i + 1, swaps)
                j = self.median(j - 1, j, j + 1, swaps)
                k = self.median(k - 1, k, k + 1, swaps)
            j = self.median(i, j, k, swaps)
        if swaps[0] == 0:
            return j, _INCREASING
        if swaps[0] == _MAX_SWAPS:
            return j, _DECREASING
        return j, _UNKNOWN

    def median(self, x: int, y: int, z: int, swaps: list[int]) -> int:
        x, y = self.order2(x, y, swaps)
        y, z = self.order2(y, z, swaps)
        x, y = self.order2(x, y, swaps)
        return y

    def order2(self, x: int, y: int, swaps: list[int]) -> tuple[int, int]:
        if self.lt(y, x):
            swaps[0] += 1
            return y, x
        return x, y

    def reverse(self, a: int, b: int) -> None:
        i, j = a, b - 1
        while i < j:
            self.swap(i, j)
            i, j = i + 1, j - 1
