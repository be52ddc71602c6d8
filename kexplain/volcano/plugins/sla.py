"""The sla plugin (plugins/sla): a job's waiting time (its PodGroup's `volcano.sh/sla-waiting-time` or
`sla-waiting-time` annotation, else the plugin's `sla-waiting-time` argument) orders jobs by the time
it runs out, and once it has run out enqueue and allocate's pipelining are permitted for the job, whatever
the later tiers say. It reads the session's clock (`Session.clock`: `--now`, else the wall clock)."""
from __future__ import annotations

from typing import Any

from kexplain.config._decode import parse_duration     # Go's time.ParseDuration
from kexplain.framework.preemption import parse_timestamp
from kexplain.volcano.api.job import JobInfo

NAME = "sla"
ARGUMENT = "sla-waiting-time"
ANNOTATIONS = ("volcano.sh/sla-waiting-time", "sla-waiting-time")     # v1beta1.JobWaitingTime, then api's
PERMIT, ABSTAIN = 1, 0
ZERO_TIME = -62135596800 * 10**9          # Go's zero time.Time (a PodGroup without a creationTimestamp)


def job_waiting_time(job: JobInfo) -> int | None:
    """JobInfo.WaitingTime (SetPodGroup's extractWaitingTime): the first annotation that parses to a
    positive duration, in nanoseconds."""
    obj = job.pod_group.obj if job.pod_group is not None else {}
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    for key in ANNOTATIONS:
        if key in annotations:
            ns = parse_duration(str(annotations[key]))
            if ns is not None and ns > 0:
                return ns
    return None


def global_waiting_time(arguments: dict[str, Any]) -> int | None:
    """OnSessionOpen's argument: a string that parses to a positive duration (anything else is logged)."""
    if ARGUMENT not in arguments:
        return None
    raw = arguments[ARGUMENT]
    ns = parse_duration(raw) if isinstance(raw, str) else None
    return ns if ns is not None and ns > 0 else None


def _created(job: JobInfo) -> int:
    """CreationTimestamp in nanoseconds (Go's zero time when there is none)."""
    at = parse_timestamp(job.creation) if job.creation else None
    return ZERO_TIME if at is None else at


class Sla:
    name = NAME

    def __init__(self, arguments: dict[str, Any]) -> None:
        self.arguments = arguments
        self.waiting: int | None = None

    def waiting_time(self, job: JobInfo) -> int | None:
        """readJobWaitingTime: the job's own, else the plugin's."""
        own = job_waiting_time(job)
        return own if own is not None else self.waiting

    def on_session_open(self, ssn: Any) -> None:
        self.waiting = global_waiting_time(self.arguments)
        now = ssn.clock()

        def job_order(l: JobInfo, r: JobInfo) -> int:
            """jobOrderFn: a job with a waiting time first, the one whose time runs out first."""
            lw, rw = self.waiting_time(l), self.waiting_time(r)
            if lw is None:
                return 0 if rw is None else 1
            if rw is None:
                return -1
            ld, rd = _created(l) + lw, _created(r) + rw
            return -1 if ld < rd else (1 if ld > rd else 0)

        def permitable(job: JobInfo) -> int:
            """permitableFn: Permit once the job has waited its time, else Abstain."""
            w = self.waiting_time(job)
            if w is None or now - _created(job) < w:
                return ABSTAIN
            return PERMIT

        ssn.add("jobOrder", NAME, job_order)
        ssn.add("jobEnqueueable", NAME, permitable)
        ssn.add("jobPipelined", NAME, permitable)

    def on_session_close(self, ssn: Any) -> None:
        pass


def New(arguments: dict[str, Any]) -> Sla:
    return Sla(arguments)
