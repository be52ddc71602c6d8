"""The cluster's DRA objects, parsed once per snapshot: device classes, slices, claims, and the
devices that allocated claims hold.

A device counts as in use when any claim's `status.allocation` lists it without admin access
(the scheduler's allocatedDevices tracker). kexplain never writes claims, so in-flight
allocations of a live scheduler do not exist here.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping

from kexplain.model.dra import DeviceClass, DeviceID, ResourceClaim, ResourceSlice
from kexplain.plugins.dra.selectors import Selectors

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.snapshot import Snapshot

CACHE_KEY = "DynamicResources/inventory"


@dataclass(frozen=True)
class Inventory:
    classes: Mapping[str, DeviceClass]
    slices: tuple[ResourceSlice, ...]
    claims: Mapping[str, ResourceClaim]                 # "namespace/name" -> claim
    holders: Mapping[DeviceID, tuple[str, ...]]         # device -> claims holding it (not admin access)
    selectors: Selectors = field(default_factory=Selectors, compare=False)
    # Positions in `slices` of the slices published for one node, and of all the others.
    _by_node: Mapping[str, tuple[int, ...]] = field(default_factory=dict, compare=False, repr=False)
    _unbound: tuple[int, ...] = field(default=(), compare=False, repr=False)

    def slices_for(self, node_name: str) -> list[ResourceSlice]:
        """The slices that may target the node (its own `nodeName` slices and every slice
        without one), in their order in the cluster: a cluster publishes a slice per node and
        driver, and each node only needs to look at its own."""
        own = self._by_node.get(node_name, ())
        if not own:
            return [self.slices[i] for i in self._unbound]
        return [self.slices[i] for i in sorted((*own, *self._unbound))]

    @property
    def in_use(self) -> Mapping[DeviceID, tuple[str, ...]]:
        """The devices allocated to some claim (a mapping: `in` is what the allocator asks)."""
        return self.holders

    @classmethod
    def build(cls, classes: list[Mapping], slices: list[Mapping], claims: list[Mapping]) -> "Inventory":
        by_name = {c.name: c for c in map(DeviceClass.from_obj, classes)}
        parsed = {c.key: c for c in map(ResourceClaim.from_obj, claims)}
        holders: dict[DeviceID, list[str]] = {}
        for claim in parsed.values():
            if claim.allocation is None:
                continue
            for r in claim.allocation.results:
                if not r.admin_access:
                    holders.setdefault(r.id, []).append(claim.key)
        parsed_slices = tuple(map(ResourceSlice.from_obj, slices))
        by_node: dict[str, list[int]] = {}
        unbound: list[int] = []
        for i, s in enumerate(parsed_slices):
            if s.node_name:
                by_node.setdefault(s.node_name, []).append(i)
            else:
                unbound.append(i)
        return cls(by_name, parsed_slices, parsed, {k: tuple(v) for k, v in holders.items()},
                   _by_node={k: tuple(v) for k, v in by_node.items()}, _unbound=tuple(unbound))


def inventory(snapshot: "Snapshot") -> Inventory:
    """The snapshot's Inventory, built on first use."""
    return snapshot.cached(CACHE_KEY, lambda: Inventory.build(
        snapshot.of_kind("DeviceClass"), snapshot.of_kind("ResourceSlice"), snapshot.of_kind("ResourceClaim")))
