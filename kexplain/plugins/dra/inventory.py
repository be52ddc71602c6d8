"""The cluster's DRA objects, parsed once per snapshot: device classes, slices, claims, and the
devices allocated claims hold (the allocatedDevices tracker; shared ones add up their capacity).
Claims are parsed on first lookup (`Claims`): a GPU cluster has thousands, a pod reads its own."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterator, Mapping

from kexplain.model.dra import DeviceClass, DeviceID, ResourceClaim, ResourceSlice
from kexplain.plugins.dra.selectors import Selectors

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.snapshot import Snapshot

CACHE_KEY = "DynamicResources/inventory"


class Claims(Mapping[str, ResourceClaim]):
    """The cluster's claims by "namespace/name", each parsed on first lookup (and kept)."""

    def __init__(self, raw: Mapping[str, Mapping[str, Any]]) -> None:
        self._raw = raw
        self._parsed: dict[str, ResourceClaim] = {}

    def __getitem__(self, key: str) -> ResourceClaim:
        got = self._parsed.get(key)
        if got is None:
            got = self._parsed[key] = ResourceClaim.from_obj(self._raw[key])
        return got

    def __contains__(self, key: object) -> bool:
        return key in self._raw

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)


def _dict(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def claim_key(obj: Mapping[str, Any]) -> str:
    """ResourceClaim.key of a claim's JSON (the namespace `default` when empty)."""
    meta = _dict(obj.get("metadata"))
    return f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}"


def _results(obj: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """A claim's JSON allocation results without admin access."""
    allocation = _dict(obj.get("status")).get("allocation")
    if not isinstance(allocation, dict):
        return
    results = _dict(allocation.get("devices")).get("results")
    for r in results if isinstance(results, list) else ():
        r = _dict(r)
        if r.get("adminAccess") is not True:
            yield r


def _device_id(r: Mapping[str, Any]) -> DeviceID:
    return str(r.get("driver") or ""), str(r.get("pool") or ""), str(r.get("device") or "")




@dataclass(frozen=True)
class Inventory:
    classes: Mapping[str, DeviceClass]
    slices: tuple[ResourceSlice, ...]
    claims: Mapping[str, ResourceClaim]                 # "namespace/name" -> claim
    holders: Mapping[DeviceID, tuple[str, ...]]         # device -> claims holding it (not admin access)
    selectors: Selectors = field(default_factory=Selectors, compare=False)
    # device -> what each result that shares it (a shareID) consumes, and the claims holding it
    # otherwise (consumable capacity on)
    shares: Mapping[DeviceID, tuple[Mapping[str, Any] | None, ...]] = field(default_factory=dict, compare=False)
    dedicated: Mapping[DeviceID, tuple[str, ...]] = field(default_factory=dict, compare=False)
    # Positions in `slices` of the slices published for one node, and of all the others.
    _by_node: Mapping[str, tuple[int, ...]] = field(default_factory=dict, compare=False, repr=False)
    _unbound: tuple[int, ...] = field(default=(), compare=False, repr=False)
    _counters: tuple[int, ...] = field(default=(), compare=False, repr=False)   # sharedCounters with a nodeName

    def slices_for(self, node_name: str, counters: bool = False) -> list[ResourceSlice]:
        """The slices that may target the node (its own `nodeName` slices and every slice without one), in
        cluster order, so a node looks at its own only; `counters`: also every counter-set slice."""
        own = self._by_node.get(node_name, ())
        extra = tuple(i for i in self._counters if self.slices[i].node_name != node_name) if counters else ()
        if not own and not extra:
            return [self.slices[i] for i in self._unbound]
        return [self.slices[i] for i in sorted((*own, *self._unbound, *extra))]

    @property
    def in_use(self) -> Mapping[DeviceID, tuple[str, ...]]:
        """The devices allocated to some claim (a mapping: `in` is what the allocator asks)."""
        return self.holders

    def in_use_for(self, consumable_capacity: bool) -> Mapping[DeviceID, tuple[str, ...]]:
        """The devices allocated to some claim, as the allocator of the version sees them: with
        consumable capacity on, a shared allocation leaves its device free for more."""
        return self.dedicated if consumable_capacity else self.holders

    @classmethod
    def build(cls, classes: list[Mapping], slices: list[Mapping], claims: list[Mapping]) -> "Inventory":
        by_name = {c.name: c for c in map(DeviceClass.from_obj, classes)}
        raw: dict[str, Mapping[str, Any]] = {}
        for obj in claims:
            raw[claim_key(obj)] = obj          # the last of a name wins, as in a dict of parsed claims
        holders: dict[DeviceID, list[str]] = {}
        shares: dict[DeviceID, list[Mapping[str, Any]]] = {}
        dedicated: dict[DeviceID, list[str]] = {}
        for key, obj in raw.items():
            for r in _results(obj):
                did = _device_id(r)
                holders.setdefault(did, []).append(key)
                if r.get("shareID") is None:
                    dedicated.setdefault(did, []).append(key)
                else:
                    consumed = r.get("consumedCapacity")
                    shares.setdefault(did, []).append(consumed if isinstance(consumed, dict) else None)
        parsed_slices = tuple(map(ResourceSlice.from_obj, slices))
        by_node: dict[str, list[int]] = {}
        unbound: list[int] = []
        counters: list[int] = []
        for i, s in enumerate(parsed_slices):
            if s.node_name:
                by_node.setdefault(s.node_name, []).append(i)
                if s.shared_counters:
                    counters.append(i)
            else:
                unbound.append(i)
        held = {k: tuple(v) for k, v in holders.items()}
        return cls(by_name, parsed_slices, Claims(raw), held, shares={k: tuple(v) for k, v in shares.items()},
                   dedicated={k: tuple(v) for k, v in dedicated.items()} if shares else held,
                   _by_node={k: tuple(v) for k, v in by_node.items()}, _unbound=tuple(unbound),
                   _counters=tuple(counters))


def inventory(snapshot: "Snapshot") -> Inventory:
    """The snapshot's Inventory, built on first use."""
    return snapshot.cached(CACHE_KEY, lambda: Inventory.build(
        snapshot.of_kind("DeviceClass"), snapshot.of_kind("ResourceSlice"), snapshot.of_kind("ResourceClaim")))
