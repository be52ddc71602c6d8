"""The predicates' verdicts and nodeorder's raw scores of a pod shape on a node, kept across a session's
tasks (issue 93: allocate asks them for thousands of tasks on hundreds of nodes each).

The tasks of a job role are one pod but for their names, and many roles ask alike. A verdict or a
node-local score reads only the pod's `shape` (`model.shapes.task_key`: its spec and status but for what is the
task's own or the pod's running, and of each container only its requests, ports and restart policy)
and that one node; the action's own resource check reads the task's request and the node's idle. So
an entry is kept per (plugin, shape) and node, good while the node's `version` (bumped by every task
added to or removed from it: allocate, pipeline, evict and a discard's undoing alike) is the one it
was computed at (the tables key on the node's `stamp`, a new object at every bump: hashed by identity,
cheaper than a (name, version) pair). The node affinity, taint and image scores read what a session never changes
(labels, taints, images): kept by node alone. A task whose inter-pod
affinity or topology spread Filter runs (they count other nodes' pods) keeps no verdict; those two
plugins' scores are never kept. Nothing here changes an answer: `ENABLED` off gives the same session."""
from __future__ import annotations

from itertools import compress, repeat
from operator import and_, attrgetter, is_, ne, not_
from typing import Any, Callable, Hashable

from kexplain.framework.cycle_state import CycleState
from kexplain.model.shapes import task_key
from kexplain.plugins import names as n
from kexplain.volcano.api.fit_errors import FitError, Status
from kexplain.volcano.api.node import NodeInfo
from kexplain.volcano.api.resource import Resource
from kexplain.volcano.api.task import TaskInfo
from kexplain.volcano.plugins import k8s

ENABLED = True           # the tests compare sessions with it off
MAX_KEYS = 512           # shapes kept per kind of table; the least recently used dropped first
CROSS_NODE = frozenset((n.INTER_POD_AFFINITY, n.POD_TOPOLOGY_SPREAD))     # read other nodes' pods
STATIC_SCORES = frozenset((n.NODE_AFFINITY, n.TAINT_TOLERATION))          # the node's labels and taints
NODE_SCORES = frozenset((n.NODE_RESOURCES_FIT, n.NODE_RESOURCES_BALANCED_ALLOCATION))   # its requests
PREDICATES = "predicates"
VERSION, STAMP, NAME = attrgetter("version"), attrgetter("stamp"), attrgetter("name")
NodeKeys = tuple[list[str], list[object]]


class _Tables:
    """Per key, a table; past MAX_KEYS keys the least recently used goes."""

    def __init__(self) -> None:
        self._by_key: dict[Hashable, dict[Any, Any]] = {}

    def get(self, key: Hashable) -> dict[Any, Any]:
        tables = self._by_key
        table = tables.pop(key, None)
        if table is None:
            table = {}
            while len(tables) >= MAX_KEYS:
                del tables[next(iter(tables))]
        tables[key] = table
        return table


class ShapeMemo:
    """One session's kept verdicts and scores."""

    def __init__(self, nodes: int) -> None:
        self.nodes = nodes
        self.filters = _Tables()                    # filter key -> KeptVerdicts
        self.scores = _Tables()                     # (plugin, shape) -> node name or stamp -> raw
        self.fitting = _Tables()                    # request -> node stamp -> (idle, future idle)
        self.skips: dict[tuple[int, str], bool] = {}     # (plugin, shape) -> PreScore skipped
        self.states: dict[tuple[int, str], CycleState] = {}     # (plugin, shape) -> its PreScore's state
        self.shapes: dict[str, Hashable] = {}            # task uid -> shape

    def shape(self, task: TaskInfo) -> Hashable:
        """The task's pod as the memoized checks and plugins read it (`model.shapes.task_key`), made once per
        task; a pod no key encodes shares with no other."""
        found = self.shapes.get(task.uid)
        if found is None:
            found = self.shapes[task.uid] = task_key(task.pod) or ("task", task.uid)
        return found

    def filter_key(self, ssn: Any, task: TaskInfo) -> Hashable | None:
        """What the allocate check reads of the task: its shape and which filters its PrePredicate skipped
        (None when another plugin predicates, or a cross-node filter runs)."""
        fns = [opt.name for opt, _ in ssn._each("predicate", "predicate")]
        if any(name != PREDICATES for name in fns):
            return None
        skipped: set[str] = set()
        if fns:
            plugin = ssn.plugins[PREDICATES]
            found = plugin.skipped(task)
            if found is None or any(name in CROSS_NODE and name not in found for name in plugin.filters):
                return None
            skipped = found
        return self.shape(task), frozenset(skipped)

    def raw_scores(self, plugin: Any, task: TaskInfo, pod: Any, nodes: NodeKeys, snapshot: Any,
                   ) -> tuple[bool, list[int] | None]:
        """(kept, the plugin's raw scores of the nodes: None when its PreScore skips); kept False when the
        plugin's scores are not memoized (then nothing was computed). `nodes`: their names and their
        stamps (`node_keys`)."""
        name = getattr(plugin, "name", "")
        static = name in STATIC_SCORES
        if not static and name not in NODE_SCORES:
            return False, None
        key = (id(plugin), self.shape(task))
        state = self.states.get(key)
        if state is None:
            state = self.states[key] = CycleState()     # (these PreScores read the pod alone; Score only reads it)
            status = plugin.pre_score(state, pod, []) if hasattr(plugin, "pre_score") else None
            self.skips[key] = status is not None and status.is_skip
        if self.skips[key]:
            return True, None
        table = self.scores.get(key)
        keys = nodes[0] if static else nodes[1]
        found = list(map(table.get, keys))
        if None in found:
            if not static and len(table) > 4 * self.nodes:
                table.clear()       # (mostly versions placements have left behind)
            missing = list(compress(range(len(found)), map(is_, found, repeat(None))))
            for i in missing:
                found[i] = table[keys[i]] = int(plugin.score(state, pod, snapshot.get(nodes[0][i])))
        return True, found          # type: ignore[return-value]

    def fits(self, task: TaskInfo, nodes: list[NodeInfo]) -> list[tuple[bool, bool]]:
        """Per node, whether the task's request fits its idle, and (when not) its future idle (kept per
        request and node stamp)."""
        req = task.init_resreq
        table = self.fitting.get(_resource_key(req))
        keys = list(map(STAMP, nodes))
        found = list(map(table.get, keys))
        if None in found:
            if len(table) > 4 * self.nodes:
                table.clear()
            for i, nd in enumerate(nodes):
                if found[i] is None:
                    now = req.less_equal(nd.idle)        # (the future idle is asked only of a node the idle cannot hold)
                    found[i] = table[keys[i]] = (now, now or req.less_equal(nd.future_idle()))
        return found          # type: ignore[return-value]


def node_keys(nodes: list[NodeInfo]) -> NodeKeys:
    """The nodes' names, and their stamps."""
    return list(map(NAME, nodes)), list(map(STAMP, nodes))


def _resource_key(r: Resource) -> Hashable:
    return (r.milli_cpu, r.memory, tuple(sorted((r.scalars or {}).items())), r.max_task_num)


def memo_of(ssn: Any) -> ShapeMemo | None:
    """The session's memo, made on first use (None when ENABLED is off)."""
    if not ENABLED:
        return None
    if ssn.memo is None:
        ssn.memo = ShapeMemo(len(ssn.node_list))
    return ssn.memo


def memoized_check(ssn: Any, task: TaskInfo, check: Callable[[TaskInfo, NodeInfo], Any]
                   ) -> Callable[[TaskInfo, NodeInfo], Any]:
    """`check` (the allocate action's predicate) for `task`, its verdicts kept per node version for tasks
    of the same filter key (`check` itself when nothing may be kept). Call after the task's PrePredicate."""
    memo = memo_of(ssn)
    key = memo.filter_key(ssn, task) if memo is not None else None
    if key is None:
        return check
    tables = memo.filters
    kept = tables.get(key).get(0)
    if kept is None:
        kept = tables.get(key)[0] = KeptVerdicts(ssn.node_list)
    return KeptCheck(check, kept)


class KeptVerdicts:
    """One filter key's verdicts on each node of the session's list (statuses, None when the node fits)
    and the node versions they were made at."""

    def __init__(self, nodes: list[NodeInfo]) -> None:
        self.nodes = nodes
        self.index = {nd.name: i for i, nd in enumerate(nodes)}
        self.versions = [-1] * len(nodes)
        self.statuses: list[tuple[Status, ...] | None] = [None] * len(nodes)


class KeptCheck:
    """The check of one task through its key's kept verdicts: `refresh` makes a range current (the nodes
    changed since checked again), `__call__` answers one node as `check` does."""

    def __init__(self, check: Callable[[TaskInfo, NodeInfo], Any], kept: KeptVerdicts) -> None:
        self.check, self.kept = check, kept

    def refresh(self, task: TaskInfo, lo: int, hi: int) -> list[tuple[Status, ...] | None]:
        """The verdicts of nodes[lo:hi], those of nodes changed since made again."""
        kept = self.kept
        nodes, versions, statuses = kept.nodes, kept.versions, kept.statuses
        current = list(map(VERSION, nodes[lo:hi]))
        for i in compress(range(lo, hi), map(ne, versions[lo:hi], current)):
            err = self.check(task, nodes[i])
            statuses[i] = None if err is None else tuple(err.statuses)
            versions[i] = current[i - lo]
        return statuses[lo:hi]

    def __call__(self, task: TaskInfo, node: NodeInfo) -> Any:
        i = self.kept.index.get(node.name)
        if i is None or self.kept.nodes[i] is not node:
            return self.check(task, node)
        statuses = self.refresh(task, i, i + 1)[0]
        return None if statuses is None else FitError(task.key, node.name, list(statuses))


def fitting(statuses: list[Any], bad: set[int] | None, lo: int) -> list[bool]:
    """Which of the verdicts (of nodes lo...) are a fit, those at a `bad` position not."""
    ok = list(map(is_, statuses, repeat(None)))
    if bad:
        ok = list(map(and_, ok, map(not_, map(bad.__contains__, range(lo, lo + len(ok))))))
    return ok


def failing(ok: list[bool], lo: int, hi: int) -> Any:
    """The positions lo..hi-1 whose verdict (ok, from lo) is not a fit."""
    return compress(range(lo, hi), map(not_, ok[:hi - lo]))
