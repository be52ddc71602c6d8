"""The gangreclaim action (actions/gangreclaim): each starving job, queue by queue (an overused queue
skipped), takes room from running jobs of other, reclaimable queues for all its pending tasks at once,
evicting whole victim bundles (`gang_evict`); its statement committed only when the job ends pipelined."""
from __future__ import annotations

from typing import Callable

from kexplain.volcano.actions.bundles import Bundle, create_job_bundles, sort_for_reclaim
from kexplain.volcano.actions.reclaim import starving_jobs
from kexplain.volcano.actions.gang_evict import (GangArgs, choose_bundles, evict_for_job, gang_preemptable,
                                                 parse_arguments, pending_tasks, settle)
from kexplain.volcano.api.eviction import GANG_RECLAIM, EvictionContext
from kexplain.volcano.api.job import JobInfo
from kexplain.volcano.api.node import NodeInfo
from kexplain.volcano.api.queue import QueueInfo
from kexplain.volcano.api.resource import Resource
from kexplain.volcano.api.task import TaskInfo, TaskStatus
from kexplain.volcano.framework.session import Session
from kexplain.volcano.framework.statement import Statement

NAME = "gangreclaim"
QueueLess = Callable[[QueueInfo, QueueInfo], bool]


def queue_less(ssn: Session, queue: str) -> QueueLess:
    """queueLessFn: the victim queue order seen from the reclaimer's queue."""
    def less(l: QueueInfo, r: QueueInfo) -> bool:
        mine = ssn.queues.get(queue)
        return ssn.queue_order_less(l, r) if mine is None else ssn.victim_queue_less(l, r, mine)
    return less


def select_domain_bundles(ssn: Session, less: QueueLess | None, job: JobInfo, pending: list[TaskInfo],
                          need: Resource, nodes: list[NodeInfo], domain: str, allow_whole: bool) -> list[Bundle]:
    """selectDomainBundles: running preemptable tasks of other queues' jobs, the queue reclaimable,
    bundled per job, then as the plugins allow."""
    if not nodes or not pending:
        return []
    by_job: dict[str, list[TaskInfo]] = {}
    for node in nodes:
        for held in node.tasks.values():
            task = held.task           # type: ignore[attr-defined]
            if held.status != TaskStatus.RUNNING or not task.preemptable:      # type: ignore[attr-defined]
                continue
            victim = ssn.jobs.get(task.job)
            if victim is None or victim.queue == job.queue or not gang_preemptable(victim):
                continue
            q = ssn.queues.get(victim.queue)
            if q is None or not q.reclaimable:
                continue
            by_job.setdefault(task.job, []).append(victim.tasks.get(task.uid, task))
    bundles = [b for uid, tasks in by_job.items() for b in create_job_bundles(ssn.jobs[uid], tasks)]
    return choose_bundles(ssn, EvictionContext(GANG_RECLAIM, job, domain), bundles, allow_whole,
                          lambda bs: sort_for_reclaim(bs, need, less, ssn.queues))


def reclaim_job(ssn: Session, stmt: Statement, queue: QueueInfo, job: JobInfo, args: GangArgs) -> bool:
    """reclaimJobInDomains: only when the queue may reclaim for all the pending tasks (Preemptive)."""
    pending = pending_tasks(ssn, job)
    if not pending or not ssn.preemptive(queue, pending):
        return False
    less = queue_less(ssn, job.queue)

    def select(s: Session, j: JobInfo, p: list[TaskInfo], need: Resource, nodes: list[NodeInfo], d: str) -> list[Bundle]:
        return select_domain_bundles(s, less, j, p, need, nodes, d, args.allow_whole_bundle)
    return evict_for_job(ssn, stmt, queue, job, NAME, args, select, pending)


def execute(ssn: Session) -> None:
    args = parse_arguments(ssn, NAME)
    queues, preemptors = starving_jobs(ssn)
    while not queues.empty():
        queue = queues.pop()
        if ssn.overused(queue):
            continue
        jobs = preemptors.get(queue.uid)
        while jobs is not None and not jobs.empty():
            job = jobs.pop()
            stmt = Statement(ssn)
            reclaim_job(ssn, stmt, queue, job, args)
            settle(stmt, ssn, job)
