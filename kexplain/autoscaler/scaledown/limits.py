"""The cluster's minimum cores and memory (--cores-total, --memory-total) during scale-down.

CA's minimum-quota tracker: the headroom above each minimum is the cluster's total capacity
(every node of the snapshot, capacity rounded up to whole cores and bytes) less the minimum;
each node removed spends its own share, and a node whose share no longer fits is
`MinimalResourceLimitExceeded`. A group's nodes all count as the first of them in list order
(CA caches a node's resources per group).
"""
from __future__ import annotations

from typing import Mapping, Sequence

from kexplain.apimachinery.quantity import value
from kexplain.autoscaler.nodegroups import NodeGroup
from kexplain.model.nodeinfo import NodeInfo
from kexplain.model.resources import resource_list

CPU, MEMORY = "cpu", "memory"


def node_resources(node: Mapping) -> dict[str, int]:
    """GetNodeCoresAndMemory: capacity cores and memory bytes, rounded up (absent: 0)."""
    capacity = resource_list((node.get("status") or {}).get("capacity"))
    return {r: max(0, value(capacity[r])) if r in capacity else 0 for r in (CPU, MEMORY)}


class MinResourceTracker:
    """The headroom above the minimums, spent node by node."""

    def __init__(self, nodes: Sequence[NodeInfo], group_of: Mapping[str, NodeGroup | None],
                 minimums: Mapping[str, int]) -> None:
        self._group_of = group_of
        self._per_group: dict[str, dict[str, int]] = {}
        usage = dict.fromkeys(minimums, 0)
        for ni in nodes:
            for r, amount in self._resources(ni).items():
                if r in usage:
                    usage[r] += amount
        self.left = {r: max(0, usage[r] - low) for r, low in minimums.items()}

    def _resources(self, ni: NodeInfo) -> dict[str, int]:
        group = self._group_of.get(ni.name)
        if group is None:
            return node_resources(ni.node.obj)
        found = self._per_group.get(group.name)
        if found is None:
            found = self._per_group[group.name] = node_resources(ni.node.obj)
        return found

    def consume(self, ni: NodeInfo) -> bool:
        """Spend the node's share; False (nothing spent) when it would go below a minimum."""
        delta = self._resources(ni)
        if any(0 < delta.get(r, 0) and left < delta[r] for r, left in self.left.items()):
            return False
        for r in self.left:
            self.left[r] = max(self.left[r] - delta.get(r, 0), 0)
        return True
