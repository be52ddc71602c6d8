"""One traced scheduling attempt: schedule_one.go's schedulingCycle up to `schedulePod`'s choice of a node."""
from __future__ import annotations

from dataclasses import dataclass
from bisect import bisect_left
from itertools import compress, repeat
from operator import attrgetter, eq, is_, is_not
from typing import TYPE_CHECKING, Any

from kexplain.features import version_json
from kexplain.errors import FrameworkError
from kexplain.framework.cycle_state import CycleState
from kexplain.framework.extras import Cycle, evaluate_unexamined, record_details, verdict_json
from kexplain.framework.fit_error import fit_error_message, truncate_message
from kexplain.framework.interface import NodeToStatus
from kexplain.framework.runtime import Framework, PreFilterOutcome
from kexplain.framework.opportunistic_batch import OpportunisticBatch
from kexplain.framework import search_column
from kexplain.framework.search import SortedScores, num_feasible_nodes_to_find
from kexplain.framework.status import SKIP_JSON, SUCCESS_JSON, Code, Status
from kexplain.framework.trace import (ERROR, GATED, SCHEDULED, UNSCHEDULABLE, NodeScores, NodeVerdicts, Result,
                                      Search, Trace)

# The reason of the nodes a PreFilter result left out (the plugins that narrowed them, by name).
ERR_ABSENT_FORMAT = "node(s) didn't satisfy plugin(s) [{}]"

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.nodeinfo import NodeInfo
    from kexplain.model.pod import PodInfo


@dataclass(frozen=True)
class Options:
    """How to run one cycle and which extra keys to record."""

    start_index: int = 0
    global_percentage: int | None = None
    filter_all: bool = True
    details: bool = False                        # extra key `details`: node facts
    explain_nodes: frozenset[str] = frozenset()  # ... and plugin facts (`explain`) for these nodes
    unexamined: bool = False                     # extra key `unexamined`
    # The profile's OpportunisticBatching state across a sequence (None: a cycle on its own, never batched).
    batch: OpportunisticBatch | None = None
    cycle: int = 0


# From 1.35 selectHost takes the heap's top (ties in heap order); before, a random top-scored node.
DETERMINISTIC_TIES_SINCE = "1.35"


def schedule_pod(fw: Framework, pod: "PodInfo", options: Options = Options()) -> Trace:
    """The trace of one scheduling cycle of `pod`, with the extra keys `options` ask for."""
    trace = Trace(pod={"namespace": pod.namespace, "name": pod.name}, profile=fw.profile_name,
                  kubernetes=version_json(fw.kube))
    cycle = Cycle()
    try:
        _schedule(fw, pod, options, trace, cycle)
    except FrameworkError as err:
        trace.result = Result(ERROR, [], "", error=str(err))
        _record_notes(fw, pod, trace, cycle)
        if options.details:        # the facts of the nodes reached say what failed (a device's selector)
            record_details(fw, pod, trace, cycle, options.explain_nodes)
        return trace
    _record_notes(fw, pod, trace, cycle)
    if options.unexamined and cycle.searched and trace.result.status == SCHEDULED:
        evaluate_unexamined(fw, pod, trace, cycle)
    if options.details:
        record_details(fw, pod, trace, cycle, options.explain_nodes)
    return trace


def _record_notes(fw: Framework, pod: "PodInfo", trace: Trace, cycle: Cycle) -> None:
    """Extra key `notes`: what plugins could not reproduce for this cycle (absent when none)."""
    if cycle.state is not None:
        notes = fw.run_notes(cycle.state, pod)
        if notes:
            trace.extra["notes"] = notes


def _schedule(fw: Framework, pod: "PodInfo", options: Options, trace: Trace, cycle: Cycle) -> None:
    """schedulePod: PreEnqueue, findNodesThatFitPod, then prioritizeNodes and selectHost, or the failure."""
    status, calls = fw.run_pre_enqueue(pod)
    trace.pre_enqueue = [c.to_json() for c in calls]
    if not status.is_success:
        trace.result = Result(GATED)
        return
    num_all = len(fw.snapshot.node_infos)
    if num_all == 0:
        trace.result = Result(UNSCHEDULABLE, [], "no nodes available to schedule pods")
        return
    state = cycle.state = CycleState()
    statuses = NodeToStatus()
    pre = _pre_filter(fw, state, pod, statuses, trace, num_all)
    if pre is None:
        return
    search = Search(num_all_nodes=num_all, num_feasible_nodes_to_find=0, start_index=options.start_index)
    cycle.searched = True
    trace.search, trace.filter = search, NodeVerdicts()
    if options.filter_all:
        trace.filter_all = {}
    hint, signature = "", None
    if options.batch is not None:
        hint, signature = options.batch.get_node_hint(fw, state, pod, options.cycle)
        if hint:
            trace.extra["hint"] = hint
    feasible = _find_nodes_that_fit(fw, state, pod, pre, hint, statuses, options, trace, cycle)
    if not feasible:
        _fail(fw, state, pod, statuses, trace, num_all)
        return
    cycle.feasible = feasible
    rest = _decide(fw, state, pod, feasible, trace)
    if options.batch is not None:
        options.batch.store_results(signature, hint, trace.result.suggested_host, rest, options.cycle)


def _pre_filter(fw: Framework, state: CycleState, pod: "PodInfo", statuses: NodeToStatus, trace: Trace,
                num_all: int) -> PreFilterOutcome | None:
    """The PreFilter stage, traced; None when it ended the cycle (its failure recorded)."""
    pre = fw.run_pre_filter(state, pod)
    trace.pre_filter = [c.to_json() for c in pre.calls]
    if pre.result is not None and not pre.result.all_nodes:
        trace.pre_filter_node_names = sorted(pre.result.node_names or ())
    if pre.status.is_success:
        return pre
    if not pre.status.is_rejected:
        trace.result = Result(ERROR, [], "", error=pre.status.message())
        return None
    statuses.absent = pre.status
    _fail(fw, state, pod, statuses, trace, num_all, pre_filter_msg=pre.status.message())
    facts = fw.run_rejection(state, pod, pre.status.plugin)
    if facts:       # what the rejection's message does not name (kexplain's, beside the trace)
        trace.extra["rejection"] = {"plugin": pre.status.plugin, **facts}
    return None


def _find_nodes_that_fit(fw: Framework, state: CycleState, pod: "PodInfo", pre: PreFilterOutcome, hint: str,
                         statuses: NodeToStatus, options: Options, trace: Trace,
                         cycle: Cycle) -> list["NodeInfo"]:
    """findNodesThatFitPod: the nominated node or the batch's hint first, else the round-robin search."""
    snapshot, search = fw.snapshot, trace.search
    all_nodes = snapshot.node_infos
    num_all = len(all_nodes)
    nominated = pod.nominated_node_name or hint
    ni = snapshot.get(nominated) if nominated else None
    if ni is not None:
        if _checked(fw, state, pod, [ni], 1, statuses, options, trace):
            search.num_feasible_nodes_to_find = num_feasible_nodes_to_find(
                num_all, fw.percentage_of_nodes_to_score, options.global_percentage) \
                if pod.nominated_node_name else 1
            search.next_start_index = options.start_index
            cycle.order = _rotated(all_nodes, options.start_index)
            return [ni]

    nodes = all_nodes
    if pre.result is not None and not pre.result.all_nodes:
        allowed = pre.result.node_names or frozenset()
        nodes = [ni for ni in all_nodes if ni.name in allowed]
        search.order_deterministic = False
        plugins = " ".join(sorted(pre.plugins_with_nodes))
        statuses.absent = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_ABSENT_FORMAT.format(plugins),))

    to_find = num_feasible_nodes_to_find(len(nodes), fw.percentage_of_nodes_to_score, options.global_percentage)
    if not fw.has_score_plugins:
        to_find = 1
    search.num_feasible_nodes_to_find = to_find
    feasible = _search_feasible(fw, state, pod, nodes, to_find, statuses, options, trace, cycle) if nodes else []
    processed = len(feasible) + len(statuses)
    search.next_start_index = (options.start_index + processed) % num_all
    return feasible


def _search_feasible(fw: Framework, state: CycleState, pod: "PodInfo", nodes: list["NodeInfo"], to_find: int,
                     statuses: NodeToStatus, options: Options, trace: Trace, cycle: Cycle) -> list["NodeInfo"]:
    """The round-robin from the start index, batch by batch, until `to_find` nodes fit or none are left."""
    feasible: list["NodeInfo"] = []
    order = cycle.order = _rotated(nodes, options.start_index)
    if not fw.has_filter_plugins:
        return order[:to_find]
    if not options.filter_all and not statuses and nodes is fw.snapshot.node_infos:
        found = _by_column(fw, state, pod, to_find, statuses, options, trace, cycle)
        if found is not None:
            return found
    pos = 0
    while pos < len(order):
        # No batch filters more than MIN_FILTER_BATCH nodes the search will not reach (what this
        # cycle does not reach, the next one starts with).
        need = to_find - len(feasible) + 1
        batch, pos = order[pos:pos + max(MIN_FILTER_BATCH, need)], pos + max(MIN_FILTER_BATCH, need)
        fits = _checked(fw, state, pod, batch, need, statuses, options, trace)
        if len(feasible) + len(fits) > to_find:
            cycle.dropped = fits[-1]
            feasible += fits[:-1]
            return feasible  # one more than needed: found, dropped, visited first next time
        feasible += fits
    return feasible


def _by_column(fw: Framework, state: CycleState, pod: "PodInfo", to_find: int, statuses: NodeToStatus,
               options: Options, trace: Trace, cycle: Cycle) -> list["NodeInfo"] | None:
    """The search as `_checked`'s batches trace it, read from the verdicts kept by node position when
    every Filter plugin that runs is node-local and answered on most nodes before (a copy's cycle:
    `search_column`); None otherwise."""
    local = fw.node_local_filters(state, pod)
    if local is None:
        return None
    snapshot = fw.snapshot
    start = options.start_index % len(snapshot.node_infos)
    found = search_column.searched(snapshot, local[0], start, to_find + 1, local[1], local[2])
    counts = found.counts(start) if found is not None else []
    if found is None or any(verdict.code is Code.ERROR for verdict, _ in counts):
        return None         # (an Error ends the search where it stands: the batches trace that)
    visited, fits = found.visited, found.fits
    search = trace.search
    names = search_column.rotated(search_column.names(snapshot), start, visited)
    verdicts = found.verdicts(start)
    search.order += names
    search.num_nodes_searched += visited
    trace.filter.extend(names, verdicts, counts)
    search.num_filter_success += len(fits)
    statuses.defer(names, verdicts, visited - len(fits))
    feasible = list(map(snapshot.node_infos.__getitem__, fits))
    if len(feasible) > to_find:
        cycle.dropped = feasible.pop()
    return feasible


def _checked(fw: Framework, state: CycleState, pod: "PodInfo", nodes: list["NodeInfo"], until: int,
             statuses: NodeToStatus, options: Options, trace: Trace) -> list["NodeInfo"]:
    """Filter `nodes` as one batch and trace them in order up to the `until`-th that fits (all, when fewer
    fit): the nodes that fit among them; the others' statuses set. Written column by column, in C: a
    search visits thousands of nodes per cycle."""
    search = trace.search
    batch = fw.run_filter_nodes(state, pod, nodes, every=options.filter_all)
    verdicts = batch.verdicts
    codes = codes_all = list(map(_CODE, verdicts))
    fits = list(compress(range(len(nodes)), map(is_, codes, repeat(Code.SUCCESS))))
    end = fits[until - 1] + 1 if len(fits) >= until else len(nodes)
    try:
        # The cycle ends at an error, but the node is reported, and the round-robin still moves
        # past the nodes processed before it (the scheduler updates it regardless).
        error_at: int | None = codes.index(Code.ERROR, 0, end)
        end = error_at + 1
    except ValueError:
        error_at = None
    if end < len(nodes):
        nodes, verdicts, codes = nodes[:end], verdicts[:end], codes[:end]
    names = list(map(_NAME, nodes))
    search.order += names
    search.num_nodes_searched += end
    if batch.columns is not None:
        trace.filter_all.update(zip(names, _filter_all_rows(batch.columns, batch.passed, len(codes_all))))
    trace.filter.extend(names, verdicts)
    fits = fits[:bisect_left(fits, end)]
    search.num_filter_success += len(fits)
    if error_at is not None:
        search.next_start_index = (options.start_index + search.num_nodes_searched - 1) % search.num_all_nodes
        raise FrameworkError(verdicts[error_at].message())
    statuses.statuses.update(compress(zip(names, verdicts), map(is_not, codes, repeat(Code.SUCCESS))))
    return [nodes[k] for k in fits]


_CODE = attrgetter("code")
_NAME = attrgetter("name")


MIN_FILTER_BATCH = 32


def _filter_all_rows(columns: list[tuple[str, list[Status] | None]], passed: frozenset[int],
                     n: int) -> list[dict[str, Any]]:
    """filterAll's entry per node (plugin -> status JSON), shared between nodes with the same statuses."""
    names = [name for name, _ in columns]
    clean = dict(zip(names, [SKIP_JSON if col is None else SUCCESS_JSON for _, col in columns]))
    out = [clean] * n
    # each node's statuses, one per plugin (None: skipped), read in C; nodes with the same
    # statuses (a plugin's verdicts are shared objects) share their entry
    rows = zip(*[repeat(None, n) if col is None else col for _, col in columns])
    made: dict[tuple[int, ...], dict[str, Any]] = {}
    for k, row in enumerate(rows):
        if k in passed:
            continue
        key = tuple(map(id, row))
        entry = made.get(key)
        if entry is None:
            entry = made[key] = dict(zip(names, map(verdict_json, row)))
        out[k] = entry
    return out


def _decide(fw: Framework, state: CycleState, pod: "PodInfo", feasible: list["NodeInfo"],
            trace: Trace) -> SortedScores | None:
    """Score the feasible nodes and pick one; the rest of the ranking (None: nothing scored)."""
    if len(feasible) == 1:
        trace.result = Result(SCHEDULED, [feasible[0].name], "", suggested_host=feasible[0].name)
        return None
    names = list(map(_NAME, feasible))
    if not fw.has_score_plugins:
        totals = [1] * len(feasible)
    else:
        s = fw.run_pre_score(state, pod, feasible)
        if not s.is_success:
            raise FrameworkError(s.message())
        scored = fw.run_score(state, pod, feasible, names)
        totals = scored.totals
        trace.score = NodeScores(names, totals, scored.plugins, scored.weights, scored.raw, scored.normalized)
    best = max(totals)
    selected = sorted(compress(names, map(eq, totals, repeat(best))))
    ranking = SortedScores(names, totals)
    trace.result = Result(SCHEDULED, selected, "", suggested_host=ranking.pop())
    if len(selected) > 1 and not fw.kube.since(DETERMINISTIC_TIES_SINCE):
        # selectHost before 1.35: reservoir sampling among the top-scored nodes. The heap's top,
        # which we report, is one of its possible picks; say that the pick is random.
        trace.extra["tieBreak"] = "random"
    return ranking


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


def _rotated(nodes: list["NodeInfo"], start: int) -> list["NodeInfo"]:
    """`nodes` in the order the round-robin visits them from `start`."""
    start %= len(nodes)
    return nodes[start:] + nodes[:start]
