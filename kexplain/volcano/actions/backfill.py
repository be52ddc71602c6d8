"""The backfill action (actions/backfill): the best-effort tasks (no requests) of jobs past Pending, queue
by queue and job by job, each placed on its best node by the predicates alone and allocated by the
session (bound at once when the gang is ready)."""
from __future__ import annotations

from kexplain.volcano.api.fit_errors import pre_predicate_failed
from kexplain.volcano.api.task import TaskInfo, TaskStatus
from kexplain.volcano.framework.session import Session
from kexplain.volcano.framework.statement import PriorityQueue
from kexplain.volcano.actions.allocate import best_node, predicate_nodes


def pending_tasks(ssn: Session) -> list[TaskInfo]:
    """pickUpPendingTasks: queue order, then job order, then task order."""
    queues = PriorityQueue(ssn.queue_order_less)
    jobs: dict[str, PriorityQueue] = {}
    out: list[TaskInfo] = []
    for job in ssn.jobs.values():
        if job.is_pending():
            continue
        vr = ssn.job_valid(job)
        if (vr is not None and not vr.passed) or job.queue not in ssn.queues:
            continue
        tasks = [t for t in job.pending() if t.best_effort and not t.sch_gated]
        if not tasks:
            continue
        if job.queue not in jobs:
            queues.push(ssn.queues[job.queue])
            jobs[job.queue] = PriorityQueue(ssn.job_order_less)
        jobs[job.queue].push((job, PriorityQueue(ssn.task_order_less, tasks)))
    for q in list(jobs):
        jobs[q].less = lambda a, b: ssn.job_order_less(a[0], b[0])
    while not queues.empty():
        queue = queues.pop()
        while not jobs[queue.uid].empty():
            _, tasks = jobs[queue.uid].pop()
            while not tasks.empty():
                out.append(tasks.pop())
    return out


def execute(ssn: Session) -> None:
    for task in pending_tasks(ssn):
        job = ssn.jobs[task.job]
        err = ssn.pre_predicate(task)
        if err:
            job.nodes_fit_errors[task.uid] = pre_predicate_failed(task.key, (n.name for n in ssn.node_list), err)
            continue
        nodes, fe = predicate_nodes(ssn, task, ssn.node_list, ssn.predicate)
        if not nodes:
            job.nodes_fit_errors[task.uid] = fe
            continue
        node = best_node(ssn, task, nodes)
        ssn.allocate_task(task, node, TaskStatus.ALLOCATED)
        if ssn.job_ready(job):
            for t in list(job.index.get(TaskStatus.ALLOCATED, {}).values()):
                ssn.dispatch(t)
