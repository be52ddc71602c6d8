"""The priority plugin (plugins/priority): tasks and jobs by priority, higher first."""
from __future__ import annotations

from typing import Any

from kexplain.volcano.api.eviction import GANG_RECLAIM
from kexplain.volcano.api.job import JobInfo
from kexplain.volcano.api.task import TaskInfo

NAME = "priority"
PERMIT = 1


class Priority:
    name = NAME

    def __init__(self, arguments: dict[str, Any]) -> None:
        self.arguments = arguments

    def on_session_open(self, ssn: Any) -> None:
        def task_order(l: TaskInfo, r: TaskInfo) -> int:
            if l.priority == r.priority:
                return 0
            return -1 if l.priority > r.priority else 1

        task_order.key = lambda t: -t.priority       # type: ignore[attr-defined]  # (its order as a sort key)

        def job_order(l: JobInfo, r: JobInfo) -> int:
            if l.priority > r.priority:
                return -1
            return 1 if l.priority < r.priority else 0

        def preemptable(preemptor: TaskInfo, preemptees: list[TaskInfo]) -> list[TaskInfo]:
            """Another job's tasks of a lower job priority; the same job's of a lower task priority."""
            pj = ssn.jobs.get(preemptor.job)
            if pj is None:
                return []
            out = []
            for t in preemptees:
                tj = ssn.jobs.get(t.job)
                if tj is None:
                    continue
                if (tj.priority < pj.priority) if tj.uid != pj.uid else (t.priority < preemptor.priority):
                    out.append(t)
            return out

        def unified_evictable(ctx: Any, candidates: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
            """Gang reclaim is by fairness: every candidate; gang preempt: those of a lower job priority."""
            if ctx.kind == GANG_RECLAIM:
                return candidates, PERMIT
            return [t for t in candidates if ssn.jobs[t.job].priority < ctx.job.priority], PERMIT

        ssn.add("preemptable", NAME, preemptable)
        ssn.add("unifiedEvictable", NAME, unified_evictable)
        ssn.add("taskOrder", NAME, task_order)
        ssn.add("jobOrder", NAME, job_order)
        ssn.add("jobStarving", NAME, lambda j: j.ready_task_num() + j.waiting_task_num() < len(j.tasks))

    def on_session_close(self, ssn: Any) -> None:
        pass


def New(arguments: dict[str, Any]) -> Priority:
    return Priority(arguments)
