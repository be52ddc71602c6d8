"""The reclaim action (actions/reclaim): a starving job's tasks, queue by queue, take back room from
running tasks of other, reclaimable queues holding more than they deserve, and are pipelined there."""
from __future__ import annotations

from kexplain.volcano.api.job import JobInfo
from kexplain.volcano.api.queue import QueueInfo
from kexplain.volcano.api.task import TaskInfo, TaskStatus
from kexplain.volcano.framework.session import Session
from kexplain.volcano.framework.statement import PriorityQueue, Statement
from kexplain.volcano.actions.allocate import error_cache
from kexplain.volcano.actions.preempt import candidate_nodes, on_node, validate


def reclaim_for_task(ssn: Session, stmt: Statement, task: TaskInfo, job) -> None:
    for node in candidate_nodes(ssn, task, {} if error_cache(ssn, "reclaim") else None):
        def other_queue(t: TaskInfo) -> bool:
            j = ssn.jobs.get(t.job)
            return (t.status == TaskStatus.RUNNING and t.preemptable and j is not None and j.queue != job.queue
                    and ssn.queues[j.queue].reclaimable)
        reclaimees = on_node(ssn, node, other_queue)
        if not reclaimees:
            continue
        victims = ssn.reclaimable(task, reclaimees)
        if not validate(task, node, victims):
            continue
        pq = PriorityQueue(ssn.victim_less(task), victims)
        available = node.future_idle()
        node_stmt = Statement(ssn)
        evicted = False
        while not pq.empty():
            if task.init_resreq.less_equal(available):
                break
            victim = pq.pop()
            node_stmt.evict(victim, "reclaim")
            available.add(victim.resreq)
            evicted = True
        if not task.init_resreq.less_equal(available):
            node_stmt.discard()
            continue
        node_stmt.pipeline(task, node, evicted)
        stmt.merge(node_stmt)
        break


def starving_jobs(ssn: Session) -> tuple[PriorityQueue[QueueInfo], dict[str, PriorityQueue[JobInfo]]]:
    """Execute's first loop: the queues of the jobs past Pending and valid, and each queue's starving
    jobs in job order."""
    queues: PriorityQueue[QueueInfo] = PriorityQueue(ssn.queue_order_less)
    seen: set[str] = set()
    preemptors: dict[str, PriorityQueue[JobInfo]] = {}
    for job in ssn.jobs.values():
        if job.is_pending():
            continue
        vr = ssn.job_valid(job)
        if (vr is not None and not vr.passed) or job.queue not in ssn.queues:
            continue
        if job.queue not in seen:
            seen.add(job.queue)
            queues.push(ssn.queues[job.queue])
        if ssn.job_starving(job):
            preemptors.setdefault(job.queue, PriorityQueue(ssn.job_order_less)).push(job)
    return queues, preemptors


def execute(ssn: Session) -> None:
    queues, preemptors = starving_jobs(ssn)
    tasks = {job.uid: PriorityQueue(ssn.task_order_less, [t for t in job.pending() if not t.sch_gated])
             for jobs in preemptors.values() for job in jobs.items}
    while not queues.empty():
        queue = queues.pop()
        if ssn.overused(queue):
            continue
        jobs = preemptors.get(queue.uid)
        while jobs is not None and not jobs.empty():
            job = jobs.pop()
            stmt = Statement(ssn)
            while ssn.job_starving(job) and not tasks[job.uid].empty():
                task = tasks[job.uid].pop()
                if (task.pod.get("spec") or {}).get("preemptionPolicy") == "Never":
                    continue
                if not ssn.preemptive(queue, [task]) or ssn.pre_predicate(task):
                    continue
                reclaim_for_task(ssn, stmt, task, job)
            if ssn.job_pipelined(job):
                stmt.commit()
            else:
                stmt.discard()
            if not jobs.empty():
                queues.push(queue)
