"""The cohort tree (pkg/cache/hierarchy): a cohort exists once a ClusterQueue or a Cohort names
it (implicitly) or a Cohort object defines it (explicitly); a cohort whose parents run in a
cycle is left out of the snapshot and its ClusterQueues are inactive."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, Iterator, Optional, TypeVar

from kexplain.kueue.cache.resource_node import ResourceNode

Q = TypeVar("Q")


@dataclass(eq=False)
class CohortNode(Generic[Q]):
    name: str
    resource_node: ResourceNode = field(default_factory=ResourceNode)
    parent: Optional["CohortNode[Q]"] = None
    child_cohorts: list["CohortNode[Q]"] = field(default_factory=list)
    child_cqs: list[Q] = field(default_factory=list)
    explicit: bool = False
    fair_weight: float = 1.0

    def root(self) -> "CohortNode[Q]":
        node = self
        while node.parent is not None:
            node = node.parent
        return node

    def path_self_to_root(self) -> Iterator["CohortNode[Q]"]:
        node: CohortNode[Q] | None = self
        seen: set[int] = set()
        while node is not None and id(node) not in seen:
            seen.add(id(node))
            yield node
            node = node.parent

    def subtree_cluster_queues(self) -> list[Q]:
        out = list(self.child_cqs)
        for child in self.child_cohorts:
            out.extend(child.subtree_cluster_queues())
        return out

    def child_count(self) -> int:
        return len(self.child_cohorts) + len(self.child_cqs)

    def height(self) -> int:
        """getNodeHeight: 1 with only ClusterQueues below, one more per level of cohorts."""
        best = min(self.child_count(), 1)
        for child in self.child_cohorts:
            best = max(best, child.height() + 1)
        return best


def has_cycle(cohort: CohortNode) -> bool:
    """HasCycle: following parents comes back to a cohort seen before."""
    seen: set[str] = set()
    node: CohortNode | None = cohort
    while node is not None and node.parent is not None:
        if node.name in seen:
            return True
        seen.add(node.name)
        node = node.parent
    return False


def add_child_sorted(items: list, item: object) -> None:
    items.append(item)
    items.sort(key=lambda x: x.name)
