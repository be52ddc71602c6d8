"""The gangpreempt action (actions/gangpreempt): each starving job, queue by queue, takes room from
lower-priority jobs of its own queue for all its pending tasks at once, evicting whole victim bundles
(`gang_evict`); its statement committed only when the job ends pipelined."""
from __future__ import annotations

from kexplain.volcano.actions.bundles import Bundle, create_job_bundles, sort_for_preempt
from kexplain.volcano.actions.reclaim import starving_jobs
from kexplain.volcano.actions.gang_evict import (GangArgs, choose_bundles, evict_for_job, gang_preemptable,
                                                 parse_arguments, pending_tasks, settle)
from kexplain.volcano.api.eviction import GANG_PREEMPT, EvictionContext
from kexplain.volcano.api.job import JobInfo
from kexplain.volcano.api.node import NodeInfo
from kexplain.volcano.api.resource import Resource
from kexplain.volcano.api.task import TaskInfo, preemptable_status
from kexplain.volcano.framework.session import Session
from kexplain.volcano.framework.statement import Statement

NAME = "gangpreempt"


def select_domain_bundles(ssn: Session, job: JobInfo, pending: list[TaskInfo], need: Resource,
                          nodes: list[NodeInfo], domain: str, allow_whole: bool) -> list[Bundle]:
    """selectDomainBundles: preemptable tasks of lower-priority jobs of the same queue (as the nodes
    hold them), bundled per job, then as the plugins allow (no best-effort rule: the plugins decide)."""
    if not nodes or not pending:
        return []
    by_job: dict[str, list[TaskInfo]] = {}
    for node in nodes:
        for held in node.tasks.values():
            task = held.task           # type: ignore[attr-defined]
            if not preemptable_status(held.status) or not task.preemptable:      # type: ignore[attr-defined]
                continue
            victim = ssn.jobs.get(task.job)
            if victim is None or victim.queue != job.queue or not gang_preemptable(victim):
                continue
            if job.priority <= victim.priority or task.job == job.uid:
                continue
            by_job.setdefault(task.job, []).append(victim.tasks.get(task.uid, task))
    bundles = [b for uid, tasks in by_job.items() for b in create_job_bundles(ssn.jobs[uid], tasks)]
    return choose_bundles(ssn, EvictionContext(GANG_PREEMPT, job, domain), bundles, allow_whole,
                          lambda bs: sort_for_preempt(bs, need, lambda l, r: not ssn.job_order_less(l, r)))


def preempt_job(ssn: Session, stmt: Statement, job: JobInfo, args: GangArgs) -> bool:
    """preemptJobInDomains."""
    pending = pending_tasks(ssn, job)
    if not pending:
        return False

    def select(s: Session, j: JobInfo, p: list[TaskInfo], need: Resource, nodes: list[NodeInfo], d: str) -> list[Bundle]:
        return select_domain_bundles(s, j, p, need, nodes, d, args.allow_whole_bundle)
    return evict_for_job(ssn, stmt, ssn.queues[job.queue], job, NAME, args, select, pending)


def execute(ssn: Session) -> None:
    args = parse_arguments(ssn, NAME)
    queues, preemptors = starving_jobs(ssn)
    while not queues.empty():
        queue = queues.pop()
        jobs = preemptors.get(queue.uid)
        while jobs is not None and not jobs.empty():
            job = jobs.pop()
            stmt = Statement(ssn)
            preempt_job(ssn, stmt, job, args)
            settle(stmt, ssn, job)
