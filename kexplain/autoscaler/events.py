"""The Cluster Autoscaler's events about a pod (`NotTriggerScaleUp`, `TriggeredScaleUp`), read back
from a live cluster and taken apart as the scheduler's are, in the words of `autoscaler.status`;
`explain.from_event.answer` takes `autoscaler_events` from its caller (this layer is above it)."""
from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Iterable, Optional

from kexplain.autoscaler import status
from kexplain.explain.event_facts import Namespace, concern
from kexplain.explain.fit_message import Entry, Reason, filter_reasons, parse_counts
from kexplain.explain.pod_events import age, event_count, last_seen, newest, of_pod
from kexplain.features import KubeVersion
from kexplain.model.pod import PodInfo

Obj = dict[str, Any]

AUTOSCALER = "ClusterAutoscaler"
_MARK = "\x00\x00"        # a part that varies (fit_message's template mark)
# CA's own reasons for a node group it skipped or rejected, with what each means.
OWN_REASONS: dict[str, str] = {
    status.MAX_LIMIT_REACHED: "the node group is at its maximum size",
    status.BACKOFF: "a recent scale-up of the group failed; CA waits before trying it again",
    status.NOT_READY: "the node group is not ready (nodes still coming up or unregistered)",
    status.ATOMIC_LIMIT: "scaling the group all at once would pass --max-nodes-total",
    status.QUOTA_EXCEEDED.format(quota=_MARK, resources=_MARK): "a cluster-wide resource limit (--cores-total, "
                                                                "--memory-total, or a quota) would be passed",
    status.ALL_OR_NOTHING: "the group could not take every pod of the all-or-nothing set",
    status.OPTIONS_FILTERED_OUT: "the expander set the group aside",
    status.EXECUTION_FAILED: "the cloud provider failed to add nodes",
}
_QUOTA_PARTS = ("quota", "resources")
_SCALE_UP = re.compile(r"\{(\S+) (\d+)->(\d+) \(max: (\d+)\)\}")


def own_reasons() -> tuple[Reason, ...]:
    return tuple(Reason(AUTOSCALER, text, _QUOTA_PARTS if _MARK in text else ()) for text in OWN_REASONS)


def autoscaler_events(pod: Obj, events: Iterable[Obj], objects: Iterable[Obj], kube: KubeVersion,
                      now: datetime) -> list[Obj]:
    """The newest NotTriggerScaleUp and TriggeredScaleUp event of `pod`, each taken apart."""
    mine = [e for e in events if of_pod(e, pod)]
    out = []
    info: Optional[PodInfo] = None
    for reason in (status.NOT_TRIGGERED, status.TRIGGERED):
        found = newest(e for e in mine if e.get("reason") == reason)
        if found is None:
            continue
        info = info or PodInfo(pod)
        message = found.get("message") or found.get("note") or ""
        seen = last_seen(found)
        doc: Obj = {"reason": reason, "message": message, "count": event_count(found), "lastSeen": seen,
                    "ageSeconds": age(seen, now)}
        if reason == status.NOT_TRIGGERED:
            doc.update(not_triggered(message, info, Namespace.of(objects, info.namespace), kube))
        else:
            doc.update(triggered(message))
        out.append(doc)
    return out


def not_triggered(message: str, pod: PodInfo, ns: Namespace, kube: KubeVersion) -> Obj:
    """`parsed`, and one row per reason: how many node groups, the plugin (or CA itself), what
    it means or the pod's side of it."""
    if not message.startswith(status.NOT_TRIGGERED_PREFIX):
        return {"parsed": False}
    body = message[len(status.NOT_TRIGGERED_PREFIX):]
    if body == status.MAX_TOTAL_NODES:
        return {"parsed": True, "maxTotalNodes": True, "groups": []}
    entries = parse_counts(body, (*own_reasons(), *filter_reasons(kube)))
    if entries is None:
        return {"parsed": False}
    return {"parsed": True, "maxTotalNodes": False, "groups": [_row(e, pod, ns) for e in entries]}


def _row(entry: Entry, pod: PodInfo, ns: Namespace) -> Obj:
    if entry.plugin == AUTOSCALER:
        template = next(t for t in OWN_REASONS if Reason(AUTOSCALER, t, _QUOTA_PARTS if _MARK in t else ())
                        .pattern.fullmatch(entry.text))
        return {**entry.to_json(), "podSide": OWN_REASONS[template], "fix": None, "needsNodes": False}
    return {**entry.to_json(), **concern(entry, pod, ns).to_json()}


def triggered(message: str) -> Obj:
    """The node groups CA scales up: group, current and new size, maximum."""
    if not message.startswith(status.TRIGGERED_PREFIX):
        return {"parsed": False}
    groups = [{"group": m[1], "from": int(m[2]), "to": int(m[3]), "max": int(m[4])}
              for m in _SCALE_UP.finditer(message[len(status.TRIGGERED_PREFIX):])]
    return {"parsed": bool(groups), "scaleUps": groups}
