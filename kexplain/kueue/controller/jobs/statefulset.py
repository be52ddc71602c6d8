"""apps/v1 StatefulSet (pkg/controller/jobs/statefulset): one prebuilt pod-group Workload per
StatefulSet (constructWorkload), its pod set `main` of `replicas` pods, its template the
StatefulSet's pod spec; Kueue admits the replicas all together or none (its pods, gated by the
pod webhook, are ungated together)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kexplain.errors import InputError, Source
from kexplain.kueue.apis.constants import DEFAULT_POD_SET_NAME
from kexplain.kueue.apis.meta import ObjectMeta, object_meta
from kexplain.kueue.apis.once import by_identity
from kexplain.controllers.templates import check_pod_spec
from kexplain.kueue.apis.workload import PodSet

KIND = "StatefulSet"
GROUP = "apps"


@dataclass(frozen=True)
class StatefulSet:
    meta: ObjectMeta
    replicas: int
    spec: Mapping[str, Any]         # the pod template's spec
    source: Source | None = None
    kind: str = KIND
    group: str = GROUP

    def pod_sets(self) -> tuple[PodSet, ...]:
        return (PodSet(DEFAULT_POD_SET_NAME, self.replicas, {"spec": self.spec}),)

    def pod_priority_class_name(self) -> str:
        return str(self.spec.get("priorityClassName") or "")


def replicas_of(obj: Mapping[str, Any]) -> int:
    """spec.replicas, 1 when not set (ptr.Deref(sts.Spec.Replicas, 1))."""
    spec = obj.get("spec") if isinstance(obj.get("spec"), Mapping) else {}
    replicas = spec.get("replicas")
    return replicas if isinstance(replicas, int) and not isinstance(replicas, bool) else 1


@by_identity
def from_object(obj: dict[str, Any], source: Source | None) -> StatefulSet:
    spec = obj.get("spec") if isinstance(obj.get("spec"), Mapping) else {}
    replicas = spec.get("replicas")
    if replicas is not None and (isinstance(replicas, bool) or not isinstance(replicas, int) or replicas < 0):
        raise InputError(f"must be a non-negative integer, not {replicas!r}", source=source, obj=obj,
                         field="spec.replicas")
    template = spec.get("template")
    if not isinstance(template, Mapping):
        raise InputError("a StatefulSet needs spec.template", source=source, obj=obj, field="spec.template")
    check_pod_spec(template.get("spec"), source, obj, "spec.template.spec")
    return StatefulSet(object_meta(obj, source), replicas_of(obj), template.get("spec") or {}, source)
