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
    list counting 0 for it, as `fits_nanos` counts it) and a node holding it; kept as pods are added
    (`changed`: rooms only shrink, so only a resource whose largest room was that node's is asked again)."""

    __slots__ = ("nodes", "tops", "holders")

    def __init__(self, nodes: Sequence[Any]) -> None:
        self.nodes = nodes
        self.tops: list[dict[str, int]] = []
        self.holders: list[dict[str, int]] = []
        for block in range((len(nodes) + (1 << SHIFT) - 1) >> SHIFT):
            top: dict[str, int] = {}
            holder: dict[str, int] = {}
            start = block << SHIFT
            for i, node in enumerate(nodes[start:start + (1 << SHIFT)], start):
                for name, v in node.remaining_resources.items():
                    held = top.get(name)
                    if held is None or v > held:
                        top[name], holder[name] = v, i
            for name, v in top.items():         # (a node not listing it: 0)
                if v < 0 and any(name not in n.remaining_resources for n in nodes[start:start + (1 << SHIFT)]):
                    top[name], holder[name] = 0, -1
            self.tops.append(top)
            self.holders.append(holder)

    def changed(self, index: int) -> None:
        """The node at `index` took a pod: the largest rooms it held, asked again of its block."""
        block = index >> SHIFT
        holder, tops = self.holders[block], self.tops[block]
        start = block << SHIFT
        asked = [name for name, at in holder.items() if at == index]
        # (a resource the node lists now that no node held: one it did not list before)
        asked += [name for name in self.nodes[index].remaining_resources if holder.get(name, -1) == -1]
        for name in asked:
            rooms = [node.remaining_resources.get(name, 0) for node in self.nodes[start:start + (1 << SHIFT)]]
            top = max(rooms)
            tops[name], holder[name] = top, start + rooms.index(top)

    def roomless(self, block: int, need: Mapping[str, int]) -> bool:
        """Whether no node of `block` has the room for `need` (each refuses it for room)."""
        top = self.tops[block]
        for name, v in need.items():
            if v > top.get(name, 0):
                return True
        return False
