"""Score normalisation shared by the score plugins (kube-scheduler's DefaultNormalizeScore).

Plugins whose raw scores are counts or weights rescale them so that the best node
gets `max_priority` (or, reversed, so that the node with the fewest "bad" things
gets it). Integer arithmetic with Go's truncating division, as the scheduler does.
"""
from __future__ import annotations

from typing import Sequence

from kexplain.framework.interface import NodeScore


def go_div(a: int, b: int) -> int:
    """Go's integer division: truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def default_normalize_score(max_priority: int, reverse: bool, scores: Sequence[NodeScore]) -> None:
    """Scale scores from [0, max(scores)] to [0, max_priority], in place; `reverse`
    subtracts each from max_priority. All zero: unchanged, or all max_priority when reversed."""
    max_count = 0
    for s in scores:
        if s.score > max_count:
            max_count = s.score
    if max_count == 0:
        if reverse:
            for s in scores:
                s.score = max_priority
        return
    for s in scores:
        score = go_div(max_priority * s.score, max_count)
        s.score = max_priority - score if reverse else score
