"""Verification: a candidate applied to the inputs and the whole cycle run again; only a change that
schedules the pod becomes a Suggestion (a pod change reuses the snapshot, a cluster change gets one)."""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Any, Iterable, Sequence

from kexplain.explain.pod_inputs import Inputs
from kexplain.explain.request import RunOptions
from kexplain.explain.run import explain
from kexplain.framework.status import Code
from kexplain.framework.trace import SCHEDULED, Trace
from kexplain.suggest.change import Op, changed_inputs


@dataclass(frozen=True)
class Verification:
    """What the scheduling cycle said about the changed input."""

    status: str
    suggested_host: str | None
    feasible: tuple[str, ...]       # nodes that passed Filter in the re-run
    searched: int                   # nodes the re-run visited
    complete: bool                  # every node was visited: `feasible` is all of them

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "suggestedHost": self.suggested_host, "feasibleNodes": list(self.feasible),
                "numNodesSearched": self.searched, "complete": self.complete}


@dataclass(frozen=True)
class Suggestion:
    """One verified change: what it is, in plain words and as operations, and what it opens."""

    kind: str
    target: str                     # "pod default/web", "node n3" or "cluster"
    description: str
    change: tuple[Op, ...]
    nodes_opened: int
    opened: tuple[str, ...]         # the nodes that were not feasible before and are after
    verified: Verification

    @property
    def text(self) -> str:
        """The description with what it opens, as one line."""
        at_least = "" if self.verified.complete else "at least "
        names = ", ".join(self.opened[:5]) + (", ..." if len(self.opened) > 5 else "")
        plural = "node" if self.nodes_opened == 1 else "nodes"
        return f"{self.description} (opens {at_least}{self.nodes_opened} {plural}: {names})"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "target": self.target, "description": self.description,
                "change": [copy.deepcopy(op) for op in self.change], "nodesOpened": self.nodes_opened,
                "nodesOpenedExact": self.verified.complete, "openedNodes": list(self.opened),
                "verified": self.verified.to_json()}


def feasible(trace: Trace) -> tuple[str, ...]:
    """The nodes that passed Filter in this trace, in the order they were visited."""
    return tuple(n for n, st in (trace.filter or {}).items() if st.get("code") == Code.SUCCESS)


def _complete(trace: Trace, inputs: Inputs) -> bool:
    search = trace.search
    if search is None:
        return False
    if trace.pre_filter_node_names is not None:
        expected = sum(1 for n in set(trace.pre_filter_node_names) if inputs.snapshot.get(n) is not None)
    else:
        expected = len(inputs.snapshot)
    return search.num_nodes_searched >= expected


def verify(inputs: Inputs, options: RunOptions, change: Sequence[Op],
           before: Iterable[str] = ()) -> tuple[Verification, tuple[str, ...]] | None:
    """Run the scheduling cycle on the changed inputs as `options` say (without filterAll, the preemption dry
    run or any extra trace key: only the verdict counts): the verification and the nodes opened (feasible now,
    not in `before`), or None when the pod would still not be scheduled."""
    changed = changed_inputs(inputs, change)
    trace = explain(changed, replace(options.plain(), filter_all=False, preemption=False))
    if trace.result.status != SCHEDULED:
        return None
    opened_now = feasible(trace)
    was = set(before)
    opened = tuple(n for n in opened_now if n not in was)
    if not opened:
        return None
    searched = trace.search.num_nodes_searched if trace.search else 0
    return Verification(trace.result.status, trace.result.suggested_host, opened_now, searched,
                        _complete(trace, changed)), opened
