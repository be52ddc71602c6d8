"""Why a pod was removed (`kexplain pod NAME`, `kexplain POD.yaml`): the component its status
names (the kubelet's `status.reason: Evicted`, or the `DisruptionTarget` condition the kubelet, the
Eviction API, the taint eviction controller, the scheduler's preemption or PodGC set before they
remove it), its reason and message, and the kubelet's message taken apart (`kubelet.message.parse`):
the starved resource and its signals, the threshold, what was available, each container's usage
against its request. Read from the pod alone, as stored; never prints."""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Optional, Sequence

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


# Who asked for a removal, by the events it writes on the pod (its recorder's source component, the
# event's reason): the component the DisruptionTarget condition names acted for it. Karpenter's
# terminator (sigs.k8s.io/karpenter v1.13.0 pkg/controllers/node/termination/terminator/events):
# `Evicted` "Evicted pod: REASON" once the Eviction API took the eviction, REASON the NodeClaim's
# DisruptionReason condition ("Forceful Termination" without one); `Disrupted` when it deleted the
# pod at the node's terminationGracePeriod, past its PDBs and do-not-disrupt.
ASKED_BY: dict[tuple[str, str], str] = {
    ("karpenter", "Evicted"): "Karpenter",
    ("karpenter", "Disrupted"): "Karpenter",
}
EVICTED_POD = "Evicted pod: "
# The node's side, by the same key: its disruption decision (pkg/controllers/disruption/events
# Terminating: "Disrupting Node: REASON"), the NodeClaim's condition and the node's taint.
NODE_DECISION = ("karpenter", "DisruptionTerminating")
DISRUPTION_REASON_CONDITION = "DisruptionReason"
DISRUPTED_TAINT = "karpenter.sh/disrupted"
# Karpenter's disruption reasons and the methods that act for each, in its order (v1.13.0).
METHODS_OF_REASON: dict[str, tuple[str, ...]] = {
    "Empty": ("Emptiness",),
    "Drifted": ("StaticDrift", "Drift"),
    "Underutilized": ("MultiNodeConsolidation", "SingleNodeConsolidation"),
}


def _source(event: Mapping[str, Any]) -> str:
    source = event.get("source")
    return str((source.get("component") if isinstance(source, Mapping) else None)
               or event.get("reportingComponent") or "")


def _event_json(event: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: event[k] for k in ("type", "reason", "message", "count") if event.get(k)}
    seen = event.get("lastTimestamp") or event.get("eventTime")
    return {**out, **({"lastSeen": seen} if seen else {})}


def asked_by(events: Sequence[Mapping[str, Any]], node_events: Sequence[Mapping[str, Any]] = (),
             node_claim: Optional[Mapping[str, Any]] = None, node: Optional[Mapping[str, Any]] = None
             ) -> Optional[dict[str, Any]]:
    """Who asked for the pod's removal, from its events (`ASKED_BY`; the latest wins), with the
    node's side when given: its decision event, its NodeClaim's DisruptionReason condition, its
    `karpenter.sh/disrupted` taint; the disruption reason and the methods that act for it. None
    when no event names a component."""
    mine = [e for e in events if (_source(e), e.get("reason")) in ASKED_BY]
    if not mine:
        return None
    event = max(mine, key=lambda e: str(e.get("lastTimestamp") or e.get("eventTime") or ""))
    out: dict[str, Any] = {"by": ASKED_BY[(_source(event), str(event.get("reason")))], "event": _event_json(event)}
    message = str(event.get("message") or "")
    reason = message[len(EVICTED_POD):] if message.startswith(EVICTED_POD) else ""
    decision = [e for e in node_events if (_source(e), e.get("reason")) == NODE_DECISION]
    if decision:
        out["nodeDecision"] = _event_json(max(decision, key=lambda e: str(e.get("lastTimestamp") or "")))
    if node_claim is not None:
        conds = (node_claim.get("status") or {}).get("conditions") or ()
        cond = next((c for c in conds if isinstance(c, Mapping) and c.get("type") == DISRUPTION_REASON_CONDITION),
                    None)
        out["nodeClaim"] = {"name": (node_claim.get("metadata") or {}).get("name", ""),
                            **({"condition": {k: cond[k] for k in ("type", "status", "reason", "message")
                                              if cond.get(k)}} if cond else {})}
        if cond is not None and cond.get("status") == "True" and not reason:
            reason = str(cond.get("reason") or "")
    if node is not None:
        taint = next((t for t in (node.get("spec") or {}).get("taints") or ()
                      if isinstance(t, Mapping) and t.get("key") == DISRUPTED_TAINT), None)
        if taint is not None:
            out["taint"] = f"{DISRUPTED_TAINT}:{taint.get('effect', '')}"
    if reason:
        out["disruptionReason"] = reason
        if reason in METHODS_OF_REASON:
            out["methods"] = list(METHODS_OF_REASON[reason])
    return out


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


def evicted(pod: Mapping[str, Any], node: Optional[str] = None, *, events: Sequence[Mapping[str, Any]] = (),
            node_events: Sequence[Mapping[str, Any]] = (), node_claim: Optional[Mapping[str, Any]] = None,
            node_obj: Optional[Mapping[str, Any]] = None) -> Optional[dict[str, Any]]:
    """Who removed the pod and why, from its status (the `eviction` key of a trace); None when
    nothing in its status says it was removed. `node`: where it ran, when the pod no longer
    names it (a bound pod explained as pending). `events`: the pod's, which name who asked for
    the removal (`asked_by`, with the node's events, NodeClaim and Node object when read)."""
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
    asked = asked_by(events, node_events, node_claim, node_obj)
    if asked is not None:
        out["askedBy"] = asked
    return out


def evicted_among(pod: Mapping[str, Any], objects: Iterable[tuple[Mapping[str, Any], Any]],
                  node: Optional[str] = None) -> Optional[dict[str, Any]]:
    """`evicted` with what the cluster's objects (pairs of object and source: files, a snapshot,
    a live read) hold of the removal: the pod's events, its node's (kept in "default"), its
    NodeClaim, its Node; the node the pod names, else `node`, else the bound copy of it the objects
    hold. One pass over the objects, and none for a pod its status does not say was removed."""
    if evicted(pod, node) is None:
        return None
    given = node        # the document's node: as `evicted` says it; the one found serves the node's side only
    meta = pod.get("metadata") or {}
    ns, name, uid = meta.get("namespace") or "default", meta.get("name"), meta.get("uid")
    node = (pod.get("spec") or {}).get("nodeName") or node
    events: list[Mapping[str, Any]] = []
    others: list[Mapping[str, Any]] = []       # Events, NodeClaims and Nodes, once the node is known
    for obj, _ in objects:
        kind = obj.get("kind")
        if kind == "Event":
            involved = obj.get("involvedObject") or {}
            if involved.get("kind") == "Pod" and involved.get("name") == name \
                    and (involved.get("namespace") or "default") == ns:
                events.append(obj)
            else:
                others.append(obj)
        elif kind in ("Node", "NodeClaim"):
            others.append(obj)
        elif kind == "Pod" and node is None and uid and (obj.get("metadata") or {}).get("uid") == uid:
            node = (obj.get("spec") or {}).get("nodeName") or None
    node_events = [o for o in others if o.get("kind") == "Event"
                   and (o.get("involvedObject") or {}).get("kind") == "Node"
                   and (o.get("involvedObject") or {}).get("name") == node]
    node_obj = next((o for o in others if o.get("kind") == "Node" and (o.get("metadata") or {}).get("name") == node),
                    None) if node else None
    claim = next((o for o in others if o.get("kind") == "NodeClaim" and (o.get("status") or {}).get("nodeName") == node),
                 None) if node else None
    return evicted(pod, given, events=events, node_events=node_events, node_claim=claim, node_obj=node_obj)
