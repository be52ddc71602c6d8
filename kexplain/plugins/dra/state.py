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
from kexplain.plugins.dra.pools import Pool, PoolError, gather_pools
from kexplain.plugins.dra.variant import DEFAULT_RULES, AllocatorRules

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
    _outcomes: dict[str, tuple["Node", NodeOutcome]] = field(default_factory=dict, repr=False)

    @property
    def to_allocate(self) -> tuple[ResourceClaim, ...]:
        return tuple(c for c in self.claims if c.allocation is None)

    def outcome(self, node: "Node") -> NodeOutcome:
        """The verdict on `node`, computed once per Node object (a what-if may change a node
        under the same name)."""
        got = self._outcomes.get(node.name)
        if got is None or got[0] is not node:
            got = self._outcomes[node.name] = (node, self._check(node))
        return got[1]

    def _check(self, node: "Node") -> NodeOutcome:
        unavailable = tuple(i for i, sel in enumerate(self.available_on) if sel is not None and not sel.matches(node))
        to_allocate = self.to_allocate
        allocations = None
        pools: tuple[Pool, ...] = ()
        if to_allocate:
            inv = self.inventory
            assert inv is not None
            try:
                pools = tuple(gather_pools(inv.slices, node, inv.slices_for(node.name), self.rules))
                got = allocate(to_allocate, inv.classes, pools, inv.in_use, inv.selectors, self.rules)
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
