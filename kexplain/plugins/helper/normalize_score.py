"""Score normalisation shared by the score plugins (kube-scheduler's DefaultNormalizeScore).

Plugins whose raw scores are counts or weights rescale them so that the best node
gets `max_priority` (or, reversed, so that the node with the fewest "bad" things
gets it). Integer arithmetic with Go's truncating division, as the scheduler does.
"""
from __future__ import annotations

from kexplain.framework.interface import NodeScoreList


def go_div(a: int, b: int) -> int:
    """Go's integer division: truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def default_normalize_score(max_priority: int, reverse: bool, scores: NodeScoreList) -> None:
    """Scale scores from [0, max(scores)] to [0, max_priority], in place; `reverse`
    subtracts each from max_priority. All zero: unchanged, or all max_priority when reversed."""
    values = scores.scores
    max_count = max(0, max(values, default=0))
    if max_count == 0:
        if reverse:
            values[:] = [max_priority] * len(values)
        return
    if reverse:
        values[:] = [max_priority - go_div(max_priority * v, max_count) for v in values]
    else:
        values[:] = [go_div(max_priority * v, max_count) for v in values]
