"""The extra trace keys (`details`, `unexamined`), which never touch the scheduler's own."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kexplain.apimachinery.display import format_quantity
from kexplain.apimachinery.labels import zone_of
from kexplain.errors import FrameworkError
from kexplain.framework.cycle_state import CycleState
from kexplain.framework.runtime import Framework
from kexplain.framework.status import SKIP_JSON, SUCCESS_JSON, Code, Status
from kexplain.framework.trace import Trace

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.nodeinfo import NodeInfo
    from kexplain.model.pod import PodInfo


@dataclass
class Cycle:
    """What the extra keys need to know about the cycle that just ran."""

    state: CycleState | None = None
    order: list["NodeInfo"] = field(default_factory=list)     # the search list, in round-robin order
    feasible: list["NodeInfo"] = field(default_factory=list)  # scored (or the single one)
    dropped: "NodeInfo | None" = None                         # found feasible one too many
    searched: bool = False


def plugin_verdicts(columns: list[tuple[str, list[Status] | None]], k: int) -> dict[str, Any]:
    """Every Filter plugin's verdict on node `k` of a filtered batch (its filterAll entry)."""
    return {name: verdict_json(None if col is None else col[k]) for name, col in columns}


def verdict_json(status: "Status | None") -> dict[str, Any]:
    """A plugin's verdict on a node as filterAll writes it (None: PreFilter told it to skip)."""
    return SKIP_JSON if status is None else SUCCESS_JSON if status.code is Code.SUCCESS else status.json_view()


def node_facts(ni: "NodeInfo") -> dict[str, Any]:
    """A node's zone and, per resource, allocatable and requested (as the scheduler's cache adds them up)."""
    alloc, used = ni.allocatable, ni.requested
    resources: dict[str, dict[str, str]] = {}
    for name in ("cpu", "memory", "ephemeral-storage"):
        if alloc.get(name) or used.get(name):
            resources[name] = {"allocatable": format_quantity(name, alloc.get(name)),
                               "requested": format_quantity(name, used.get(name))}
    for name in sorted(n for n in set(alloc.scalar) | set(used.scalar) if alloc.get(n) or used.get(n)):
        resources[name] = {"allocatable": format_quantity(name, alloc.scalar.get(name, 0)),
                           "requested": format_quantity(name, used.scalar.get(name, 0))}
    resources["pods"] = {"allocatable": str(alloc.allowed_pod_number), "requested": str(ni.pod_count)}
    out: dict[str, Any] = {"zone": zone_of(ni.node.labels), "resources": resources}
    if ni.node.unschedulable:
        out["unschedulable"] = True
    return out


def pod_facts(pod: "PodInfo") -> dict[str, Any]:
    """The pod's requests and priority (`details.pod`)."""
    res = pod.resource.resource
    requests = {name: format_quantity(name, res.get(name)) for name in ("cpu", "memory", "ephemeral-storage")
                if res.get(name)}
    requests.update({name: format_quantity(name, q) for name, q in sorted(res.scalar.items()) if q})
    return {"priority": pod.priority, "requests": requests}


def record_details(fw: Framework, pod: "PodInfo", trace: Trace, cycle: Cycle, explain_nodes: frozenset[str]) -> None:
    """Extra key `details`: the pod's requests, each visited node's facts and `explain_nodes`' plugin facts."""
    snapshot = fw.snapshot
    visited = list(dict.fromkeys(trace.search.order)) if trace.search is not None else []
    nodes: dict[str, Any] = {}
    overview = cycle.state is not None and any(pl.in_overview for pl in fw.explaining_plugins)
    # one copy of the cycle's state for the overview's explanations of every visited node (they
    # read it: thousands of nodes a copy's cycle visits, each a copy of every plugin's state, was
    # most of a copy's details); a node asked for by name gets a copy of its own, below
    seen = cycle.state.clone() if overview else None
    for name in visited:
        ni = snapshot.get(name)
        if ni is not None:
            nodes[name] = node_facts(ni)
            if seen is not None and name not in explain_nodes:
                facts = fw.run_explain(seen, pod, ni, overview=True)
                if facts:
                    nodes[name]["plugins"] = facts
    for name in sorted(explain_nodes):
        ni = snapshot.get(name)
        if ni is None:
            nodes[name] = {"exists": False}
            continue
        entry = nodes.setdefault(name, node_facts(ni))
        entry["examined"] = name in visited
        if cycle.state is None:
            continue  # gated: no cycle ran
        state = cycle.state.clone()
        if cycle.searched and name not in visited and fw.has_filter_plugins:
            batch = fw.run_filter_nodes(state, pod, [ni], every=True)
            entry["filterAll"] = plugin_verdicts(batch.columns or [], 0)
        entry["plugins"] = fw.run_explain(state, pod, ni)
    trace.extra["details"] = {"pod": pod_facts(pod), "nodes": nodes}


def evaluate_unexamined(fw: Framework, pod: "PodInfo", trace: Trace, cycle: Cycle) -> None:
    """Extra key `unexamined`: the nodes the round-robin never reached, filtered and scored as if it had."""
    visited = set(trace.search.order) if trace.search is not None else set()
    never = [ni for ni in cycle.order if ni.name not in visited]
    out: dict[str, Any] = {"nodes": [ni.name for ni in never],
                           "dropped": cycle.dropped.name if cycle.dropped is not None else None,
                           "filter": {}, "feasible": [], "totals": {}, "higher": []}
    trace.extra["unexamined"] = out
    if not never and cycle.dropped is None:
        return
    state = cycle.state.clone() if cycle.state is not None else CycleState()
    extra: list["NodeInfo"] = [cycle.dropped] if cycle.dropped is not None else []
    try:
        for ni, s in zip(never, fw.run_filter_nodes(state, pod, never).verdicts):
            if s.code is Code.ERROR:
                raise FrameworkError(s.message())
            out["filter"][ni.name] = s.json_view(with_plugin=True)
            if s.is_success:
                extra.append(ni)
        out["feasible"] = [ni.name for ni in extra]
        if not extra or not fw.has_score_plugins:
            return
        everyone = [*cycle.feasible, *extra]
        s = fw.run_pre_score(state, pod, everyone)
        if not s.is_success:
            raise FrameworkError(s.message())
        scored = fw.run_score(state, pod, everyone)
    except FrameworkError as err:
        out["error"] = str(err)
        return
    totals = {ni.name: total for ni, total in zip(everyone, scored.totals)}
    out["totals"] = totals
    winner = trace.result.suggested_host or ""
    best = totals.get(winner, 0)
    out["winner"] = {"node": winner, "total": best}
    out["higher"] = sorted((ni.name for ni in extra if totals[ni.name] > best),
                           key=lambda n: (-totals[n], n))
