"""Pod groups (pkg/controller/jobs/pod, a group's reconcile): the pods of one namespace sharing a
`kueue.x-k8s.io/pod-group-name` label are one job, a ComposableJob whose Workload is named after
the group and holds one pod set per role (the role hash), counted. Kueue builds it only when the
group is whole and agrees: fewer runnable pods than `kueue.x-k8s.io/pod-group-total-count`, or pods
naming another queue or total count, make no Workload (validatePodGroupMetadata's words)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Mapping, Sequence

from kexplain.errors import Source
from kexplain.kueue.apis.constants import ADMISSION_GATE, QUEUE_NAME_LABEL
from kexplain.kueue.apis.meta import ObjectMeta
from kexplain.kueue.apis.workload import PodSet, WorkloadObject, WorkloadSpec
from kexplain.kueue.controller.jobframework.interface import GenericJob
from kexplain.kueue.controller.jobframework.reconciler import JobOutcome, UnretryableError
from kexplain.kueue.controller.jobframework.tas import with_topology_requests
from kexplain.kueue.controller.jobs.pod import KIND, Pod
from kexplain.kueue.controller.jobs.pod_webhook import (GROUP_NAME_LABEL, GROUP_TOTAL_COUNT_ANNOTATION, atoi,
                                                        total_count_error)
from kexplain.kueue.controller.jobs.rolehash import role_hash

FAST_ADMISSION_ANNOTATION = "kueue.x-k8s.io/pod-group-fast-admission"  # value "true"
IS_GROUP_WORKLOAD_ANNOTATION = "kueue.x-k8s.io/is-group-workload"     # its value "true"
REASON_WORKLOAD_NAME_CONFLICT = "WorkloadNameConflict"
NOT_A_GROUP_WORKLOAD = "a workload with the pod group name already exists but was not created by the pod group framework"
REASON_EXCESS_POD_DELETED = "ExcessPodDeleted"
EXCESS_POD_DELETED = "Excess pod deleted"


class ComposeError(UnretryableError):
    """ConstructComposableWorkload's error: no Workload; `event`: the ErrWorkloadCompose event it
    records on the group's first pod."""


def group_name(job: GenericJob) -> str:
    """GetPodGroupName: a Pod's group label ("" for a pod alone or another kind)."""
    return job.meta.labels.get(GROUP_NAME_LABEL, "") if isinstance(job, Pod) else ""


def runnable(pod: Pod) -> bool:
    """isPodRunnableOrSucceeded: not failed, nor deleted before it was bound."""
    return not (pod.deleting and not pod.spec.get("nodeName")) and pod.phase != "Failed"


def total_count(pod: Pod) -> int:
    """groupTotalCount of one pod (ComposeError with Kueue's words)."""
    text = pod.meta.annotations.get(GROUP_TOTAL_COUNT_ANNOTATION)
    if text is None:
        raise ComposeError(f"failed to extract '{GROUP_TOTAL_COUNT_ANNOTATION}' annotation")
    problem = total_count_error(text)
    if problem:
        raise ComposeError(problem)
    return atoi(text)


@dataclass(frozen=True)
class PodGroup:
    """The group as Pod.Load leaves it: every pod with its label in the namespace, by name; `meta`
    is its first pod's (p.pod: the queue name, the labels the priority is read from)."""

    name: str
    pods: tuple[Pod, ...]
    max_roles: int = 8              # the version's (`KueueVersion.max_pod_group_roles`)
    kind: str = KIND
    group: str = ""

    @property
    def meta(self) -> ObjectMeta:
        return self.pods[0].meta

    @property
    def source(self) -> Source | None:
        return self.pods[0].source

    def fast_admission(self) -> bool:
        return self.meta.annotations.get(FAST_ADMISSION_ANNOTATION) == "true"

    def pod_sets(self) -> tuple[PodSet, ...]:
        """constructGroupPodSets: one pod set per role of the runnable pods, counted, sorted by name
        (fast admission: the first runnable pod's, of the total count)."""
        active = [p for p in self.pods if runnable(p)]
        if self.fast_admission():
            if not active:
                raise ComposeError("failed to find a runnable pod in the group")
            first = active[0]
            return (PodSet(role_hash(first.meta.annotations, first.spec), total_count(first),
                           {"spec": first.spec}),)
        counts: dict[str, int] = {}
        specs: dict[str, Pod] = {}
        for pod in active:
            role = role_hash(pod.meta.annotations, pod.spec)
            counts[role] = counts.get(role, 0) + 1
            specs.setdefault(role, pod)
        return tuple(PodSet(role, counts[role], {"spec": specs[role].spec}) for role in sorted(counts))

    def pod_priority_class_name(self) -> str:
        """extractPriorityFromPodSets: the first pod set's (by role) PriorityClass that names one."""
        for ps in self.pod_sets():
            if ps.spec.get("priorityClassName"):
                return str(ps.spec["priorityClassName"])
        return ""

    def pod_set_annotations(self, ps: PodSet) -> Mapping[str, str]:
        """The annotations of the pod a role's pod set is made of (constructPodSet reads its
        topology request from that pod's ObjectMeta)."""
        for pod in self.pods:
            if runnable(pod) and self.role_of(pod) == ps.name:
                return pod.meta.annotations
        return self.meta.annotations

    def role_of(self, pod: Pod) -> str:
        return role_hash(pod.meta.annotations, pod.spec)

    def validate(self) -> None:
        """validatePodGroupMetadata over the runnable pods (ComposeError)."""
        first = self.pods[0]
        expected = total_count(first)
        queue = first.meta.labels.get(QUEUE_NAME_LABEL, "")
        if not self.fast_admission() and sum(map(runnable, self.pods)) < expected:
            raise ComposeError(f"'{self.name}' group has fewer runnable pods than expected", event=True)
        for pod in self.pods:
            if pod.phase == "Failed":
                continue
            other = pod.meta.labels.get(QUEUE_NAME_LABEL, "")
            if other != queue:
                raise ComposeError(f"pods '{first.meta.name}' and '{pod.meta.name}' has different queue names: "
                                   f"{queue}!={other}")
            try:
                count = atoi(pod.meta.annotations.get(GROUP_TOTAL_COUNT_ANNOTATION))
            except ValueError as err:
                raise ComposeError(f"failed to extract '{GROUP_TOTAL_COUNT_ANNOTATION}' annotation from the pod "
                                   f"'{pod.meta.name}': {err}") from None
            if count != expected:
                raise ComposeError(f"pods '{first.meta.name}' and '{pod.meta.name}' has different "
                                   f"'{GROUP_TOTAL_COUNT_ANNOTATION}' values: {expected}!={count}")

    def excess(self) -> tuple[Pod, ...]:
        """The runnable pods beyond the total count Kueue deletes: the last by (still gated, newest)."""
        active = [p for p in self.pods if runnable(p)]
        extra = len(active) - total_count(self.pods[0])
        if extra <= 0:
            return ()
        ordered = sorted(active, key=lambda p: (_gated(p), p.meta.created.timestamp() if p.meta.created else 0.0))
        return tuple(ordered[-extra:])

    def construct_composable_workload(self, now: datetime) -> WorkloadObject:
        """ConstructComposableWorkload: validated, excess pods left out, the pod sets by role; named
        after the group, owned by every pod (no controller), created when its newest pod is."""
        self.validate()
        gone = {p.meta.name for p in self.excess()}
        kept = replace(self, pods=tuple(p for p in self.pods if p.meta.name not in gone)) if gone else self
        pod_sets = with_topology_requests(kept, kept.pod_sets())
        if len(pod_sets) > self.max_roles:
            raise ComposeError(f"pod group can't include more than {self.max_roles} roles")
        times = [p.meta.created for p in kept.pods if p.meta.created is not None]
        meta = ObjectMeta(name=self.name, namespace=self.meta.namespace, created=max(times) if times else now,
                          annotations={IS_GROUP_WORKLOAD_ANNOTATION: "true"})
        spec = WorkloadSpec(queue_name=self.meta.labels.get(QUEUE_NAME_LABEL, ""), pod_sets=pod_sets)
        return WorkloadObject(meta, spec, source=self.source)


def _gated(pod: Pod) -> bool:
    return any(isinstance(g, Mapping) and g.get("name") == ADMISSION_GATE for g in pod.spec.get("schedulingGates") or ())


def units(jobs: Sequence[GenericJob], max_roles: int = 8) -> list[tuple[list[int], GenericJob]]:
    """The jobs as the reconciler meets them: each alone (its index), and the pods of one group as
    one PodGroup (their indexes, by pod name) at its first pod's place; `max_roles`: the version's."""
    out: list[tuple[list[int], GenericJob]] = []
    groups: dict[tuple[str, str], list[int]] = {}
    for i, job in enumerate(jobs):
        name = group_name(job)
        if not name:
            out.append(([i], job))
            continue
        key = (job.meta.namespace, name)
        if key not in groups:
            groups[key] = []
            out.append((groups[key], job))
        groups[key].append(i)
    result = []
    for members, job in out:
        if len(members) == 1 and not group_name(job):
            result.append((members, job))
            continue
        members.sort(key=lambda i: jobs[i].meta.name)
        result.append((members, PodGroup(group_name(job), tuple(jobs[i] for i in members),  # type: ignore[misc]
                                         max_roles)))
    return result


def member_outcomes(unit: GenericJob, outcome: JobOutcome) -> list[JobOutcome]:
    """The reconciler's outcome for each pod of `unit` (one job: its own), by pod name: the group's
    Workload or error for every pod, its pod set (role) each; the events and the creation on the first
    pod; an excess pod Kueue deleted, said so."""
    if not isinstance(unit, PodGroup):
        return [outcome]
    excess = {p.meta.name for p in unit.excess()} if outcome.workload is not None and outcome.created else set()
    out = []
    for n, pod in enumerate(unit.pods):
        first = {} if n == 0 else {"created": False, "events": ()}
        if pod.meta.name in excess:
            out.append(JobOutcome(pod, error=EXCESS_POD_DELETED,
                                  events=(("Normal", REASON_EXCESS_POD_DELETED, EXCESS_POD_DELETED),)))
            continue
        out.append(replace(outcome, job=pod, pod_set=unit.role_of(pod) if outcome.workload is not None else "",
                           **first))
    return out


def adopted(job: GenericJob, existing: WorkloadObject, validate_owner: bool) -> JobOutcome:
    """The reconciler meeting a Workload of the name it would create: adopted; under
    `validate_owner` (PodIntegrationValidateGroupOwner) a pod group refuses one its framework did
    not create (FindMatchingWorkloads: the WorkloadNameConflict warning on the group's first pod)."""
    if isinstance(job, PodGroup) and validate_owner \
            and existing.meta.annotations.get(IS_GROUP_WORKLOAD_ANNOTATION) != "true":
        message = (f'A Workload named "{job.name}" already exists but is not a pod group workload; this pod group '
                   "cannot be admitted")
        return JobOutcome(job, error=NOT_A_GROUP_WORKLOAD, events=(("Warning", REASON_WORKLOAD_NAME_CONFLICT, message),))
    return JobOutcome(job, existing)
