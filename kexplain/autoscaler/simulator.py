"""CA's cluster snapshot with the scheduler inside (simulator/clustersnapshot/predicate): `ClusterSim`
forks and reverts it as CA's delta snapshot does and runs PreFilter and Filter on one node
(`check`) or the first that passes (`schedule_anywhere`, CA's last-index order, kept all loop);
failures are CA's FailingPredicateError. Its caches (nodes ruled out, pods alike): docs/internals/autoscaler.md."""
from __future__ import annotations

from bisect import bisect_left
from collections import OrderedDict
from dataclasses import dataclass
from itertools import chain, islice
from typing import Any, Iterable, Iterator, Mapping, Sequence

from kexplain.autoscaler.identity_memo import remembered
from kexplain.framework.cycle_state import CycleState
from kexplain.framework.node_memo import MEMO_KEY
from kexplain.framework.preemption import PDB_CACHE_KEY
from kexplain.model.pod_index import POD_INDEX_KEY
from kexplain.plugins.helper.spread import CACHE_KEY as OWNERS_KEY
from kexplain.plugins.volume_restrictions import USED_PVCS_KEY
from kexplain.model.nodeinfo import NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.shapes import pending_key, plugin_key
from kexplain.model.snapshot import Snapshot, unchanged_by_bind
from kexplain.framework.runtime import Framework
from kexplain.plugins import plugin_class
from kexplain.plugins.pod_topology_spread import DOMAINS_KEY, domains_with_node


def scheduler_framework(scheduler_config, snapshot):
    """The scheduler framework CA embeds (its simulator/framework handle): the default profile's plugins of
    `scheduler_config` over `snapshot`, the one builder for the loop's scale-up and scale-down."""
    profile = scheduler_config.profile_for("default-scheduler")
    registry = {name: plugin_class(name) for names in profile.plugins.values() for name in names}
    return Framework(profile, registry, snapshot)


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
_SNAPSHOT_MEMOS = 4        # snapshots whose shared answers are kept (a fork's and the one it left)
_SEARCHES_KEPT = 1024      # searches over every node kept (a loop's pod list processors search once per pod)
_KEYS_KEPT = 4096          # pods whose sharing keys are kept


class _Shared:
    """The answers pods alike share on one snapshot: `check`'s per (key, node), and the
    searches that found no node per (key, acceptable nodes)."""

    __slots__ = ("checked", "nowhere")

    def __init__(self) -> None:
        self.checked: dict[tuple[bytes, str], Failure | None] = {}
        self.nowhere: set[tuple[bytes, tuple[int, ...] | None]] = set()


def with_node(snapshot: Snapshot, node_info: NodeInfo, csi_node: Mapping[str, Any] | None = None) -> Snapshot:
    """`snapshot` with one more node after the others, its pods bound one by one (indexes patched, not built
    again); `csi_node`: its CSINode, which CA's snapshot carries (--enable-csi-node-aware-scheduling)."""
    out = snapshot.with_empty_node(node_info.node, _KEPT_ON_NEW_NODE)
    # PodTopologySpread's eligible domains, worked out for the snapshot's nodes: extended by the new one
    domains = snapshot.cached(DOMAINS_KEY, dict, unchanged_by_bind)
    if domains:
        extended = domains_with_node(domains, out.get(node_info.name))
        out.cached(DOMAINS_KEY, lambda: extended, unchanged_by_bind)
    if csi_node is not None:    # the new snapshot's own list of objects (the volume index is built again)
        out.objects = {**out.objects, "CSINode": [*out.objects.get("CSINode", ()), dict(csi_node)]}
    for pod in node_info.pods:
        out = out.with_pod_bound(pod)
    return out


class SimMemo:
    """What the simulations over one loop's inputs share, answers only: nodes ruled out per pod, per
    snapshot what pods alike share, and the searches (`schedule_anywhere`); kept by a `LoopInputs`
    for the loops run again with a change, and by a listing for every loop over it (the report's
    pending and scale-down loops), whose replays then meet the same objects (by identity, kept alive
    so no id is reused). A pod is known by its object: a `PodInfo` is a view of it, and two loops
    over one listing wrap its pods each in their own."""

    def __init__(self) -> None:
        self.ruled_out_by_pod: dict[tuple[bytes, frozenset[str]], dict[int, NodeInfo]] = {}
        self.shared: OrderedDict[int, tuple[Snapshot, _Shared]] = OrderedDict()
        self.searches: OrderedDict[tuple[int, int, int], tuple[Snapshot, Any, str | None, Snapshot, int]] = \
            OrderedDict()
        self.keys: dict[int, tuple[Any, bytes | None]] = {}    # id(pod.obj) -> (pod.obj, shapes.pending_key)


class ClusterSim:
    """The loop's predicate snapshot: one framework, a snapshot that forks and reverts. `memo`: what earlier
    simulations with the same framework configuration found (default: nothing; see `SimMemo`)."""

    def __init__(self, snapshot: Snapshot, framework: "Framework", memo: SimMemo | None = None) -> None:
        self.snapshot = snapshot
        self.framework = framework
        self._forks: list[Snapshot] = []
        self._last_index = 0          # CA's lastIndexOrderMapping: where the last match was
        self._memo = memo if memo is not None else SimMemo()

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
        """The NodeInfos (by id, kept alive) a node-local Filter plugin rejected for pods read alike
        (`shapes.plugin_key`): not filtered again for the next such pod; for the last `_RULED_OUT_KEYS`
        pods, none when the framework has nominated pods."""
        if getattr(self.framework, "_nominated", None):
            return _NOTHING
        fingerprint = plugin_key(pod)
        if fingerprint is None:
            return _NOTHING
        key = (fingerprint, state.skip_filter_plugins)
        tables = self._memo.ruled_out_by_pod
        table = tables.pop(key, None)
        if table is None:
            table = {}
            while len(tables) >= _RULED_OUT_KEYS:
                del tables[next(iter(tables))]
        tables[key] = table
        return table

    # -- what pods alike share on one snapshot ----------------------------------------------
    def _key(self, pod: PodInfo) -> bytes | None:
        """The pod's `shapes.pending_key`; None also when the framework has nominated pods (their
        entries leave out the pod itself, by uid)."""
        if getattr(self.framework, "_nominated", None):
            return None
        return remembered(self._memo.keys, pod.obj, _KEYS_KEPT, pending_key, pod)

    def _shared_here(self) -> _Shared:
        """The shared answers of the current snapshot (made on first use; the last few
        snapshots' are kept, so a revert finds its snapshot's again)."""
        snapshot = self.snapshot
        memos = self._memo.shared
        found = memos.get(id(snapshot))
        if found is not None and found[0] is snapshot:
            memos.move_to_end(id(snapshot))
            return found[1]
        shared = _Shared()
        memos[id(snapshot)] = (snapshot, shared)
        while len(memos) > _SNAPSHOT_MEMOS:
            memos.popitem(last=False)
        return shared

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
        """Whether `pod` passes PreFilter and Filter on `node_name` (CheckPredicates); the
        answer of a pod alike on this very snapshot when there is one."""
        key = self._key(pod)
        if key is None:
            return self._check(pod, node_name)
        checked = self._shared_here().checked
        found = checked.get((key, node_name), checked)
        if found is checked:
            found = checked[(key, node_name)] = self._check(pod, node_name)
        return found

    def _check(self, pod: PodInfo, node_name: str) -> Failure | None:
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
        """The first node, from the one after the last match on, where `pod` passes (and is bound), or None
        (SchedulePodOnAnyNodeMatching); `among`: acceptable node indexes. Filtered in growing chunks; a
        pod alike that found none here finds none again; a search run before is replayed (`SimMemo`)."""
        if among is None and not getattr(self.framework, "_nominated", None):
            # the search over every node: replayed when this very search ran before
            searches = self._memo.searches
            before = self.snapshot
            obj = pod.obj           # (the pod by its object: another loop's view of it searches alike)
            asked = (id(before), id(obj), self._last_index)
            hit = searches.get(asked)
            if hit is not None and hit[0] is before and hit[1] is obj:
                searches.move_to_end(asked)
                self.snapshot, self._last_index = hit[3], hit[4]
                return hit[2]
            found = self._search(pod, among)
            searches[asked] = (before, obj, found, self.snapshot, self._last_index)
            while len(searches) > _SEARCHES_KEPT:
                searches.popitem(last=False)
            return found
        return self._search(pod, among)

    def _search(self, pod: PodInfo, among: Sequence[int] | None) -> str | None:
        """`schedule_anywhere`, with the searches of pods alike that found no node."""
        key = self._key(pod)
        if key is None:
            return self._schedule_anywhere(pod, among)
        nowhere = self._shared_here().nowhere
        asked = (key, tuple(among) if among is not None else None)
        if asked in nowhere:
            return None
        found = self._schedule_anywhere(pod, among)
        if found is None:
            nowhere.add(asked)
        return found

    def _schedule_anywhere(self, pod: PodInfo, among: Sequence[int] | None) -> str | None:
        state, names, _, failed = self._pre_filter(pod)
        if failed is not None:
            return None
        infos = self.snapshot.node_infos
        n = len(infos)
        if n == 0:
            return None
        start = (self._last_index + 1) % n
        if among is None:
            order: Iterable[int] = chain(range(start, n), range(start))
        else:           # from `start` on, round the list: the sorted indexes, rotated
            ascending = sorted(among)
            cut = bisect_left(ascending, start)
            order = ascending[cut:] + ascending[:cut]
        ruled_out = self._ruled_out(pod, state)
        candidates = _candidates(infos, order, ruled_out, names)
        local = self._local_filters
        chunk = _FIRST_CHUNK
        while True:
            part = list(islice(candidates, chunk))
            if not part:
                break
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
            chunk *= 4
        return None


def _candidates(infos: Sequence[NodeInfo], order: Iterable[int], ruled_out: Mapping[int, NodeInfo],
                names: frozenset[str] | None) -> Iterator[int]:
    """The indexes of `order` a search filters, read as its chunks ask (a pod that fits finds its node in
    the first few: the other nodes are never looked at): not ruled out for pods alike (a node ruled out
    during the search is one it filtered already), schedulable, among the PreFilter's `names`."""
    for i in order:
        info = infos[i]
        if (not ruled_out or id(info) not in ruled_out) and not info.node.unschedulable \
                and (names is None or info.name in names):
            yield i
