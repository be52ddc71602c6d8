"""Why a pod was removed (`kexplain pod NAME`, `kexplain POD.yaml`): the component its status
names (the kubelet's `status.reason: Evicted`, or the `DisruptionTarget` condition the kubelet, the
Eviction API, the taint eviction controller, the scheduler's preemption or PodGC set before they
remove it), its reason and message, and the kubelet's message taken apart (`kubelet.message.parse`):
the starved resource and its signals, the threshold, what was available, each container's usage
against its request. Read from the pod alone, as stored; never prints."""
from __future__ import annotations

from typing import Any, Mapping, Optional

from kexplain.apimachinery.quantity import BINARY_SI, QuantityError, must_parse, new_quantity
from kexplain.eviction.kubelet import message as kubelet_message
from kexplain.eviction.kubelet import thresholds as th

DISRUPTION_TARGET = "DisruptionTarget"
EVICTED = kubelet_message.REASON

# The DisruptionTarget condition's reasons (k8s.io/api/core/v1 PodReason*): who set it, and why.
TERMINATION_BY_KUBELET = "TerminationByKubelet"
EVICTION_BY_EVICTION_API = "EvictionByEvictionAPI"
DELETION_BY_TAINT_MANAGER = "DeletionByTaintManager"
PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"
DELETION_BY_POD_GC = "DeletionByPodGC"
# who set each reason (the component, as a value: the renderer says it in words)
BY_REASON: dict[str, str] = {
    TERMINATION_BY_KUBELET: "kubelet",
    EVICTION_BY_EVICTION_API: "Eviction API",
    DELETION_BY_TAINT_MANAGER: "taint eviction controller",
    PREEMPTION_BY_SCHEDULER: "kube-scheduler",
    DELETION_BY_POD_GC: "pod garbage collector",
}


def signals_of(resource: str) -> list[str]:
    """The eviction signals whose pressure starves `resource` (the kubelet's signal to resource map)."""
    return [s for s, (_, r) in th.SIGNALS.items() if r == resource]


def node_condition_of(resource: str) -> Optional[str]:
    """The node condition the kubelet reports while a signal of `resource` is met."""
    return next((c for c, r in th.SIGNALS.values() if r == resource), None)


def _condition(pod: Mapping[str, Any]) -> Optional[Mapping[str, Any]]:
    """The pod's DisruptionTarget condition when it is True."""
    for c in (pod.get("status") or {}).get("conditions") or ():
        if isinstance(c, Mapping) and c.get("type") == DISRUPTION_TARGET and c.get("status") == "True":
            return c
    return None


def _over(usage: str, request: str) -> Optional[str]:
    """How far a usage exceeds its request, as a quantity ("" when the figures do not parse)."""
    try:
        return str(new_quantity(must_parse(usage).value - must_parse(request).value, BINARY_SI))
    except (QuantityError, ValueError):
        return None


def kubelet_part(text: str) -> Optional[dict[str, Any]]:
    """The kubelet's eviction message taken apart; None when it is not the kubelet's."""
    parsed = kubelet_message.parse(text)
    if parsed.kind == "unknown":
        return None
    out: dict[str, Any] = {"kind": parsed.kind, "resource": parsed.resource,
                           "signals": signals_of(parsed.resource)}
    condition = node_condition_of(parsed.resource)
    if condition is not None:
        out["nodeCondition"] = condition
    if parsed.threshold:
        out["threshold"], out["available"] = parsed.threshold, parsed.available
    usages = []
    for u in parsed.usages:
        row = {"kind": u.kind, "name": u.name, "usage": u.usage, "request": u.request}
        over = _over(u.usage, u.request)
        if over is not None:
            row["overRequest"] = over
        usages.append(row)
    if usages:
        out["usages"] = usages
    if parsed.details:
        out.update(parsed.details)
    return out


def evicted(pod: Mapping[str, Any], node: Optional[str] = None) -> Optional[dict[str, Any]]:
    """Who removed the pod and why, from its status (the `eviction` key of a trace); None when
    nothing in its status says it was removed. `node`: where it ran, when the pod no longer
    names it (a bound pod explained as pending)."""
    status = pod.get("status") if isinstance(pod.get("status"), Mapping) else {}
    condition = _condition(pod)
    if condition is None and status.get("reason") != EVICTED:
        return None
    reason = str(condition.get("reason") or "") if condition is not None else ""
    cause = reason or EVICTED       # the condition's reason; the kubelet's status.reason without one
    out: dict[str, Any] = {
        "by": BY_REASON.get(reason) or ("kubelet" if status.get("reason") == EVICTED else ""), "cause": cause}
    where = node or (pod.get("spec") or {}).get("nodeName")
    if where:
        out["node"] = where
    for key in ("phase", "reason", "message"):
        if status.get(key):
            out[key] = status[key]
    if condition is not None:
        out["condition"] = {k: condition[k] for k in ("type", "reason", "message", "lastTransitionTime")
                            if condition.get(k)}
    text = status.get("message") if status.get("reason") == EVICTED else None
    if not text and reason == TERMINATION_BY_KUBELET:
        text = condition.get("message") if condition is not None else None
    part = kubelet_part(str(text)) if text else None
    if part is not None:
        out["kubelet"] = part
    return out
