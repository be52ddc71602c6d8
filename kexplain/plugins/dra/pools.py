"""The resource pools a node can allocate from (the allocators' GatherPools), as the allocator of
the version followed gathers them (`AllocatorRules`).

A pool is the set of ResourceSlices of one (driver, pool name) at its newest generation. Only
slices that target the node count (its `nodeName`, `allNodes`, or a `nodeSelector` that
matches); with partitionable devices off, slices for them (`perDeviceNodeSelection`, and from
1.35 `sharedCounters`) are skipped. A pool is invalid when two of its devices share a name.

Completeness changed in 1.35. Before, a pool is incomplete when the node sees fewer slices than
`resourceSliceCount` (a pool split into per-zone slices is incomplete everywhere), and the
allocator still allocates from it. From 1.35 the slices of the pool's generation are counted
across the cluster, a newer generation anywhere makes the node's slices obsolete (the pool is
left out), and an incomplete pool is never allocated from.

Order: before 1.36 (and in 1.36's stable allocator) the scheduler builds the list from a Go map,
so its pool order is random; kexplain keeps the order in which the pools' first slices appear,
which makes every verdict reproducible (only which devices get picked, and which of several
incomplete pools an error names, can depend on it). 1.36 sorts pools by driver then name and
slices by name. Pools with devices that have binding conditions come last where the allocator
knows them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Sequence

from kexplain.apimachinery.fielderrors import aggregate
from kexplain.model.dra import ResourceSlice
from kexplain.model.nodeselector import NodeSelector
from kexplain.plugins.dra.variant import DEFAULT_RULES, PARTITIONABLE_DEVICES, AllocatorRules

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.nodeinfo import Node


class PoolError(Exception):
    """GatherPools failed (a slice's node selector does not parse): the allocator's error."""


@dataclass(frozen=True)
class Pool:
    """One pool as the node sees it. An incomplete pool keeps its slices for explanations;
    `usable` says whether the allocator takes devices from it."""

    driver: str
    name: str
    slices: tuple[ResourceSlice, ...] = ()
    incomplete: bool = False
    invalid_reason: str = ""      # non-empty: the pool is invalid
    incomplete_usable: bool = False   # before 1.35: devices of an incomplete pool are allocated

    @property
    def id(self) -> str:
        """PoolID.String(): `driver/pool`."""
        return f"{self.driver}/{self.name}"

    @property
    def invalid(self) -> bool:
        return bool(self.invalid_reason)

    @property
    def usable(self) -> bool:
        return not self.invalid and (not self.incomplete or self.incomplete_usable)

    @property
    def has_binding_conditions(self) -> bool:
        """Some device has binding conditions (an incomplete pool the allocator skips has no
        devices for it, so it never has any)."""
        if self.incomplete and not self.incomplete_usable:
            return False
        return any(d.binding_conditions for s in self.slices for d in s.devices)


def selector_matches(raw: object, node: "Node") -> bool:
    """A v1.NodeSelector against the node; PoolError when it does not parse (NewNodeSelector)."""
    selector = NodeSelector.from_raw(raw if isinstance(raw, dict) else None)
    errs = selector.errors
    if errs:
        raise PoolError(aggregate(errs))
    return selector.matches(node)


def _targets(s: ResourceSlice, node: "Node") -> bool:
    """Whether a (non-partitionable) slice's devices are available on the node."""
    if s.node_name:
        return s.node_name == node.name
    if s.all_nodes:
        return True
    if s.node_selector is not None:
        try:
            return selector_matches(s.node_selector, node)
        except PoolError as err:
            raise PoolError(f"failed to perform node selection for slice {s.name}: "
                            f"failed to parse node selector: {err}") from None
    return False


def _duplicate_device(slices: Iterable[ResourceSlice]) -> str:
    seen: set[str] = set()
    for s in slices:
        for d in s.devices:
            if d.name in seen:
                return f"duplicate device name {d.name}"
            seen.add(d.name)
    return ""


def _skipped(s: ResourceSlice, rules: AllocatorRules) -> bool:
    """Slices for partitionable devices, left out while that feature is off."""
    if rules.has(PARTITIONABLE_DEVICES):
        return False
    return s.per_device_node_selection is not None or (s.shared_counters and rules.variant.skips_counter_slices)


def _binding_last(slices: Sequence[ResourceSlice]) -> list[ResourceSlice]:
    """Slices with devices that have binding conditions after the others (as they are added)."""
    return [s for s in slices if not _has_binding(s)] + [s for s in slices if _has_binding(s)]


def _has_binding(s: ResourceSlice) -> bool:
    return any(d.binding_conditions for d in s.devices)


def gather_pools(slices: Sequence[ResourceSlice], node: "Node",
                 candidates: Sequence[ResourceSlice] | None = None,
                 rules: AllocatorRules = DEFAULT_RULES) -> list[Pool]:
    """The pools of the slices that target `node`. `slices`: all the cluster's slices;
    `candidates`: those among them that may target the node, in the same order (all of them
    when not given); `rules`: the allocator's (the default version's when not given)."""
    local = [s for s in (slices if candidates is None else candidates) if not _skipped(s, rules) and _targets(s, node)]
    if rules.knows_binding_conditions and not rules.variant.sorted_pools:
        local = _binding_last(local)
    newest: dict[tuple[str, str], list[ResourceSlice]] = {}
    for s in local:
        key = (s.driver, s.pool)
        have = newest.get(key)
        if have is None or s.generation > have[0].generation:
            newest[key] = [s]
        elif s.generation == have[0].generation:
            have.append(s)
    pools = [_pool(driver, name, tuple(found), slices, rules) for (driver, name), found in newest.items()]
    out = [p for p in pools if p is not None]
    if rules.variant.sorted_pools:
        out = [Pool(p.driver, p.name, tuple(sorted(p.slices, key=lambda s: s.name)), p.incomplete,
                    p.invalid_reason, p.incomplete_usable) for p in out]
        out.sort(key=lambda p: (p.driver, p.name))
    if rules.knows_binding_conditions:
        out = [p for p in out if not p.has_binding_conditions] + [p for p in out if p.has_binding_conditions]
    return out


def _pool(driver: str, name: str, local: tuple[ResourceSlice, ...], slices: Sequence[ResourceSlice],
          rules: AllocatorRules) -> Pool | None:
    """The pool of the node's `local` slices (None: obsolete, left out)."""
    generation, want = local[0].generation, local[0].resource_slice_count
    if not rules.cluster_wide_pools:
        return Pool(driver, name, local, incomplete=len(local) != want, invalid_reason=_duplicate_device(local),
                    incomplete_usable=True)
    if len(local) != want:
        # Slices for other nodes may complete the pool; a newer generation elsewhere
        # makes these slices obsolete and the pool is left out altogether.
        same = [s for s in slices if s.driver == driver and s.pool == name]
        if any(s.generation > generation for s in same):
            return None
        if sum(1 for s in same if s.generation == generation) != want:
            return Pool(driver, name, local, incomplete=True)
    return Pool(driver, name, local, invalid_reason=_duplicate_device(local))
