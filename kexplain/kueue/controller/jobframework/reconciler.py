"""What the job reconciler does for a job without a Workload (reconciler.go,
handleJobWithNoWorkload): constructWorkload, prepareWorkload and the event, or why it creates none."""
from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Callable, Mapping

from kexplain.apimachinery.names import is_label_value
from kexplain.kueue.apis.constants import JOB_UID_LABEL, PROV_REQ_ANNOTATION_PREFIX, QUEUE_NAME_LABEL
from kexplain.kueue.apis.meta import ObjectMeta
from kexplain.kueue.apis.priorityclass import PriorityClass
from kexplain.kueue.apis.workload import PodSet, WorkloadObject, WorkloadSpec
from kexplain.kueue.config import METADATA_NAME_LABEL, KueueConfig
from kexplain.kueue.config_frameworks import disabled_framework
from kexplain.kueue.controller.jobframework.interface import GenericJob
from kexplain.kueue.controller.jobframework.naming import workload_name
from kexplain.kueue.controller.jobframework.priority import PriorityNotFound, extract_priority
from kexplain.kueue.controller.jobframework.tas import with_topology_requests
from kexplain.kueue.feature_gates import (NAMESPACE_SELECTOR_ALWAYS_RESPECTED, PARTIAL_ADMISSION,
                                          TOPOLOGY_AWARE_SCHEDULING)
from kexplain.kueue import workloadslicing

REASON_ERR_WORKLOAD_COMPOSE = "ErrWorkloadCompose"


class UnretryableError(Exception):
    """A job of which no Workload can be built as it is (jobframework.UnretryableError); `event`: the
    reconciler records its text as an ErrWorkloadCompose warning on the job."""

    def __init__(self, message: str, event: bool = False) -> None:
        super().__init__(message)
        self.event = event


NOT_MANAGED = "no kueue.x-k8s.io/queue-name label: not managed by Kueue (manageJobsWithoutQueueName=false)"
FRAMEWORK_OFF = ("not managed by Kueue: its integration {} is not in the Configuration's integrations.frameworks "
                 "(no Workload; it runs as if Kueue were not there)")
NAMESPACE_NOT_SELECTED = ("not managed by Kueue: namespace {} is not selected by the Configuration's "
                          "managedJobsNamespaceSelector")


@dataclass(frozen=True)
class Management:
    """What decides whether Kueue manages a job: the Configuration and the namespaces' labels."""

    config: KueueConfig = KueueConfig()
    namespace_labels: Callable[[str], Mapping[str, str]] = lambda name: {METADATA_NAME_LABEL: name}

    def unmanaged(self, job: GenericJob) -> str:
        """Why Kueue leaves the job alone ("" when it manages it), in ReconcileGenericJob's order: no
        controller for a framework that is off; a namespace managedJobsNamespaceSelector does not
        select (ManagedJobsNamespaceSelectorAlwaysRespected, on by default); no queue name unless
        manageJobsWithoutQueueName. With that gate off the selector only leaves out the jobs without a
        queue name that manageJobsWithoutQueueName would take."""
        off = disabled_framework(self.config, job.group, job.kind, job.meta.annotations)
        if off:
            return FRAMEWORK_OFF.format(off)
        namespace, queued = job.meta.namespace, bool(job.meta.labels.get(QUEUE_NAME_LABEL))
        always = self.config.enabled(NAMESPACE_SELECTOR_ALWAYS_RESPECTED)
        if (always or not queued) and not self.config.namespace_managed(self.namespace_labels(namespace)):
            if always or self.config.manage_jobs_without_queue_name:
                return NAMESPACE_NOT_SELECTED.format(namespace)
        if not queued and not self.config.manage_jobs_without_queue_name:
            return NOT_MANAGED
        return ""


@dataclass(frozen=True)
class JobOutcome:
    """What the reconciler made of one job: its Workload, or the reason it made none."""

    job: GenericJob
    workload: WorkloadObject | None = None
    created: bool = False           # a new Workload (the CreatedWorkload event)
    error: str = ""
    events: tuple[tuple[str, str, str], ...] = ()      # (type, reason, message) recorded on the job
    pod_set: str = ""               # a pod of a group: the pod set (its role) it is one of
    unmanaged: bool = False         # Kueue leaves it alone (`Management`): it runs as written

    @property
    def queue_name(self) -> str:
        return self.job.meta.labels.get(QUEUE_NAME_LABEL, "")


def construct_workload(job: GenericJob, created: datetime, priority_classes: Mapping[str, PriorityClass],
                       workload_priority_classes: Mapping[str, PriorityClass], elastic: bool = False) -> WorkloadObject:
    """constructWorkload (a ComposableJob's own: `construct_composable_workload`, UnretryableError) then
    prepareWorkload; PriorityNotFound when the class it names is missing. An `elastic` job's Workload
    (workloadslicing.Enabled) is named with its generation (newWorkloadName) and marked as the first
    slice (prepareWorkloadSlice)."""
    meta = job.meta
    composable = getattr(job, "construct_composable_workload", None)
    if composable is not None:
        wl = composable(created)
        ref, priority = extract_priority(meta.labels, job.pod_priority_class_name(), workload_priority_classes,
                                         priority_classes)
        return replace(wl, spec=replace(wl.spec, priority=priority, priority_class=ref))
    labels = {JOB_UID_LABEL: meta.uid} if meta.uid and not is_label_value(meta.uid) else {}
    ref, priority = extract_priority(meta.labels, job.pod_priority_class_name(), workload_priority_classes,
                                     priority_classes)
    owner = getattr(job, "workload_owner_name", lambda: meta.name)()     # (a LeaderWorkerSet's group: NAME-INDEX)
    extra = workloadslicing.name_extra(job.group, job.kind, meta.generation, meta.annotations) if elastic else ""
    name = workload_name(owner, meta.uid, job.kind, job.group, extra)
    # the job's provreq annotations (admissioncheck.FilterProvReqAnnotations)
    annotations = {k: v for k, v in meta.annotations.items() if k.startswith(PROV_REQ_ANNOTATION_PREFIX)}
    if elastic:
        annotations |= {workloadslicing.ELASTIC_JOB_ANNOTATION: "true", workloadslicing.WORKLOAD_SLICE_NAME_ANNOTATION: name}
    wmeta = ObjectMeta(name=name, namespace=meta.namespace, created=meta.created or created, labels=labels,
                       owner_kind=job.kind, owner_name=meta.name, owner_uid=meta.uid,
                       owner_not_controller=getattr(job, "owns_not_controls", False), annotations=annotations)
    spec = WorkloadSpec(queue_name=meta.labels.get(QUEUE_NAME_LABEL, ""), pod_sets=with_topology_requests(job, job.pod_sets()),
                        priority=priority, priority_class=ref)
    return WorkloadObject(wmeta, spec, source=job.source)


def reconcile(job: GenericJob, existing: Mapping[str, WorkloadObject], now: datetime,
              priority_classes: Mapping[str, PriorityClass],
              workload_priority_classes: Mapping[str, PriorityClass],
              management: Management = Management()) -> JobOutcome:
    """ReconcileGenericJob for a top-level job: ignored when Kueue does not manage it (`Management`);
    its Workload when one it owns exists (`existing`, by owner uid); else a new one."""
    if why := management.unmanaged(job):
        return JobOutcome(job, error=why, unmanaged=True)
    owned = existing.get(job.meta.uid) if job.meta.uid else None
    if getattr(job, "external", ""):            # an external framework's: its own controller makes the Workload
        return JobOutcome(job, owned) if owned is not None else JobOutcome(job, error=job.external)  # type: ignore
    if getattr(job, "not_modelled", ""):        # a kind kexplain does not model (`jobs.unmodelled`)
        return JobOutcome(job, error=job.not_modelled)  # type: ignore[attr-defined]
    if getattr(job, "skipped", ""):             # JobWithSkip: Kueue leaves it alone
        return JobOutcome(job, error=job.skipped)  # type: ignore[attr-defined]
    if owned is not None and getattr(job, "owner_name", ""):   # (one of several: a LeaderWorkerSet's group)
        name = workload_name(job.workload_owner_name(), job.meta.uid, job.kind, job.group)  # type: ignore[attr-defined]
        owned = owned if owned.meta.name == name else None      # (the pass finds a stored one by its name)
    if owned is not None:
        return JobOutcome(job, owned)
    try:
        wl = construct_workload(job, now, priority_classes, workload_priority_classes,
                                workloadslicing.enabled(job.meta.annotations, management.config.feature_gates))
    except PriorityNotFound as e:
        return JobOutcome(job, error=str(e))
    except UnretryableError as e:
        events = (("Warning", REASON_ERR_WORKLOAD_COMPOSE, str(e)),) if e.event else ()
        return JobOutcome(job, error=str(e), events=events)
    return JobOutcome(job, replace(wl, spec=replace(wl.spec, pod_sets=gated_pod_sets(wl.spec.pod_sets,
                                                                                 management.config))), created=True)


def gated_pod_sets(pod_sets: tuple[PodSet, ...], config: KueueConfig) -> tuple[PodSet, ...]:
    """The pod sets as the feature gates leave them: no `minCount` with PartialAdmission off
    (clearMinCountsIfFeatureDisabled), no topology request with TopologyAwareScheduling off (the
    integrations ask for none then)."""
    partial, tas = config.enabled(PARTIAL_ADMISSION), config.enabled(TOPOLOGY_AWARE_SCHEDULING)
    if partial and tas:
        return pod_sets
    return tuple(replace(ps, min_count=ps.min_count if partial else None,
                         topology_request=ps.topology_request if tas else None) for ps in pod_sets)
