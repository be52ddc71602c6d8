"""The answer for a user who cannot read the whole cluster: the scheduler's own last word on a
pod (its newest FailedScheduling event, else its PodScheduled condition), with the reads RBAC
refused and what each would have added.

Nothing here simulates: the verdict is the scheduler's, and the output says where it comes
from (the event's age and count). `kexplain.render.live` shows it; `to_json` is the `-o json`
document's `fromEvent` key.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Iterable, Optional

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

    def to_json(self) -> Obj:
        return {"scheduler": self.word.to_json(), "message": self.details or None, "perNode": self.per_node,
                "refused": [r.to_json() for r in self.refusals]}


def answer(pod: Obj, events: Iterable[Obj], objects: Iterable[Obj], refusals: tuple[Refusal, ...],
           kube: KubeVersion, now: datetime, per_node: Optional[Callable[[Obj], Optional[Obj]]] = None) -> EventAnswer:
    """The pod explained by the scheduler's word, its message taken apart against the pod's
    spec and the namespace's readable objects; with `per_node` (the nodes were read), what its
    spec allows on each node, for a pod the scheduler has not bound."""
    word = scheduler_word(pod, events, now)
    details = taken_apart(word.message, pod, objects, kube) if word.status == UNSCHEDULABLE else {}
    nodes = per_node(pod) if per_node is not None and word.status in (UNSCHEDULABLE, PENDING) else None
    return EventAnswer(pod, word, refusals, details, nodes)


def taken_apart(message: str, pod: Obj, objects: Iterable[Obj], kube: KubeVersion) -> Obj:
    """The message's parts, one row per reason with its plugin, its node count and the pod's
    side (`kexplain.explain.event_facts`); `parsed` False, and nothing else, for a message
    that is not a FailedScheduling message of `kube`'s minor."""
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
    """The scheduler's last word on `pod`: bound, gated, or its newest FailedScheduling event
    (of this pod: same uid when both say one), else its PodScheduled condition."""
    if (pod.get("spec") or {}).get("nodeName"):
        return SchedulerWord(SCHEDULED, f"bound to {pod['spec']['nodeName']}", "pod", "Scheduled")
    cond = pod_scheduled_condition(pod) or {}
    if cond.get("reason") == SCHEDULING_GATED:
        return SchedulerWord(GATED, cond.get("message") or "", "condition", SCHEDULING_GATED,
                             last_seen=cond.get("lastTransitionTime"),
                             age_seconds=_age(cond.get("lastTransitionTime"), now))
    newest = _newest(e for e in events if e.get("reason") == FAILED_SCHEDULING and _of_pod(e, pod))
    if newest is not None:
        last = _last_seen(newest)
        series = newest.get("series") or {}
        count = series.get("count") or newest.get("count") or 1
        return SchedulerWord(UNSCHEDULABLE, newest.get("message") or newest.get("note") or "", "event",
                             FAILED_SCHEDULING, int(count), newest.get("firstTimestamp") or newest.get("eventTime"),
                             last, _age(last, now))
    if cond.get("status") == "False":
        return SchedulerWord(UNSCHEDULABLE, cond.get("message") or "", "condition", cond.get("reason") or "",
                             last_seen=cond.get("lastTransitionTime"),
                             age_seconds=_age(cond.get("lastTransitionTime"), now))
    return SchedulerWord(PENDING, "", "none")


def _of_pod(event: Obj, pod: Obj) -> bool:
    involved = event.get("involvedObject") or event.get("regarding") or {}
    meta = pod.get("metadata") or {}
    if involved.get("kind", "Pod") != "Pod" or involved.get("name") != meta.get("name"):
        return False
    return not (involved.get("uid") and meta.get("uid")) or involved["uid"] == meta["uid"]


def _last_seen(event: Obj) -> Optional[str]:
    series = event.get("series") or {}
    return (series.get("lastObservedTime") or event.get("lastTimestamp") or event.get("eventTime")
            or (event.get("metadata") or {}).get("creationTimestamp"))


def _newest(events: Iterable[Obj]) -> Optional[Obj]:
    found = [(_parse_time(_last_seen(e)) or datetime.min.replace(tzinfo=None), n, e) for n, e in enumerate(events)]
    if not found:
        return None
    return max(found, key=lambda t: (_naive(t[0]), t[1]))[2]


def _naive(t: datetime) -> datetime:
    return t.replace(tzinfo=None)


def _parse_time(value: Any) -> Optional[datetime]:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _age(value: Any, now: datetime) -> Optional[int]:
    when = _parse_time(value)
    if when is None or when.tzinfo is None:
        return None
    return max(0, int((now - when).total_seconds()))


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
