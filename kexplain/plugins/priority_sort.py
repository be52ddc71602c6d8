"""PrioritySort: the queue order, higher priority first, then earlier arrival."""
from __future__ import annotations

from kexplain.framework.interface import Plugin, points


class PrioritySort(Plugin):
    name = "PrioritySort"
    extension_points = points("queueSort")

    def less(self, a, b) -> bool:
        """`a` before `b`. Arrival is the order the pods were given in (their queue timestamps)."""
        return a.priority > b.priority
