"""The API server's rules: an object of the set it refuses (`admission`: its validation, the
admission plugins, a workload's controller's FailedCreate) or admits with a warning
(`admission-warning`, Pod Security's warn level), in its words."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from kexplain.explain import created as creates
from kexplain.lint.documents import Location
from kexplain.lint.findings import Finding, ObjectRef
from kexplain.lint.rule import POOL, Severity, declare

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.explain.pod_file import Entry

RULES = (
    declare("admission", Severity.ERROR, POOL,
            "The API server would refuse the object: the pod, its workload (or the workload has no pod template), "
            "or an object of the file the pods need; or it stores the workload and refuses pods its controller "
            "asks for (its FailedCreate).",
            "kube-apiserver: validation and admission (NamespaceLifecycle, LimitRanger, "
            "ResourceQuota, PodSecurity, Priority, ...); the workload controllers' FailedCreate"),
    declare("admission-warning", Severity.WARNING, POOL,
            "The API server would admit the object with a warning (Pod Security's warn level: the object, or a "
            "workload's pod template, breaks it), in its words: what `kubectl apply` prints as `Warning: ...`.",
            "kube-apiserver: admission warnings (PodSecurity's warn level), as kubectl "
            "apply prints them"),
)


def failed_create(entry: "Entry", ref: ObjectRef, loc: Location) -> Finding:
    """The `admission` finding of a workload whose controller's pods the API server refuses: how
    many are created, and the FailedCreate event."""
    details: dict[str, Any] = {"replicas": entry.asked, "created": entry.copies,
                               "failedCreate": entry.failed_create}
    if entry.not_created:
        details.update(fit=0, nodes=[])
    if entry.autoscaled_by is not None:
        details["horizontalPodAutoscaler"] = entry.autoscaled_by
    return Finding("admission", loc, ref, creates.said(entry), details=details)


API_WARNING = ": Warning: "


def api_warnings(warnings: Iterable[str]) -> list[str]:
    """The API server's warnings among admission's (`src: pods "x": Warning: would violate
    PodSecurity ...`), as `kubectl apply` prints them: `Warning: would violate PodSecurity ...`."""
    return [f"Warning: {w.split(API_WARNING, 1)[1]}" for w in warnings if API_WARNING in w]

