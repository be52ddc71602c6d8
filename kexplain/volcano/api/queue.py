"""Volcano's QueueInfo (api/queue_info.go) over a Queue as the queue controller leaves it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(eq=False)
class QueueInfo:
    name: str
    obj: dict[str, Any]
    weight: int
    state: str
    parent: str
    priority: int
    capability: dict[str, Any]
    guarantee: dict[str, Any]
    deserved: dict[str, Any]
    reclaimable: bool
    creation: str
    allocated_before: dict[str, Any] = field(default_factory=dict)

    @property
    def uid(self) -> str:
        return self.name


def queue_of(obj: dict[str, Any]) -> QueueInfo:
    """A Queue with the defaults its webhook and controller give (weight 1, reclaimable, Open)."""
    meta = obj.get("metadata") or {}
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    weight = spec.get("weight")
    return QueueInfo(
        name=meta.get("name", ""), obj=obj, weight=weight if isinstance(weight, int) and weight > 0 else 1,
        state=status.get("state") or "Open", parent=spec.get("parent") or "",
        priority=spec.get("priority") if isinstance(spec.get("priority"), int) else 0,
        capability=dict(spec.get("capability") or {}), guarantee=dict((spec.get("guarantee") or {}).get("resource") or {}),
        deserved=dict(spec.get("deserved") or {}),
        reclaimable=spec.get("reclaimable") is not False, creation=str(meta.get("creationTimestamp") or ""),
        allocated_before=dict(status.get("allocated") or {}))


def default_queue(name: str) -> QueueInfo:
    """The `root` and `default` queues the scheduler cache creates at start."""
    return queue_of({"metadata": {"name": name}, "spec": {"weight": 1, "reclaimable": True}})
