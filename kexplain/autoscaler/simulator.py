"""CA's cluster snapshot with the scheduler inside (simulator/clustersnapshot/predicate).

`ClusterSim` holds the current `Snapshot` (nodes in list order: the cluster's, then the nodes
the simulation adds), forks and reverts it as CA's delta snapshot does, and runs the scheduler
framework's PreFilter and Filter for a pod on one node (`check`) or on the first node that
passes (`schedule_anywhere`), binding the pod there. The search starts after the node of the
last match (CA's last-index node ordering, offset 1), and that position lasts the whole loop,
as in CA, where one plugin runner serves every simulation of the loop. A failure is the first
failing plugin and its reasons, as CA's FailingPredicateError records them. A node a node-local
Filter plugin rejected for a pod is not filtered again for the pods like it while its NodeInfo
stays (500 pending pods of a few shapes, each tried on 5,000 nodes: the search then filters only
the nodes that could still pass).
"""
from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from kexplain.framework.cycle_state import CycleState
from kexplain.framework.node_memo import MEMO_KEY, pod_fingerprint
from kexplain.framework.preemption import PDB_CACHE_KEY
from kexplain.model.pod_index import POD_INDEX_KEY
from kexplain.plugins.helper.spread import CACHE_KEY as OWNERS_KEY
from kexplain.plugins.volume_restrictions import USED_PVCS_KEY
from kexplain.model.nodeinfo import NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.framework.runtime import Framework


@dataclass(frozen=True)
class Failure:
    """Why a pod does not pass on a node: the failing plugin(s) and the reasons it gave."""

    plugin: str
    reasons: tuple[str, ...]


def bound(pod: PodInfo, node_name: str) -> PodInfo:
    """The pod as the snapshot holds it once placed on `node_name`."""
    obj = dict(pod.obj)
    obj["spec"] = {**pod.spec, "nodeName": node_name}
    out = PodInfo(obj)
    if "resource" in pod.__dict__:       # the requests do not change with the node
        out.__dict__["resource"] = pod.__dict__["resource"]
    return out


_RULED_OUT_KEYS = 64       # pods (as the plugins read them) whose ruled-out nodes are kept
_NOTHING: dict[int, NodeInfo] = {}     # no memory: a pod not plain data, or nominated pods
_FIRST_CHUNK = 8           # nodes filtered in the first chunk of a search; each next chunk is 4 times larger

# Indexes a new node without pods leaves as they are: of pods by label, of pods' owners (for
# default spreading), of PodDisruptionBudgets, of the claims pods use, and the per-NodeInfo memo
# of node-local verdicts.
_KEPT_ON_NEW_NODE = (POD_INDEX_KEY, OWNERS_KEY, PDB_CACHE_KEY, USED_PVCS_KEY, MEMO_KEY)


def with_node(snapshot: Snapshot, node_info: NodeInfo, csi_node: Mapping[str, Any] | None = None) -> Snapshot:
    """`snapshot` with one more node after the others, and its pods bound to it one by one
    (so the indexes that follow binds are patched, not built again); `csi_node`: the node's
    CSINode, which CA's snapshot carries with it (--enable-csi-node-aware-scheduling)."""
    out = snapshot.with_empty_node(node_info.node, _KEPT_ON_NEW_NODE)
    if csi_node is not None:    # the new snapshot's own list of objects (the volume index is built again)
        out.objects = {**out.objects, "CSINode": [*out.objects.get("CSINode", ()), dict(csi_node)]}
    for pod in node_info.pods:
        out = out.with_pod_bound(pod)
    return out


class ClusterSim:
    """The loop's predicate snapshot: one framework, a snapshot that forks and reverts."""

    def __init__(self, snapshot: Snapshot, framework: "Framework") -> None:
        self.snapshot = snapshot
        self.framework = framework
        self._forks: list[Snapshot] = []
        self._last_index = 0          # CA's lastIndexOrderMapping: where the last match was
        # per pod as the plugins read it: the NodeInfos a node-local plugin rejected (bounded)
        self._ruled_out_by_pod: dict[tuple[bytes, frozenset[str]], dict[int, NodeInfo]] = {}

    # -- forks ------------------------------------------------------------------------------
    def fork(self) -> None:
        self._forks.append(self.snapshot)

    def revert(self) -> None:
        self.snapshot = self._forks.pop()

    def add_node(self, node_info: NodeInfo, csi_node: Mapping[str, Any] | None = None) -> None:
        self.snapshot = with_node(self.snapshot, node_info, csi_node)

    # -- what a node-local Filter plugin ruled out -----------------------------------------
    @property
    def _local_filters(self) -> frozenset[str]:
        fw = self.framework
        return frozenset(pl.name for pl in fw.filter_plugins if pl.node_local)

    def _ruled_out(self, pod: PodInfo, state: CycleState) -> dict[int, NodeInfo]:
        """The NodeInfos (by id; each entry keeps its NodeInfo alive, so the id is that
        NodeInfo's) a node-local Filter plugin rejected for a pod read alike by the plugins
        (`pod_fingerprint`, and the same plugins skipped): such a verdict depends only on the pod
        and that very NodeInfo, which binds replace rather than change, so the node is not
        filtered again for the loop's next pods like it (the pending pods of one shape, tried on
        every node). Kept for the last `_RULED_OUT_KEYS` such pods; nothing is kept when the
        framework has nominated pods (their verdicts are not the plugin's alone)."""
        if getattr(self.framework, "_nominated", None):
            return _NOTHING
        fingerprint = pod_fingerprint(pod)
        if fingerprint is None:
            return _NOTHING
        key = (fingerprint, state.skip_filter_plugins)
        table = self._ruled_out_by_pod.pop(key, None)
        if table is None:
            table = {}
            while len(self._ruled_out_by_pod) >= _RULED_OUT_KEYS:
                del self._ruled_out_by_pod[next(iter(self._ruled_out_by_pod))]
        self._ruled_out_by_pod[key] = table
        return table

    # -- the scheduler ----------------------------------------------------------------------
    def _pre_filter(self, pod: PodInfo) -> tuple[CycleState, frozenset[str] | None, str, Failure | None]:
        fw = self.framework
        fw.snapshot = self.snapshot
        state = CycleState()
        outcome = fw.run_pre_filter(state, pod)
        if not outcome.status.is_success:
            return state, None, "", Failure(outcome.status.plugin, tuple(outcome.status.reasons))
        names = outcome.result.node_names if outcome.result is not None else None
        return state, names, ", ".join(sorted(outcome.plugins_with_nodes)), None

    def check(self, pod: PodInfo, node_name: str) -> Failure | None:
        """Whether `pod` passes PreFilter and Filter on `node_name` (CheckPredicates)."""
        state, names, narrowed_by, failed = self._pre_filter(pod)
        if failed is not None:
            return failed
        if names is not None and node_name not in names:
            return Failure(narrowed_by, ())
        status = self.framework.run_filter_plugins(state, pod, self.snapshot.get(node_name))
        if not status.is_success:
            return Failure(status.plugin, tuple(status.reasons))
        return None

    def schedule(self, pod: PodInfo, node_name: str) -> Failure | None:
        """`check`, then the pod bound to the node when it passes (SchedulePod)."""
        failed = self.check(pod, node_name)
        if failed is None:
            self.snapshot = self.snapshot.with_pod_bound(bound(pod, node_name))
        return failed

    def schedule_anywhere(self, pod: PodInfo, among: Sequence[int] | None = None) -> str | None:
        """The first node, from the one after the last match on, where `pod` passes (and is
        bound); None when none does (SchedulePodOnAnyNodeMatching). `among`: the indexes of
        the acceptable nodes (default: every node). The nodes are filtered in growing chunks,
        plugin by plugin over each chunk (Filter has no side effects: the first node that
        passes is the one a node-by-node search finds)."""
        state, names, _, failed = self._pre_filter(pod)
        if failed is not None:
            return None
        infos = self.snapshot.node_infos
        n = len(infos)
        if n == 0:
            return None
        start = (self._last_index + 1) % n
        if among is None:
            order: Sequence[int] = [*range(start, n), *range(start)]
        else:           # from `start` on, round the list: the sorted indexes, rotated
            ascending = sorted(among)
            cut = bisect_left(ascending, start)
            order = ascending[cut:] + ascending[:cut]
        ruled_out = self._ruled_out(pod, state)
        if ruled_out:           # first: for a pod like many before it, most nodes are
            order = [i for i in order if id(infos[i]) not in ruled_out]
        candidates = [i for i in order if not infos[i].node.unschedulable
                      and (names is None or infos[i].name in names)]
        local = self._local_filters
        chunk = _FIRST_CHUNK
        at = 0
        while at < len(candidates):
            part = candidates[at:at + chunk]
            batch = self.framework.run_filter_nodes(state, pod, [infos[i] for i in part])
            if ruled_out is not _NOTHING:
                for i, verdict in zip(part, batch.verdicts):
                    if verdict.plugin in local:
                        ruled_out[id(infos[i])] = infos[i]
            if batch.passed:
                index = part[min(batch.passed)]
                self._last_index = index
                self.snapshot = self.snapshot.with_pod_bound(bound(pod, infos[index].name))
                return infos[index].name
            at += chunk
            chunk *= 4
        return None
