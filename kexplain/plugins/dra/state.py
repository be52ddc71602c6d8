"""What DynamicResources' PreFilter leaves for the other extension points, and its verdict on one
node (Filter), computed once per node and shared by Filter, Score, PostFilter and explain.

The real plugin records allocations and unavailable claims as side effects of Filter; kexplain
runs Filter plugins in any order and more than once (filterAll, nominated pods), so the
outcome is a pure function of the node, memoised here.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kexplain.model.dra import ResourceClaim
from kexplain.model.nodeselector import NodeSelector
from kexplain.plugins.dra.allocator import AllocatorError, ClaimAllocation, NodeFailure, allocate
from kexplain.plugins.dra.inventory import Inventory
from kexplain.plugins.dra import readiness
from kexplain.plugins.dra.pools import Pool, PoolError, gather_pools
from kexplain.plugins.dra.variant import CONSUMABLE_CAPACITY, DEFAULT_RULES, PARTITIONABLE_DEVICES, AllocatorRules

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.nodeinfo import Node

CANNOT_ALLOCATE = "cannot allocate all claims"
NOT_AVAILABLE = "resourceclaim not available on the node"


@dataclass(frozen=True)
class NodeOutcome:
    """The plugin's Filter verdict on a node: a rejection reason (`unschedulable`), an allocator
    error (`error`, which ends the cycle), or success with the allocations Score reads."""

    unschedulable: str = ""
    error: str = ""
    allocations: tuple[ClaimAllocation, ...] | None = None
    unavailable: tuple[int, ...] = ()     # allocated claims whose node selector rejects the node
    pools: tuple[Pool, ...] = ()


@dataclass
class DraState:
    """The pod's claims (in spec order), per allocated claim where its allocation is usable, and
    the rules of the allocator the version followed runs."""

    inventory: Inventory | None = None
    claims: tuple[ResourceClaim, ...] = ()
    available_on: tuple[NodeSelector | None, ...] = ()
    rules: AllocatorRules = DEFAULT_RULES
    # Device binding conditions: how long an allocated claim may wait for them, and the time
    # the cycle runs at (read once, as PreFilter runs).
    binding_timeout_ns: int = readiness.DEFAULT_BINDING_TIMEOUT_NS
    now_ns: int = 0
    _outcomes: dict[str, tuple["Node", NodeOutcome]] = field(default_factory=dict, repr=False)

    @property
    def to_allocate(self) -> tuple[ResourceClaim, ...]:
        return tuple(c for c in self.claims if c.allocation is None)

    def _binding_unavailable(self, index: int) -> bool:
        """With device binding conditions on: the allocated claim's binding failed or timed out."""
        claim = self.claims[index]
        return (claim.allocation is not None and self.rules.binding_conditions
                and readiness.unavailable(claim, self.binding_timeout_ns, self.now_ns))

    def candidates(self, node: "Node") -> list:
        """The slices that may belong to the node's pools (with partitionable devices, every
        slice of counter sets too)."""
        assert self.inventory is not None
        return self.inventory.slices_for(node.name, counters=self.rules.has(PARTITIONABLE_DEVICES))

    def outcomes(self) -> dict[str, tuple["Node", NodeOutcome]]:
        """node name -> (node, verdict) for every node judged so far."""
        return dict(self._outcomes)

    def outcome(self, node: "Node") -> NodeOutcome:
        """The verdict on `node`, computed once per Node object (a what-if may change a node
        under the same name)."""
        got = self._outcomes.get(node.name)
        if got is None or got[0] is not node:
            got = self._outcomes[node.name] = (node, self._check(node))
        return got[1]

    def _check(self, node: "Node") -> NodeOutcome:
        unavailable = tuple(i for i, sel in enumerate(self.available_on)
                            if (sel is not None and not sel.matches(node)) or self._binding_unavailable(i))
        to_allocate = self.to_allocate
        allocations = None
        pools: tuple[Pool, ...] = ()
        if to_allocate:
            inv = self.inventory
            assert inv is not None
            try:
                pools = tuple(gather_pools(inv.slices, node, self.candidates(node), self.rules))
                shared = self.rules.has(CONSUMABLE_CAPACITY)
                got = allocate(to_allocate, inv.classes, pools, inv.in_use_for(shared), inv.selectors, self.rules,
                               node=node, shares=inv.shares if shared else None, allocated=inv.holders)
            except PoolError as err:
                return NodeOutcome(error=f"gather pool information: {err}")
            except NodeFailure as err:
                return NodeOutcome(unschedulable=str(err), pools=pools)
            except AllocatorError as err:
                return NodeOutcome(error=str(err), pools=pools)
            if got is None or len(got) != len(to_allocate):
                return NodeOutcome(unschedulable=CANNOT_ALLOCATE, pools=pools)
            allocations = tuple(got)
        if unavailable:
            return NodeOutcome(unschedulable=NOT_AVAILABLE, unavailable=unavailable, pools=pools)
        return NodeOutcome(allocations=allocations, pools=pools)
