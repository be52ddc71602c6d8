"""NodePoolState (pkg/controllers/state/statenodepool.go): each NodePool's NodeClaims as Karpenter's
cluster state counts them for static NodePools, and the node limit's reservations.

It counts every managed NodeClaim with a `karpenter.sh/nodepool` label, launched or not (a NodeClaim
without a providerID has no state node but is Active here), and a NodeClaim is Deleting when its
state node was marked for deletion when the NodeClaim was last seen (its own deletion or its
instance terminating; a Node's deletion alone does not count). PendingDisruption is what the
orchestration queue marks: none in one pass."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from kexplain.apimachinery.identity import as_dict
from kexplain.karpenter.state.cluster import is_managed_node_claim
from kexplain.karpenter.state.statenode import NODEPOOL_LABEL


@dataclass
class NodePoolState:
    active: dict[str, int] = field(default_factory=dict)
    deleting: dict[str, int] = field(default_factory=dict)
    pending_disruption: dict[str, int] = field(default_factory=dict)
    reserved: dict[str, int] = field(default_factory=dict)

    def node_count(self, node_pool: str) -> tuple[int, int, int]:
        """GetNodeCount: (active, deleting, pending disruption)."""
        return (self.active.get(node_pool, 0), self.deleting.get(node_pool, 0),
                self.pending_disruption.get(node_pool, 0))

    def reserve_node_count(self, node_pool: str, limit: int, wanted: int) -> int:
        """ReserveNodeCount: as many of `wanted` as the limit leaves over every NodeClaim counted
        (active, deleting, pending disruption) and what is reserved already; 0 when over it."""
        remaining = limit - sum(self.node_count(node_pool)) - self.reserved.get(node_pool, 0)
        if remaining < 0:
            return 0
        granted = min(wanted, remaining)
        self.reserved[node_pool] = self.reserved.get(node_pool, 0) + granted
        return granted


def new_node_pool_state(node_claims: Iterable[dict[str, Any]], by_provider_id: dict[str, Any]) -> NodePoolState:
    """The counts `Cluster.UpdateNodeClaim` leaves after each managed NodeClaim was seen once."""
    out = NodePoolState()
    for claim in node_claims:
        if not is_managed_node_claim(claim):
            continue
        meta = as_dict(claim.get("metadata"))
        pool = as_dict(meta.get("labels")).get(NODEPOOL_LABEL) or ""
        if not pool or not meta.get("name"):
            continue
        pid = as_dict(claim.get("status")).get("providerID") or ""
        state = by_provider_id.get(pid) if pid else None
        counts = out.deleting if state is not None and state.marked_for_deletion() else out.active
        counts[pool] = counts.get(pool, 0) + 1
    return out
