"""Workload (workload_types.go): its spec (queue, priority, pod sets) and the status an admitted
Workload comes with (the admission and the conditions)."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Mapping

from kexplain.apimachinery import quantity
from kexplain.apimachinery.quantity import Quantity
from kexplain.errors import InputError, Source
from kexplain.kueue.apis import schema
from kexplain.kueue.apis.constants import DEFAULT_POD_SET_NAME, WORKLOAD
from kexplain.kueue.apis.meta import ObjectMeta, object_meta, parse_time
from kexplain.controllers.templates import check_pod_spec
from kexplain.kueue.apis.priorityclass import POD_PRIORITY_CLASS_REF, WORKLOAD_PRIORITY_CLASS_REF, PriorityClassRef
from kexplain.kueue.apis.topology import TopologyAssignment, TopologyRequest, internal_from, request_from_spec


@dataclass(frozen=True)
class PodSet:
    name: str
    count: int
    template: Mapping[str, Any]         # a PodTemplateSpec: {metadata, spec}
    min_count: int | None = None
    topology_request: TopologyRequest | None = None

    @property
    def spec(self) -> Mapping[str, Any]:
        spec = self.template.get("spec")
        return spec if isinstance(spec, Mapping) else {}


@dataclass(frozen=True)
class WorkloadSpec:
    queue_name: str
    pod_sets: tuple[PodSet, ...]
    priority: int | None = None
    priority_class: PriorityClassRef | None = None
    active: bool = True


@dataclass(frozen=True)
class Condition:
    type: str
    status: str
    reason: str
    message: str
    last_transition: datetime | None = None


@dataclass(frozen=True)
class PodSetAssignment:
    name: str
    flavors: Mapping[str, str]
    resource_usage: Mapping[str, Quantity]
    count: int | None = None
    topology_assignment: TopologyAssignment | None = None
    stored_topology: Mapping[str, Any] | None = None    # the v1beta2 form as given (an input's)
    delayed_topology_request: str | None = None


@dataclass(frozen=True)
class Admission:
    cluster_queue: str
    pod_set_assignments: tuple[PodSetAssignment, ...]


@dataclass(frozen=True)
class PodSetUpdate:
    """status.admissionChecks[].podSetUpdates[]: what a check's controller has Kueue set on a pod
    set's template when it starts the job."""

    name: str
    annotations: Mapping[str, str] = field(default_factory=dict)
    labels: Mapping[str, str] = field(default_factory=dict)
    node_selector: Mapping[str, str] = field(default_factory=dict)
    tolerations: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class AdmissionCheckState:
    """status.admissionChecks[]: one check's state on the Workload (Pending, Ready, Retry, Rejected)."""

    name: str
    state: str
    message: str = ""
    last_transition: datetime | None = None
    requeue_after_seconds: int | None = None
    retry_count: int | None = None
    pod_set_updates: tuple[PodSetUpdate, ...] = ()


@dataclass(frozen=True)
class RequeueState:
    """status.requeueState: how often the Workload was requeued, and when it may be queued again."""

    count: int = 0
    requeue_at: datetime | None = None


def _requeue_state(raw: Any, source: Source | None, obj: Any) -> RequeueState | None:
    if not isinstance(raw, Mapping):
        return None
    count = raw.get("count")
    return RequeueState(count if isinstance(count, int) and not isinstance(count, bool) else 0,
                        parse_time(raw.get("requeueAt"), source, obj, "status.requeueState.requeueAt"))


@dataclass(frozen=True)
class WorkloadObject:
    """A Workload as stored: its metadata, spec and status."""

    meta: ObjectMeta
    spec: WorkloadSpec
    conditions: tuple[Condition, ...] = ()
    admission: Admission | None = None
    source: Source | None = field(default=None, compare=False)
    admission_checks: tuple[AdmissionCheckState, ...] = ()
    requeue_state: RequeueState | None = None
    reclaimable_pods: tuple[tuple[str, int], ...] = ()      # status.reclaimablePods: (pod set, count)


def _reclaimable_pods(raw: Any) -> tuple[tuple[str, int], ...]:
    """status.reclaimablePods as (pod set name, count) pairs, in order."""
    out = []
    for item in raw if isinstance(raw, list) else ():
        count = item.get("count") if isinstance(item, Mapping) else None
        if isinstance(count, int) and not isinstance(count, bool):
            out.append((str(item.get("name") or ""), count))
    return tuple(out)


def parse_pod_sets(raw: Any) -> tuple[PodSet, ...]:
    out = []
    for ps in raw or ():
        template = ps.get("template") if isinstance(ps.get("template"), Mapping) else {}
        out.append(PodSet(name=str(ps.get("name") or DEFAULT_POD_SET_NAME), count=int(ps.get("count", 1)),
                          template=template, min_count=int(ps["minCount"]) if "minCount" in ps else None,
                          topology_request=request_from_spec(ps.get("topologyRequest"))))
    return tuple(out)


def _priority_class(raw: Any) -> PriorityClassRef | None:
    if not isinstance(raw, Mapping):
        return None
    kind = WORKLOAD_PRIORITY_CLASS_REF if raw.get("kind") == WORKLOAD_PRIORITY_CLASS_REF else POD_PRIORITY_CLASS_REF
    return PriorityClassRef(kind, str(raw.get("name")))


def _conditions(raw: Any, source: Source | None, obj: Any) -> tuple[Condition, ...]:
    if raw is not None and not isinstance(raw, list):
        raise InputError("must be a list", source=source, obj=obj, field="status.conditions")
    out = []
    for i, c in enumerate(raw or ()):
        if not isinstance(c, Mapping):
            raise InputError("a condition must be an object", source=source, obj=obj, field=f"status.conditions[{i}]")
        out.append(Condition(str(c.get("type") or ""), str(c.get("status") or ""), str(c.get("reason") or ""),
                             str(c.get("message") or ""),
                             parse_time(c.get("lastTransitionTime"), source, obj,
                                        f"status.conditions[{i}].lastTransitionTime")))
    return tuple(out)


def _admission_checks(raw: Any, source: Source | None, obj: Any) -> tuple[AdmissionCheckState, ...]:
    if raw is not None and not isinstance(raw, list):
        raise InputError("must be a list", source=source, obj=obj, field="status.admissionChecks")
    out = []
    for i, c in enumerate(raw or ()):
        if not isinstance(c, Mapping):
            raise InputError("must be an object", source=source, obj=obj, field=f"status.admissionChecks[{i}]")
        requeue, retries = c.get("requeueAfterSeconds"), c.get("retryCount")
        out.append(AdmissionCheckState(str(c.get("name") or ""), str(c.get("state") or ""), str(c.get("message") or ""),
                                       parse_time(c.get("lastTransitionTime"), source, obj,
                                                  f"status.admissionChecks[{i}].lastTransitionTime"),
                                       requeue if isinstance(requeue, int) else None,
                                       retries if isinstance(retries, int) else None,
                                       _pod_set_updates(c.get("podSetUpdates"))))
    return tuple(out)


def _strings(raw: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in raw.items()} if isinstance(raw, Mapping) else {}


def _pod_set_updates(raw: Any) -> tuple[PodSetUpdate, ...]:
    return tuple(PodSetUpdate(str(u.get("name") or ""), _strings(u.get("annotations")), _strings(u.get("labels")),
                              _strings(u.get("nodeSelector")),
                              tuple(t for t in u.get("tolerations") or () if isinstance(t, Mapping)))
                 for u in raw or () if isinstance(u, Mapping)) if isinstance(raw, list) else ()


def _admission(raw: Any, source: Source | None, obj: Any) -> Admission | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping) or not isinstance(raw.get("podSetAssignments") or [], list):
        raise InputError("must be an object with a list of podSetAssignments", source=source, obj=obj,
                         field="status.admission")
    assignments = []
    for i, psa in enumerate(raw.get("podSetAssignments") or ()):
        if not isinstance(psa, Mapping) or not isinstance(psa.get("resourceUsage") or {}, Mapping) \
                or not isinstance(psa.get("flavors") or {}, Mapping):
            raise InputError("must be an object with resourceUsage and flavors mappings", source=source, obj=obj,
                             field=f"status.admission.podSetAssignments[{i}]")
        usage = {}
        for name, q in (psa.get("resourceUsage") or {}).items():
            try:
                usage[str(name)] = quantity.parse(q)
            except quantity.QuantityError as e:
                raise InputError(str(e), source=source, obj=obj,
                                 field=f"status.admission.podSetAssignments[{i}].resourceUsage.{name}") from None
        count = psa.get("count")
        stored = psa.get("topologyAssignment")
        topology = None if stored is None else internal_from(
            stored, source, obj, f"status.admission.podSetAssignments[{i}].topologyAssignment")
        delayed = psa.get("delayedTopologyRequest")
        assignments.append(PodSetAssignment(str(psa.get("name") or DEFAULT_POD_SET_NAME),
                                            {str(k): str(v) for k, v in (psa.get("flavors") or {}).items()},
                                            usage, int(count) if count is not None else None, topology,
                                            stored if topology is not None else None,
                                            str(delayed) if delayed is not None else None))
    return Admission(str(raw.get("clusterQueue") or ""), tuple(assignments))


# Workloads parsed, by the identity of the object read (bounded): objects read are never changed
# in place (a change is a copy), and the suggestions' verifying passes read every object again.
_PARSED: dict[int, tuple[Any, Source | None, str, WorkloadObject, tuple[str, ...]]] = {}
PARSED_MAX = 65536


def parse_workload(obj: dict[str, Any], source: Source | None = None, *, validate: str = "strict",
                   warnings: list[str] | None = None) -> WorkloadObject:
    """The Workload as stored, parsed once per object read (with the warnings it gave)."""
    hit = _PARSED.get(id(obj))
    if hit is not None and hit[0] is obj and hit[1] == source and hit[2] == validate:
        if warnings is not None:
            warnings.extend(hit[4])
        return hit[3]
    given: list[str] = []
    out = _parse_workload(obj, source, validate, given)
    if warnings is not None:
        warnings.extend(given)
    if len(_PARSED) >= PARSED_MAX:
        _PARSED.clear()
    _PARSED[id(obj)] = (obj, source, validate, out, tuple(given))
    return out


def _parse_workload(obj: dict[str, Any], source: Source | None, validate: str, warnings: list[str]) -> WorkloadObject:
    stored = schema.store(obj, schema.WORKLOAD, WORKLOAD, source, validate, warnings)
    spec = stored.get("spec") or {}
    for i, ps in enumerate(spec.get("podSets") or ()):
        check_pod_spec((ps.get("template") or {}).get("spec") or {}, source, obj, f"spec.podSets[{i}].template.spec")
    status = stored.get("status") or {}
    return WorkloadObject(
        meta=object_meta(stored, source),
        spec=WorkloadSpec(queue_name=str(spec.get("queueName") or ""), pod_sets=parse_pod_sets(spec.get("podSets")),
                          priority=spec.get("priority"), priority_class=_priority_class(spec.get("priorityClassRef")),
                          active=spec.get("active", True) is not False),
        conditions=_conditions(status.get("conditions"), source, obj),
        admission=_admission(status.get("admission"), source, obj), source=source,
        admission_checks=_admission_checks(status.get("admissionChecks"), source, obj),
        requeue_state=_requeue_state(status.get("requeueState"), source, obj),
        reclaimable_pods=_reclaimable_pods(status.get("reclaimablePods")))
