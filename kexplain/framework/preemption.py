"""DefaultPreemption's evaluator (kube-scheduler's framework/preemption), run as a dry run."""
from __future__ import annotations

import calendar
import re
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from kexplain.apimachinery.fielderrors import aggregate as _aggregate
from kexplain.apimachinery.gosort import go_sort
from kexplain.framework.cycle_state import CycleState
from kexplain.framework.fit_error import fit_error_message
from kexplain.framework.interface import NodeToStatus, PostFilterResult
from kexplain.framework.status import SUCCESS, Code, Status, unresolvable, unschedulable
from kexplain.model.labels import LabelSelector, SelectorError, parse_selector

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.framework.interface import Handle
    from kexplain.model.nodeinfo import NodeInfo
    from kexplain.model.pod import PodInfo
    from kexplain.model.snapshot import Snapshot

# Status messages of the evaluator (framework/preemption/preemption.go and
# DefaultPreemption.SelectVictimsOnNode), byte-exact.
ERR_NO_VICTIMS = "No preemption victims found for incoming pod"
ERR_NOT_HELPFUL = "Preemption is not helpful for scheduling"
ERR_NO_CANDIDATE = "no candidate node for preemption"
ERR_NO_NODES = "no nodes available"
ERR_EXPECTED_VICTIM = 'expected at least one victim pod on node "{node}"'

DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE = 10
DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE = 100

# Added to every priority before summing, so that all terms are >= 0.
_PRIORITY_SHIFT = 2**31

PDB_CACHE_KEY = "DefaultPreemption/pdbs"


# --- start times -------------------------------------------------------------------------

_RFC3339 = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$")


@lru_cache(maxsize=65536)
def parse_timestamp(text: str) -> int | None:
    """An RFC 3339 timestamp as nanoseconds since the epoch; None when it does not parse."""
    m = _RFC3339.match(text.strip())
    if not m:
        return None
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    try:
        secs = calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0))
    except (ValueError, OverflowError):
        return None
    frac = (m.group(7) or "")[:9].ljust(9, "0")
    zone = m.group(8)
    if zone not in ("Z", "z"):
        sign = 1 if zone[0] == "+" else -1
        secs -= sign * (int(zone[1:3]) * 3600 + int(zone[4:6]) * 60)
    return secs * 1_000_000_000 + int(frac)


class StartTimes:
    """A pod's start time in nanoseconds; a pod not started reads the clock afresh, as the scheduler's does."""

    def __init__(self) -> None:
        self._now = time.time_ns()

    def now(self) -> int:
        self._now = max(self._now + 1, time.time_ns())
        return self._now

    def of(self, pod: "PodInfo") -> int:
        raw = pod.start_time
        if isinstance(raw, str):
            ns = parse_timestamp(raw)
            if ns is not None:
                return ns
        return self.now()


def more_important_pod(a: "PodInfo", b: "PodInfo", times: StartTimes) -> bool:
    """Higher priority first; at equal priority the pod that started earlier."""
    if a.priority != b.priority:
        return a.priority > b.priority
    return times.of(a) < times.of(b)


def earliest_start_of_highest_priority(pods: Sequence["PodInfo"], times: StartTimes) -> int:
    """The earliest start among the victims that share the highest priority."""
    earliest = times.of(pods[0])
    top = pods[0].priority
    for p in pods:
        if p.priority == top:
            start = times.of(p)
            if start < earliest:
                earliest = start
        elif p.priority > top:
            top = p.priority
            earliest = times.of(p)
    return earliest


# --- PodDisruptionBudgets ----------------------------------------------------------------

@dataclass(frozen=True)
class DisruptionBudget:
    """The parts of a policy/v1 PodDisruptionBudget preemption reads."""

    namespace: str
    name: str
    selector: LabelSelector | None  # None: selects nothing (null, empty or invalid selector)
    disruptions_allowed: int
    disrupted_pods: frozenset[str]

    @classmethod
    def from_obj(cls, obj: dict[str, Any]) -> "DisruptionBudget":
        meta = obj.get("metadata") or {}
        spec = obj.get("spec") or {}
        status = obj.get("status") or {}
        try:
            sel: LabelSelector | None = parse_selector(spec.get("selector"))
        except SelectorError:
            sel = None
        if sel is not None and (sel.nothing or sel.everything):
            sel = None  # a null or empty selector matches no pod here
        allowed = status.get("disruptionsAllowed")
        return cls(meta.get("namespace") or "default", meta.get("name") or "", sel,
                   int(allowed) if isinstance(allowed, int) else 0,
                   frozenset((status.get("disruptedPods") or {}).keys()))

    def selects(self, pod: "PodInfo") -> bool:
        return self.namespace == pod.namespace and self.selector is not None and self.selector.matches(pod.labels)


def disruption_budgets(snapshot: "Snapshot") -> list[DisruptionBudget]:
    """Every PodDisruptionBudget of the cluster, parsed once per snapshot."""
    return snapshot.cached(PDB_CACHE_KEY, lambda: [DisruptionBudget.from_obj(o)
                                                  for o in snapshot.of_kind("PodDisruptionBudget")])


def filter_pods_with_pdb_violation(pods: Iterable["PodInfo"], pdbs: Sequence[DisruptionBudget]
                                   ) -> tuple[list["PodInfo"], list["PodInfo"]]:
    """filterPodsWithPDBViolation: split `pods` into those whose eviction would break a budget, and the rest."""
    allowed = [b.disruptions_allowed for b in pdbs]
    by_namespace: dict[str, list[int]] = {}
    for i, b in enumerate(pdbs):
        by_namespace.setdefault(b.namespace, []).append(i)
    violating: list["PodInfo"] = []
    non_violating: list["PodInfo"] = []
    for pod in pods:
        violated = False
        if pod.labels:  # a pod without labels matches no budget
            for i in by_namespace.get(pod.namespace, ()):
                budget = pdbs[i]
                if not budget.selects(pod) or pod.name in budget.disrupted_pods:
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else non_violating).append(pod)
    return violating, non_violating


# --- victims on one node -----------------------------------------------------------------

@dataclass(frozen=True)
class Victims:
    """The pods to evict on one node, most important first, and how many break a PDB."""

    pods: tuple["PodInfo", ...]
    num_pdb_violations: int = 0


@dataclass(frozen=True)
class Candidate:
    node_name: str
    victims: Victims


class _Abort(Exception):
    """A PreFilter extension failed during the what-if: the node's status is this Error."""

    def __init__(self, status: Status) -> None:
        super().__init__(status.message())
        self.status = status


def _as_error(status: Status) -> Status:
    return Status(Code.ERROR, (status.message(),))


def is_preemption_allowed(victim: "PodInfo", preemptor: "PodInfo") -> bool:
    """Only pods of strictly lower priority may be evicted."""
    return victim.priority < preemptor.priority


def select_victims_on_node(handle: "Handle", state: CycleState, pod: "PodInfo", node_info: "NodeInfo",
                           pdbs: Sequence[DisruptionBudget], times: StartTimes) -> tuple[Victims | None, Status]:
    """SelectVictimsOnNode: the fewest lower-priority pods to evict for `pod` to fit (changes its arguments)."""

    def remove(victim: "PodInfo") -> None:
        node_info.remove_pod(victim)
        s = handle.run_pre_filter_extension_remove_pod(state, pod, victim, node_info)
        if not s.is_success:
            raise _Abort(_as_error(s))

    def add(victim: "PodInfo") -> None:
        node_info.add_pod(victim)
        s = handle.run_pre_filter_extension_add_pod(state, pod, victim, node_info)
        if not s.is_success:
            raise _Abort(_as_error(s))

    try:
        potential = [p for p in list(node_info.pods) if is_preemption_allowed(p, pod)]
        for p in potential:
            remove(p)
        if not potential:
            return None, unresolvable(ERR_NO_VICTIMS)

        # Not fitting even with every lower-priority pod gone: this node cannot help.
        status = handle.run_filter_plugins_with_nominated_pods(state, pod, node_info)
        if not status.is_success:
            return None, status

        def less(a: "PodInfo", b: "PodInfo") -> bool:
            return more_important_pod(a, b, times)

        go_sort(potential, less)
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
        victims: list["PodInfo"] = []

        def reprieve(p: "PodInfo") -> bool:
            """Put `p` back; keep it if the pod still fits, else it is a victim."""
            add(p)
            fits = handle.run_filter_plugins_with_nominated_pods(state, pod, node_info).is_success
            if not fits:
                remove(p)
                victims.append(p)
            return fits

        num_violating = sum(1 for p in violating if not reprieve(p))
        for p in non_violating:
            reprieve(p)
        if violating and non_violating:
            go_sort(victims, less)
        return Victims(tuple(victims), num_violating), SUCCESS
    except _Abort as abort:
        return None, abort.status


# --- candidates --------------------------------------------------------------------------

def calculate_num_candidates(num_nodes: int, percentage: int = DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE,
                             absolute: int = DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE) -> int:
    """calculateNumCandidates: `percentage` of the nodes, at least `absolute`, at most all of them."""
    n = num_nodes * percentage // 100
    return min(max(n, absolute), num_nodes)


def nodes_where_preemption_might_help(nodes: Sequence["NodeInfo"], statuses: NodeToStatus) -> list["NodeInfo"]:
    """nodesWherePreemptionMightHelp: the nodes rejected with plain Unschedulable, in node order."""
    return [ni for ni in nodes if statuses.get(ni.name).code is Code.UNSCHEDULABLE]


@dataclass
class DryRun:
    """What the dry run found: candidates (PDB-respecting first), the other nodes' statuses, the errors."""

    candidates: list[Candidate]
    statuses: NodeToStatus
    errors: list[str] = field(default_factory=list)
    visited: list[str] = field(default_factory=list)


def dry_run_preemption(handle: "Handle", state: CycleState, pod: "PodInfo", potential: Sequence["NodeInfo"],
                       pdbs: Sequence[DisruptionBudget], offset: int, num_candidates: int,
                       times: StartTimes) -> DryRun:
    """DryRunPreemption: visit `potential` round-robin from `offset` until enough candidates are found."""
    non_violating: list[Candidate] = []
    violating: list[Candidate] = []
    out = DryRun([], NodeToStatus())
    n = len(potential)
    for i in range(n):
        ni = potential[(offset + i) % n]
        out.visited.append(ni.name)
        victims, status = select_victims_on_node(handle, state.clone(), pod, ni.clone(), pdbs, times)
        if status.is_success and victims is not None and victims.pods:
            kept = non_violating if victims.num_pdb_violations == 0 else violating
            if len(kept) < num_candidates:
                kept.append(Candidate(ni.name, victims))
            if non_violating and len(non_violating) + len(violating) >= num_candidates:
                break
            continue
        if status.is_success:
            status = Status.error(ERR_EXPECTED_VICTIM.format(node=ni.name))
        if status.code is Code.ERROR:
            out.errors.append(status.message())
        out.statuses.set(ni.name, status)
    out.candidates = non_violating + violating
    return out


def pick_one_node_for_preemption(candidates: Sequence[Candidate], times: StartTimes) -> str:
    """pickOneNodeForPreemption: each criterion in turn narrows the tied candidates; the first left wins."""
    if not candidates:
        return ""
    criteria: list[Callable[[Victims], int]] = [
        lambda v: -v.num_pdb_violations,
        lambda v: -v.pods[0].priority,
        lambda v: -sum(p.priority + _PRIORITY_SHIFT for p in v.pods),
        lambda v: -len(v.pods),
        lambda v: earliest_start_of_highest_priority(v.pods, times),
    ]
    remaining = list(candidates)
    for score in criteria:
        best: int | None = None
        tied: list[Candidate] = []
        for c in remaining:
            s = score(c.victims)
            if best is None or s > best:
                best, tied = s, []
            if s == best:
                tied.append(c)
        if len(tied) == 1:
            return tied[0].node_name
        remaining = tied
    return remaining[0].node_name


def select_candidate(candidates: Sequence[Candidate], times: StartTimes) -> Candidate | None:
    if not candidates:
        return None
    if len(candidates) == 1:
        return candidates[0]
    by_node = {c.node_name: c for c in candidates}
    return by_node.get(pick_one_node_for_preemption(candidates, times), candidates[0])


# --- the whole attempt -------------------------------------------------------------------

def victim_key(pod: "PodInfo") -> str:
    return f"{pod.namespace}/{pod.name}"


def _details(offset: int, num_candidates: int, potential: Sequence["NodeInfo"], run: DryRun | None,
             chosen: Candidate | None, pdbs: Sequence[DisruptionBudget] = ()) -> dict[str, Any]:
    candidates = list(run.candidates) if run else []
    lost = _lost_on(candidates, chosen)
    return {
        "potentialNodes": [ni.name for ni in potential],
        "offset": offset,
        "numCandidates": num_candidates,
        "visited": list(run.visited) if run else [],
        "candidates": [{"node": c.node_name, "victims": [victim_key(p) for p in c.victims.pods],
                        "numPDBViolations": c.victims.num_pdb_violations,
                        "victimDetails": _victim_details(c.victims.pods, pdbs),
                        **({"lostOn": lost[c.node_name]} if c.node_name in lost else {})}
                       for c in candidates],
        "nodeStatuses": {name: s.to_json(with_plugin=True) for name, s in (run.statuses.statuses.items()
                                                                         if run else ())},
        "selected": chosen.node_name if chosen else "",
    }


# -- what the explanation shows of the candidates (kexplain) ---------------------------------

def _victim_details(victims: Sequence["PodInfo"], pdbs: Sequence[DisruptionBudget]) -> list[dict[str, Any]]:
    """Each victim's priority and the PodDisruptionBudgets its eviction would violate."""
    violating, _ = filter_pods_with_pdb_violation(victims, pdbs)
    breaking = {victim_key(p) for p in violating}
    out = []
    for p in victims:
        names = [f"{b.namespace}/{b.name}" for b in pdbs
                 if victim_key(p) in breaking and b.selects(p) and p.name not in b.disrupted_pods]
        out.append({"pod": victim_key(p), "priority": p.priority, "pdbs": names})
    return out


# The selection criteria in the order the scheduler applies them (pick_one_node_for_preemption).
_CRITERIA: tuple[tuple[str, Callable[[Victims], int]], ...] = (
    ("fewer PodDisruptionBudget violations", lambda v: -v.num_pdb_violations),
    ("a lower highest victim priority", lambda v: -v.pods[0].priority),
    ("a lower sum of victim priorities", lambda v: -sum(p.priority + _PRIORITY_SHIFT for p in v.pods)),
    ("fewer victims", lambda v: -len(v.pods)),
)
_LAST_CRITERIA = "the later start of its highest-priority victims, then the candidates' order"


def _lost_on(candidates: Sequence[Candidate], chosen: Candidate | None) -> dict[str, str]:
    """Node -> the criterion on which the chosen candidate beat it (start time is not replayed)."""
    if chosen is None or len(candidates) < 2:
        return {}
    out: dict[str, str] = {}
    remaining = list(candidates)
    for name, score in _CRITERIA:
        best = max(score(c.victims) for c in remaining)
        for c in remaining:
            if score(c.victims) < best:
                out[c.node_name] = name
        remaining = [c for c in remaining if score(c.victims) == best]
    for c in remaining:
        if c.node_name != chosen.node_name:
            out[c.node_name] = _LAST_CRITERIA
    return out


def preempt(handle: "Handle", state: CycleState, pod: "PodInfo", statuses: NodeToStatus, *,
            offset: int = 0, percentage: int = DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE,
            absolute: int = DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE) -> tuple[PostFilterResult | None, Status]:
    """Evaluator.Preempt: find candidates and pick one, or the FitError-style message saying why none helps."""
    all_nodes = handle.snapshot.node_infos
    if not all_nodes:
        return None, Status.error(ERR_NO_NODES)
    times = StartTimes()
    potential = nodes_where_preemption_might_help(all_nodes, statuses)
    run: DryRun | None = None
    num = 0
    if potential:
        offset = offset % len(potential)
        num = calculate_num_candidates(len(potential), percentage, absolute)
        run = dry_run_preemption(handle, state, pod, potential, disruption_budgets(handle.snapshot),
                                 offset, num, times)
        candidates, node_statuses = run.candidates, run.statuses
        if run.errors and not candidates:
            return None, Status.error(_aggregate(run.errors))
    else:
        candidates, node_statuses = [], NodeToStatus()

    if not candidates:
        node_statuses.absent = unresolvable(ERR_NOT_HELPFUL)
        message = fit_error_message(len(all_nodes), node_statuses)
        return (PostFilterResult("", "Override", (), _details(offset, num, potential, run, None,
                                                              disruption_budgets(handle.snapshot))),
                unschedulable(message))

    best = select_candidate(candidates, times)
    if best is None or not best.node_name:
        return None, unschedulable(ERR_NO_CANDIDATE)
    victims = tuple(victim_key(p) for p in best.victims.pods)
    details = _details(offset, num, potential, run, best, disruption_budgets(handle.snapshot))
    return PostFilterResult(best.node_name, "Override", victims, details), SUCCESS
