"""Volcano's Session (framework/session.go, session_plugins.go): the snapshot of one cycle, the plugins'
functions by extension point, asked tier by tier as Go asks them, and the session's own Allocate,
Pipeline and Evict."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache
from operator import add, attrgetter
from typing import Any, Callable

from kexplain.volcano.api.fit_errors import Code
from kexplain.volcano.api.job import JobInfo
from kexplain.volcano.api.node import NodeInfo
from kexplain.volcano.api.queue import QueueInfo
from kexplain.volcano.api.resource import Resource
from kexplain.volcano.api.task import TaskInfo, TaskStatus
from kexplain.volcano.conf import PluginOption, SchedulerConf

PERMIT, ABSTAIN, REJECT = 1, 0, -1
NAME = attrgetter("name")


@dataclass
class EventHandler:
    allocate: Callable[[TaskInfo], None] | None = None
    deallocate: Callable[[TaskInfo], None] | None = None


@dataclass
class Event:
    """One event the recorder emitted (the document merges identical ones into a count)."""

    obj: str
    type: str
    reason: str
    message: str


@dataclass
class Decision:
    """Where a task went and why (kexplain's record of the session, for the document's details)."""

    node: str
    candidates: list[str] = field(default_factory=list)
    scores: dict[str, float] = field(default_factory=dict)


@dataclass(eq=False)
class Session:
    conf: SchedulerConf
    jobs: dict[str, JobInfo]
    nodes: dict[str, NodeInfo]
    node_list: list[NodeInfo]
    queues: dict[str, QueueInfo]
    total: Resource
    k8s: Any                                   # the kube-scheduler view the predicates read (cache.K8sView)
    old_status: dict[str, tuple[str, list[dict[str, Any]], tuple[int, int, int]]] = field(default_factory=dict)
    fns: dict[str, dict[str, Callable[..., Any]]] = field(default_factory=dict)
    handlers: list[EventHandler] = field(default_factory=list)
    plugins: dict[str, Any] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    bound: dict[str, str] = field(default_factory=dict)           # task uid -> node bound this cycle
    evicted: set[str] = field(default_factory=set)
    evicted_for: dict[str, str] = field(default_factory=dict)     # victim uid -> the job its statement pipelined
    decisions: dict[str, Decision] = field(default_factory=dict)
    enabled_actions: frozenset[str] = frozenset()
    uid: str = "session"
    last_node_index: int = 0          # the predicate helper's lastProcessedNodeIndex
    resolved: dict[tuple[str, str | None], list] = field(default_factory=dict, repr=False)
    memo: Any = field(default=None, repr=False)       # kept verdicts and scores (plugins/memo.ShapeMemo)
    namespace_info: dict[str, Any] = field(default_factory=dict)   # ssn.NamespaceInfo (api.namespace)
    budgets: list[Any] = field(default_factory=list)               # the PodDisruptionBudgets (api.disruption)
    # why a job waited on its queue, not on nodes (kexplain's record, for the document's queues):
    enqueue_refused: dict[str, str] = field(default_factory=dict)     # job uid -> the plugin that refused
    allocate_refused: dict[str, str] = field(default_factory=dict)    # task uid -> the plugin that refused
    overused_queues: set[str] = field(default_factory=set)
    now: int | None = None            # the session's clock (ns since the epoch; None: the wall clock), sla's and cdp's

    def clock(self) -> int:
        """The session's time (ns since the epoch): `now` when the caller gave one (`--now`), else the
        wall clock, as Volcano's plugins read time.Now()."""
        return self.now if self.now is not None else time.time_ns()

    # -- registration -------------------------------------------------------------------------
    def add(self, point: str, plugin: str, fn: Callable[..., Any]) -> None:
        self.fns.setdefault(point, {})[plugin] = fn
        self.resolved.clear()

    def add_event_handler(self, eh: EventHandler) -> None:
        self.handlers.append(eh)

    def record(self, obj: str, type_: str, reason: str, message: str) -> None:
        self.events.append(Event(obj, type_, reason, message))

    def _each(self, point: str, switch: str | None) -> list[tuple[PluginOption, Callable[..., Any]]]:
        """The plugins' functions at `point` in tier order, those whose switch is off left out (made once)."""
        key = (point, switch)
        found = self.resolved.get(key)
        if found is None:
            found = self.resolved[key] = self._resolve(point, switch)
        return found

    def _resolve(self, point: str, switch: str | None) -> list[tuple[PluginOption, Callable[..., Any]]]:
        out = []
        for tier in self.conf.tiers:
            for opt in tier:
                if switch is not None and not opt.enabled(switch):
                    continue
                fn = self.fns.get(point, {}).get(opt.name)
                if fn is not None:
                    out.append((opt, fn))
        return out

    def _tiers(self, point: str, switch: str) -> list[list[Callable[..., Any]]]:
        out = []
        for tier in self.conf.tiers:
            fns = [self.fns.get(point, {}).get(o.name) for o in tier if o.enabled(switch)]
            out.append([f for f in fns if f is not None])
        return out

    # -- the plugins' verdicts, tier by tier ------------------------------------------------------
    def _compare(self, point: str, switch: str, l: Any, r: Any) -> int:
        for _, fn in self._each(point, switch):
            j = fn(l, r)
            if j != 0:
                return j
        return 0

    def job_order_less(self, l: JobInfo, r: JobInfo) -> bool:
        res = self._compare("jobOrder", "job_order", l, r)
        if res != 0:
            return res < 0
        if l.creation == r.creation:
            return l.uid < r.uid
        return l.creation < r.creation

    def queue_order_less(self, l: QueueInfo, r: QueueInfo) -> bool:
        res = self._compare("queueOrder", "queue_order", l, r)
        if res != 0:
            return res < 0
        if l.creation == r.creation:
            return l.uid < r.uid
        return l.creation < r.creation

    def task_order_less(self, l: TaskInfo, r: TaskInfo) -> bool:
        res = self._compare("taskOrder", "task_order", l, r)
        if res != 0:
            return res < 0
        return compare_task(l, r)

    def task_key(self) -> Callable[[TaskInfo], tuple | None] | None:
        """A sort key giving `task_order_less`'s order, when every taskOrder function has one (its `key`):
        theirs, then CompareTask's (the name's index, creation, UID); None for a task whose name has no
        index (CompareTask is then no key order). None when a function has no key."""
        keys = [getattr(fn, "key", None) for _, fn in self._each("taskOrder", "task_order")]
        if any(k is None for k in keys):
            return None

        def key(t: TaskInfo) -> tuple | None:
            index = _index(t.name)
            return None if index is None else (*[k(t) for k in keys], index, t.creation, t.uid)    # type: ignore[misc]
        return key

    def _vote(self, point: str, switch: str, obj: Any) -> tuple[bool, str]:
        """A vote over the tiers: any Reject refuses (the plugin named); a tier with a Permit decides."""
        for tier in self.conf.tiers:
            found = False
            for opt in tier:
                fn = self.fns.get(point, {}).get(opt.name) if opt.enabled(switch) else None
                if fn is None:
                    continue
                res = fn(obj)
                if res < 0:
                    return False, opt.name
                if res > 0:
                    found = True
            if found:
                return True, ""
        return True, ""

    def job_enqueueable(self, job: JobInfo) -> bool:
        ok, refused_by = self._vote("jobEnqueueable", "job_enqueued", job)
        if not ok:
            self.enqueue_refused[job.uid] = refused_by
        return ok

    def job_pipelined(self, job: JobInfo) -> bool:
        return self._vote("jobPipelined", "job_pipelined", job)[0]

    def job_enqueued(self, job: JobInfo) -> None:
        for _, fn in self._each("jobEnqueued", "job_enqueued"):
            fn(job)

    def job_ready(self, job: JobInfo) -> bool:
        return all(fn(job) for _, fn in self._each("jobReady", "job_ready"))

    def job_valid(self, job: JobInfo) -> Any:
        for _, fn in self._each("jobValid", None):
            vr = fn(job)
            if vr is not None:
                return vr
        return None

    def job_starving(self, job: JobInfo) -> bool:
        for tier in self._tiers("jobStarving", "job_starving"):
            if tier:
                return all(fn(job) for fn in tier)
        return False

    def _victims(self, point: str, switch: str, actor: TaskInfo, candidates: list[TaskInfo]) -> list[TaskInfo] | None:
        """Preemptable and Reclaimable: the plugins' victims intersected within a tier; a plugin that
        leaves none ends its tier, the next tier asked; an empty intersection is Go's nil: the next plugin
        starts afresh, and a tier that ends so leaves the question to the next."""
        victims: list[TaskInfo] | None = None
        for tier in self._tiers(point, switch):
            for fn in tier:
                found = fn(actor, candidates)
                if not found:
                    victims = None
                    break
                # (an empty intersection is nil in Go: `or None`)
                victims = list(found) if victims is None else \
                    [v for v in victims if any(v.uid == c.uid for c in found)] or None
            if victims is not None:
                return victims
        return victims

    def preemptable(self, preemptor: TaskInfo, preemptees: list[TaskInfo]) -> list[TaskInfo]:
        return self._victims("preemptable", "preemptable", preemptor, preemptees) or []

    def reclaimable(self, reclaimer: TaskInfo, reclaimees: list[TaskInfo]) -> list[TaskInfo]:
        return self._victims("reclaimable", "reclaimable", reclaimer, reclaimees) or []

    def preemptive(self, queue: QueueInfo, candidates: list[TaskInfo]) -> bool:
        return all(fn(queue, candidates) for _, fn in self._each("preemptive", "preemptive"))

    def job_order_compare(self, l: JobInfo, r: JobInfo) -> int:
        return self._compare("jobOrder", "job_order", l, r)

    def victim_less(self, preemptor: TaskInfo) -> Callable[[TaskInfo, TaskInfo], bool]:
        """BuildVictimsPriorityQueue's order: the preemptor's order reversed, job by job, queue by queue."""
        def less(l: TaskInfo, r: TaskInfo) -> bool:
            if l.job == r.job:
                return not self.task_order_less(l, r)
            lj, rj = self.jobs.get(l.job), self.jobs.get(r.job)
            if lj is None or rj is None:
                return not self.task_order_less(l, r) if lj is None and rj is None else lj is None
            if preemptor.job in self.jobs and lj.queue != rj.queue:
                return self.victim_queue_less(self.queues[lj.queue], self.queues[rj.queue],
                                              self.queues[self.jobs[preemptor.job].queue])
            cmp = self.job_order_compare(lj, rj)
            if cmp != 0:
                return cmp > 0
            return not self.task_order_less(l, r)
        return less

    def victim_queue_less(self, l: QueueInfo, r: QueueInfo, preemptor: QueueInfo) -> bool:
        """VictimQueueOrderFn: the plugins' order (capacity's, by distance in the queue tree), else the
        queue order reversed."""
        for _, fn in self._each("victimQueueOrder", None):
            j = fn(l, r, preemptor)
            if j != 0:
                return j < 0
        return not self.queue_order_less(l, r)

    def predicate_for_preempt(self, task: TaskInfo, node: NodeInfo) -> Any:
        """PredicateForPreemptAction: only an unresolvable, error, wait or skip status keeps the node out."""
        err = self.predicate(task, node)
        if err is None or all(s.code == Code.UNSCHEDULABLE for s in err.statuses):
            return None
        return err

    def overused(self, queue: QueueInfo) -> bool:
        if any(fn(queue) for _, fn in self._each("overused", "overused")):
            self.overused_queues.add(queue.name)
            return True
        return False

    def allocatable(self, queue: QueueInfo, task: TaskInfo) -> bool:
        for opt, fn in self._each("allocatable", "allocatable"):
            if not fn(queue, task):
                self.allocate_refused[task.uid] = opt.name
                return False
        self.allocate_refused.pop(task.uid, None)
        return True

    def pre_predicate(self, task: TaskInfo) -> str | None:
        for _, fn in self._each("prePredicate", "predicate"):
            err = fn(task)
            if err:
                return err
        return None

    def predicate(self, task: TaskInfo, node: NodeInfo) -> Any:
        for _, fn in self._each("predicate", "predicate"):
            err = fn(task, node)
            if err is not None:
                return err
        return None

    def node_scores(self, task: TaskInfo, nodes: list[NodeInfo]) -> dict[str, float]:
        """PrioritizeNodes: the map (nodeOrder) and batch scores summed per node (as lists aligned with
        `nodes` where a function answers for all nodes at once: `many`; each node's sum in the same order)."""
        names = list(map(NAME, nodes))
        totals = [0.0] * len(nodes)
        for _, fn in self._each("nodeOrder", "node_order"):
            many = getattr(fn, "many", None)
            totals = list(map(add, totals, many(task, nodes) if many is not None else [fn(task, n) for n in nodes]))
        for _, fn in self._each("batchNodeOrder", "node_order"):
            many = getattr(fn, "many", None)
            if many is not None:
                totals = list(map(add, totals, many(task, nodes)))
                continue
            out = dict(zip(names, totals))
            for name, s in fn(task, nodes).items():
                out[name] += s
            totals = list(map(out.__getitem__, names))
        return dict(zip(names, totals))

    # -- the session's own operations -------------------------------------------------------------
    def _notify(self, task: TaskInfo, allocate: bool) -> None:
        for eh in self.handlers:
            fn = eh.allocate if allocate else eh.deallocate
            if fn is not None:
                fn(task)

    def allocate_task(self, task: TaskInfo, node: NodeInfo, status: TaskStatus) -> None:
        """Statement.Allocate/Pipeline's session side: the job's index, the node, the handlers."""
        self.jobs[task.job].update_status(task, status)
        task.node_name = node.name
        node.add_task(task)
        self._notify(task, True)

    def unallocate_task(self, task: TaskInfo) -> None:
        self.jobs[task.job].update_status(task, TaskStatus.PENDING)
        node = self.nodes.get(task.node_name)
        if node is not None:
            node.remove_task(task)
        self._notify(task, False)
        task.node_name = ""

    def dispatch(self, task: TaskInfo) -> None:
        """The binder posts the binding; the task turns Binding."""
        self.bound[task.uid] = task.node_name
        self.record(f"Pod {task.namespace}/{task.name}", "Normal", "Scheduled",
                    f"Successfully assigned {task.namespace}/{task.name} to {task.node_name}")
        self.jobs[task.job].update_status(task, TaskStatus.BINDING)

    def evicted_by(self, task: TaskInfo, reason: str) -> None:
        """cache.Evict on commit: the pod's and its PodGroup's events (the evictor deletes the pod)."""
        self.evicted.add(task.uid)
        self.record(f"Pod {task.namespace}/{task.name}", "Warning", "Evict", f"Pod is evicted, because of {reason}")
        self.record(f"PodGroup {task.job}", "Normal", "Evict", reason)


def compare_task(l: TaskInfo, r: TaskInfo) -> bool:
    """CompareTask (controllers/job/helpers): by the index after the pod name's last dash, then creation, then UID."""
    li, ri = _index(l.name), _index(r.name)
    if li is None or ri is None or li == ri:
        if l.creation == r.creation:
            return l.uid < r.uid
        return l.creation < r.creation
    return li < ri


@lru_cache(maxsize=1 << 16)        # (a gang's queue compares its thousands of tasks again at every pop)
def _index(name: str) -> int | None:
    parts = name.split("-")
    if len(parts) < 3:
        return None
    try:
        return int(parts[-1])
    except ValueError:
        return None
