"""A pod's events as the API server lists them (core/v1): which are the pod's, and how recent."""
from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable, Optional

Obj = dict[str, Any]


def of_pod(event: Obj, pod: Obj) -> bool:
    involved = event.get("involvedObject") or event.get("regarding") or {}
    meta = pod.get("metadata") or {}
    if involved.get("kind", "Pod") != "Pod" or involved.get("name") != meta.get("name"):
        return False
    return not (involved.get("uid") and meta.get("uid")) or involved["uid"] == meta["uid"]


def last_seen(event: Obj) -> Optional[str]:
    series = event.get("series") or {}
    return (series.get("lastObservedTime") or event.get("lastTimestamp") or event.get("eventTime")
            or (event.get("metadata") or {}).get("creationTimestamp"))


def newest(events: Iterable[Obj]) -> Optional[Obj]:
    found = [(parse_time(last_seen(e)) or datetime.min.replace(tzinfo=None), n, e) for n, e in enumerate(events)]
    if not found:
        return None
    return max(found, key=lambda t: (_naive(t[0]), t[1]))[2]


def _naive(t: datetime) -> datetime:
    return t.replace(tzinfo=None)


def parse_time(value: Any) -> Optional[datetime]:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def age(value: Any, now: datetime) -> Optional[int]:
    when = parse_time(value)
    if when is None or when.tzinfo is None:
        return None
    return max(0, int((now - when).total_seconds()))


def event_count(event: Obj) -> int:
    """How often it was seen: its series' count (events.k8s.io), else its count, else once."""
    series = event.get("series") or {}
    return int(series.get("count") or event.get("count") or 1)
