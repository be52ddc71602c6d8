"""The gang plugin (plugins/gang): a job is valid, ready and pipelined only with minAvailable tasks (and
each role's minTaskMember); on the session's close each job gets its Unschedulable or Scheduled
condition."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kexplain.volcano.api.job import JobInfo
from kexplain.volcano.api.task import allocated_status

NAME = "gang"
NOT_ENOUGH_PODS_OF_TASK = "NotEnoughPodsOfTask"
NOT_ENOUGH_PODS = "NotEnoughTasks"
NOT_ENOUGH_RESOURCES = "NotEnoughResources"
READY_REASON = "tasks in gang are ready to be scheduled"


@dataclass(frozen=True)
class ValidateResult:
    passed: bool
    reason: str
    message: str


def valid(job: JobInfo) -> ValidateResult | None:
    """The gang's JobValidFn."""
    if not job.check_task_valid():
        return ValidateResult(False, NOT_ENOUGH_PODS_OF_TASK, "Not enough valid pods of each task for gang-scheduling")
    vtn = job.valid_task_num()
    if vtn < job.min_available:
        return ValidateResult(False, NOT_ENOUGH_PODS, "Not enough valid tasks for gang-scheduling, "
                                                      f"valid: {vtn}, min: {job.min_available}")
    return None


class Gang:
    name = NAME

    def __init__(self, arguments: dict[str, Any]) -> None:
        self.arguments = arguments

    def on_session_open(self, ssn: Any) -> None:
        def job_order(l: JobInfo, r: JobInfo) -> int:
            lr, rr = l.is_ready(), r.is_ready()
            if lr and rr:
                return 0
            return 1 if lr else (-1 if rr else 0)

        def victims(_: Any, preemptees: list[Any]) -> list[Any]:
            occupied: dict[str, int] = {}
            out = []
            for t in preemptees:
                job = ssn.jobs.get(t.job)
                if job is None:
                    continue
                occupied.setdefault(job.uid, job.ready_task_num())
                if occupied[job.uid] > job.min_available:
                    occupied[job.uid] -= 1
                    out.append(t)
            return out

        ssn.add("jobValid", NAME, valid)
        ssn.add("reclaimable", NAME, victims)
        ssn.add("preemptable", NAME, victims)
        # gang-aware eviction keeps minAvailable through its safe/whole bundles: every candidate
        ssn.add("unifiedEvictable", NAME, lambda ctx, candidates: (candidates, 1))
        ssn.add("jobOrder", NAME, job_order)
        ssn.add("jobReady", NAME, lambda j: j.check_task_ready() and j.is_ready())
        ssn.add("jobPipelined", NAME, lambda j: 1 if j.check_task_pipelined() and j.is_pipelined() else -1)
        ssn.add("jobStarving", NAME, lambda j: j.is_starving())

    def on_session_close(self, ssn: Any) -> None:
        """OnSessionClose: the Unschedulable condition (minAvailable less the schedulable) or Scheduled."""
        for job in ssn.jobs.values():
            if not job.tasks:
                continue
            if not job.is_ready():
                schedulable = sum(1 for t in job.pending()
                                  if allocated_status((t.last_tx or t.tx_context()).status)) + job.ready_task_num()
                msg, origins = job.fit_error()
                cond = {"type": "Unschedulable", "status": "True", "reason": NOT_ENOUGH_RESOURCES,
                        "message": f"{job.min_available - schedulable}/{len(job.tasks)} tasks in gang unschedulable: "
                                   f"{msg}", "transitionID": ssn.uid}
                if len(origins) > 1:
                    cond["originOneOf"] = origins
            else:
                cond = {"type": "Scheduled", "status": "True", "reason": READY_REASON, "message": "",
                        "transitionID": ssn.uid}
            _update_condition(job, cond)


def _update_condition(job: JobInfo, cond: dict[str, Any]) -> None:
    """Session.UpdatePodGroupCondition: the condition of that type replaced, or appended."""
    assert job.pod_group is not None
    conds = job.pod_group.conditions
    for i, c in enumerate(conds):
        if c.get("type") == cond["type"]:
            conds[i] = cond
            return
    conds.append(cond)


def New(arguments: dict[str, Any]) -> Gang:
    return Gang(arguments)
