"""v1 Pod (pkg/controller/jobs/pod), a pod alone: one pod set `main` of one pod, its template the
pod's spec (the pods of a `kueue.x-k8s.io/pod-group-name` group make one Workload: `podgroup`). The pod webhook's `kueue.x-k8s.io/admission` gate and managed
label are taken as given: the pod integration is enabled."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kexplain.errors import AdmissionRejected, InputError, Source
from kexplain.kueue.apis.constants import DEFAULT_POD_SET_NAME
from kexplain.kueue.apis.meta import ObjectMeta, object_meta
from kexplain.kueue.apis.workload import PodSet
from kexplain.kueue.controller.jobs import pod_webhook

KIND = "Pod"
GROUP = ""


@dataclass(frozen=True)
class Pod:
    meta: ObjectMeta
    spec: Mapping[str, Any]
    source: Source | None = None
    kind: str = KIND
    group: str = GROUP
    phase: str = ""                 # status.phase
    deleting: bool = False          # metadata.deletionTimestamp is set

    def pod_sets(self) -> tuple[PodSet, ...]:
        return (PodSet(DEFAULT_POD_SET_NAME, 1, {"spec": self.spec}),)

    def pod_priority_class_name(self) -> str:
        return str(self.spec.get("priorityClassName") or "")


def from_object(obj: dict[str, Any], source: Source | None) -> Pod:
    spec = obj.get("spec")
    if not isinstance(spec, Mapping) or not isinstance(spec.get("containers"), list):
        raise InputError("a Pod needs spec.containers", source=source, obj=obj, field="spec.containers")
    errs = pod_webhook.group_metadata_errors(obj)
    if errs:
        raise AdmissionRejected(pod_webhook.denied(errs), source=source, obj=obj)
    status = obj.get("status") if isinstance(obj.get("status"), Mapping) else {}
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    return Pod(object_meta(obj, source), spec, source, phase=str(status.get("phase") or ""),
               deleting=bool(meta.get("deletionTimestamp")))
