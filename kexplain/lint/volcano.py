"""The checks of Volcano's lint rules (`lint/rules/volcano.py` declares them): a Volcano Job its job
webhook refuses, a Job or PodGroup whose queue the webhooks refuse (missing, not Open, `root`, not a
leaf), a job whose minResources exceed its queue's capability. A Job is read as Volcano's webhooks
and job controller leave it (`controllers.volcanojob`): its PodGroup's minResources are the
controller's. The queues are the set's and the pool's; with none of either the queue rules say
nothing (the cluster's queues are not known)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from kexplain.apimachinery import quantity
from kexplain.controllers.templates import mapping
from kexplain.controllers.volcanojob import check_decodes, is_volcano_job, pod_group, priority_values, queues_of
from kexplain.controllers.volcanojob_admission import (defaulted, pod_group_queue, pod_group_queue_refusal,
                                                       queue_message, queue_state, refusal)
from kexplain.errors import InputError
from kexplain.lint.documents import Document

JOB_REFUSED = "volcano-job-refused"
QUEUE = "volcano-queue"
OVER_CAPABILITY = "volcano-over-capability"
PODGROUP_API_VERSION = "scheduling.volcano.sh/v1beta1"


@dataclass(frozen=True)
class Problem:
    rule: str
    doc: Document
    message: str
    field: str
    details: dict[str, Any] = field(default_factory=dict)


def _scalar(name: str) -> bool:
    """A dimension api.NewResource keeps as a scalar (not a count quota, not `pods`, which the
    comparison ignores, nor a quota's `requests.` name)."""
    if name in ("cpu", "memory", "pods") or name.startswith(("count/", "requests.", "limits.")):
        return False
    return name == "ephemeral-storage" or name.startswith(("hugepages-", "attachable-volumes-")) or "/" in name


def _amount(name: str, raw: Any) -> int:
    """The dimension as api.Resource holds it: memory in bytes, the rest in thousandths."""
    value = quantity.parse(raw).value
    return quantity.value(value) if name == "memory" else quantity.milli_value(value)


def over_capability(min_resources: Mapping[str, Any], capability: Mapping[str, Any]) -> list[str]:
    """The dimensions of `min_resources` above the queue's capability, as the proportion plugin's
    realCapability bounds them (a capability's cpu or memory of zero or less is no bound, a dimension
    it does not name is none): cpu, memory, then the scalars by name."""
    out = []
    for name in ["cpu", "memory", *sorted(n for n in min_resources if _scalar(n))]:
        if name not in capability or name not in min_resources:
            continue
        if not (quantity.is_valid(capability[name]) and quantity.is_valid(min_resources[name])):
            continue
        limit, need = _amount(name, capability[name]), _amount(name, min_resources[name])
        if name in ("cpu", "memory") and limit <= 0:
            continue
        if need > 0 and need > limit:
            out.append(name)
    return out


@dataclass(frozen=True)
class _Known:
    queues: dict[str, Mapping[str, Any]]
    priorities: dict[str, int]
    namespaces: dict[str, Mapping[str, str]]


def _known(objs: list[dict[str, Any]], pool: list[dict[str, Any]]) -> _Known:
    """The queues, PriorityClasses and namespaces' annotations of the pool, the set's over them."""
    both = [*pool, *objs]
    namespaces = {str(mapping(o.get("metadata")).get("name")): mapping(mapping(o.get("metadata")).get("annotations"))
                  for o in both if o.get("kind") == "Namespace"}
    return _Known(queues_of(both), priority_values(both), namespaces)


def _capability(doc: Document, queue: str, min_resources: Mapping[str, Any], known: _Known,
                path: str) -> list[Problem]:
    capability = mapping(mapping(known.queues.get(queue, {}).get("spec")).get("capability"))
    over = over_capability(min_resources, capability) if capability else []
    if not over:
        return []
    sizes = ", ".join(f"{n} {quantity.text_of(min_resources[n])} > {quantity.text_of(capability[n])}" for n in over)
    words = "queue resource quota insufficient: " + ", ".join(f"insufficient {n}" for n in over)
    return [Problem(OVER_CAPABILITY, doc, f"its minResources exceed queue `{queue}`'s capability ({sizes}): "
                    f"Volcano never enqueues it (proportion: {words})", path,
                    {"queue": queue, "resources": over})]


def _job_problems(doc: Document, known: _Known | None) -> list[Problem]:
    """What the API server refuses of the Job's fields, or the job webhook's refusal (its queue checks
    apart, with the queues known); else, admitted, its PodGroup's minResources against its queue's
    capability."""
    try:
        check_decodes(doc.obj)
    except InputError as err:       # the API server refuses it before the webhook
        return [Problem(JOB_REFUSED, doc, err.message, err.field or "spec")]
    admitted = defaulted(doc.obj)
    said = refusal(admitted, None)
    out = [Problem(JOB_REFUSED, doc, said, "spec")] if said else []
    if known is None:
        return out
    queue = str(mapping(admitted.get("spec")).get("queue"))
    said = queue_message(queue, known.queues).strip()
    if said:
        out.append(Problem(QUEUE, doc, said, "spec.queue", {"queue": queue}))
    if out:
        return out
    group = pod_group(admitted, known.priorities)
    return _capability(doc, queue, group["spec"]["minResources"], known, "spec.minAvailable")


def _pod_group_problems(doc: Document, known: _Known) -> list[Problem]:
    namespace = str(mapping(doc.obj.get("metadata")).get("namespace") or "default")
    queue = pod_group_queue(doc.obj, known.namespaces.get(namespace, {}))
    said = pod_group_queue_refusal(queue, known.queues)
    if said:
        return [Problem(QUEUE, doc, said.strip(), "spec.queue", {"queue": queue})]
    if queue_state(known.queues.get(queue, {})) != "Open":
        return []
    return _capability(doc, queue, mapping(mapping(doc.obj.get("spec")).get("minResources")), known,
                       "spec.minResources")


def check_volcano(items: list[Document], pool: list[dict[str, Any]]) -> tuple[list[Problem], bool]:
    """The problems of the set's Volcano Jobs and PodGroups, with the set's and the pool's objects;
    and whether the queues were known (a Queue in either)."""
    objs = [d.obj for d in items if isinstance(d.obj, dict)]
    known = _known(objs, pool)
    with_queues = known if known.queues else None
    out: list[Problem] = []
    for doc in items:
        if is_volcano_job(doc.obj):
            out += _job_problems(doc, with_queues)
        elif isinstance(doc.obj, dict) and doc.obj.get("kind") == "PodGroup" and \
                doc.obj.get("apiVersion") == PODGROUP_API_VERSION and with_queues is not None:
            out += _pod_group_problems(doc, with_queues)
    return out, with_queues is not None
