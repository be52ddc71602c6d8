"""How far the scheduler searches: numFeasibleNodesToFind and the node tree's round-robin."""
from __future__ import annotations

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5


def num_feasible_nodes_to_find(num_all_nodes: int, profile_percentage: int | None,
                               global_percentage: int | None) -> int:
    """numFeasibleNodesToFind: every node below 100, else a percentage, never fewer than 100."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    percentage = profile_percentage if profile_percentage is not None else (global_percentage or 0)
    if percentage == 0:
        percentage = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    num = num_all_nodes * percentage // 100
    return max(num, MIN_FEASIBLE_NODES_TO_FIND)


class SortedScores:
    """The scheduler's sortedNodeScores: a Go container/heap max-heap of totals.

    A cycle reads its top; the rest only when the next pod is handed a hint (OpportunisticBatching),
    which is rare. So the heap is built when the rest is read: the top of a heap that `heap.Init`
    would build is found without it (`_top`)."""

    def __init__(self, names: list[str], totals: list[int]) -> None:
        self._names, self._totals = names, totals
        self._heap: list[tuple[str, int]] | None = None
        self._popped = 0            # tops handed out before the heap was built

    def __len__(self) -> int:
        return len(self._names) - self._popped if self._heap is None else len(self._heap)

    def clone(self) -> "SortedScores":
        out = SortedScores(self._names, self._totals)
        out._popped = self._popped
        out._heap = list(self._heap) if self._heap is not None else None
        return out

    def _built(self) -> list[tuple[str, int]]:
        """The heap, as `heap.Init` and the pops so far leave it."""
        if self._heap is None:
            self._heap = h = list(zip(self._names, self._totals))
            n = len(h)
            for start in range(n // 2 - 1, -1, -1):
                _down(h, start, n)
            for _ in range(self._popped):
                _pop(h)
        return self._heap

    def pop(self) -> str:
        """The best node left (heap.Pop: the top swapped to the end, the new top sifted down)."""
        if self._heap is None and self._popped == 0 and self._names:
            self._popped = 1
            return self._names[_top(self._totals)]
        return _pop(self._built())[0]


def _top(totals: list[int]) -> int:
    """The position `heap.Init` brings to the top. Sifting down moves a child up only when it is
    strictly greater (the left one when both children are), so a subtree's root stays where it holds
    the subtree's highest total and otherwise comes from the child subtree holding it, the left one
    first: the top is the first position holding the highest total in the tree's pre-order (node,
    left subtree, right subtree). A position's path from the root is the bits of position + 1 after
    the leading one; pre-order compares those paths padded to one length, an ancestor first."""
    best = max(totals)
    if totals[0] == best:
        return 0
    depth = len(totals).bit_length()
    return min((p for p, t in enumerate(totals) if t == best),
               key=lambda p: ((p + 1) << (depth - (p + 1).bit_length()), (p + 1).bit_length()))


def _down(h: list[tuple[str, int]], i: int, n: int) -> None:
    """container/heap's down with Less(i, j) = total i > total j (the comparisons written in place)."""
    while True:
        j = 2 * i + 1
        if j >= n:
            return
        child = h[j]
        if j + 1 < n and h[j + 1][1] > child[1]:
            j += 1
            child = h[j]
        top = h[i]
        if not child[1] > top[1]:
            return
        h[i], h[j] = child, top
        i = j


def _pop(h: list[tuple[str, int]]) -> tuple[str, int]:
    """heap.Pop: the top swapped to the end, the new top sifted down, the end taken."""
    n = len(h) - 1
    h[0], h[n] = h[n], h[0]
    _down(h, 0, n)
    return h.pop()
