"""One scheduling attempt (schedulingCycle up to the choice of a node), fully traced.

Follows schedule_one.go: PreEnqueue, PreFilter (with node narrowing), the nominated
node first, the round-robin search that stops once enough feasible nodes are found,
scoring (skipped for a single feasible node), the pick, and for a failure the
PostFilter run and the FailedScheduling message.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..trace import ERROR, GATED, SCHEDULED, UNSCHEDULABLE, Result, Search, Trace
from .cycle_state import CycleState
from .fit_error import fit_error_message, truncate_message
from .interface import NodeToStatus
from .runtime import Framework, FrameworkError
from .search import heap_top, num_feasible_nodes_to_find
from .status import Code, Status

if TYPE_CHECKING:  # pragma: no cover
    from ..model.nodeinfo import NodeInfo
    from ..model.pod import PodInfo


@dataclass(frozen=True)
class Options:
    start_index: int = 0
    global_percentage: int | None = None
    filter_all: bool = True


def schedule_pod(fw: Framework, pod: "PodInfo", options: Options = Options()) -> Trace:
    trace = Trace(pod={"namespace": pod.namespace, "name": pod.name}, profile=fw.profile_name)
    try:
        _schedule(fw, pod, options, trace)
    except FrameworkError as err:
        trace.result = Result(ERROR, [], "", error=str(err))
    return trace


def _schedule(fw: Framework, pod: "PodInfo", options: Options, trace: Trace) -> None:
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

    state = CycleState()
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
    trace.search, trace.filter = search, {}
    if options.filter_all:
        trace.filter_all = {}

    def check(ni: "NodeInfo") -> Status:
        search.order.append(ni.name)
        search.num_nodes_searched += 1
        if options.filter_all:
            each = fw.run_filter_all(state, pod, ni)
            trace.filter_all[ni.name] = {name: s.to_json() for name, s in each.items()}
        s = fw.run_filter_plugins_with_nominated_pods(state, pod, ni)
        if s.code is Code.ERROR:
            raise FrameworkError(s.message())
        trace.filter[ni.name] = s.to_json(with_plugin=True)
        if s.is_success:
            search.num_filter_success += 1
        return s

    # The nominated node (set by an earlier preemption) is tried first, alone.
    nominated = pod.nominated_node_name
    if nominated and snapshot.get(nominated) is not None:
        ni = snapshot.get(nominated)
        s = check(ni)
        if s.is_success:
            search.num_feasible_nodes_to_find = num_feasible_nodes_to_find(
                num_all, fw.percentage_of_nodes_to_score, options.global_percentage)
            search.next_start_index = options.start_index
            _decide(fw, state, pod, [ni], trace)
            return
        statuses.set(ni.name, s)

    nodes = all_nodes
    if pre.result is not None and not pre.result.all_nodes:
        allowed = pre.result.node_names or frozenset()
        nodes = [ni for ni in all_nodes if ni.name in allowed]
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
        for i in range(len(nodes)):
            ni = nodes[(options.start_index + i) % len(nodes)]
            if not fw.has_filter_plugins:
                feasible.append(ni)
                if len(feasible) >= to_find:
                    break
                continue
            s = check(ni)
            if s.is_success:
                if len(feasible) == to_find:
                    break  # one more than needed: found, dropped, visited first next time
                feasible.append(ni)
            else:
                statuses.set(ni.name, s)
    processed = len(feasible) + len(statuses)
    search.next_start_index = (options.start_index + processed) % num_all

    if not feasible:
        _fail(fw, state, pod, statuses, trace, num_all)
        return
    _decide(fw, state, pod, feasible, trace)


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
        details = fw.run_score(state, pod, feasible)
        totals = [sum(d.weighted for d in per.values()) for per in details]
        trace.score = {
            name: {"total": total,
                   "plugins": {pl: {"raw": d.raw, "normalized": d.normalized, "weight": d.weight,
                                    "weighted": d.weighted} for pl, d in per.items()}}
            for name, total, per in zip(names, totals, details)}
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
