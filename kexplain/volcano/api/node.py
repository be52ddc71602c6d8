"""Volcano's NodeInfo (api/node_info.go): a node's idle, used, releasing and pipelined resources and
the tasks on it, kept as the session allocates, pipelines and evicts."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kexplain.volcano.api.resource import Resource
from kexplain.volcano.api.task import TaskInfo, TaskStatus


@dataclass(eq=False)
class NodeInfo:
    name: str
    node: dict[str, Any] | None
    allocatable: Resource = field(default_factory=Resource)
    idle: Resource = field(default_factory=Resource)
    used: Resource = field(default_factory=Resource)
    releasing: Resource = field(default_factory=Resource)
    pipelined: Resource = field(default_factory=Resource)
    tasks: dict[str, TaskInfo] = field(default_factory=dict)
    version: int = 0          # bumped by every task added or removed (what `plugins/memo` keys on)
    stamp: object = field(default_factory=object, repr=False)     # a new one at every bump: hashed by identity

    @classmethod
    def of(cls, node: dict[str, Any]) -> "NodeInfo":
        """NewNodeInfo (no oversubscription, no devices)."""
        alloc = (node.get("status") or {}).get("allocatable") or (node.get("status") or {}).get("capacity") or {}
        return cls((node.get("metadata") or {}).get("name", ""), node, Resource.of(alloc), Resource.of(alloc))

    def ready(self) -> bool:
        return self.node is not None

    def future_idle(self) -> Resource:
        return self.idle.clone().add(self.releasing).sub(self.pipelined)

    def add_task(self, t: TaskInfo) -> None:
        """AddTask: the task's resources taken from idle by its status (a copy of the task kept)."""
        self.version += 1
        self.stamp = object()
        if self.node is not None:
            if t.status == TaskStatus.RELEASING:
                self.idle.sub(t.resreq)
                self.releasing.add(t.resreq)
                self.used.add(t.resreq)
            elif t.status == TaskStatus.PIPELINED:
                self.pipelined.add(t.resreq)
            else:
                self.idle.sub(t.resreq)
                self.used.add(t.resreq)
        t.node_name = self.name
        self.tasks[t.uid] = _Held(t.status, t)      # type: ignore[assignment]

    def remove_task(self, t: TaskInfo) -> None:
        self.version += 1
        self.stamp = object()
        held = self.tasks.pop(t.uid, None)
        if held is None or self.node is None:
            return
        status = held.status      # type: ignore[attr-defined]
        if status == TaskStatus.RELEASING:
            self.releasing.sub(t.resreq)
            self.idle.add(t.resreq)
            self.used.sub(t.resreq)
        elif status == TaskStatus.PIPELINED:
            self.pipelined.sub(t.resreq)
        else:
            self.idle.add(t.resreq)
            self.used.sub(t.resreq)

    def update_task(self, t: TaskInfo) -> None:
        self.remove_task(t)
        self.add_task(t)


@dataclass
class _Held:
    """A task as the node holds it: the status it was added with (Go keeps a clone)."""

    status: TaskStatus
    task: TaskInfo
