"""The resource pools a node can allocate from (the allocators' GatherPools), as the allocator of
the version followed gathers them (`AllocatorRules`): which slices count, partitionable devices'
counters, completeness (changed in 1.35) and pool order (Go's map order before 1.36, kept as the
slices appear so verdicts are reproducible). The rules: docs/internals/plugins.md."""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from kexplain.apimachinery.fielderrors import aggregate
from kexplain.model.dra import ResourceSlice
from kexplain.model.nodeselector import NodeSelector
from kexplain.plugins.dra.features import consumption, counter_sets, device_node_fields
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
    # Partitionable devices: counter set -> counter -> value, and the pool's device slices for
    # other nodes (their allocated devices consume the pool's counters).
    counter_sets: Mapping[str, Mapping[str, Fraction]] = field(default_factory=dict)
    other_slices: tuple[ResourceSlice, ...] = ()

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


def _relevant(s: ResourceSlice, node: "Node", partitionable: bool) -> bool:
    """Whether the slice belongs to the node's pools: it targets the node, or (partitionable
    devices on) it holds counter sets, or one of its devices targets the node."""
    if partitionable and s.shared_counters:
        return True
    if s.node_name or s.all_nodes or s.node_selector is not None:
        return _targets(s, node)
    if partitionable and s.per_device_node_selection:
        for d in s.devices:
            try:
                if device_matches(d, node):
                    return True
            except PoolError as err:
                raise PoolError(f"failed to perform node selection for device {d.name} in slice {s.name}: "
                                f"failed to parse node selector: {err}") from None
    return False


def device_matches(d, node: "Node") -> bool:
    """NodeMatches for a device's own node fields (perDeviceNodeSelection)."""
    name, all_nodes, selector = device_node_fields(d)
    if name:
        return name == node.name
    if all_nodes:
        return True
    if selector is not None:
        return selector_matches(selector, node)
    return False


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
    """The pools of the slices that target `node`; `candidates`: those of `slices` that may target it, in
    order (default: all); `rules`: the allocator's (default: the default version's)."""
    partitionable = rules.has(PARTITIONABLE_DEVICES)
    local = [s for s in (slices if candidates is None else candidates)
             if not _skipped(s, rules) and _relevant(s, node, partitionable)]
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
    everywhere: list[ResourceSlice] | None = None
    if len(local) != want:
        # Slices for other nodes may complete the pool; a newer generation elsewhere
        # makes these slices obsolete and the pool is left out altogether.
        same = [s for s in slices if s.driver == driver and s.pool == name]
        if any(s.generation > generation for s in same):
            return None
        everywhere = [s for s in same if s.generation == generation]
        if len(everywhere) != want:
            return Pool(driver, name, local, incomplete=True)
    return _build(driver, name, local, everywhere, rules)


def _build(driver: str, name: str, local: tuple[ResourceSlice, ...], everywhere: list[ResourceSlice] | None,
           rules: AllocatorRules) -> Pool:
    """buildPool: a complete pool, its slices sorted by name where the allocator sorts them,
    split into device and counter slices with partitionable devices on, and validated."""
    if rules.variant.sorted_pools:
        local = tuple(sorted(local, key=lambda s: s.name))
    if not rules.has(PARTITIONABLE_DEVICES):
        return Pool(driver, name, local, invalid_reason=_duplicate_device(local))
    devices = tuple(s for s in local if not s.shared_counters)
    invalid = _duplicate_device(devices)
    if invalid:
        return Pool(driver, name, devices, invalid_reason=invalid)
    sets: dict[str, Mapping[str, Fraction]] = {}
    for s in local:
        if not s.shared_counters:
            continue
        for set_name, counters in counter_sets(s):
            if set_name in sets:
                return Pool(driver, name, devices, invalid_reason=f"duplicate counter set name {set_name}")
            sets[set_name] = counters
    invalid = _consumption_problem(sets, local)
    if invalid:
        return Pool(driver, name, devices, invalid_reason=invalid)
    seen = {s.name for s in local}
    others = tuple(s for s in everywhere or () if s.name not in seen)
    invalid = _consumption_problem(sets, others)
    return Pool(driver, name, devices, invalid_reason=invalid, counter_sets=sets,
                other_slices=() if invalid else others)


def _consumption_problem(sets: Mapping[str, Mapping[str, Fraction]], slices: Iterable[ResourceSlice]) -> str:
    """validateDeviceCounterConsumption: a device consuming a counter set or counter the pool does not have."""
    for s in slices:
        for d in s.devices:
            for set_name, counters in consumption(d):
                if set_name not in sets:
                    return f"counter set {set_name} not found"
                for counter in counters:
                    if counter not in sets[set_name]:
                        return f"counter {counter} not found in counter set {set_name}"
    return ""
