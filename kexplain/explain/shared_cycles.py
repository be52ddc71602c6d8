"""A batch's pods that only their names tell apart, each cycle run once while nothing changes.

A file of hundreds of pending pods is mostly copies of a few shapes, and a pod that does not
fit changes nothing the next pod's cycle reads: no bind, no victim, the same round-robin
position (every node was searched), the same nominations, and no hint from the scheduler's
batch (`OpportunisticBatch.may_hint`); only the cycle count moves. So, against the same
snapshot object, the next pod of its `kexplain.model.shapes.pending_key` meets the very same
cycle, filterAll, preemption dry run and verified suggestions: it gets the first one's trace
with its own name (`kexplain.explain.shapes.renamed`, as `pod --pending` shares them), instead
of a cycle, a dry run and a dozen verification re-runs over every node again.

Only an Unschedulable verdict whose preemption nominated nothing is shared; a pod whose
identity the engine reads (`pending_key` None), or bound by spec.nodeName, runs its own cycle.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Hashable

from kexplain.explain.carryover import Carryover
from kexplain.explain.placement import Placement
from kexplain.explain.pod_inputs import Inputs
from kexplain.explain.request import RunOptions
from kexplain.explain.shapes import renamed
from kexplain.framework.trace import UNSCHEDULABLE
from kexplain.model.pod import PodInfo
from kexplain.model.shapes import pending_key
from kexplain.model.snapshot import Snapshot

# Shapes kept per snapshot, the least recently met dropped first: a trace holds an entry per node, so
# the bound is on nodes times shapes (KEPT_NODE_ENTRIES), never under SHAPES_KEPT shapes; a file's
# shapes come round robin (25 in issue 55's benchmark, 60 over 3,000 nodes all kept).
SHAPES_KEPT = 32
KEPT_NODE_ENTRIES = 200_000


def shapes_kept(snapshot: Snapshot | None) -> int:
    """How many shapes' first traces are kept at once over `snapshot`'s nodes: KEPT_NODE_ENTRIES over
    its nodes, at least SHAPES_KEPT (`explain_each` and a queue's `SharedCycles`)."""
    nodes = len(snapshot.node_infos) if snapshot is not None else 0
    return max(SHAPES_KEPT, KEPT_NODE_ENTRIES // max(1, nodes))


@dataclass(frozen=True)
class _Met:
    placement: Placement        # the first pod's, its trace as the queue left it (suggestions in)
    nominated: tuple[tuple[str, tuple[PodInfo, ...]], ...]   # held, so the key's ids name them


class SharedCycles:
    """Per snapshot: (shape, start index, configuration, nominations) -> the first pod's
    Unschedulable placement. Mutable, one per queue."""

    def __init__(self) -> None:
        self._snapshot: Snapshot | None = None
        self._met: OrderedDict[Hashable, _Met] = OrderedDict()

    def key(self, inputs: Inputs, options: RunOptions, carry: Carryover) -> tuple[Hashable, tuple] | None:
        """The key of `inputs.pod`'s next cycle, with the nominations it reads; None when the
        cycle is its own (see the module)."""
        if inputs.pod.spec.get("nodeName"):
            return None
        nominated = carry.settled()
        shape = pending_key(inputs.pod) if nominated is not None else None
        if shape is None:
            return None
        ids = tuple((node, tuple(map(id, pods))) for node, pods in nominated)
        return (shape, options.start_index, id(inputs.config), ids), nominated

    def found(self, key: tuple[Hashable, tuple] | None, inputs: Inputs) -> Placement | None:
        """The placement of the first pod of this key on this very snapshot, as `inputs.pod`'s."""
        if inputs.snapshot is not self._snapshot:       # a bind, a victim: the cluster changed
            self._snapshot = None
            self._met.clear()
        if key is None or self._snapshot is None:
            return None
        met = self._met.get(key[0])
        if met is None or met.placement.inputs.config is not inputs.config:
            return None
        self._met.move_to_end(key[0])
        first = met.placement
        return replace(first, inputs=inputs, trace=renamed(first.trace, first.inputs.pod, inputs.pod), shared=True)

    def keep(self, key: tuple[Hashable, tuple] | None, placement: Placement) -> None:
        """Remember `placement` when it changed nothing (see the module)."""
        trace = placement.trace
        if key is None or placement.node is not None or trace.result.status != UNSCHEDULABLE \
                or (trace.post_filter or {}).get("nominatedNodeName"):
            return
        snapshot = placement.inputs.snapshot
        if snapshot is not self._snapshot:
            self._snapshot = snapshot
            self._met.clear()
        self._met[key[0]] = _Met(placement, key[1])
        while len(self._met) > shapes_kept(snapshot):
            self._met.popitem(last=False)
