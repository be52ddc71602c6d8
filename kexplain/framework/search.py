"""How far the scheduler searches: numFeasibleNodesToFind and the node tree's round-robin."""
from __future__ import annotations

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5


def num_feasible_nodes_to_find(num_all_nodes: int, profile_percentage: int | None,
                               global_percentage: int | None) -> int:
    """Below 100 nodes every node; else the profile's (or global) percentage, or the adaptive
    max(5, 50 - N/125) percent, never fewer than 100 nodes."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    percentage = profile_percentage if profile_percentage is not None else (global_percentage or 0)
    if percentage == 0:
        percentage = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    num = num_all_nodes * percentage // 100
    return max(num, MIN_FEASIBLE_NODES_TO_FIND)


def heap_top(names: list[str], totals: list[int]) -> str:
    """The node the scheduler pops first from its max-heap of totals (container/heap, with
    every randomizer 0): ties go to whichever the heap's sift-downs leave on top."""
    idx = list(range(len(names)))

    def less(i: int, j: int) -> bool:
        return totals[idx[i]] > totals[idx[j]]

    n = len(idx)
    for start in range(n // 2 - 1, -1, -1):
        i = start
        while True:
            j = 2 * i + 1
            if j >= n:
                break
            if j + 1 < n and less(j + 1, j):
                j += 1
            if not less(j, i):
                break
            idx[i], idx[j] = idx[j], idx[i]
            i = j
    return names[idx[0]]
