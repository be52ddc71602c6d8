"""Volcano's Statement (framework/statement.go): a job's allocations, pipelines and evictions made in the
session, then committed (bound, evicted) or discarded (undone, each task remembering where it went)."""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, TypeVar

from kexplain.volcano.api.node import NodeInfo
from kexplain.volcano.api.task import TaskInfo, TaskStatus
from kexplain.volcano.framework.session import Session

T = TypeVar("T")
EVICT, PIPELINE, ALLOCATE = "evict", "pipeline", "allocate"


@dataclass(eq=False)
class Statement:
    ssn: Session
    operations: list[tuple[str, TaskInfo, str]] = field(default_factory=list)

    def allocate(self, task: TaskInfo, node: NodeInfo) -> None:
        task.pod.setdefault("spec", {})
        self.ssn.allocate_task(task, node, TaskStatus.ALLOCATED)
        self.operations.append((ALLOCATE, task, ""))

    def pipeline(self, task: TaskInfo, node: NodeInfo, eviction_occurred: bool) -> None:
        task.eviction_occurred = eviction_occurred
        self.ssn.allocate_task(task, node, TaskStatus.PIPELINED)
        self.operations.append((PIPELINE, task, ""))

    def evict(self, task: TaskInfo, reason: str) -> None:
        job = self.ssn.jobs[task.job]
        job.update_status(task, TaskStatus.RELEASING)
        node = self.ssn.nodes.get(task.node_name)
        if node is not None:
            node.update_task(task)
        self.ssn._notify(task, False)
        self.operations.append((EVICT, task, reason))

    def discard(self) -> None:
        for name, task, _ in reversed(self.operations):
            task.generate_last_tx()
            if name == EVICT:
                self.ssn.jobs[task.job].update_status(task, TaskStatus.RUNNING)
                node = self.ssn.nodes.get(task.node_name)
                if node is not None:
                    node.update_task(task)
                self.ssn._notify(task, True)
            else:
                self.ssn.unallocate_task(task)
        self.operations = []

    def merge(self, other: "Statement") -> None:
        self.operations.extend(other.operations)
        other.operations = []

    def commit(self) -> None:
        pipelined = next((t.job for name, t, _ in self.operations if name == PIPELINE), "")
        for name, task, reason in self.operations:
            task.clear_last_tx()
            if name == EVICT:
                self.ssn.evicted_by(task, reason)
                if pipelined:       # (kexplain's record: whom preempt or reclaim evicted it for)
                    self.ssn.evicted_for[task.uid] = pipelined
            elif name == ALLOCATE:
                self.ssn.dispatch(task)
        self.operations = []


class PriorityQueue(Generic[T]):
    """util.PriorityQueue: the least item first by `less` (ties never reached: every order ends on a UID).
    With `key` (a sort key giving `less`'s order, None for an item it cannot order), a heap of
    (key, arrival) instead of a scan per pop: the same least item, the first come among equal keys as
    the scan finds it; an item without a key turns the queue back to the scan."""

    def __init__(self, less: Callable[[T, T], bool], items: Any = (),
                 key: Callable[[T], Any] | None = None) -> None:
        self.less = less
        self.items: list[T] = list(items)
        self._key = key
        self._heap: list[tuple[Any, int, T]] | None = None
        if key is not None:
            entries = [(key(item), i, item) for i, item in enumerate(self.items)]
            if all(e[0] is not None for e in entries):
                heapq.heapify(entries)
                self._heap, self._seq, self.items = entries, len(entries), []

    def push(self, item: T) -> None:
        if self._heap is not None:
            k = self._key(item)          # type: ignore[misc]
            if k is not None:
                heapq.heappush(self._heap, (k, self._seq, item))
                self._seq += 1
                return
            self.items = [e[2] for e in sorted(self._heap, key=lambda e: e[1])]
            self._heap = None
        self.items.append(item)

    def empty(self) -> bool:
        return not (self._heap if self._heap is not None else self.items)

    def __len__(self) -> int:
        return len(self._heap if self._heap is not None else self.items)

    def pop(self) -> T:
        if self._heap is not None:
            return heapq.heappop(self._heap)[2]
        best = 0
        for i in range(1, len(self.items)):
            if self.less(self.items[i], self.items[best]):
                best = i
        return self.items.pop(best)
