"""Victim bundles of gangpreempt and gangreclaim (actions/utils/bundle.go): a victim job's tasks on the
domain split into those it can lose and stay gang-ready ("safe") and the rest, whose eviction breaks the
gang and so costs the whole job ("whole"); bundles ordered safe first, then by the victim job (queue)
order, then by how much of the need they free per resource the job gives up."""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cmp_to_key
from typing import Callable

from kexplain.volcano.api.job import JobInfo
from kexplain.volcano.api.queue import QueueInfo
from kexplain.volcano.api.resource import Resource
from kexplain.volcano.api.task import TaskInfo, TaskStatus, allocated_status

SAFE, WHOLE = 0, 1


@dataclass(frozen=True)
class Bundle:
    """One victim job's tasks chosen together; `global_res` is what the job gives up (all its tasks for
    a whole bundle, nothing for a safe one)."""

    type: int
    job: JobInfo
    tasks: tuple[TaskInfo, ...]
    local_res: Resource
    global_res: Resource


def sum_resreq(tasks: tuple[TaskInfo, ...] | list[TaskInfo]) -> Resource:
    """SumResreq (and bundle.go's sumTasks)."""
    out = Resource()
    for t in tasks:
        out.add(t.resreq)
    return out


def _role_surplus(job: JobInfo) -> dict[str, int]:
    """How many tasks each role with a minimum can lose (CheckTaskReady's count: allocated and
    succeeded tasks, pending ones that ask for nothing)."""
    ready: dict[str, int] = {}
    for status, tasks in job.index.items():
        if allocated_status(status) or status == TaskStatus.SUCCEEDED:
            counted = list(tasks.values())
        elif status == TaskStatus.PENDING:
            counted = [t for t in tasks.values() if t.init_resreq.is_empty()]
        else:
            continue
        for t in counted:
            ready[t.role] = ready.get(t.role, 0) + 1
    return {role: ready.get(role, 0) - n for role, n in job.task_min_available.items()}


def create_job_bundles(job: JobInfo, local: list[TaskInfo]) -> list[Bundle]:
    """CreateJobBundles for a job without sub-group policies (kexplain models none): a task is safe
    while the job keeps more ready tasks than minAvailable and its role more than its minimum."""
    if not local:
        return []
    local = sorted(local, key=lambda t: (t.priority, t.uid))
    surplus = job.ready_task_num() - job.min_available
    if surplus < 0:         # already not gang-ready: evicting more breaks nothing more
        return [Bundle(SAFE, job, tuple(local), sum_resreq(local), Resource())]
    roles = _role_surplus(job) if job.min_available >= job.task_min_total else {}
    safe: list[TaskInfo] = []
    whole: list[TaskInfo] = []
    for t in local:
        has_min = t.role in roles
        if surplus > 0 and (not has_min or roles[t.role] > 0):
            safe.append(t)
            surplus -= 1
            if has_min:
                roles[t.role] -= 1
        else:
            whole.append(t)
    out = []
    if safe:
        out.append(Bundle(SAFE, job, tuple(safe), sum_resreq(safe), Resource()))
    if whole:
        out.append(Bundle(WHOLE, job, tuple(whole), sum_resreq(whole), sum_resreq(list(job.tasks.values()))))
    return out


def flatten(bundles: list[Bundle]) -> list[TaskInfo]:
    """FlattenBundles."""
    return [t for b in bundles for t in b.tasks]


def apply_allowed(bundles: list[Bundle], allowed: set[str]) -> list[Bundle]:
    """ApplyAllowedTasks: a whole bundle stays only with every task allowed, a safe one shrinks."""
    out = []
    for b in bundles:
        kept = tuple(t for t in b.tasks if t.uid in allowed)
        if b.type == WHOLE:
            if b.tasks and len(kept) == len(b.tasks):
                out.append(b)
        elif kept:
            out.append(replace(b, tasks=kept, local_res=sum_resreq(kept)))
    return out


def _score(res: Resource, need: Resource, cap: bool) -> float:
    """scoreAgainstNeed: the share of each needed resource `res` covers, summed."""
    score = 0.0
    for name in need.resource_names():
        n = need.get(name)
        if n <= 0:
            continue
        v = res.get(name)
        score += (min(v, n) if cap else v) / n
    return score


def roi(b: Bundle, need: Resource) -> float:
    """bundleROI: the need a bundle frees per share of its job given up (a safe bundle gives up none)."""
    given = _score(b.global_res, need, False)
    return math.inf if given == 0 else _score(b.local_res, need, True) / given


def _tail(l: Bundle, r: Bundle, need: Resource) -> int:
    """The ROI, then stableBundleLess (job UID, first task UID, size)."""
    li, ri = roi(l, need), roi(r, need)
    if li != ri:
        return -1 if li > ri else 1
    lk = (l.job.uid, l.tasks[0].uid if l.tasks else "", len(l.tasks))
    rk = (r.job.uid, r.tasks[0].uid if r.tasks else "", len(r.tasks))
    return -1 if lk < rk else (1 if lk > rk else 0)


def _by_order(ij: bool, ji: bool) -> int:
    return 0 if ij == ji else (-1 if ij else 1)


def sort_for_preempt(bundles: list[Bundle], need: Resource, victim_job_less: Callable[[JobInfo, JobInfo], bool]
                     ) -> list[Bundle]:
    """SortBundlesForPreempt: safe first, then the victim job order, then ROI."""
    def cmp(l: Bundle, r: Bundle) -> int:
        if l.type != r.type:
            return l.type - r.type
        if l.job.uid != r.job.uid:
            c = _by_order(victim_job_less(l.job, r.job), victim_job_less(r.job, l.job))
            if c:
                return c
        return _tail(l, r, need)
    return sorted(bundles, key=cmp_to_key(cmp))


def sort_for_reclaim(bundles: list[Bundle], need: Resource, queue_less: Callable[[QueueInfo, QueueInfo], bool] | None,
                     queues: dict[str, QueueInfo]) -> list[Bundle]:
    """SortBundlesForReclaim: safe first, then the victim queue order, then ROI."""
    def cmp(l: Bundle, r: Bundle) -> int:
        if l.type != r.type:
            return l.type - r.type
        lq, rq = queues.get(l.job.queue), queues.get(r.job.queue)
        if queue_less is not None and lq is not None and rq is not None and lq.uid != rq.uid:
            c = _by_order(queue_less(lq, rq), queue_less(rq, lq))
            if c:
                return c
        return _tail(l, r, need)
    return sorted(bundles, key=cmp_to_key(cmp))
