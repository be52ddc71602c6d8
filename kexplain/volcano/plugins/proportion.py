"""The proportion plugin (plugins/proportion): each queue's deserved share of the cluster by weight,
capped by its capability and its request, at least its guarantee; queues ordered by share; a queue at
its deserved is overused; a job enqueued only within its queue's real capability."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kexplain.volcano.api.job import JobInfo
from kexplain.volcano.api.queue import QueueInfo
from kexplain.volcano.api.resource import INFINITY, ZERO, Resource, exceeded_part, max_of, share
from kexplain.volcano.api.task import TaskInfo, TaskStatus, allocated_status
from kexplain.volcano.framework.session import EventHandler
from kexplain.volcano.plugins.util import (deduct_gated, elastic_resources, format_names, inqueue_resource,
                                           is_enqueued_running, min_resources, queue_limits)

NAME = "proportion"
INSUFFICIENT = "queue resource quota insufficient"


@dataclass
class QueueAttr:
    name: str
    weight: int
    deserved: Resource = field(default_factory=Resource)
    allocated: Resource = field(default_factory=Resource)
    request: Resource = field(default_factory=Resource)
    elastic: Resource = field(default_factory=Resource)
    inqueue: Resource = field(default_factory=Resource)
    capability: Resource | None = None
    real_capability: Resource | None = None
    guarantee: Resource = field(default_factory=Resource)
    share: float = 0.0

    def update_share(self) -> None:
        res = 0.0
        for rn in self.deserved.resource_names():
            res = max(res, share(self.allocated.get(rn), self.deserved.get(rn)))
        self.share = res


class Proportion:
    name = NAME

    def __init__(self, arguments: dict[str, Any]) -> None:
        self.arguments = arguments
        self.total = Resource()
        self.total_guarantee = Resource()
        self.attrs: dict[str, QueueAttr] = {}

    def _attr(self, queue: QueueInfo) -> QueueAttr:
        attr = QueueAttr(queue.name, queue.weight)
        attr.capability, attr.guarantee, attr.real_capability = queue_limits(queue, self.total, self.total_guarantee)
        return attr

    def _account(self, attr: QueueAttr, job: JobInfo) -> None:
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

    def _deserve(self) -> None:
        """The deserved loop: the remaining cluster split by weight until every queue is met."""
        remaining = self.total.clone()
        meet: set[str] = set()
        while True:
            total_weight = sum(a.weight for a in self.attrs.values() if a.name not in meet)
            if total_weight == 0:
                break
            old_remaining = remaining.clone()
            up, down = Resource(), Resource()
            for attr in self.attrs.values():
                if attr.name in meet:
                    continue
                old = attr.deserved.clone()
                attr.deserved.add(remaining.clone().multi(attr.weight / total_weight))
                if attr.real_capability is not None:
                    attr.deserved.min_dimension(attr.real_capability, INFINITY)
                attr.deserved.min_dimension(attr.request, ZERO)
                attr.deserved = max_of(attr.deserved, attr.guarantee)
                attr.update_share()
                if attr.request.less_equal(attr.deserved, ZERO) or _same(attr.deserved, old):
                    meet.add(attr.name)
                inc, dec = attr.deserved.diff(old)
                up.add(inc)
                down.add(dec)
            remaining = exceeded_part(remaining.clone().add(down), up)
            if remaining.is_empty() or _same(remaining, old_remaining):
                break

    def on_session_open(self, ssn: Any) -> None:
        self.total = ssn.total.clone()
        for queue in ssn.queues.values():
            if queue.guarantee:
                self.total_guarantee.add(Resource.of(queue.guarantee))
        for job in ssn.jobs.values():
            if job.queue not in self.attrs:
                self.attrs[job.queue] = self._attr(ssn.queues[job.queue])
            self._account(self.attrs[job.queue], job)
        self._deserve()
        self._register(ssn)

    def _register(self, ssn: Any) -> None:
        attrs = self.attrs

        def queue_order(l: QueueInfo, r: QueueInfo) -> int:
            if l.priority != r.priority:
                return r.priority - l.priority
            ls, rs = attrs[l.name].share, attrs[r.name].share
            return 0 if ls == rs else (-1 if ls < rs else 1)

        def overused(q: QueueInfo) -> bool:
            attr = attrs[q.name]
            return attr.deserved.less_equal(attr.allocated, ZERO)

        def allocatable(q: QueueInfo, t: TaskInfo) -> bool:
            if q.state != "Open":
                return False
            attr = attrs[q.name]
            return attr.allocated.clone().add(t.resreq).less_equal_with_dimension(attr.deserved, t.resreq)[0]

        def enqueueable(job: JobInfo) -> int:
            attr, queue = attrs[job.queue], ssn.queues[job.queue]
            if queue.state != "Open":
                return -1
            if attr.real_capability is None or job.pod_group.min_resources is None:
                return 1
            req = min_resources(job)
            r = req.clone().add(attr.allocated).add(attr.inqueue).sub(attr.elastic)
            ok, names = r.less_equal_with_dimension(attr.real_capability, req)
            if ok:
                attr.inqueue.add(deduct_gated(job, req))
                return 1
            ssn.record(f"PodGroup {job.uid}", "Normal", "Unschedulable", format_names(INSUFFICIENT, "insufficient", names))
            return -1

        def on_change(sign: int) -> Any:
            def handler(t: TaskInfo) -> None:
                job = ssn.jobs.get(t.job)
                attr = attrs.get(job.queue) if job is not None else None
                if attr is None:
                    return
                if sign > 0:
                    attr.allocated.add(t.resreq)
                else:
                    attr.allocated.sub(t.resreq)
                attr.update_share()
            return handler

        def reclaimable(_: TaskInfo, reclaimees: list[TaskInfo]) -> list[TaskInfo]:
            """Tasks of queues holding more than they deserve, while they do."""
            allocations: dict[str, Resource] = {}
            out = []
            for t in reclaimees:
                job = ssn.jobs.get(t.job)
                attr = attrs.get(job.queue) if job is not None else None
                if attr is None:
                    continue
                allocated = allocations.setdefault(job.queue, attr.allocated.clone())
                if not allocated.less_equal(attr.deserved, ZERO):
                    allocated.sub(t.resreq)
                    out.append(t)
            return out

        def preemptive(q: QueueInfo, candidates: list[TaskInfo]) -> bool:
            if q.state != "Open":
                return False
            attr = attrs[q.name]
            total = Resource()
            for t in candidates:
                total.add(t.resreq)
            return attr.allocated.clone().add(total).less_equal_with_dimension(attr.deserved, total)[0]

        ssn.add("reclaimable", NAME, reclaimable)
        ssn.add("preemptive", NAME, preemptive)
        ssn.add("queueOrder", NAME, queue_order)
        ssn.add("overused", NAME, overused)
        ssn.add("allocatable", NAME, allocatable)
        ssn.add("jobEnqueueable", NAME, enqueueable)
        ssn.add_event_handler(EventHandler(on_change(1), on_change(-1)))

    def on_session_close(self, ssn: Any) -> None:
        pass


def _same(a: Resource, b: Resource) -> bool:
    """equality.Semantic.DeepEqual over two Resources."""
    return (a.milli_cpu, a.memory, a.scalars, a.max_task_num) == (b.milli_cpu, b.memory, b.scalars, b.max_task_num)


def New(arguments: dict[str, Any]) -> Proportion:
    return Proportion(arguments)
