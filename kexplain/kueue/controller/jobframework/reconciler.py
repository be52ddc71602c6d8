"""What the job reconciler does for a job without a Workload (reconciler.go,
handleJobWithNoWorkload): constructWorkload, prepareWorkload and the event, or why it creates none."""
from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Mapping

from kexplain.apimachinery.names import is_label_value
from kexplain.kueue.apis.constants import JOB_UID_LABEL, QUEUE_NAME_LABEL
from kexplain.kueue.apis.meta import ObjectMeta
from kexplain.kueue.apis.priorityclass import PriorityClass
from kexplain.kueue.apis.workload import WorkloadObject, WorkloadSpec
from kexplain.kueue.controller.jobframework.interface import GenericJob
from kexplain.kueue.controller.jobframework.naming import workload_name
from kexplain.kueue.controller.jobframework.priority import PriorityNotFound, extract_priority
from kexplain.kueue.controller.jobframework.tas import with_topology_requests

NOT_MANAGED = "no kueue.x-k8s.io/queue-name label: not managed by Kueue (manageJobsWithoutQueueName=false)"


@dataclass(frozen=True)
class JobOutcome:
    """What the reconciler made of one job: its Workload, or the reason it made none."""

    job: GenericJob
    workload: WorkloadObject | None = None
    created: bool = False           # a new Workload (the CreatedWorkload event)
    error: str = ""

    @property
    def queue_name(self) -> str:
        return self.job.meta.labels.get(QUEUE_NAME_LABEL, "")


def construct_workload(job: GenericJob, created: datetime, priority_classes: Mapping[str, PriorityClass],
                       workload_priority_classes: Mapping[str, PriorityClass]) -> WorkloadObject:
    """constructWorkload then prepareWorkload; PriorityNotFound when the class it names is missing."""
    meta = job.meta
    labels = {JOB_UID_LABEL: meta.uid} if meta.uid and not is_label_value(meta.uid) else {}
    ref, priority = extract_priority(meta.labels, job.pod_priority_class_name(), workload_priority_classes,
                                     priority_classes)
    wmeta = ObjectMeta(name=workload_name(meta.name, meta.uid, job.kind, job.group), namespace=meta.namespace,
                       created=meta.created or created, labels=labels, owner_kind=job.kind, owner_name=meta.name,
                       owner_uid=meta.uid)
    spec = WorkloadSpec(queue_name=meta.labels.get(QUEUE_NAME_LABEL, ""), pod_sets=with_topology_requests(job, job.pod_sets()),
                        priority=priority, priority_class=ref)
    return WorkloadObject(wmeta, spec, source=job.source)


def reconcile(job: GenericJob, existing: Mapping[str, WorkloadObject], now: datetime,
              priority_classes: Mapping[str, PriorityClass],
              workload_priority_classes: Mapping[str, PriorityClass]) -> JobOutcome:
    """ReconcileGenericJob for a top-level job: ignored without a queue-name label; its
    Workload when one it owns exists (`existing`, by owner uid); else a new one."""
    if not job.meta.labels.get(QUEUE_NAME_LABEL):
        return JobOutcome(job, error=NOT_MANAGED)
    if getattr(job, "not_modelled", ""):        # a kind kexplain does not model (`jobs.unmodelled`)
        return JobOutcome(job, error=job.not_modelled)  # type: ignore[attr-defined]
    owned = existing.get(job.meta.uid) if job.meta.uid else None
    if owned is not None:
        return JobOutcome(job, owned)
    try:
        wl = construct_workload(job, now, priority_classes, workload_priority_classes)
    except PriorityNotFound as e:
        return JobOutcome(job, error=str(e))
    return JobOutcome(job, replace(wl), created=True)
