"""Partial admission's search (podset_reducer.go): between every pod set's count and its
minCount, the largest counts that fit, found by binary search over one shared step."""
from __future__ import annotations

from typing import Callable, Sequence, TypeVar

from kexplain.kueue.apis.workload import PodSet

R = TypeVar("R")


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def search(pod_sets: Sequence[PodSet], fits: Callable[[list[int]], tuple[R | None, bool]]) -> tuple[R | None, bool]:
    """PodSetReducer.Search: sort.Search over 0..totalDelta for the smallest reduction that
    fits; the result of the last counts that fitted, and whether the search ended on them."""
    full = [ps.count for ps in pod_sets]
    deltas = [ps.count - (ps.min_count if ps.min_count is not None else ps.count) for ps in pod_sets]
    total = sum(deltas)
    if total == 0:
        return None, False
    last_good = 0
    last: R | None = None

    def counts(i: int) -> list[int]:
        return [full[k] - _int32(deltas[k] * i // total) for k in range(len(full))]

    lo, hi = 0, total + 1
    while lo < hi:                      # sort.Search: the smallest i in [0, n) with f(i) true
        mid = (lo + hi) // 2
        result, ok = fits(counts(mid))
        if ok:
            last_good, last = mid, result
            hi = mid
        else:
            lo = mid + 1
    return last, lo == last_good
