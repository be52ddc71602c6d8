"""PrioritySort: the queue order, higher priority first, then earlier arrival."""
from __future__ import annotations

from kexplain.framework.interface import QueueSortPlugin
from kexplain.plugins import names


class PrioritySort(QueueSortPlugin):
    name = names.PRIORITY_SORT

    def less(self, a, b) -> bool:
        """`a` before `b`. Arrival is the order the pods were given in (their queue timestamps)."""
        return a.priority > b.priority
