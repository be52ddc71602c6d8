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
    """The scheduler's sortedNodeScores: a Go container/heap max-heap of totals."""

    def __init__(self, names: list[str], totals: list[int]) -> None:
        self._heap = list(zip(names, totals))
        n = len(self._heap)
        for start in range(n // 2 - 1, -1, -1):
            self._down(start, n)

    def __len__(self) -> int:
        return len(self._heap)

    def clone(self) -> "SortedScores":
        out = SortedScores.__new__(SortedScores)
        out._heap = list(self._heap)
        return out

    def _down(self, i: int, n: int) -> None:
        """container/heap's down with Less(i, j) = total i > total j (the comparisons written in place)."""
        h = self._heap
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

    def pop(self) -> str:
        """The best node left (heap.Pop: the top swapped to the end, the new top sifted down)."""
        h, n = self._heap, len(self._heap) - 1
        h[0], h[n] = h[n], h[0]
        self._down(0, n)
        return h.pop()[0]
