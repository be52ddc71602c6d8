"""The scheduler's own last word on a pod, for a user who cannot read the whole cluster."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Iterable, Optional

from kexplain.explain.pod_events import age, event_count, last_seen, newest, of_pod
from kexplain.explain.event_facts import Namespace, concern, pre_filter_concern
from kexplain.explain.fit_message import parse
from kexplain.features import KubeVersion
from kexplain.load.live import Refusal, pod_scheduled_condition
from kexplain.model.pod import PodInfo

Obj = dict[str, Any]

FAILED_SCHEDULING = "FailedScheduling"
SCHEDULING_GATED = "SchedulingGated"
# The verdicts the scheduler's word can give; "Pending": it has not reported on the pod yet.
UNSCHEDULABLE, GATED, SCHEDULED, PENDING = "Unschedulable", "Gated", "Scheduled", "Pending"


@dataclass(frozen=True)
class SchedulerWord:
    """What the scheduler last said of a pod and where that was read."""

    status: str                    # UNSCHEDULABLE, GATED, SCHEDULED or PENDING
    message: str = ""
    source: str = "none"           # "event", "condition" or "none"
    reason: str = ""               # the event's or the condition's reason
    count: Optional[int] = None    # how often the event was seen
    first_seen: Optional[str] = None
    last_seen: Optional[str] = None
    age_seconds: Optional[int] = None     # since last_seen, at `now`

    def to_json(self) -> Obj:
        return {"status": self.status, "message": self.message, "source": self.source, "reason": self.reason,
                "count": self.count, "firstSeen": self.first_seen, "lastSeen": self.last_seen,
                "ageSeconds": self.age_seconds}


@dataclass(frozen=True)
class EventAnswer:
    """A pod explained without the cluster: the scheduler's word and the refused reads."""

    pod: Obj
    word: SchedulerWord
    refusals: tuple[Refusal, ...] = ()
    details: Obj = field(default_factory=dict)     # the message taken apart (`taken_apart`)
    per_node: Optional[Obj] = None                 # with the nodes readable (`kexplain.explain.partial`)
    gates: tuple[Obj, ...] = ()                    # the PreEnqueue plugins holding a pod with no FailedScheduling
    autoscaler: tuple[Obj, ...] = ()               # the Cluster Autoscaler's events, taken apart

    def to_json(self) -> Obj:
        return {"scheduler": self.word.to_json(), "message": self.details or None, "perNode": self.per_node,
                "preEnqueue": list(self.gates), "autoscaler": list(self.autoscaler),
                "refused": [r.to_json() for r in self.refusals]}


def answer(pod: Obj, events: Iterable[Obj], objects: Iterable[Obj], refusals: tuple[Refusal, ...],
           kube: KubeVersion, now: datetime, per_node: Optional[Callable[[Obj], Optional[Obj]]] = None,
           gating: Optional[Callable[[Obj], list[Obj]]] = None,
           autoscaler: Optional[Callable[[Obj], Iterable[Obj]]] = None) -> EventAnswer:
    """The pod explained by the scheduler's word, taken apart against its spec and the readable objects."""
    events = list(events)
    word = scheduler_word(pod, events, now)
    details = taken_apart(word.message, pod, objects, kube) if word.status == UNSCHEDULABLE else {}
    nodes = per_node(pod) if per_node is not None and word.status in (UNSCHEDULABLE, PENDING) else None
    gates = tuple(gating(pod)) if gating is not None and word.source != "event" and word.status != SCHEDULED else ()
    scaler = tuple(autoscaler(pod)) if autoscaler is not None else ()
    return EventAnswer(pod, word, refusals, details, nodes, gates, scaler)


def taken_apart(message: str, pod: Obj, objects: Iterable[Obj], kube: KubeVersion) -> Obj:
    """The message's parts, one row per reason with the pod's side; `parsed` False for another message."""
    parsed = parse(message, kube)
    if parsed is None:
        return {"parsed": False, "kubernetesVersion": kube.minor}
    info = PodInfo(pod)
    ns = Namespace.of(objects, info.namespace)
    rows = []
    for entry in parsed.filters.entries:
        rows.append({**entry.to_json(), **concern(entry, info, ns).to_json()})
    pre = None
    if parsed.filters.text:
        pre = {"message": parsed.filters.text, "plugin": parsed.filters.text_plugin, **dict(parsed.filters.parts),
               **pre_filter_concern(parsed.filters.text_plugin, info, ns).to_json()}
    preemption = parsed.preemption.to_json() if parsed.preemption is not None else None
    return {"parsed": True, "kubernetesVersion": kube.minor, "nodes": parsed.filters.nodes, "reasons": rows,
            "preFilter": pre, "postFilter": [{"reason": t, "plugin": p} for t, p in parsed.post_filter],
            "preemption": preemption, "truncated": parsed.truncated}


def scheduler_word(pod: Obj, events: Iterable[Obj], now: datetime) -> SchedulerWord:
    """The scheduler's last word on `pod`: bound, gated, its newest FailedScheduling event, or PodScheduled."""
    if (pod.get("spec") or {}).get("nodeName"):
        return SchedulerWord(SCHEDULED, f"bound to {pod['spec']['nodeName']}", "pod", "Scheduled")
    cond = pod_scheduled_condition(pod) or {}
    if cond.get("reason") == SCHEDULING_GATED:
        return SchedulerWord(GATED, cond.get("message") or "", "condition", SCHEDULING_GATED,
                             last_seen=cond.get("lastTransitionTime"),
                             age_seconds=age(cond.get("lastTransitionTime"), now))
    found = newest(e for e in events if e.get("reason") == FAILED_SCHEDULING and of_pod(e, pod))
    if found is not None:
        last = last_seen(found)
        return SchedulerWord(UNSCHEDULABLE, found.get("message") or found.get("note") or "", "event",
                             FAILED_SCHEDULING, event_count(found), found.get("firstTimestamp") or found.get("eventTime"),
                             last, age(last, now))
    if cond.get("status") == "False":
        return SchedulerWord(UNSCHEDULABLE, cond.get("message") or "", "condition", cond.get("reason") or "",
                             last_seen=cond.get("lastTransitionTime"),
                             age_seconds=age(cond.get("lastTransitionTime"), now))
    return SchedulerWord(PENDING, "", "none")


def age_text(seconds: Optional[int]) -> str:
    """`5s`, `3m`, `2h10m`, `4d`: as kubectl shows ages."""
    if seconds is None:
        return "unknown"
    if seconds < 120:
        return f"{seconds}s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes}m"
    hours = minutes // 60
    if hours < 48:
        return f"{hours}h{minutes % 60}m" if minutes % 60 and hours < 8 else f"{hours}h"
    return f"{hours // 24}d"
