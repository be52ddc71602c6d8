"""One scheduling attempt (schedulingCycle up to the choice of a node), fully traced.

Follows schedule_one.go: PreEnqueue, PreFilter (with node narrowing), the nominated
node first, the round-robin search that stops once enough feasible nodes are found,
scoring (skipped for a single feasible node), the pick, and for a failure the
PostFilter run and the FailedScheduling message.

After the decision, and only when asked (`Options`, or `recording(Extras(...))` around a
call that builds its own options), kexplain adds what people need to read it, under extra
trace keys that never touch the scheduler's own: `details` (per node: zone, allocatable and
requested resources; for the nodes named, every plugin's `explain` facts), `unexamined`
(the nodes the search never reached, filtered and scored against the same cycle state: would
one of them have beaten the winner?) and `preemption` (DefaultPreemption's candidates).
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Iterator

from kexplain.framework.trace import ERROR, GATED, SCHEDULED, UNSCHEDULABLE, Result, Search, Trace, format_quantity, zone_of
from kexplain.framework.cycle_state import CycleState
from kexplain.framework.fit_error import fit_error_message, truncate_message
from kexplain.framework.interface import NodeToStatus
from kexplain.framework.runtime import Framework, FrameworkError
from kexplain.framework.search import heap_top, num_feasible_nodes_to_find
from kexplain.framework.status import SKIP_JSON, SUCCESS_JSON, Code, Status

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.nodeinfo import NodeInfo
    from kexplain.model.pod import PodInfo


@dataclass(frozen=True)
class Options:
    start_index: int = 0
    global_percentage: int | None = None
    filter_all: bool = True
    details: bool = False                        # extra key `details`: node facts
    explain_nodes: frozenset[str] = frozenset()  # ... and plugin facts (`explain`) for these nodes
    unexamined: bool = False                     # extra key `unexamined`


@dataclass(frozen=True)
class Extras:
    """The extra keys to record for every `schedule_pod` call made inside `recording(...)`
    (for callers that do not build the `Options` themselves)."""

    details: bool = False
    explain_nodes: frozenset[str] = frozenset()
    unexamined: bool = False


_EXTRAS: ContextVar[Extras] = ContextVar("kexplain_extras", default=Extras())


@contextmanager
def recording(extras: Extras) -> Iterator[None]:
    """Record `extras` in the traces of the scheduling cycles run inside the block
    (`recording(Extras())` turns them off again, e.g. for suggestion re-runs)."""
    token = _EXTRAS.set(extras)
    try:
        yield
    finally:
        _EXTRAS.reset(token)


@dataclass
class _Cycle:
    """What the extra keys need to know about the cycle that just ran."""

    state: CycleState | None = None
    nodes: list["NodeInfo"] = field(default_factory=list)     # the list the search went round
    feasible: list["NodeInfo"] = field(default_factory=list)  # scored (or the single one)
    dropped: "NodeInfo | None" = None                         # found feasible one too many
    searched: bool = False


def schedule_pod(fw: Framework, pod: "PodInfo", options: Options = Options()) -> Trace:
    extras = _EXTRAS.get()
    options = replace(options, details=options.details or extras.details,
                      explain_nodes=options.explain_nodes | extras.explain_nodes,
                      unexamined=options.unexamined or extras.unexamined)
    trace = Trace(pod={"namespace": pod.namespace, "name": pod.name}, profile=fw.profile_name)
    cycle = _Cycle()
    try:
        _schedule(fw, pod, options, trace, cycle)
    except FrameworkError as err:
        trace.result = Result(ERROR, [], "", error=str(err))
        return trace
    if options.unexamined and cycle.searched and trace.result.status == SCHEDULED:
        _evaluate_unexamined(fw, pod, trace, cycle)
    if options.details:
        _record_details(fw, pod, trace, cycle, options.explain_nodes)
    return trace


def _schedule(fw: Framework, pod: "PodInfo", options: Options, trace: Trace, cycle: _Cycle) -> None:
    status, calls = fw.run_pre_enqueue(pod)
    trace.pre_enqueue = [c.to_json() for c in calls]
    if not status.is_success:
        trace.result = Result(GATED)
        return

    snapshot = fw.snapshot
    all_nodes = snapshot.node_infos
    num_all = len(all_nodes)
    if num_all == 0:
        trace.result = Result(UNSCHEDULABLE, [], "no nodes available to schedule pods")
        return

    state = cycle.state = CycleState()
    statuses = NodeToStatus()
    pre = fw.run_pre_filter(state, pod)
    trace.pre_filter = [c.to_json() for c in pre.calls]
    if pre.result is not None and not pre.result.all_nodes:
        trace.pre_filter_node_names = sorted(pre.result.node_names or ())

    if not pre.status.is_success:
        if not pre.status.is_rejected:
            trace.result = Result(ERROR, [], "", error=pre.status.message())
            return
        statuses.absent = pre.status
        _fail(fw, state, pod, statuses, trace, num_all, pre_filter_msg=pre.status.message())
        return

    search = Search(num_all_nodes=num_all, num_feasible_nodes_to_find=0, start_index=options.start_index)
    cycle.searched, cycle.nodes = True, all_nodes
    trace.search, trace.filter = search, {}
    if options.filter_all:
        trace.filter_all = {}

    def check(nodes: list["NodeInfo"]) -> Iterator[tuple["NodeInfo", Status]]:
        """Filter `nodes` as one batch, then hand them out in order, each recorded in the
        trace only when taken: the search may stop before the end of the batch."""
        batch = fw.run_filter_nodes(state, pod, nodes, every=options.filter_all)
        rows = _filter_all_rows(batch.columns, batch.passed, len(nodes)) if batch.columns is not None else None
        for k, ni in enumerate(nodes):
            s = batch.verdicts[k]
            search.order.append(ni.name)
            search.num_nodes_searched += 1
            if rows is not None:
                trace.filter_all[ni.name] = rows[k]
            if s.code is Code.ERROR:
                raise FrameworkError(s.message())
            trace.filter[ni.name] = s.json_view(with_plugin=True)
            if s.is_success:
                search.num_filter_success += 1
            yield ni, s

    # The nominated node (set by an earlier preemption) is tried first, alone.
    nominated = pod.nominated_node_name
    if nominated and snapshot.get(nominated) is not None:
        ni = snapshot.get(nominated)
        _, s = next(check([ni]))
        if s.is_success:
            search.num_feasible_nodes_to_find = num_feasible_nodes_to_find(
                num_all, fw.percentage_of_nodes_to_score, options.global_percentage)
            search.next_start_index = options.start_index
            cycle.feasible = [ni]
            _decide(fw, state, pod, [ni], trace)
            return
        statuses.set(ni.name, s)

    nodes = all_nodes
    if pre.result is not None and not pre.result.all_nodes:
        allowed = pre.result.node_names or frozenset()
        nodes = [ni for ni in all_nodes if ni.name in allowed]
        cycle.nodes = nodes
        search.order_deterministic = False
        plugins = " ".join(sorted(pre.plugins_with_nodes))
        statuses.absent = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                 (f"node(s) didn't satisfy plugin(s) [{plugins}]",))

    to_find = num_feasible_nodes_to_find(len(nodes), fw.percentage_of_nodes_to_score, options.global_percentage)
    if not fw.has_score_plugins:
        to_find = 1
    search.num_feasible_nodes_to_find = to_find

    feasible: list["NodeInfo"] = []
    if nodes:
        order = _rotated(nodes, options.start_index)
        if not fw.has_filter_plugins:
            feasible = order[:to_find]
        pos = len(order) if not fw.has_filter_plugins else 0
        while pos < len(order):
            # At least as many nodes as must still be looked at, so no batch filters nodes
            # the search will not reach by more than MIN_FILTER_BATCH.
            size = max(MIN_FILTER_BATCH, to_find - len(feasible) + 1)
            batch, pos = order[pos:pos + size], pos + size
            for ni, s in check(batch):
                if s.is_success:
                    if len(feasible) == to_find:
                        cycle.dropped = ni
                        pos = len(order)
                        break  # one more than needed: found, dropped, visited first next time
                    feasible.append(ni)
                else:
                    statuses.set(ni.name, s)
    processed = len(feasible) + len(statuses)
    search.next_start_index = (options.start_index + processed) % num_all

    if not feasible:
        _fail(fw, state, pod, statuses, trace, num_all)
        return
    cycle.feasible = feasible
    _decide(fw, state, pod, feasible, trace)


MIN_FILTER_BATCH = 32


def _filter_all_rows(columns: list[tuple[str, list[Status] | None]], passed: frozenset[int],
                     n: int) -> list[dict[str, Any]]:
    """filterAll's entry per node, from run_filter_nodes' plugin columns: plugin -> status
    JSON. The JSON objects are shared between nodes with the same statuses (they are only
    read): the nodes that passed every plugin have one entry between them."""
    names = [name for name, _ in columns]
    clean = dict(zip(names, [SKIP_JSON if col is None else SUCCESS_JSON for _, col in columns]))
    out = [clean] * n
    for k in range(n):
        if k not in passed:
            out[k] = {name: SKIP_JSON if col is None else
                      SUCCESS_JSON if col[k].code is Code.SUCCESS else col[k].json_view()
                      for name, col in columns}
    return out


def _decide(fw: Framework, state: CycleState, pod: "PodInfo", feasible: list["NodeInfo"], trace: Trace) -> None:
    if len(feasible) == 1:
        trace.result = Result(SCHEDULED, [feasible[0].name], "", suggested_host=feasible[0].name)
        return
    names = [ni.name for ni in feasible]
    if not fw.has_score_plugins:
        totals = [1] * len(feasible)
    else:
        s = fw.run_pre_score(state, pod, feasible)
        if not s.is_success:
            raise FrameworkError(s.message())
        scored = fw.run_score(state, pod, feasible)
        totals = scored.totals
        trace.score = {name: {"total": total, "plugins": per}
                       for name, total, per in zip(names, totals, scored.details)}
    best = max(totals)
    selected = sorted(n for n, t in zip(names, totals) if t == best)
    trace.result = Result(SCHEDULED, selected, "", suggested_host=heap_top(names, totals))


def _fail(fw: Framework, state: CycleState, pod: "PodInfo", statuses: NodeToStatus, trace: Trace,
          num_all: int, pre_filter_msg: str = "") -> None:
    post = fw.run_post_filter(state, pod, statuses) if fw.post_filter_plugins else None
    post_msg = ""
    if post is not None:
        post_msg = post.status.message()
        trace.post_filter = _post_filter_json(post)
        preemption = post.results.get("DefaultPreemption")
        if preemption is not None and preemption.details:
            trace.extra["preemption"] = dict(preemption.details)
    message = fit_error_message(num_all, statuses, pre_filter_msg, post_msg)
    trace.result = Result(UNSCHEDULABLE, [], truncate_message(message))


def _post_filter_json(post) -> dict:
    """DefaultPreemption's own result when it ran, else the framework's merged status."""
    main_name = "DefaultPreemption"
    own = next((c for c in post.calls if c.plugin == main_name), None)
    if own is not None:
        res = post.results.get(main_name)
        head = {"plugin": main_name, "code": own.status.code.value, "message": own.status.message()}
    else:
        res = post.result
        head = {"plugin": post.status.plugin, "code": post.status.code.value, "message": post.status.message()}
    nominated = res.nominated_node_name if res is not None else ""
    victims = sorted(res.victims) if res is not None else []
    plugins = []
    for c in post.calls:
        entry = c.to_json()
        r = post.results.get(c.plugin)
        if c.plugin == main_name and r is not None:  # a plugin that returned no result names no node
            entry["nominatedNodeName"] = r.nominated_node_name
        plugins.append(entry)
    return {**head, "nominatedNodeName": nominated, "victims": victims,
            "framework": post.status.to_json(with_plugin=True), "plugins": plugins}


# -- extra keys: what people need to read the decision ---------------------------------------

def node_facts(ni: "NodeInfo") -> dict[str, Any]:
    """A node's zone and, per resource it offers or its pods request, allocatable and
    requested (the bound pods' requests, as the scheduler's cache adds them up)."""
    alloc, used = ni.allocatable, ni.requested
    resources: dict[str, dict[str, str]] = {}
    for name in ("cpu", "memory", "ephemeral-storage"):
        if alloc.get(name) or used.get(name):
            resources[name] = {"allocatable": format_quantity(name, alloc.get(name)),
                               "requested": format_quantity(name, used.get(name))}
    for name in sorted(n for n in set(alloc.scalar) | set(used.scalar) if alloc.get(n) or used.get(n)):
        resources[name] = {"allocatable": format_quantity(name, alloc.scalar.get(name, 0)),
                           "requested": format_quantity(name, used.scalar.get(name, 0))}
    resources["pods"] = {"allocatable": str(alloc.allowed_pod_number), "requested": str(len(ni.pods))}
    out: dict[str, Any] = {"zone": zone_of(ni.node.labels), "resources": resources}
    if ni.node.unschedulable:
        out["unschedulable"] = True
    return out


def _pod_facts(pod: "PodInfo") -> dict[str, Any]:
    res = pod.resource.resource
    requests = {name: format_quantity(name, res.get(name)) for name in ("cpu", "memory", "ephemeral-storage")
                if res.get(name)}
    requests.update({name: format_quantity(name, q) for name, q in sorted(res.scalar.items()) if q})
    return {"priority": pod.priority, "requests": requests}


def _record_details(fw: Framework, pod: "PodInfo", trace: Trace, cycle: _Cycle,
                    explain_nodes: frozenset[str]) -> None:
    """Extra key `details`: the pod's requests; facts for every node the search visited; for
    the nodes of `explain_nodes`, every plugin's `explain` facts, and for such a node the
    search never visited, every Filter plugin's verdict on it (`filterAll`, `examined: false`)."""
    snapshot = fw.snapshot
    visited = list(dict.fromkeys(trace.search.order)) if trace.search is not None else []
    nodes: dict[str, Any] = {}
    for name in visited:
        ni = snapshot.get(name)
        if ni is not None:
            nodes[name] = node_facts(ni)
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
            entry["filterAll"] = _filter_all_rows(batch.columns or [], batch.passed, 1)[0]
        entry["plugins"] = fw.run_explain(state, pod, ni)
    trace.extra["details"] = {"pod": _pod_facts(pod), "nodes": nodes}


def _evaluate_unexamined(fw: Framework, pod: "PodInfo", trace: Trace, cycle: _Cycle) -> None:
    """Extra key `unexamined`: the nodes of the search list the round-robin never reached
    (and the feasible one it found too many and dropped), filtered against a copy of the
    cycle state, then scored together with the nodes that were scored, as if the scheduler
    had looked at all of them. `higher` names the ones that would have beaten the winner."""
    visited = set(trace.search.order) if trace.search is not None else set()
    never = [ni for ni in _round_robin_rest(cycle.nodes, trace) if ni.name not in visited]
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


def _round_robin_rest(nodes: list["NodeInfo"], trace: Trace) -> list["NodeInfo"]:
    """The search list in round-robin order from where the search started."""
    if not nodes or trace.search is None:
        return []
    return _rotated(nodes, trace.search.start_index)


def _rotated(nodes: list["NodeInfo"], start: int) -> list["NodeInfo"]:
    """`nodes` in the order the round-robin visits them from `start`."""
    start %= len(nodes)
    return nodes[start:] + nodes[:start]
