"""The resource pools a node can allocate from (the incubating allocator's GatherPools).

A pool is the set of ResourceSlices of one (driver, pool name) at its newest generation. Only
slices that target the node count (its `nodeName`, `allNodes`, or a `nodeSelector` that
matches); slices for partitionable devices (`sharedCounters`, `perDeviceNodeSelection`) are
skipped, that feature being off by default. A pool is incomplete while fewer slices of its
generation exist than `resourceSliceCount` says, invalid when two of its devices share a name.

Order: the scheduler builds the list from a Go map, so its pool order is random; we keep the
order in which the pools' first slices appear, which makes every verdict reproducible (only
which devices get picked, never whether a node fits, can depend on it).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Sequence

from kexplain.apimachinery.fielderrors import aggregate
from kexplain.model.dra import ResourceSlice
from kexplain.model.nodeselector import NodeSelector

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.nodeinfo import Node


class PoolError(Exception):
    """GatherPools failed (a slice's node selector does not parse): the allocator's error."""


@dataclass(frozen=True)
class Pool:
    """One pool as the node sees it. An incomplete pool keeps its slices for explanations; the
    allocator never takes devices from a pool that is not `usable`."""

    driver: str
    name: str
    slices: tuple[ResourceSlice, ...] = ()
    incomplete: bool = False
    invalid_reason: str = ""      # non-empty: the pool is invalid

    @property
    def id(self) -> str:
        """PoolID.String(): `driver/pool`."""
        return f"{self.driver}/{self.name}"

    @property
    def invalid(self) -> bool:
        return bool(self.invalid_reason)

    @property
    def usable(self) -> bool:
        return not self.incomplete and not self.invalid


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


def gather_pools(slices: Sequence[ResourceSlice], node: "Node",
                 candidates: Sequence[ResourceSlice] | None = None) -> list[Pool]:
    """The pools of the slices that target `node`, in order of their first slice. `slices`:
    all the cluster's slices; `candidates`: those among them that may target the node, in the
    same order (all of them when not given)."""
    newest: dict[tuple[str, str], list[ResourceSlice]] = {}
    for s in slices if candidates is None else candidates:
        if s.per_device_node_selection is not None or s.shared_counters:
            continue
        if not _targets(s, node):
            continue
        key = (s.driver, s.pool)
        have = newest.get(key)
        if have is None or s.generation > have[0].generation:
            newest[key] = [s]
        elif s.generation == have[0].generation:
            have.append(s)
    pools: list[Pool] = []
    for (driver, name), local in newest.items():
        generation, want = local[0].generation, local[0].resource_slice_count
        if len(local) != want:
            # Slices for other nodes may complete the pool; a newer generation elsewhere
            # makes these slices obsolete and the pool is left out altogether.
            same = [s for s in slices if s.driver == driver and s.pool == name]
            if any(s.generation > generation for s in same):
                continue
            if sum(1 for s in same if s.generation == generation) != want:
                pools.append(Pool(driver, name, tuple(local), incomplete=True))
                continue
        pools.append(Pool(driver, name, tuple(local), invalid_reason=_duplicate_device(local)))
    return pools
