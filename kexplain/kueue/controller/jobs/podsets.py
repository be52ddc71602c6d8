"""What the integrations of operators' kinds share (RayJob, RayCluster, LeaderWorkerSet, the
Kubeflow jobs): their GenericJob, whose pod sets are built once when the object is read as its
integration's PodSets() builds them, and Kueue's webhooks' refusals in the API server's words (a pod
template or a count read at a path: `controllers.templates`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kexplain.apimachinery.fielderrors import FieldError, aggregate, go_quote
from kexplain.errors import AdmissionRejected, Source
from kexplain.kueue.apis.meta import ObjectMeta
from kexplain.kueue.apis.workload import PodSet


@dataclass(frozen=True)
class PodSetsJob:
    """A job of an operator's kind as Kueue's integration reads it: its pod sets in PodSets()'s
    order, the PriorityClass its PriorityClass() (or the first pod set naming one) gives, and, for
    a LeaderWorkerSet's group, the name its Workload's name is made of (`owner_name`)."""

    meta: ObjectMeta
    kind: str
    group: str
    sets: tuple[PodSet, ...]
    priority_class: str = ""            # PriorityClass() when the kind has one (runPolicy's first)
    owner_name: str = ""                # the name the Workload's name is made of ("": the object's)
    skipped: str = ""                   # why Kueue skips it (JobWithSkip: no Workload), if it does
    # its Workload's owner reference is no controller (SetOwnerReference: a LeaderWorkerSet's reconciler's)
    owns_not_controls: bool = False
    source: Source | None = None

    def pod_sets(self) -> tuple[PodSet, ...]:
        return self.sets

    def pod_priority_class_name(self) -> str:
        if self.priority_class:
            return self.priority_class
        for ps in self.sets:
            name = ps.spec.get("priorityClassName")
            if name:
                return str(name)
        return ""

    def workload_owner_name(self) -> str:
        return self.owner_name or self.meta.name


def webhook_denied(webhook: str, obj: Mapping[str, Any], errors: list[FieldError],
                   source: Source | None) -> AdmissionRejected:
    """A Kueue validating webhook's refusal as the API server words it (controller-runtime's
    `admission webhook "NAME" denied the request: ...`; its errors aggregated)."""
    return AdmissionRejected(f"admission webhook {go_quote(webhook)} denied the request: {aggregate(errors)}",
                             source=source, obj=obj)
