"""Quota arithmetic over the cohort tree (resource_node.go): what a node keeps, can use now
(`available`) and at most (`potential_available`), and how usage climbs to the parent."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Optional, Protocol

from kexplain.kueue.resources import FlavorResource


@dataclass(frozen=True)
class Quota:
    """ResourceQuota in Kueue's integers."""

    nominal: int = 0
    borrowing_limit: int | None = None
    lending_limit: int | None = None


@dataclass
class ResourceNode:
    """`quotas` as configured, `subtree_quota` and `usage` as they climb the tree; quotas are shared
    between a cache and its snapshots, usage copied."""

    quotas: dict[FlavorResource, Quota] = field(default_factory=dict)
    subtree_quota: dict[FlavorResource, int] = field(default_factory=dict)
    usage: dict[FlavorResource, int] = field(default_factory=dict)

    def clone(self) -> "ResourceNode":
        return ResourceNode(self.quotas, self.subtree_quota, dict(self.usage))

    def local_quota(self, fr: FlavorResource) -> int:
        """What the node keeps from its parent: its subtree quota above the lendingLimit."""
        quota = self.quotas.get(fr)
        if quota is not None and quota.lending_limit is not None:
            return max(0, self.subtree_quota.get(fr, 0) - quota.lending_limit)
        return 0


class Node(Protocol):
    resource_node: ResourceNode

    @property
    def parent(self) -> Optional["Node"]: ...


def local_available(node: Node, fr: FlavorResource) -> int:
    rn = node.resource_node
    return max(0, rn.local_quota(fr) - rn.usage.get(fr, 0))


def available(node: Node, fr: FlavorResource) -> int:
    """What `node` can use now: its unused kept quota plus what the parent can give, the
    parent's share capped by the node's borrowingLimit. May be negative (over-admitted)."""
    rn = node.resource_node
    parent = node.parent
    if parent is None:
        return rn.subtree_quota.get(fr, 0) - rn.usage.get(fr, 0)
    parent_available = available(parent, fr)
    quota = rn.quotas.get(fr)
    if quota is not None and quota.borrowing_limit is not None:
        local = rn.local_quota(fr)
        stored_in_parent = rn.subtree_quota.get(fr, 0) - local
        used_in_parent = max(0, rn.usage.get(fr, 0) - local)
        parent_available = min(stored_in_parent - used_in_parent + quota.borrowing_limit, parent_available)
    return local_available(node, fr) + parent_available


def potential_available(node: Node, fr: FlavorResource) -> int:
    """What `node` could use with nothing used anywhere (the maximum capacity)."""
    rn = node.resource_node
    parent = node.parent
    if parent is None:
        return rn.subtree_quota.get(fr, 0)
    out = rn.local_quota(fr) + potential_available(parent, fr)
    quota = rn.quotas.get(fr)
    if quota is not None and quota.borrowing_limit is not None:
        out = min(rn.subtree_quota.get(fr, 0) + quota.borrowing_limit, out)
    return out


def add_usage(node: Node, fr: FlavorResource, val: int) -> None:
    """addUsage: what exceeds the node's unused kept quota is used in the parent too."""
    rn = node.resource_node
    local = local_available(node, fr)
    rn.usage[fr] = rn.usage.get(fr, 0) + val
    parent = node.parent
    if parent is not None and val > local:
        add_usage(parent, fr, val - local)


def remove_usage(node: Node, fr: FlavorResource, val: int) -> None:
    rn = node.resource_node
    stored_in_parent = rn.usage.get(fr, 0) - rn.local_quota(fr)
    rn.usage[fr] = rn.usage.get(fr, 0) - val
    parent = node.parent
    if stored_in_parent <= 0 or parent is None:
        return
    remove_usage(parent, fr, min(val, stored_in_parent))


def fits_in_quota(node: Node, requests: dict[FlavorResource, int]) -> tuple[bool, dict[FlavorResource, int]]:
    """QuantitiesFitInQuota: whether the requests fit the node's subtree quota, and what is left
    of them once its unused kept quota takes its part."""
    rn = node.resource_node
    fits = True
    remaining = {}
    for fr, v in requests.items():
        if rn.usage.get(fr, 0) + v > rn.subtree_quota.get(fr, 0):
            fits = False
        remaining[fr] = max(0, v - local_available(node, fr))
    return fits, remaining


def within_nominal(node: Node, frs: Iterable[FlavorResource]) -> bool:
    """IsWithinNominalInResources: the node uses no more than its subtree quota in each."""
    rn = node.resource_node
    return all(rn.usage.get(fr, 0) <= rn.subtree_quota.get(fr, 0) for fr in frs)
