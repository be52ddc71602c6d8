"""What the human views show, computed from a trace alone: ranks, grouped reasons, the search.

Plain data, no rich: the renderers lay these out, and the tests assert them. Everything
here reads the trace's documented keys (../shared/trace-format.md) and kexplain's extra
keys (`details`, `unexamined`, `preemption`, `suggestions`); nothing reads plugin internals.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from operator import is_not
from types import MappingProxyType
from typing import Any, Callable, Hashable, Mapping, TypeVar

from kexplain.framework.schedule import DETERMINISTIC_TIES_SINCE

REJECTED = ("Unschedulable", "UnschedulableAndUnresolvable", "Pending")
Trace = Mapping[str, Any]
T = TypeVar("T")


# -- the version followed ------------------------------------------------------------------------

def version_text(version: Mapping[str, Any] | None) -> str | None:
    """The trace's `kubernetesVersion` as the headings name it: "Kubernetes 1.36 (kube-scheduler
    v1.36.3)", with the feature gates changed from that version's defaults; None without one."""
    if not version:
        return None
    gates = version.get("featureGates") or {}
    changed = (", feature gates " + ",".join(f"{n}={'true' if v else 'false'}" for n, v in gates.items())
               if gates else "")
    return f"Kubernetes {version.get('minor')} (kube-scheduler {version.get('scheduler')}{changed})"


def admission_text(trace: Trace) -> str | None:
    """The trace's `admission` as one line: "Admission: EKS profile (from node labels):
    ExtendedResourceToleration added nvidia.com/gpu:Exists:NoSchedule"; None without one."""
    said = trace.get("admission")
    if not isinstance(said, Mapping):
        return None
    what = f"{said['profile']} profile" if said.get("profile") else ", ".join(said.get("enabled") or ()) \
        or "kube-apiserver's defaults"
    head = f"Admission: {what}" + (f" (from {said['from']})" if said.get("from") else "")
    parts = [f"{a.get('plugin')} added {t.get('key')}:{t.get('operator')}:{t.get('effect')}"
             + (f" to {a['pod']}" if a.get("pod") else "")
             for a in said.get("added") or () if isinstance(t := a.get("toleration"), Mapping)]
    if said.get("notEmulated"):
        parts.append(f"not emulated: {', '.join(said['notEmulated'])}")
    return f"{head}: {'; '.join(parts)}" if parts else head


def random_ties(trace: Trace) -> bool:
    """Whether the trace's kube-scheduler breaks top-score ties at random (before 1.35) rather than
    by its ranking heap; no version named reads as the default's."""
    minor = str((trace.get("kubernetesVersion") or {}).get("minor") or DETERMINISTIC_TIES_SINCE)
    return _minor_key(minor) < _minor_key(DETERMINISTIC_TIES_SINCE)


def _minor_key(minor: str) -> tuple[int, ...]:
    return tuple(int(p) for p in minor.split(".") if p.isdigit())


def tie_rule(trace: Trace) -> str:
    """Where a top-score tie goes, in the trace's kube-scheduler's words: before 1.35 selectHost's
    random draw; from 1.35 the top of its ranking heap (sortedNodeScores), which kexplain builds."""
    release = (trace.get("kubernetesVersion") or {}).get("scheduler")
    scheduler = f"kube-scheduler {release}" if release else "kube-scheduler"
    if random_ties(trace):
        return f"one of the tied nodes drawn at random ({scheduler}'s selectHost: reservoir sampling)"
    return (f"the node on top of {scheduler}'s ranking heap (the scored nodes in the order Filter found them "
            "feasible; no random draw)")


def random_tie(trace: Trace) -> list[str]:
    """The top-scored nodes the scheduler picks one of at random (trace extra key `tieBreak`,
    before 1.35: selectHost's reservoir sampling); [] when its pick is certain."""
    if trace.get("tieBreak") != "random":
        return []
    return list((trace.get("result") or {}).get("selectedNodes") or [])


# -- feasible nodes, ranked -----------------------------------------------------------------------

@dataclass(frozen=True)
class Ranked:
    """One scored node; `deciding`: (plugin, weighted difference) against the runner-up (for the
    winner) or the winner, largest first; positive means ahead."""

    rank: int
    node: str
    zone: str
    total: int | None
    plugins: Mapping[str, Mapping[str, int]]
    against: str | None = None
    deciding: tuple[tuple[str, int], ...] = ()
    selected: bool = False      # among the nodes tied at the top (result.selectedNodes)
    chosen: bool = False        # the node the scheduler picks (result.suggestedHost)


def zone_of(trace: Trace, node: str) -> str:
    """The node's zone, from the trace's `details` (empty when unknown)."""
    facts = ((trace.get("details") or {}).get("nodes") or {}).get(node) or {}
    return facts.get("zone") or ""


def deciding_plugins(mine: Mapping[str, Mapping[str, int]], other: Mapping[str, Mapping[str, int]],
                     limit: int = 3) -> tuple[tuple[str, int], ...]:
    """The plugins whose weighted scores differ most between two nodes (mine minus other)."""
    diffs = [(pl, (mine.get(pl) or {}).get("weighted", 0) - (other.get(pl) or {}).get("weighted", 0))
             for pl in dict.fromkeys([*mine, *other])]
    diffs = [d for d in diffs if d[1] != 0]
    diffs.sort(key=lambda d: (-abs(d[1]), d[0]))
    return tuple(diffs[:limit])


def ranking(trace: Trace) -> list[Ranked]:
    """Feasible nodes best first (total descending, then name): the scored nodes, or the
    single feasible node when scoring was skipped."""
    result = trace.get("result") or {}
    selected = set(result.get("selectedNodes") or ())
    chosen = None if random_tie(trace) else result.get("suggestedHost")     # a random pick: no node is sure
    score = trace.get("score") or {}
    if not score:
        if result.get("status") != "Scheduled":
            return []
        return [Ranked(1, n, zone_of(trace, n), None, {}, selected=True, chosen=n == chosen)
                for n in result.get("selectedNodes") or ()]
    order = sorted(score, key=lambda n: (-score[n]["total"], n != chosen, n))
    out: list[Ranked] = []
    for i, node in enumerate(order):
        against = order[1] if i == 0 and len(order) > 1 else (order[0] if i else None)
        deciding = deciding_plugins(score[node]["plugins"], score[against]["plugins"]) if against else ()
        out.append(Ranked(i + 1, node, zone_of(trace, node), score[node]["total"], score[node]["plugins"],
                          against, deciding, node in selected, node == chosen))
    return out


# -- rejected nodes, grouped by reason --------------------------------------------------------------

@dataclass
class RejectionGroup:
    """Nodes one plugin rejected with one reason; `reported`: those where the scheduler itself
    reported it (what FailedScheduling counts)."""

    plugin: str
    reason: str
    code: str
    nodes: list[str] = field(default_factory=list)
    reported: list[str] = field(default_factory=list)
    named: bool = True           # False: `size` nodes the trace does not name
    size: int = 0

    @property
    def count(self) -> int:
        return len(self.nodes) if self.named else self.size


class SharedReads:
    """What a view reads of a trace's containers, made once while the very containers come again: the
    traces of the pods that share a cycle share its verdicts (`explain/shared_cycles`: a file of pods
    of a few shapes). The last `kept` are held, with what they were made of (a file's pods come shape
    after shape in turn); the readers never change what they are given."""

    def __init__(self, kept: int = 32) -> None:
        self.kept = kept
        self._made: dict[tuple, tuple[tuple[Any, ...], Any]] = {}

    def get(self, read: tuple[Any, ...], make: Callable[[], T], *also: Hashable) -> T:
        """`make()` of the objects `read` (and the values `also`), made anew unless these very objects were."""
        key = (*map(id, read), *also)
        found = self._made.get(key)
        if found is None or any(map(is_not, found[0], read)):
            if len(self._made) >= self.kept:
                del self._made[next(iter(self._made))]
            found = self._made[key] = (read, make())
        return found[1]


EMPTY: Mapping[str, Any] = MappingProxyType({})        # (what a trace without the key reads: one object)
_NAMED_GROUPS = SharedReads()


def rejection_groups(trace: Trace) -> list[RejectionGroup]:
    """Every (plugin, reason) that rejected a node, with its nodes in visiting order, most nodes
    first (`filterAll` when the trace has it, else `filter`); PreFilter's exclusions one group each.
    The named groups are read once for the traces that share a cycle's verdicts (`SharedReads`)."""
    read = (trace.get("filter") or EMPTY, trace.get("filterAll"), (trace.get("details") or EMPTY).get("nodes") or EMPTY)
    return [*_NAMED_GROUPS.get(read, lambda: _named_groups(*read)), *_unnamed_groups(trace)]


def _named_groups(first: Mapping[str, Any], every: Mapping[str, Any] | None,
                  facts: Mapping[str, Any]) -> list[RejectionGroup]:
    groups: dict[tuple[str, str], RejectionGroup] = {}
    # each group's nodes and reported nodes as sets, asked for every node (its lists keep the order)
    members: dict[tuple[str, str], tuple[set[str], set[str]]] = {}

    def add(plugin: str, reason: str, code: str, node: str, reported: bool) -> None:
        g = groups.get((plugin, reason))
        if g is None:
            g = groups[(plugin, reason)] = RejectionGroup(plugin, reason, code)
            members[(plugin, reason)] = (set(), set())
        nodes, said = members[(plugin, reason)]
        if node not in nodes:
            nodes.add(node)
            g.nodes.append(node)
        if code == "UnschedulableAndUnresolvable":
            g.code = code
        if reported and node not in said:
            said.add(node)
            g.reported.append(node)

    def add_detailed(plugin: str, reason: str, code: str, node: str, reported: bool) -> None:
        detail = _REASON_DETAIL.get(plugin)
        said = detail(((facts.get(node) or {}).get("plugins") or {}).get(plugin) or {}) if detail else ""
        add(plugin, f"{reason} ({said})" if said else reason, code, node, reported)

    # a filterAll entry's rejections, read once per entry: nodes with the same statuses share one
    # (its id names it while `every` holds it)
    rejections: dict[int, list[tuple[str, str, str]]] = {}

    def rejected(entry: Mapping[str, Any]) -> list[tuple[str, str, str]]:
        found = rejections.get(id(entry))
        if found is None:
            found = rejections[id(entry)] = [(plugin, reason, pst["code"]) for plugin, pst in entry.items()
                                             if pst.get("code") in REJECTED for reason in pst.get("reasons") or [pst["code"]]]
        return found

    for node, st in first.items():
        own = st.get("plugin", "") if st.get("code") in REJECTED else None
        if every is not None and node in every:
            for plugin, reason, code in rejected(every[node]):
                add_detailed(plugin, reason, code, node, plugin == own)
        if own is not None:  # the scheduler's own verdict, even if filterAll missed it
            for reason in st.get("reasons") or [st["code"]]:
                add_detailed(own, reason, st["code"], node, True)
    return sorted(groups.values(), key=lambda g: (-len(g.nodes), -len(g.reported), g.plugin, g.reason))


def _missing_features(facts: Mapping[str, Any]) -> str:
    missing = facts.get("missing") or []
    return f"missing: {', '.join(missing)}" if missing else ""


# What a plugin's reason leaves out, from its facts on the node (`details`): said beside the
# reason, so the nodes of one reason are grouped by it.
_REASON_DETAIL = {"NodeDeclaredFeatures": _missing_features}


def _unnamed_groups(trace: Trace) -> list[RejectionGroup]:
    search = trace.get("search")
    result = trace.get("result") or {}
    if search is None:
        pre = next((p for p in trace.get("preFilter") or () if p.get("code") in REJECTED), None)
        if pre is None or result.get("status") != "Unschedulable":
            return []
        n = _node_count(trace)
        return [RejectionGroup(pre["plugin"], "; ".join(pre.get("reasons") or [pre["code"]]), pre["code"],
                               named=False, size=n)]
    narrowed = trace.get("preFilterNodeNames")
    if narrowed is None:
        return []
    outside = search["numAllNodes"] - len(set(search.get("order") or ()))
    if outside <= 0:
        return []
    return [RejectionGroup("PreFilter", f"not among the {len(narrowed)} node name(s) PreFilter narrowed the "
                           "search to", "UnschedulableAndUnresolvable", named=False, size=outside)]


def _node_count(trace: Trace) -> int:
    msg = (trace.get("result") or {}).get("message") or ""
    head = msg.split(" nodes are available", 1)[0]
    if "/" in head:
        try:
            return int(head.split("/", 1)[1])
        except ValueError:
            return 0
    return 0


# -- the search ---------------------------------------------------------------------------------------

# Why the search ended (`SearchFigures.stop`).
STOP_END = "end"            # every node it could look at was looked at
STOP_ENOUGH = "enough"      # it found numFeasibleNodesToFind feasible nodes, and one more (dropped)
STOP_ERROR = "error"        # a Filter plugin failed with an error on a node: the cycle ends there
STOP_FIRST = "first"        # the node tried first, alone (nominated, or a batching hint), fits


@dataclass(frozen=True)
class SearchFigures:
    """How far the round-robin search went, what it left out, and why it stopped (`stop`);
    `tried_first`: the node filtered alone before it (`first_why`)."""

    num_all_nodes: int
    num_feasible_nodes_to_find: int
    start_index: int
    start_node: str | None
    stop_node: str | None
    next_start_index: int
    examined: int
    never_examined: int
    outside_prefilter: int
    feasible_found: int
    dropped: str | None
    deterministic: bool
    # the never-examined nodes, evaluated after the decision (extra key `unexamined`)
    evaluated: bool = False
    unexamined_feasible: int = 0
    winner: str | None = None
    winner_total: int | None = None
    best_unexamined: str | None = None
    best_unexamined_total: int | None = None
    higher: tuple[str, ...] = ()
    evaluation_error: str | None = None
    stop: str = STOP_END
    tried_first: str | None = None
    first_why: str | None = None
    error_node: str | None = None
    error_plugin: str | None = None
    not_in_cluster: int = 0


def tried_first(trace: Trace) -> tuple[str, str] | None:
    """(node, "nominated" or "hint"): the node filtered alone before the round-robin, when the
    trace shows one."""
    search = trace.get("search") or {}
    order = search.get("order") or []
    if not order:
        return None
    if trace.get("hint") and order[0] == trace["hint"]:
        return order[0], "hint"
    if order[0] in order[1:]:
        return order[0], "nominated"
    alone = (len(order) == 1 and search.get("numFilterSuccess") == 1 and search["numAllNodes"] > 1
             and search.get("nextStartIndex") == search["startIndex"])
    return (order[0], "nominated") if alone else None


def filter_error(trace: Trace) -> tuple[str, str] | None:
    """(node, plugin): where a Filter plugin failed with an error, ending the cycle."""
    return next(((n, st.get("plugin") or "") for n, st in (trace.get("filter") or {}).items()
                 if st.get("code") == "Error"), None)


def search_figures(trace: Trace) -> SearchFigures | None:
    search = trace.get("search")
    if search is None:
        return None
    order = search.get("order") or []
    visited = len(set(order))
    first = tried_first(trace)
    rounds = order[1:] if first else order          # the round-robin's part
    to_find = search["numFeasibleNodesToFind"]
    found = search.get("numFilterSuccess", 0)
    error = filter_error(trace)
    if error is not None:
        stop = STOP_ERROR
    elif first is not None and not rounds:
        stop = STOP_FIRST
    elif found > to_find:
        stop = STOP_ENOUGH
    else:
        stop = STOP_END
    dropped = order[-1] if stop == STOP_ENOUGH and order else None
    narrowed = trace.get("preFilterNodeNames")
    in_scope = search["numAllNodes"] if narrowed is None else min(search["numAllNodes"], len(narrowed))
    not_in_cluster = 0
    if narrowed is not None and stop == STOP_END and order and visited < in_scope:
        # nothing cut the search short: the names it did not reach name no node
        not_in_cluster, in_scope = in_scope - visited, visited
    fig = dict(num_all_nodes=search["numAllNodes"], num_feasible_nodes_to_find=to_find,
               start_index=search["startIndex"], start_node=rounds[0] if rounds else None,
               stop_node=order[-1] if order else None, next_start_index=search.get("nextStartIndex", 0),
               examined=visited, never_examined=max(0, in_scope - visited),
               outside_prefilter=search["numAllNodes"] - in_scope, feasible_found=found, dropped=dropped,
               deterministic=search.get("orderDeterministic", True), stop=stop,
               tried_first=first[0] if first else None, first_why=first[1] if first else None,
               error_node=error[0] if error else None, error_plugin=error[1] if error else None,
               not_in_cluster=not_in_cluster)
    extra = trace.get("unexamined")
    if isinstance(extra, dict):
        totals: Mapping[str, int] = extra.get("totals") or {}
        candidates = [n for n in extra.get("feasible") or () if n in totals]
        best = max(candidates, key=lambda n: (totals[n], n == extra.get("dropped")), default=None)
        winner = extra.get("winner") or {}
        fig.update(evaluated=True, unexamined_feasible=len([n for n in extra.get("feasible") or ()
                                                            if n != extra.get("dropped")]),
                   winner=winner.get("node"), winner_total=winner.get("total"),
                   best_unexamined=best, best_unexamined_total=totals.get(best) if best else None,
                   higher=tuple(extra.get("higher") or ()), evaluation_error=extra.get("error"))
    return SearchFigures(**fig)


def never_reason(fig: SearchFigures) -> str:
    """Why the search stopped before some nodes (`fig.stop`)."""
    if fig.stop == STOP_ERROR:
        where = f" ({fig.error_plugin} on {fig.error_node})" if fig.error_plugin and fig.error_node else ""
        return f"the scheduler stopped at the Filter error{where}: the cycle ended with it, no other node was tried"
    if fig.stop == STOP_FIRST:
        return f"the node tried first ({fig.tried_first}) fit: the scheduler took it without a search"
    return "the search stopped once it had found enough feasible nodes"


# -- verdict --------------------------------------------------------------------------------------------

NO_NODES = "no nodes available to schedule pods"     # the scheduler's ErrNoNodesAvailable


def no_nodes(trace: Trace) -> bool:
    """The cluster has no nodes: the scheduler stopped before PreFilter with ErrNoNodesAvailable."""
    result = trace.get("result") or {}
    return (trace.get("search") is None and result.get("status") == "Unschedulable"
            and result.get("message") == NO_NODES)


def missing_prefilter_state(trace: Trace) -> Mapping[str, Any] | None:
    """DynamicResources' PostFilter failing with "not found" (v1.35.4): PreFilter stopped before it
    wrote the state; the scheduler appends ". not found" to the message."""
    post = trace.get("postFilter")
    if not isinstance(post, dict):
        return None
    for p in post.get("plugins") or ():
        if p.get("plugin") == "DynamicResources" and p.get("code") == "Error" and "not found" in (
                p.get("reasons") or ()):
            return p
    return None


def prefilter_rejection(trace: Trace) -> Mapping[str, Any] | None:
    """The PreFilter call that stopped the cycle before any node was examined, if any."""
    if trace.get("search") is not None or trace.get("preFilter") is None:
        return None
    return next((p for p in trace["preFilter"] if p.get("code") in (*REJECTED, "Error")), None)


def shorten(names: list[str], limit: int | None) -> str:
    """`a, b, c` or `a, b, ... (+40 more)`."""
    if limit is None or len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit]) + f", ... (+{len(names) - limit} more)"
