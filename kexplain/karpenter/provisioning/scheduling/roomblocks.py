"""The existing nodes' room by blocks, so that a pod's scan of them (`Scheduler.add_to_existing_node`)
passes over the runs of nodes none of which has the room for it.

Karpenter tries the existing nodes one by one and CanAdd refuses a pod for room on each node too
full for it. Pods of many shapes (each workload its own requests) each scan from the first node, so
on a cluster of full nodes most of a simulation's time went to those refusals. A block's largest
room per resource answers for all its nodes at once: a pod needing more of a resource than any node
of the block has is refused on each of them (`resources.fits_nanos`), whichever check comes first.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

SHIFT = 5                   # a block: 32 nodes, by their place in the scheduler's order


class RoomBlocks:
    """Per block of existing nodes, each resource's largest room among them (a resource a node does not
    list counting 0 for it, as `fits_nanos` counts it); kept as pods are added (`changed`)."""

    __slots__ = ("nodes", "tops")

    def __init__(self, nodes: Sequence[Any]) -> None:
        self.nodes = nodes
        self.tops = [self._top(b) for b in range((len(nodes) + (1 << SHIFT) - 1) >> SHIFT)]

    def _top(self, block: int) -> dict[str, int]:
        rooms = [node.remaining_resources for node in self.nodes[block << SHIFT:(block + 1) << SHIFT]]
        top: dict[str, int] = {}
        for room in rooms:
            for name in room:
                if name not in top:
                    top[name] = max(other.get(name, 0) for other in rooms)
        return top

    def changed(self, index: int) -> None:
        """The node at `index` took a pod: its block's largest rooms again."""
        block = index >> SHIFT
        self.tops[block] = self._top(block)

    def roomless(self, block: int, need: Mapping[str, int]) -> bool:
        """Whether no node of `block` has the room for `need` (each refuses it for room)."""
        top = self.tops[block]
        for name, v in need.items():
            if v > top.get(name, 0):
                return True
        return False
