"""plugins/util: the resources a queue holds for its enqueued jobs, and the refusal messages."""
from __future__ import annotations

import math

from kexplain.volcano.api.job import JobInfo
from kexplain.volcano.api.queue import QueueInfo
from kexplain.volcano.api.resource import INFINITY, PODS, Resource, _is_scalar_name, exceeded_part
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


def queue_limits(queue: QueueInfo, total: Resource, total_guarantee: Resource) -> tuple[Resource, Resource, Resource]:
    """A queue's capability (cpu or memory at most 0: unlimited; none: empty), guarantee and real capability (the
    cluster less every queue's guarantee, plus its own, within the capability): the part proportion's and
    capacity's buildQueueAttrs share."""
    capability = None
    if queue.capability:
        capability = Resource.of(queue.capability)
        if capability.milli_cpu <= 0:
            capability.milli_cpu = math.inf
        if capability.memory <= 0:
            capability.memory = math.inf
    guarantee = Resource.of(queue.guarantee) if queue.guarantee else Resource()
    real = exceeded_part(total, total_guarantee).add(guarantee)
    if capability is None:
        capability = Resource()
    else:
        real.min_dimension(capability, INFINITY)
    return capability, guarantee, real


def format_names(prefix: str, verb: str, names: list[str]) -> str:
    """FormatResourceNames."""
    if not names:
        return prefix
    return f"{prefix}: {', '.join(f'{verb} {n}' for n in names)}"


def is_enqueued_running(job: JobInfo) -> bool:
    pg = job.pod_group
    return (pg is not None and pg.phase == "Running" and pg.min_resources is not None
            and allocated_task_num(job) >= pg.min_member)


QUEUE_ALLOCATION_GATE = "scheduling.volcano.sh/queue-allocation-gate"


def _only_volcano_gate(pod: dict) -> bool:
    gates = (pod.get("spec") or {}).get("schedulingGates") or []
    return len(gates) == 1 and isinstance(gates[0], dict) and gates[0].get("name") == QUEUE_ALLOCATION_GATE


def deduct_gated(job: JobInfo, res: Resource) -> Resource:
    """DeductSchGatedResources: what the job's gated pods (but those gated by Volcano's queue gate alone)
    request, taken off `res`, none below zero."""
    gated = Resource()
    for t in job.tasks.values():
        if t.sch_gated and not _only_volcano_gate(t.pod):
            gated.add(t.resreq)
    if gated.is_empty():
        return res
    out = res.clone()
    out.milli_cpu = max(out.milli_cpu - gated.milli_cpu, 0.0)
    out.memory = max(out.memory - gated.memory, 0.0)
    for name, q in (res.scalars or {}).items():
        if gated.scalars is not None and name in gated.scalars:
            out.scalars[name] = max(q - gated.scalars[name], 0.0)      # type: ignore[index]
    return out


def elastic_resources(job: JobInfo) -> Resource:
    """GetElasticResources: what the job holds beyond its minResources."""
    return exceeded_part(job.allocated, min_resources(job))
