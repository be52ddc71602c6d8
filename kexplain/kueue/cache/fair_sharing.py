"""Fair sharing's dominant resource share (fair_sharing.go): how far a ClusterQueue or Cohort
borrows above its quota, as the largest share of what the cohort tree could lend of a resource,
divided by its fair-sharing weight. Lower is served first; higher is preempted first."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Optional, Protocol

from kexplain.kueue.cache import resource_node as rn
from kexplain.kueue.resources import FlavorResource

DEFAULT_WEIGHT = 1.0


class Node(Protocol):
    resource_node: rn.ResourceNode
    fair_weight: float

    @property
    def parent(self) -> Optional["Node"]: ...


@dataclass(frozen=True)
class DRS:
    """One node's share: the unweighted ratio (per mille of the lendable), its resource, its
    weight, and whether (and where) it borrows."""

    fair_weight: float = DEFAULT_WEIGHT
    unweighted_ratio: float = 0.0
    dominant_resource: str = ""
    borrowing: bool = False
    borrowed: tuple[FlavorResource, ...] = ()

    def is_zero(self) -> bool:
        return self.unweighted_ratio == 0

    def zero_weight_borrows(self) -> bool:
        return self.fair_weight == 0 and not self.is_zero()

    def weighted_share(self) -> float:
        """PreciseWeightedShare."""
        if self.is_zero():
            return 0.0
        if self.fair_weight == 0:
            return math.inf
        return self.unweighted_ratio / self.fair_weight

    def borrowing_on(self, requested: Mapping[FlavorResource, int]) -> bool:
        """IsBorrowingOn: it borrows one of the pairs requested."""
        return any(requested.get(fr, 0) > 0 for fr in self.borrowed)


NEGATIVE = DRS(unweighted_ratio=-1)


def _cmp(a: float, b: float) -> int:
    return (a > b) - (a < b)


def compare(a: DRS, b: DRS) -> int:
    """CompareDRS: a zero weight that borrows is above everything; else by the weighted share."""
    if a.zero_weight_borrows() and b.zero_weight_borrows():
        return _cmp(a.unweighted_ratio, b.unweighted_ratio)
    if a.zero_weight_borrows():
        return 1
    if b.zero_weight_borrows():
        return -1
    return _cmp(a.weighted_share(), b.weighted_share())


def dominant_resource_share(node: Node, requests: Mapping[FlavorResource, int] | None = None) -> DRS:
    """dominantResourceShare: over each pair of the node's subtree quota, what it uses (with
    `requests`) above it, summed per resource, against what the cohort tree could lend of it."""
    weight = node.fair_weight
    parent = node.parent
    if parent is None:
        return DRS(weight)
    res = node.resource_node
    requests = requests or {}
    borrowed: dict[str, int] = {}
    pairs = []
    for fr, quota in res.subtree_quota.items():
        amount = requests.get(fr, 0) + res.usage.get(fr, 0) - quota
        if amount > 0:
            borrowed[fr.resource] = borrowed.get(fr.resource, 0) + amount
            pairs.append(fr)
    if not borrowed:
        return DRS(weight)
    lendable = _lendable(parent)
    ratio, dominant = 0.0, ""
    for name, amount in borrowed.items():
        lr = lendable.get(name, 0)
        if lr > 0:
            share = amount * 1000.0 / lr
            if share > ratio or (share == ratio and name < dominant):
                ratio, dominant = share, name
    return DRS(weight, ratio, dominant, True, tuple(pairs))


def _lendable(node: Node) -> dict[str, int]:
    """calculateLendable: per resource, what `node` could use at most of every pair the root holds."""
    root = node
    while root.parent is not None:
        root = root.parent
    out: dict[str, int] = {}
    for fr in root.resource_node.subtree_quota:
        out[fr.resource] = out.get(fr.resource, 0) + rn.potential_available(node, fr)
    return out
