"""plugins/util: the resources a queue holds for its enqueued jobs, and the refusal messages."""
from __future__ import annotations

from kexplain.volcano.api.job import JobInfo
from kexplain.volcano.api.resource import PODS, Resource, _is_scalar_name
from kexplain.volcano.api.task import allocated_status


def allocated_task_num(job: JobInfo) -> int:
    return sum(len(ts) for s, ts in job.index.items() if allocated_status(s))


def min_resources(job: JobInfo) -> Resource:
    """JobInfo.GetMinResources."""
    if job.pod_group is None or job.pod_group.min_resources is None:
        return Resource()
    return Resource.of(job.pod_group.min_resources)


def inqueue_resource(job: JobInfo, allocated: Resource) -> Resource:
    """GetInqueueResource: what the job's minResources holds beyond what it has allocated."""
    assert job.pod_group is not None and job.pod_group.min_resources is not None
    mins = Resource.of(job.pod_group.min_resources)
    out = Resource()
    for name in job.pod_group.min_resources:
        if name == "cpu":
            out.milli_cpu = max(mins.milli_cpu - allocated.milli_cpu, 0.0)
        elif name == "memory":
            out.memory = max(mins.memory - allocated.memory, 0.0)
        elif name == PODS or _is_scalar_name(name):
            left = mins.get(name) - allocated.get(name)
            if left > 0:
                out.add_scalar(name, left)
    return out


def format_names(prefix: str, verb: str, names: list[str]) -> str:
    """FormatResourceNames."""
    if not names:
        return prefix
    return f"{prefix}: {', '.join(f'{verb} {n}' for n in names)}"


def is_enqueued_running(job: JobInfo) -> bool:
    pg = job.pod_group
    return (pg is not None and pg.phase == "Running" and pg.min_resources is not None
            and allocated_task_num(job) >= pg.min_member)
