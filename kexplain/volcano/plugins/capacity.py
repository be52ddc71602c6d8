"""The capacity plugin (plugins/capacity): each queue's deserved as its spec states it (not split by
weight as proportion does), capped by its real capability; queues ordered by share, best-effort queues
(no deserved) last; a job enqueued and a task allocated only within its queue's real capability, and,
with `enableHierarchy`, within every ancestor's up to `root`; reclaim takes back only what a queue holds
beyond its deserved and above its guarantee. DRA quotas and the queue-admission scheduling gate (an
alpha feature gate, off by default) are not modelled."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from kexplain.volcano.api.eviction import GANG_PREEMPT
from kexplain.volcano.api.job import JobInfo
from kexplain.volcano.api.queue import QueueInfo
from kexplain.volcano.api.resource import INFINITY, ZERO, Resource, exceeded_part, max_of, share
from kexplain.volcano.api.task import TaskInfo, TaskStatus, allocated_status
from kexplain.volcano.framework.session import EventHandler
from kexplain.volcano.framework.statement import PriorityQueue
from kexplain.volcano.plugins import capacity_resource as cr
from kexplain.volcano.plugins.args import get_int
from kexplain.volcano.plugins.util import (deduct_gated, elastic_resources, format_names, inqueue_resource,
                                           is_enqueued_running, min_resources, queue_limits)

NAME = "capacity"
ROOT = "root"
ANCESTOR_RECLAIM_LEVEL = "ancestorReclaimLevel"
INSUFFICIENT = "queue resource quota insufficient"
MAX_INT64 = float(2 ** 63 - 1)


@dataclass
class QueueAttr:
    """queueAttr: one queue's quota and usage as the plugin keeps them through the session."""

    name: str
    share: float = 0.0
    ancestors: list[str] = field(default_factory=list)
    children: dict[str, "QueueAttr"] = field(default_factory=dict)
    deserved: Resource = field(default_factory=Resource)
    allocated: Resource = field(default_factory=Resource)
    request: Resource = field(default_factory=Resource)
    elastic: Resource = field(default_factory=Resource)
    inqueue: Resource = field(default_factory=Resource)
    capability: Resource | None = None
    real_capability: Resource | None = None
    guarantee: Resource = field(default_factory=Resource)

    def update_share(self) -> None:
        """updateQueueAttrShare: a queue without deserved is best effort, share 1."""
        if self.deserved.is_empty():
            self.share = 1.0
            return
        res = 0.0
        for rn in self.deserved.resource_names():
            res = max(res, share(self.allocated.get(rn), self.deserved.get(rn)))
        self.share = res


def account(attr: QueueAttr, job: JobInfo) -> None:
    """A job's allocated and pending tasks, its enqueued minResources and its elastic part, on its queue."""
    for s, ts in job.index.items():
        for t in ts.values():
            if allocated_status(s):
                attr.allocated.add(t.resreq)
                attr.request.add(t.resreq)
            elif s == TaskStatus.PENDING:
                attr.request.add(t.resreq)
    pg = job.pod_group
    if pg.phase == "Inqueue" and pg.min_resources is not None:
        attr.inqueue.add(deduct_gated(job, inqueue_resource(job, job.allocated)))
    if is_enqueued_running(job):
        attr.inqueue.add(deduct_gated(job, inqueue_resource(job, job.allocated)))
    attr.elastic.add(elastic_resources(job))


def compare_share_with_deserved(l: QueueAttr, r: QueueAttr) -> int:
    """compareShareWithDeserved: by share; on a tie a queue with deserved before a best-effort one."""
    if l.share == r.share:
        lh, rh = not l.deserved.is_empty(), not r.deserved.is_empty()
        if lh == rh:
            return 0
        return -1 if lh else 1
    return -1 if l.share < r.share else 1


def queue_level(l: QueueAttr, r: QueueAttr) -> int:
    """getQueueLevel: the index of the deepest ancestor the two share."""
    level = 0
    for i in range(min(len(l.ancestors), len(r.ancestors))):
        if l.ancestors[i] != r.ancestors[i]:
            return level
        level = i
    return level


def ancestor_at_depth(attr: QueueAttr | None, depth: int) -> str | None:
    """queueAncestorAtDepth: the ancestor `depth` levels up (1: the parent)."""
    if attr is None or depth <= 0 or len(attr.ancestors) < depth:
        return None
    return attr.ancestors[len(attr.ancestors) - depth]


def ancestors_by_level(attr: QueueAttr | None, max_level: int) -> dict[int, str]:
    out = {}
    for level in range(1, max_level + 1):
        found = ancestor_at_depth(attr, level)
        if found is not None:
            out[level] = found
    return out


class Capacity:
    name = NAME

    def __init__(self, arguments: dict[str, Any]) -> None:
        self.arguments = arguments
        level = get_int(arguments, ANCESTOR_RECLAIM_LEVEL, 0)
        self.ancestor_reclaim_level = level if level >= 0 else 0
        self.total = Resource()
        self.total_guarantee = Resource()
        self.attrs: dict[str, QueueAttr] = {}
        self.hierarchy = False
        self.ready = True
        self.error = ""               # why the hierarchy is not ready (Go only logs it)

    # -- building the queues' attributes ------------------------------------------------------
    def _flat_attr(self, queue: QueueInfo) -> QueueAttr:
        attr = QueueAttr(queue.name, deserved=Resource.of(queue.deserved))
        attr.capability, attr.guarantee, attr.real_capability = queue_limits(queue, self.total, self.total_guarantee)
        return attr

    def _build_flat(self, ssn: Any) -> None:
        """buildQueueAttrs: the queues that have jobs, deserved within the real capability and at least
        the guarantee."""
        for queue in ssn.queues.values():
            if queue.guarantee:
                self.total_guarantee.add(Resource.of(queue.guarantee))
        for job in ssn.jobs.values():
            if job.queue not in self.attrs:
                self.attrs[job.queue] = self._flat_attr(ssn.queues[job.queue])
            account(self.attrs[job.queue], job)
        for attr in self.attrs.values():
            if attr.real_capability is not None:
                attr.deserved.min_dimension(attr.real_capability, INFINITY)
            attr.deserved = max_of(attr.deserved, attr.guarantee)
            attr.update_share()
        attrs = self.attrs

        def queue_order(l: QueueInfo, r: QueueInfo) -> int:
            if l.priority != r.priority:
                return r.priority - l.priority
            return compare_share_with_deserved(attrs[l.uid], attrs[r.uid])

        ssn.add("queueOrder", NAME, queue_order)

    def _new_attr(self, queue: QueueInfo) -> QueueAttr:
        """newQueueAttr (hierarchy): capability as the spec states it, inherited later where unset."""
        attr = QueueAttr(queue.name, deserved=Resource.of(queue.deserved), capability=Resource(),
                         real_capability=Resource())
        if queue.capability:
            attr.capability = Resource.of(queue.capability)
        if queue.guarantee:
            attr.guarantee = Resource.of(queue.guarantee)
        return attr

    def _update_ancestors(self, queue: QueueInfo, ssn: Any, visited: set[str]) -> str:
        """updateAncestors: the queue's chain of parents up to root; an error where it breaks."""
        if queue.name == ROOT:
            return ""
        if queue.uid in visited:
            return f"cycle detected in queue hierarchy for queue {queue.name}"
        visited.add(queue.uid)
        try:
            parent = queue.parent or ROOT
            if parent not in ssn.queues:
                return f"the queue {queue.name} has invalid parent queue {parent}"
            info = ssn.queues[parent]
            if info.uid not in self.attrs:
                self.attrs[info.uid] = self._new_attr(info)
                err = self._update_ancestors(info, ssn, visited)
                if err:
                    return err
            self.attrs[info.uid].children[queue.uid] = self.attrs[queue.uid]
            self.attrs[queue.uid].ancestors = self.attrs[info.uid].ancestors + [info.uid]
            return ""
        finally:
            visited.discard(queue.uid)

    def _account_hierarchically(self, ssn: Any) -> bool:
        for job in ssn.jobs.values():
            attr = self.attrs.get(job.queue)
            if attr is None:
                continue
            if attr.children:
                self.error = f"The Queue <{attr.name}> of Job <{job.namespace}/{job.name}> is not leaf queue"
                return False
            old = [r.clone() for r in (attr.allocated, attr.request, attr.inqueue, attr.elastic)]
            account(attr, job)
            deltas = [new.clone().sub(o) for new, o in
                      zip((attr.allocated, attr.request, attr.inqueue, attr.elastic), old)]
            for ancestor in attr.ancestors:
                a = self.attrs[ancestor]
                for mine, delta in zip((a.allocated, a.request, a.inqueue, a.elastic), deltas):
                    mine.add(delta)
        return True

    def _build_hierarchical(self, ssn: Any) -> bool:
        """buildHierarchicalQueueAttrs: every queue's attributes, its ancestors, the usage added up to
        root; root unlimited unless its capability is set."""
        for queue in ssn.queues.values():
            if queue.uid in self.attrs:
                continue
            self.attrs[queue.uid] = self._new_attr(queue)
            err = self._update_ancestors(queue, ssn, set())
            if err:
                self.error = f"Failed to update Queue <{queue.name}> attributes, error: {err}"
                return False
        if not self._account_hierarchically(ssn):
            return False
        root = self.attrs.get(ROOT)
        if root is None:
            self.error = f'Root queue "{ROOT}" not found in session queues, skipping hierarchy initialization'
            return False
        infinity = Resource(math.inf, math.inf, max_task_num=2 ** 63 - 1)
        for name in self.total.scalars or {}:
            infinity.add_scalar(name, MAX_INT64)
        if root.capability is None or root.capability.is_empty():
            root.capability = infinity
        root.real_capability = root.capability
        self._check_hierarchical(root)
        for attr in self.attrs.values():
            attr.update_share()
        self._register_hierarchical_order(ssn)
        return True

    def _inherit_capability(self, attr: QueueAttr, child: QueueAttr) -> None:
        assert attr.capability is not None and child.capability is not None
        if child.capability.milli_cpu <= 0:
            child.capability.milli_cpu = attr.capability.milli_cpu
        if child.capability.memory <= 0:
            child.capability.memory = attr.capability.memory
        if attr.capability.scalars is not None:
            if child.capability.scalars is None:
                child.capability.scalars = {}
            for k, v in attr.capability.scalars.items():
                child.capability.scalars.setdefault(k, v)

    def _check_hierarchical(self, attr: QueueAttr) -> None:
        """checkHierarchicalQueue: children's deserved at least their guarantee, capabilities inherited
        from the parent where unset, real capabilities within the parent's; root's deserved and guarantee
        the sums of its children's."""
        total_guarantee, total_deserved = Resource(), Resource()
        for child in attr.children.values():
            child.deserved = max_of(child.deserved, child.guarantee)
            total_deserved.add(child.deserved)
            total_guarantee.add(child.guarantee)
            self._inherit_capability(attr, child)
        if attr.name == ROOT:
            attr.guarantee = total_guarantee
            attr.deserved = total_deserved
        for child in attr.children.values():
            real = exceeded_part(attr.real_capability or Resource(), total_guarantee).add(child.guarantee)
            real.min_dimension(child.capability or Resource(), INFINITY)
            child.real_capability = real
        for child in attr.children.values():
            self._check_hierarchical(child)

    def _register_hierarchical_order(self, ssn: Any) -> None:
        attrs = self.attrs

        def queue_order(l: QueueInfo, r: QueueInfo) -> int:
            if l.priority != r.priority:
                return r.priority - l.priority
            ll, rl = self.is_leaf(l.uid), self.is_leaf(r.uid)
            if ll != rl:
                return -1 if ll else 1
            la, ra = attrs[l.uid], attrs[r.uid]
            if not ll:
                return compare_share_with_deserved(la, ra)
            level = queue_level(la, ra)
            lp = la.ancestors[level + 1] if level + 1 < len(la.ancestors) else la.name
            rp = ra.ancestors[level + 1] if level + 1 < len(ra.ancestors) else ra.name
            return compare_share_with_deserved(attrs[lp], attrs[rp])

        def victim_queue_order(l: QueueInfo, r: QueueInfo, preemptor: QueueInfo) -> int:
            """Victims first from the queues farthest from the preemptor's in the tree."""
            ll = queue_level(attrs[l.uid], attrs[preemptor.uid])
            rl = queue_level(attrs[r.uid], attrs[preemptor.uid])
            if ll == rl:
                return 0
            return -1 if ll > rl else 1

        ssn.add("queueOrder", NAME, queue_order)
        ssn.add("victimQueueOrder", NAME, victim_queue_order)

    def is_leaf(self, queue: str) -> bool:
        return not self.attrs[queue].children

    # -- the session ---------------------------------------------------------------------------
    def on_session_open(self, ssn: Any) -> None:
        self.total = ssn.total.clone()
        self.hierarchy = next((o.hierarchy for tier in ssn.conf.tiers for o in tier if o.name == NAME), False)
        if self.hierarchy:
            self.ready = self._build_hierarchical(ssn)
        else:
            self._build_flat(ssn)
        ssn.add("reclaimable", NAME, lambda reclaimer, reclaimees: self.reclaimable(ssn, reclaimer, reclaimees))
        ssn.add("unifiedEvictable", NAME, lambda ctx, candidates: self.unified_evictable(ssn, ctx, candidates))
        ssn.add("preemptive", NAME, self.preemptive)
        ssn.add("allocatable", NAME, lambda queue, task: self.allocatable(ssn, queue, task))
        ssn.add("jobEnqueueable", NAME, lambda job: self.enqueueable(ssn, job))
        ssn.add_event_handler(EventHandler(lambda t: self._on_change(ssn, t, 1),
                                           lambda t: self._on_change(ssn, t, -1)))

    def _on_change(self, ssn: Any, task: TaskInfo, sign: int) -> None:
        job = ssn.jobs.get(task.job)
        attr = self.attrs.get(job.queue) if job is not None else None
        if attr is None:
            return
        chain = [attr] + ([self.attrs[a] for a in attr.ancestors] if self.hierarchy else [])
        for a in chain:
            if sign > 0:
                a.allocated.add(task.resreq)
            else:
                a.allocated.sub(task.resreq)
        attr.update_share()

    # -- enqueue and allocate ------------------------------------------------------------------
    def chain(self, queue: str) -> list[str]:
        """The queue and its ancestors, leaf first (the order Go checks them in)."""
        return [queue] + list(reversed(self.attrs[queue].ancestors))

    def job_fits(self, queue: str, job: JobInfo) -> tuple[bool, list[str]]:
        """jobEnqueueable: minResources with what the queue holds and has admitted, less its elastic part,
        within its real capability on the dimensions the job asks for."""
        attr = self.attrs[queue]
        req = min_resources(job)
        r = req.clone().add(attr.allocated).add(attr.inqueue).sub(attr.elastic)
        return r.less_equal_with_dimension(attr.real_capability, req)

    def enqueueable(self, ssn: Any, job: JobInfo) -> int:
        """The JobEnqueueableFn: -1 rejects (Volcano's event names the short resources), 1 permits."""
        if not self.ready:
            return -1
        if self.hierarchy and not self.is_leaf(job.queue):
            return -1
        attr, queue = self.attrs[job.queue], ssn.queues[job.queue]
        if queue.state != "Open":
            return -1
        if attr.real_capability is None or job.pod_group.min_resources is None:
            return 1
        for name in self.chain(job.queue):
            ok, names = self.job_fits(name, job)
            if not ok:
                ssn.record(f"PodGroup {job.uid}", "Normal", "Unschedulable", format_names(INSUFFICIENT, "insufficient", names))
                return -1
        added = deduct_gated(job, min_resources(job))
        attr.inqueue.add(added)
        if self.hierarchy:
            for ancestor in attr.ancestors:
                self.attrs[ancestor].inqueue.add(added)
        return 1

    def task_fits(self, queue: str, task: TaskInfo) -> bool:
        """queueAllocatable: what the queue holds with the task, within its real capability."""
        attr = self.attrs[queue]
        return attr.allocated.clone().add(task.resreq).less_equal_with_dimension(attr.real_capability, task.resreq)[0]

    def allocatable(self, ssn: Any, queue: QueueInfo, task: TaskInfo) -> bool:
        if queue.state != "Open" or not self.ready:
            return False
        if self.hierarchy and not self.is_leaf(queue.uid):
            return False
        return all(self.task_fits(name, task) for name in self.chain(queue.uid))

    # -- reclaim -------------------------------------------------------------------------------
    def preemptive(self, queue: QueueInfo, candidates: list[TaskInfo]) -> bool:
        """PreemptiveFn: the queue may reclaim when, with the tasks, it stays within its real capability
        and stays within its deserved on one dimension the tasks ask for (or an ancestor does, within
        ancestorReclaimLevel)."""
        if not self.ready or queue.state != "Open":
            return False
        attr = self.attrs[queue.uid]
        total = Resource()
        for t in candidates:
            total.add(t.resreq)
        future = attr.allocated.clone().add(total)
        if not future.less_equal_with_dimension(attr.real_capability, total)[0]:
            return False
        if cr.less_equal_partly_zero_filtered(future, attr.deserved, total)[0]:
            return True
        if not (self.hierarchy and self.ancestor_reclaim_level > 0):
            return False
        for level in range(1, self.ancestor_reclaim_level + 1):
            ancestor = ancestor_at_depth(attr, level)
            a = self.attrs.get(ancestor) if ancestor is not None and ancestor != ROOT else None
            if a is None:
                continue
            if cr.less_equal_partly_zero_filtered(a.allocated.clone().add(total), a.deserved, total)[0]:
                return True
        return False

    def _shares_ancestor(self, a: QueueAttr, b: QueueAttr) -> bool:
        """sharesAnyNonRootAncestorWithinLevel."""
        if self.ancestor_reclaim_level <= 0:
            return False
        mine = set(ancestors_by_level(a, self.ancestor_reclaim_level).values()) - {ROOT}
        return bool(mine & set(ancestors_by_level(b, self.ancestor_reclaim_level).values()))

    def _ancestor_to_check(self, reclaimer: QueueAttr, reclaimee: QueueAttr, level: int) -> tuple[QueueAttr | None, bool]:
        """getReclaimeeAncestorToCheck."""
        theirs = ancestors_by_level(reclaimee, level).get(level)
        if theirs is None or theirs == ROOT:
            return None, False
        if ancestors_by_level(reclaimer, level).get(level) == theirs:
            return None, False
        return self.attrs.get(theirs), True

    def _ancestors_eligible(self, reclaimer: QueueAttr, attr: QueueAttr, reclaimee: TaskInfo,
                            allocations: dict[str, Resource], touched: dict[str, Resource]) -> bool:
        for level in range(1, self.ancestor_reclaim_level + 1):
            a, need = self._ancestor_to_check(reclaimer, attr, level)
            if not need:
                continue
            if a is None:
                return False
            allocated = touched[a.name] = allocations.setdefault(a.name, a.allocated.clone())
            if not cr.has_relevant_deserved(reclaimee, a.deserved):
                continue
            if not cr.greater_partly_relevant(allocated, a.deserved, reclaimee.resreq)[0]:
                return False
        return True

    def _victim(self, reclaimer: QueueAttr, reclaimer_task: TaskInfo, attr: QueueAttr, task: TaskInfo,
                allocations: dict[str, Resource]) -> bool:
        """Whether `task` of the queue `attr` may go for the reclaimer; its queues' allocations lowered."""
        if not cr.intersection(task.resreq, reclaimer_task.init_resreq, ignore_pods=True):
            return False
        allocated = allocations.setdefault(attr.name, attr.allocated.clone())
        if not attr.guarantee.less_equal(allocated.clone().sub(task.resreq), ZERO):
            return False
        leveled = self.hierarchy and self.ancestor_reclaim_level > 0
        if not cr.has_relevant_deserved(task, attr.deserved):
            if leveled and self._shares_ancestor(reclaimer, attr) and \
                    not cr.has_relevant_deserved(reclaimer_task, reclaimer.deserved):
                return False
        elif not cr.greater_partly_relevant(allocated, attr.deserved, task.resreq)[0]:
            return False
        touched: dict[str, Resource] = {}
        if leveled and not self._ancestors_eligible(reclaimer, attr, task, allocations, touched):
            return False
        allocated.sub(task.resreq)
        for a in touched.values():
            a.sub(task.resreq)
        return True

    def reclaimable(self, ssn: Any, reclaimer: TaskInfo, reclaimees: list[TaskInfo]) -> list[TaskInfo]:
        """ReclaimableFn: in victim order, tasks of queues above their guarantee whose queue holds more
        than it deserves on a dimension the task uses (or whose task uses none the queue deserves)."""
        job = ssn.jobs.get(reclaimer.job)
        mine = self.attrs.get(job.queue) if job is not None and self.ready else None
        if mine is None:
            return []
        victims: list[TaskInfo] = []
        allocations: dict[str, Resource] = {}
        pq = PriorityQueue(ssn.victim_less(reclaimer), reclaimees)
        while not pq.empty():
            task = pq.pop()
            their = ssn.jobs.get(task.job)
            attr = self.attrs.get(their.queue) if their is not None else None
            if attr is not None and self._victim(mine, reclaimer, attr, task, allocations):
                victims.append(task)
        return victims

    def unified_evictable(self, ssn: Any, ctx: Any, candidates: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
        """UnifiedEvictableFn: gang preempt is not this plugin's to filter; gang reclaim takes, in the
        candidates' order, tasks of queues above their guarantee that use no dimension the queue deserves
        or whose queue holds more than it deserves on one they use (no ancestor check)."""
        if ctx.kind == GANG_PREEMPT:
            return candidates, 1
        if not self.ready:
            return [], -1
        victims: list[TaskInfo] = []
        allocations: dict[str, Resource] = {}
        for task in candidates:
            attr = self.attrs.get(ssn.jobs[task.job].queue)
            if attr is None:
                continue
            allocated = allocations.setdefault(attr.name, attr.allocated.clone())
            if not attr.guarantee.less_equal(allocated.clone().sub(task.resreq), ZERO):
                continue
            if not cr.has_relevant_deserved(task, attr.deserved) or \
                    cr.greater_partly_relevant(allocated, attr.deserved, task.resreq)[0]:
                allocated.sub(task.resreq)
                victims.append(task)
        return victims, 1

    def on_session_close(self, ssn: Any) -> None:
        pass


def New(arguments: dict[str, Any]) -> Capacity:
    return Capacity(arguments)
