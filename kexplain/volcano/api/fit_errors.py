"""Volcano's FitError and FitErrors (api/unschedule_info.go, api/types.go's Status codes): why a task
fits no node, node by node, and the histogram message the events and conditions carry."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import IntEnum

NODE_POD_NUMBER_EXCEEDED = "node(s) pod number exceeded"
ALL_NODE_UNAVAILABLE_MSG = "all nodes are unavailable"
POD_REASON_UNSCHEDULABLE = "Unschedulable"
POD_REASON_SCHEDULABLE = "Schedulable"


class Code(IntEnum):
    """api.Status codes."""

    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5


@dataclass(frozen=True)
class Status:
    code: Code
    reason: str
    plugin: str = ""


def should_abort(status: Status) -> bool:
    """plugins/util.ShouldAbort."""
    return status.code in (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.ERROR, Code.WAIT, Code.SKIP)


@dataclass
class FitError:
    """One task on one node: its statuses, each a reason."""

    task: str
    node: str
    statuses: list[Status]

    def reasons(self) -> list[str]:
        return [s.reason for s in self.statuses if s.reason]

    def unresolvable(self) -> bool:
        return any(s.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE for s in self.statuses)

    def error(self) -> str:
        return f"task {self.task} on node {self.node} fit failed: {', '.join(self.reasons())}"


@dataclass
class FitErrors:
    """A task's FitError per node, or a message of its own (`err`)."""

    nodes: dict[str, FitError] = field(default_factory=dict)
    err: str = ""

    def set_node_error(self, node: str, fe: FitError) -> None:
        fe.node = node
        self.nodes[node] = fe

    def error(self) -> str:
        """FitErrors.Error: "0/N nodes are unavailable: " and the reasons' sorted histogram."""
        head = self.err or f"0/{len(self.nodes)} nodes are unavailable"
        if not self.nodes:
            return head
        counts: Counter[str] = Counter()
        for fe in self.nodes.values():
            counts.update(fe.reasons())
        return f"{head}: {', '.join(sorted(f'{n} {r}' for r, n in counts.items()))}."

    def unresolvable_nodes(self) -> set[str]:
        return {n for n, fe in self.nodes.items() if fe.unresolvable()}


def pre_predicate_failed(task_key: str, node_names, err: str) -> "FitErrors":
    """A task its PrePredicate refused: the same error on every node, as allocate and backfill record it."""
    fe = FitErrors()
    for name in node_names:
        fe.set_node_error(name, FitError(task_key, name, [Status(Code.ERROR, err)]))
    return fe
