"""The enqueue action (actions/enqueue): queue by queue, each Pending job whose minResources the
plugins admit turns Inqueue (a job without minResources always does)."""
from __future__ import annotations

from kexplain.volcano.api.job import JobInfo
from kexplain.volcano.api.queue import QueueInfo
from kexplain.volcano.framework.session import Session
from kexplain.volcano.framework.statement import PriorityQueue


def execute(ssn: Session) -> None:
    queues: PriorityQueue[QueueInfo] = PriorityQueue(ssn.queue_order_less)
    seen: set[str] = set()
    jobs_by_queue: dict[str, PriorityQueue[JobInfo]] = {}
    for job in ssn.jobs.values():
        queue = ssn.queues.get(job.queue)
        if queue is None:
            continue
        if queue.uid not in seen:
            seen.add(queue.uid)
            queues.push(queue)
        if job.is_pending():
            jobs_by_queue.setdefault(job.queue, PriorityQueue(ssn.job_order_less)).push(job)
    while not queues.empty():
        queue = queues.pop()
        jobs = jobs_by_queue.get(queue.uid)
        if jobs is None or jobs.empty():
            continue
        job = jobs.pop()
        if job.pod_group.min_resources is None or ssn.job_enqueueable(job):
            ssn.job_enqueued(job)
            job.pod_group.phase = "Inqueue"
        queues.push(queue)
