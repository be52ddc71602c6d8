"""The drf plugin (plugins/drf): jobs ordered by their dominant resource share; with `enableHierarchy`,
queues ordered and reclaim judged by hierarchical DRF over the queues' hierarchy annotations
(`drf_hierarchy`)."""
from __future__ import annotations

from typing import Any

from kexplain.volcano.api.job import JobInfo
from kexplain.volcano.api.resource import Resource, share
from kexplain.volcano.api.task import TaskInfo, allocated_status
from kexplain.volcano.framework.session import EventHandler
from kexplain.volcano.plugins.drf_hierarchy import Attr, HNode, Tree, compare_queues, new_root

NAME = "drf"
SHARE_DELTA = 0.000001
DrfAttr = Attr


class Drf:
    name = NAME

    def __init__(self, arguments: dict[str, Any]) -> None:
        self.arguments = arguments
        self.total = Resource()
        self.attrs: dict[str, DrfAttr] = {}
        self.hierarchy = False
        self.root: HNode = new_root()
        self.total_allocated = Resource()        # what every job holds (hierarchy only)
        self.requests: dict[str, Resource] = {}  # JobInfo.TotalRequest by job (no task joins or leaves a job here)

    def share_of(self, allocated: Resource) -> tuple[str, float]:
        """calculateShare."""
        res, dominant = 0.0, ""
        for rn in self.total.resource_names():
            s = share(allocated.get(rn), self.total.get(rn))
            if s > res:
                res, dominant = s, rn
        return dominant, res

    def _update(self, attr: DrfAttr) -> None:
        attr.dominant, attr.share = self.share_of(attr.allocated)

    def on_session_open(self, ssn: Any) -> None:
        self.total = ssn.total.clone()
        self.hierarchy = next((o.hierarchy for tier in ssn.conf.tiers for o in tier if o.name == NAME), False)
        tree = Tree(self.total, self.share_of)
        for job in ssn.jobs.values():
            attr = DrfAttr()
            for s, ts in job.index.items():
                if allocated_status(s):
                    for t in ts.values():
                        attr.allocated.add(t.resreq)
            self._update(attr)
            self.attrs[job.uid] = attr
            if self.hierarchy:
                self.total_allocated.add(attr.allocated)
                tree.update(self.root, self.total_allocated, job.uid, attr, self._request(job), ssn.queues[job.queue])
        if self.hierarchy:
            self._open_hierarchy(ssn, tree)

        def job_order(l: JobInfo, r: JobInfo) -> int:
            ls, rs = self.attrs[l.uid].share, self.attrs[r.uid].share
            if ls == rs:
                return 0
            return -1 if ls < rs else 1

        def on_allocate(t: TaskInfo) -> None:
            self._on_event(ssn, tree, t, 1)

        def on_deallocate(t: TaskInfo) -> None:
            self._on_event(ssn, tree, t, -1)

        def preemptable(preemptor: TaskInfo, preemptees: list[TaskInfo]) -> list[TaskInfo]:
            """A victim's job keeps a share, without it, at least the preemptor's job's with the preemptor."""
            latt = self.attrs.get(preemptor.job)
            if latt is None:
                return []
            _, ls = self.share_of(latt.allocated.clone().add(preemptor.resreq))
            allocations: dict[str, Resource] = {}
            out = []
            for t in preemptees:
                if t.job not in allocations:
                    ratt = self.attrs.get(t.job)
                    if ratt is None:
                        continue
                    allocations[t.job] = ratt.allocated.clone()
                _, rs = self.share_of(allocations[t.job].sub(t.resreq))
                if ls < rs or abs(ls - rs) <= SHARE_DELTA:
                    out.append(t)
            return out

        ssn.add("preemptable", NAME, preemptable)
        ssn.add("jobOrder", NAME, job_order)
        ssn.add_event_handler(EventHandler(on_allocate, on_deallocate))

    def _request(self, job: JobInfo) -> Resource:
        found = self.requests.get(job.uid)
        if found is None:
            found = self.requests[job.uid] = total_request(job)
        return found

    def _on_event(self, ssn: Any, tree: Tree, t: TaskInfo, sign: int) -> None:
        """The AllocateFunc and DeallocateFunc handlers: the job's share, and the tree's (hierarchy)."""
        job, attr = ssn.jobs.get(t.job), self.attrs.get(t.job)
        if job is None or attr is None:
            return
        (attr.allocated.add if sign > 0 else attr.allocated.sub)(t.resreq)
        self._update(attr)
        queue = ssn.queues.get(job.queue)
        if self.hierarchy and queue is not None:
            (self.total_allocated.add if sign > 0 else self.total_allocated.sub)(t.resreq)
            tree.update(self.root, self.total_allocated, job.uid, attr, self._request(job), queue)

    def _open_hierarchy(self, ssn: Any, tree: Tree) -> None:
        """The queue order and the reclaimable function hierarchical DRF adds."""
        def queue_order(l: Any, r: Any) -> int:
            ret = compare_queues(self.root, l, r)
            return -1 if ret < 0 else (1 if ret > 0 else 0)

        def reclaimable(reclaimer: TaskInfo, reclaimees: list[TaskInfo]) -> list[TaskInfo]:
            return self._reclaimable(ssn, tree, reclaimer, reclaimees)

        ssn.add("queueOrder", NAME, queue_order)
        ssn.add("reclaimable", NAME, reclaimable)

    def _reclaimable(self, ssn: Any, tree: Tree, reclaimer: TaskInfo, reclaimees: list[TaskInfo]) -> list[TaskInfo]:
        """reclaimFn: on a copy of the tree with the reclaimer's task added, a victim is one whose queue,
        without that victim's task, would still come after the reclaimer's."""
        ljob = ssn.jobs.get(reclaimer.job)
        lqueue = ssn.queues.get(ljob.queue) if ljob is not None else None
        attr = self.attrs.get(reclaimer.job)
        if ljob is None or lqueue is None or attr is None:
            return []
        total_allocated, root = self.total_allocated.clone().add(reclaimer.resreq), self.root.clone()
        lattr = DrfAttr(attr.allocated.clone().add(reclaimer.resreq))
        self._update(lattr)
        tree.update(root, total_allocated, ljob.uid, lattr, self._request(ljob), lqueue)
        victims = []
        for t in reclaimees:
            rjob = ssn.jobs.get(t.job)
            rqueue = ssn.queues.get(rjob.queue) if rjob is not None else None
            rattr = self.attrs.get(t.job)
            if rjob is None or rqueue is None or rattr is None:
                continue
            total_allocated.sub(t.resreq)
            moved = DrfAttr(rattr.allocated.clone().sub(t.resreq))
            self._update(moved)
            tree.update(root, total_allocated, rjob.uid, moved, self._request(rjob), rqueue)
            ret = compare_queues(root, lqueue, rqueue)
            total_allocated.add(t.resreq)
            moved.allocated.add(t.resreq)
            self._update(moved)
            tree.update(root, total_allocated, rjob.uid, moved, self._request(rjob), rqueue)
            if ret < 0:
                victims.append(t)
        return victims

    def on_session_close(self, ssn: Any) -> None:
        pass


def total_request(job: JobInfo) -> Resource:
    """JobInfo.TotalRequest: every task's request."""
    out = Resource()
    for t in job.tasks.values():
        out.add(t.resreq)
    return out


def New(arguments: dict[str, Any]) -> Drf:
    return Drf(arguments)
