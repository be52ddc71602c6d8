"""DefaultPreemption and the preemption evaluator, on hand-built clusters.

The clusters run through the real Framework with two small fake plugins: FakeCPU (a
Filter: the pod's cpu request must fit in what the node's pods leave free) and
FakeBlocker (PreFilter with AddPod/RemovePod extensions: it counts, in the cycle state,
the pods labelled `blocker=yes` per node, and its Filter rejects a node that has one).
Expectations are computed by hand in the comments.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import pytest

from kexplain.config import Profile
from kexplain.framework.cycle_state import CycleState
from kexplain.framework.interface import (FilterPlugin, NodeToStatus, PostFilterResult, PreFilterExtensions,
                                          PreFilterPlugin)
from kexplain.framework.runtime import Framework
from kexplain.framework.status import SUCCESS, Code, Status, unresolvable, unschedulable
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot
from kexplain.plugins.default_preemption import (
    ERR_NOT_ELIGIBLE_NEVER, ERR_NOT_ELIGIBLE_TERMINATING, MESSAGE_PREFIX, DefaultPreemption,
    terminating_by_preemption)
from kexplain.apimachinery.gosort import go_sort
from kexplain.framework.preemption import (
    ERR_NO_VICTIMS, ERR_NOT_HELPFUL, Candidate, DisruptionBudget, StartTimes, Victims, calculate_num_candidates,
    disruption_budgets, earliest_start_of_highest_priority, filter_pods_with_pdb_violation,
    more_important_pod, nodes_where_preemption_might_help, parse_timestamp, pick_one_node_for_preemption,
    preempt, select_victims_on_node)

INSUFFICIENT_CPU = "Insufficient cpu"
BLOCKED = "node(s) had a blocker pod"


# --- fake plugins --------------------------------------------------------------------------

class FakeCPU(FilterPlugin):
    name = "FakeCPU"

    def filter(self, state, pod, node_info) -> Status:
        want = pod.resource.resource.milli_cpu
        if node_info.requested.milli_cpu + want <= node_info.allocatable.milli_cpu:
            return SUCCESS
        return unschedulable(INSUFFICIENT_CPU)


@dataclass
class BlockerState:
    per_node: dict[str, int] = field(default_factory=dict)

    def clone(self) -> "BlockerState":
        return BlockerState(dict(self.per_node))


def _is_blocker(pod: PodInfo) -> bool:
    return pod.labels.get("blocker") == "yes"


class FakeBlocker(PreFilterPlugin, PreFilterExtensions, FilterPlugin):
    name = "FakeBlocker"
    calls: list[tuple[str, str]] = []

    def pre_filter(self, state, pod, nodes):
        counts: dict[str, int] = {}
        for ni in nodes:
            n = sum(1 for p in ni.pods if _is_blocker(p))
            if n:
                counts[ni.name] = n
        state.write(self.name, BlockerState(counts))
        return None, SUCCESS

    def _change(self, state, other, node_info, sign: int, what: str) -> Status:
        FakeBlocker.calls.append((what, other.name))
        if other.labels.get("fail-extension") == "yes":
            return Status(Code.ERROR, ("boom",))
        if _is_blocker(other):
            s: BlockerState = state.read(self.name)
            s.per_node[node_info.name] = s.per_node.get(node_info.name, 0) + sign
        return SUCCESS

    def add_pod(self, state, pod, other, node_info) -> Status:
        return self._change(state, other, node_info, 1, "add")

    def remove_pod(self, state, pod, other, node_info) -> Status:
        return self._change(state, other, node_info, -1, "remove")

    def filter(self, state, pod, node_info) -> Status:
        s: BlockerState = state.read(self.name)
        return unschedulable(BLOCKED) if s.per_node.get(node_info.name, 0) > 0 else SUCCESS


# --- builders ------------------------------------------------------------------------------

_seq = iter(range(1_000_000))


def mkpod(name: str = "", prio: int = 0, cpu: str = "1", node: str = "", ns: str = "default",
          labels: dict[str, str] | None = None, start: str | None = "2024-01-01T00:00:00Z",
          policy: str | None = None, nominated: str = "", deleting: bool = False,
          conditions: list[dict[str, Any]] | None = None) -> PodInfo:
    meta: dict[str, Any] = {"name": name or f"p{next(_seq)}", "namespace": ns}
    if labels:
        meta["labels"] = labels
    if deleting:
        meta["deletionTimestamp"] = "2024-01-02T00:00:00Z"
    spec: dict[str, Any] = {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}],
                            "priority": prio}
    if node:
        spec["nodeName"] = node
    if policy:
        spec["preemptionPolicy"] = policy
    status: dict[str, Any] = {}
    if start is not None:
        status["startTime"] = start
    if nominated:
        status["nominatedNodeName"] = nominated
    if conditions:
        status["conditions"] = conditions
    return PodInfo({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status})


def mknode(name: str, cpu: str, *pods: PodInfo) -> NodeInfo:
    ni = NodeInfo(Node.from_obj({"kind": "Node", "metadata": {"name": name},
                                 "status": {"allocatable": {"cpu": cpu, "pods": "110"}}}))
    for p in pods:
        ni.add_pod(p)
    return ni


def pdb(name: str, selector: Any, allowed: int, ns: str = "default", disrupted: tuple[str, ...] = ()) -> dict:
    obj: dict[str, Any] = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                           "metadata": {"name": name, "namespace": ns},
                           "spec": {}, "status": {"disruptionsAllowed": allowed}}
    if selector is not None:
        obj["spec"]["selector"] = selector
    if disrupted:
        obj["status"]["disruptedPods"] = {p: "2024-01-01T00:00:00Z" for p in disrupted}
    return obj


def framework(nodes: list[NodeInfo], pdbs: tuple[dict, ...] = (), args: dict | None = None,
              nominated: dict[str, list[PodInfo]] | None = None, offset: int = 0) -> Framework:
    snapshot = Snapshot(nodes, objects={"PodDisruptionBudget": list(pdbs)} if pdbs else {})
    profile = Profile("default-scheduler", None,
                      {"preFilter": ("FakeBlocker",), "filter": ("FakeBlocker", "FakeCPU"),
                       "postFilter": ("DefaultPreemption",)},
                      {}, {"DefaultPreemption": args or {}})
    registry = {"FakeCPU": FakeCPU, "FakeBlocker": FakeBlocker, "DefaultPreemption": DefaultPreemption}
    nominated = nominated or {}
    return Framework(profile, registry, snapshot, nominated, preemption_offset=offset)


def filtered(fw: Framework, pod: PodInfo) -> tuple[CycleState, NodeToStatus]:
    """PreFilter, then Filter on every node: the state and statuses PostFilter receives."""
    state = CycleState()
    fw.run_pre_filter(state, pod)
    statuses = NodeToStatus()
    for ni in fw.snapshot.node_infos:
        s = fw.run_filter_plugins_with_nominated_pods(state, pod, ni)
        if not s.is_success:
            statuses.set(ni.name, s)
    return state, statuses


def post_filter(fw: Framework, pod: PodInfo) -> tuple[PostFilterResult | None, Status]:
    state, statuses = filtered(fw, pod)
    return fw.plugins["DefaultPreemption"].post_filter(state, pod, statuses)


def keys(pods) -> list[str]:
    return [p.name for p in pods]


# --- small helpers -------------------------------------------------------------------------

@pytest.mark.parametrize("num_nodes,pct,absolute,want", [
    (10, 10, 100, 10),      # 1 < 100 -> 100 -> capped at 10 nodes
    (500, 10, 100, 100),    # 50 < 100
    (5000, 10, 100, 500),   # 500
    (1999, 10, 100, 199),   # integer division
    (50, 50, 0, 25),
    (3, 10, 0, 0),          # 0.3 -> 0: no candidate is ever kept
    (1000, 0, 5, 5),
])
def test_calculate_num_candidates(num_nodes, pct, absolute, want):
    assert calculate_num_candidates(num_nodes, pct, absolute) == want


@pytest.mark.parametrize("text,want", [
    ("1970-01-01T00:00:00Z", 0),
    ("1970-01-01T00:00:01.5Z", 1_500_000_000),
    ("2024-01-01T01:00:00+01:00", parse_timestamp("2024-01-01T00:00:00Z")),
    ("1970-01-02T00:00:00Z", 86_400 * 10**9),
    ("not a time", None),
])
def test_parse_timestamp(text, want):
    assert parse_timestamp(text) == want


@pytest.mark.parametrize("a,b,want", [
    (dict(prio=10), dict(prio=5), True),
    (dict(prio=5), dict(prio=10), False),
    (dict(prio=5, start="2024-01-01T00:00:00Z"), dict(prio=5, start="2024-01-01T00:00:01Z"), True),
    (dict(prio=5, start="2024-01-01T00:00:01Z"), dict(prio=5, start="2024-01-01T00:00:00Z"), False),
    (dict(prio=5), dict(prio=5), False),                          # same start: not more important
    (dict(prio=5), dict(prio=5, start=None), True),               # started beats "now"
    (dict(prio=5, start=None), dict(prio=5), False),
    (dict(prio=5, start=None), dict(prio=5, start=None), True),   # two readings of the clock: first is earlier
])
def test_more_important_pod(a, b, want):
    assert more_important_pod(mkpod(**a), mkpod(**b), StartTimes()) is want


def test_earliest_start_of_highest_priority_ignores_lower_priorities():
    times = StartTimes()
    pods = [mkpod(prio=5, start="2024-01-01T10:00:00Z"), mkpod(prio=3, start="2024-01-01T08:00:00Z"),
            mkpod(prio=5, start="2024-01-01T09:00:00Z")]
    assert earliest_start_of_highest_priority(pods, times) == parse_timestamp("2024-01-01T09:00:00Z")


@pytest.mark.parametrize("n", [0, 1, 2, 5, 12, 13, 20, 49, 50, 51, 100, 300])
@pytest.mark.parametrize("shape", ["random", "sorted", "reversed", "few-values", "organ-pipe"])
def test_go_sort_slice_sorts(n, shape):
    rng = random.Random(n * 31 + len(shape))
    if shape == "random":
        keys_ = [rng.randrange(1000) for _ in range(n)]
    elif shape == "sorted":
        keys_ = list(range(n))
    elif shape == "reversed":
        keys_ = list(range(n, 0, -1))
    elif shape == "few-values":
        keys_ = [rng.randrange(3) for _ in range(n)]
    else:
        keys_ = list(range(n // 2)) + list(range(n - n // 2, 0, -1))
    items = [(k, i) for i, k in enumerate(keys_)]
    go_sort(items, lambda x, y: x[0] < y[0])
    assert [k for k, _ in items] == sorted(keys_)
    assert sorted(i for _, i in items) == list(range(n))


def test_go_sort_slice_small_slices_keep_tie_order():
    # Up to 12 elements Go uses insertion sort, which keeps equal elements in input order.
    items = [(1, "a"), (0, "b"), (1, "c"), (0, "d"), (1, "e")]
    go_sort(items, lambda x, y: x[0] < y[0])
    assert items == [(0, "b"), (0, "d"), (1, "a"), (1, "c"), (1, "e")]


# Tie orders produced by Go 1.24+'s sort.Slice (the Go of every kube-scheduler followed, 1.33 to
# 1.36; recorded with Go 1.26.0) on (key, index) pairs compared by key only: the indexes in the
# order Go leaves them. Go 1.19-1.23 left the first two otherwise (the pattern breaker's xorshift
# changed): the scheduler's victims of equal priority and start time are reprieved in this order.
GO_TIE_ORDERS = [
    ("2 2 2 0 0 0 2 1 0 0 0 2 2 0 1 1 0 1 2 0",
     "10 13 19 3 4 5 16 8 9 7 14 15 17 1 12 11 0 6 18 2"),
    ("0 0 0 0 0 2 0 0 1 2 0 1 1 0 0 1 2 1 2 2 1 0 2 2 2 2 2 2 0 1 2 2 1 1 1 1 0 1 2 1 0 0 0 0 1 0 0 1 2 0 0 0 2 0 "
     "2 0 1 2 0 0 0 2 1 0",
     "28 1 2 3 4 63 6 7 60 59 10 58 55 13 14 53 51 50 49 46 45 21 43 42 41 40 36 0 33 20 62 8 32 11 34 35 56 37 12 "
     "39 15 17 47 29 44 25 38 23 54 18 24 16 52 19 22 48 26 57 27 9 31 61 30 5"),
    ("9 9 9 9 9 9 9 9 9 8 8 8 8 8 8 8 8 8 8 8 7 7 7 7 7 7 7 6 6 6 6 6 6 6 6 6 6 6 5 5 5 5 5 5 5 5 5 5 5 5 5 4 4 4 "
     "4 4 4 4 4 4 4 3 3 3 3 3 3 2 2 2 2 2 2 2 2 2 1 1 1 1 1 1 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0",
     "85 99 98 97 96 95 94 93 92 91 90 89 88 87 86 76 84 83 82 81 80 79 78 77 74 69 67 73 72 71 70 75 68 61 66 65 "
     "64 63 62 51 60 59 58 57 56 55 54 53 52 49 40 50 48 47 46 45 44 43 42 41 38 39 27 37 36 35 34 33 32 31 30 29 "
     "28 26 20 25 24 23 22 21 14 11 18 17 16 15 9 13 12 19 10 0 8 7 6 5 4 3 2 1"),
]


@pytest.mark.parametrize("keys_text,want", GO_TIE_ORDERS)
def test_go_sort_slice_leaves_ties_where_go_does(keys_text, want):
    items = [(int(k), i) for i, k in enumerate(keys_text.split())]
    go_sort(items, lambda x, y: x[0] < y[0])
    assert " ".join(str(i) for _, i in items) == want


def test_go_sort_slice_with_always_true_less_reverses_small_slices():
    # Two pods that have not started compare with fresh clock readings: less() is always
    # true, and insertion sort then moves each element to the front.
    items = list("abcde")
    go_sort(items, lambda x, y: True)
    assert items == list("edcba")


# --- PDBs ----------------------------------------------------------------------------------

def budgets(*objs: dict) -> list[DisruptionBudget]:
    return [DisruptionBudget.from_obj(o) for o in objs]


APP_A = {"matchLabels": {"app": "a"}}


@pytest.mark.parametrize("pods,pdbs,want_violating", [
    # One disruption allowed, two covered pods: the second one (in the given order) violates.
    ([("x", {"app": "a"}), ("y", {"app": "a"})], [pdb("b", APP_A, 1)], ["y"]),
    # Nothing allowed: every covered pod violates.
    ([("x", {"app": "a"}), ("y", {"app": "a"})], [pdb("b", APP_A, 0)], ["x", "y"]),
    # A pod without labels matches no budget, even one selecting by absence of a label.
    ([("x", {})], [pdb("b", {"matchExpressions": [{"key": "app", "operator": "DoesNotExist"}]}, 0)], []),
    # Another namespace's budget does not cover the pod.
    ([("x", {"app": "a"})], [pdb("b", APP_A, 0, ns="other")], []),
    # Empty and null selectors match nothing.
    ([("x", {"app": "a"})], [pdb("b", {}, 0), pdb("c", None, 0)], []),
    # A pod already in disruptedPods neither violates nor uses up the budget.
    ([("x", {"app": "a"}), ("y", {"app": "a"})], [pdb("b", APP_A, 1, disrupted=("x",))], []),
    # Two budgets cover x: one with room, one without -> x violates.
    ([("x", {"app": "a", "tier": "t"})], [pdb("b", APP_A, 5), pdb("c", {"matchLabels": {"tier": "t"}}, 0)], ["x"]),
    # Unmatched pods are unaffected.
    ([("x", {"app": "b"}), ("y", {"app": "a"})], [pdb("b", APP_A, 0)], ["y"]),
])
def test_filter_pods_with_pdb_violation(pods, pdbs, want_violating):
    infos = [mkpod(name, labels=labels) for name, labels in pods]
    violating, non_violating = filter_pods_with_pdb_violation(infos, budgets(*pdbs))
    assert keys(violating) == want_violating
    assert keys(non_violating) == [p.name for p in infos if p.name not in want_violating]


def test_disruption_budgets_read_once_per_snapshot():
    snap = Snapshot([], objects={"PodDisruptionBudget": [pdb("b", APP_A, 2)]})
    first = disruption_budgets(snap)
    assert first is disruption_budgets(snap)
    assert first[0].disruptions_allowed == 2 and first[0].namespace == "default"


# --- victims on one node -------------------------------------------------------------------

def victims_on(node: NodeInfo, pod: PodInfo, pdbs: tuple[dict, ...] = ()) -> tuple[Victims | None, Status]:
    fw = framework([node], pdbs)
    state, _ = filtered(fw, pod)
    return select_victims_on_node(fw, state.clone(), pod, node.clone(), budgets(*pdbs), StartTimes())


def test_select_victims_reprieves_the_most_important_first():
    # 4 cpu, full: low1 (prio 1, 2 cpu), low2 (prio 2, 1 cpu), high (prio 100, 1 cpu).
    # The pod (prio 10) needs 2 cpu. Without low1+low2: 1 used, fits. Reprieve low2 (more
    # important): 2 used + 2 <= 4, kept. Reprieve low1: 4 + 2 > 4, victim.
    node = mknode("n1", "4", mkpod("low1", 1, "2", "n1"), mkpod("low2", 2, "1", "n1"), mkpod("high", 100, "1", "n1"))
    victims, status = victims_on(node, mkpod("in", 10, "2"))
    assert status.is_success
    assert keys(victims.pods) == ["low1"] and victims.num_pdb_violations == 0


def test_select_victims_at_equal_priority_evicts_the_younger_pod():
    node = mknode("n1", "2", mkpod("young", 1, "1", "n1", start="2024-01-02T00:00:00Z"),
                  mkpod("old", 1, "1", "n1", start="2024-01-01T00:00:00Z"))
    victims, _ = victims_on(node, mkpod("in", 10, "1"))
    assert keys(victims.pods) == ["young"]


def test_select_victims_no_lower_priority_pods():
    node = mknode("n1", "2", mkpod("same", 10, "2", "n1"))
    victims, status = victims_on(node, mkpod("in", 10, "1"))
    assert victims is None
    assert status == unresolvable(ERR_NO_VICTIMS)


def test_select_victims_not_fitting_even_when_all_are_gone_reports_the_filter():
    # high (prio 100) keeps 3 of 4 cpu; removing low leaves 1 cpu for a 2-cpu pod.
    node = mknode("n1", "4", mkpod("low", 1, "1", "n1"), mkpod("high", 100, "3", "n1"))
    victims, status = victims_on(node, mkpod("in", 10, "2"))
    assert victims is None
    assert (status.code, status.reasons, status.plugin) == (Code.UNSCHEDULABLE, (INSUFFICIENT_CPU,), "FakeCPU")


def test_select_victims_pdb_protected_pods_are_reprieved_first():
    # Two equal 1-cpu pods fill the node; one must go. Without a PDB the younger (b) goes;
    # with a PDB that allows no disruption on b, b is reprieved first and a goes.
    a = mkpod("a", 1, "1", "n1", start="2024-01-01T00:00:00Z", labels={"app": "a"})
    b = mkpod("b", 1, "1", "n1", start="2024-01-02T00:00:00Z", labels={"app": "b"})
    victims, _ = victims_on(mknode("n1", "2", a, b), mkpod("in", 10, "1"))
    assert keys(victims.pods) == ["b"]
    victims, _ = victims_on(mknode("n1", "2", a, b), mkpod("in", 10, "1"),
                            (pdb("pb", {"matchLabels": {"app": "b"}}, 0),))
    assert keys(victims.pods) == ["a"] and victims.num_pdb_violations == 0


def test_select_victims_counts_pdb_violations_and_sorts_victims():
    # Everything must go (the pod needs the whole node). v1 is PDB-protected: it is a
    # violating victim. Victims come back most important first: v1 (prio 3), v2 (prio 2), v3.
    v3 = mkpod("v3", 1, "1", "n1", labels={"x": "y"})
    v1 = mkpod("v1", 3, "1", "n1", labels={"app": "a"})
    v2 = mkpod("v2", 2, "1", "n1", labels={"x": "y"})
    victims, status = victims_on(mknode("n1", "3", v3, v1, v2), mkpod("in", 10, "3"), (pdb("pa", APP_A, 0),))
    assert status.is_success
    assert keys(victims.pods) == ["v1", "v2", "v3"] and victims.num_pdb_violations == 1


def test_select_victims_uses_prefilter_extensions_on_a_copy():
    # The node is blocked by a blocker pod (prio 1); evicting it is the only way.
    blocker = mkpod("blk", 1, "1", "n1", labels={"blocker": "yes"})
    other = mkpod("oth", 1, "1", "n1")
    node = mknode("n1", "8", blocker, other)
    fw = framework([node])
    pod = mkpod("in", 10, "1")
    state, statuses = filtered(fw, pod)
    assert statuses.get("n1").reasons == (BLOCKED,)
    FakeBlocker.calls = []
    victims, status = select_victims_on_node(fw, state.clone(), pod, node.clone(), [], StartTimes())
    assert status.is_success and keys(victims.pods) == ["blk"]
    # remove both; reprieve blk (same priority, same start: input order) -> blocked, removed
    # again; reprieve oth -> fits.
    assert FakeBlocker.calls == [("remove", "blk"), ("remove", "oth"), ("add", "blk"), ("remove", "blk"),
                                 ("add", "oth")]
    # The snapshot's node and the cycle state are untouched.
    assert keys(node.pods) == ["blk", "oth"]
    assert state.read("FakeBlocker").per_node == {"n1": 1}


def test_select_victims_extension_error_is_an_error_status():
    node = mknode("n1", "1", mkpod("bad", 1, "1", "n1", labels={"fail-extension": "yes"}))
    victims, status = victims_on(node, mkpod("in", 10, "1"))
    assert victims is None
    assert status.code is Code.ERROR
    assert status.reasons == ('running RemovePod on PreFilter plugin "FakeBlocker": boom',)


# --- candidate selection -------------------------------------------------------------------

def cand(node: str, *pods: tuple[int, str], violations: int = 0) -> Candidate:
    return Candidate(node, Victims(tuple(mkpod(prio=p, start=s) for p, s in pods), violations))


T0, T1, T2 = "2024-01-01T00:00:00Z", "2024-01-01T01:00:00Z", "2024-01-01T02:00:00Z"
LOWEST = -2**31


@pytest.mark.parametrize("candidates,want", [
    # 1. fewest PDB violations, though its victims matter more.
    ([cand("a", (1, T0), violations=1), cand("b", (100, T0), (100, T0))], "b"),
    # 2. lowest highest-priority victim, though it has more victims.
    ([cand("a", (5, T0)), cand("b", (3, T0), (3, T0), (3, T0))], "b"),
    # 3. smallest priority sum: [5,2] beats [5,4].
    ([cand("a", (5, T0), (4, T0)), cand("b", (5, T0), (2, T0))], "b"),
    # 3. every victim adds 2^31, so [5,4] beats [5,1,1].
    ([cand("a", (5, T0), (1, T0), (1, T0)), cand("b", (5, T0), (4, T0))], "b"),
    # 4. same sum ([0, MIN] and [0] both add up to 2^31 after the shift): fewer victims.
    ([cand("a", (0, T0), (LOWEST, T0)), cand("b", (0, T0))], "b"),
    # 5. latest start among the highest-priority victims (lower ones do not count).
    ([cand("a", (5, T0), (3, T2)), cand("b", (5, T1), (3, T0))], "b"),
    # 5. a victim that has not started counts as starting now: latest of all.
    ([cand("a", (5, T2)), cand("b", (5, None))], "b"),
    # 6. full tie: the first.
    ([cand("a", (5, T0)), cand("b", (5, T0)), cand("c", (5, T0))], "a"),
    # Ties narrow step by step: c loses at 1, a and b tie at 2-4, b starts later.
    ([cand("a", (5, T0)), cand("b", (5, T1)), cand("c", (1, T2), violations=1)], "b"),
])
def test_pick_one_node_for_preemption(candidates, want):
    assert pick_one_node_for_preemption(candidates, StartTimes()) == want


def test_nodes_where_preemption_might_help():
    nodes = [mknode(f"n{i}", "1") for i in range(4)]
    st = NodeToStatus()
    st.set("n0", unschedulable("x"))
    st.set("n1", unresolvable("y"))
    assert [n.name for n in nodes_where_preemption_might_help(nodes, st)] == ["n0"]
    # PreFilter said Unschedulable: every node not listed shares it.
    st.absent = unschedulable("z")
    assert [n.name for n in nodes_where_preemption_might_help(nodes, st)] == ["n0", "n2", "n3"]


# --- the whole PostFilter ------------------------------------------------------------------

def full(name: str, cpu: str = "2", prio: int = 1, start: str = T0) -> NodeInfo:
    """A node whose whole cpu is used by one pod of priority `prio`."""
    return mknode(name, cpu, mkpod(f"{name}-p", prio, cpu, name, start=start))


def test_post_filter_nominates_and_names_victims():
    # n1's pod has priority 5, n2's priority 1: n2 has the lowest highest-priority victim.
    fw = framework([full("n1", prio=5), full("n2", prio=1)])
    result, status = post_filter(fw, mkpod("in", 10, "1"))
    assert status == SUCCESS and status.message() == ""
    assert (result.nominated_node_name, result.mode, result.victims) == ("n2", "Override", ("default/n2-p",))
    assert [c["node"] for c in result.details["candidates"]] == ["n1", "n2"]


def test_post_filter_message_histogram():
    # n1: cpu free but blocked by a higher-priority blocker -> still blocked after removing
    # the lower-priority pods; n2: only equal-priority pods -> no victims; n3: too small
    # for the pod even when empty -> fails after removal with Insufficient cpu; n4, n5:
    # unresolvable for the filters -> not helpful (absent from the dry run's statuses).
    n1 = mknode("n1", "4", mkpod("b", 20, "1", "n1", labels={"blocker": "yes"}), mkpod("l", 1, "3", "n1"))
    n2 = mknode("n2", "1", mkpod("same", 10, "1", "n2"))
    n3 = mknode("n3", "1", mkpod("tiny", 1, "1", "n3"))
    fw = framework([n1, n2, n3, mknode("n4", "1"), mknode("n5", "1")])
    pod = mkpod("in", 10, "2")
    state, statuses = filtered(fw, pod)
    statuses.set("n4", unresolvable("node(s) didn't match Pod's node affinity/selector"))
    statuses.set("n5", unresolvable("node(s) didn't match Pod's node affinity/selector"))
    result, status = fw.plugins["DefaultPreemption"].post_filter(state, pod, statuses)
    assert status.code is Code.UNSCHEDULABLE
    assert status.reasons == (
        "preemption: 0/5 nodes are available: 1 Insufficient cpu, 1 No preemption victims found for incoming pod, "
        "1 node(s) had a blocker pod, 2 Preemption is not helpful for scheduling.",)
    assert result is not None and result.nominated_node_name == "" and result.victims == ()


def test_post_filter_no_unschedulable_node():
    fw = framework([mknode("n1", "1"), mknode("n2", "1"), mknode("n3", "1")])
    pod = mkpod("in", 10, "1")
    st = NodeToStatus()
    for n in ("n1", "n2", "n3"):
        st.set(n, unresolvable("node(s) had untolerated taint(s)"))
    result, status = fw.plugins["DefaultPreemption"].post_filter(CycleState(), pod, st)
    assert status == unschedulable("preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")
    assert result.nominated_node_name == ""


def test_post_filter_sorted_histogram_compares_strings():
    # Go sorts "<count> <reason>" strings: "10 ..." sorts before "2 ...".
    nodes = [mknode(f"n{i:02}", "1", mkpod(f"s{i}", 10, "1", f"n{i:02}")) for i in range(10)]
    nodes += [mknode("x1", "1"), mknode("x2", "1")]
    fw = framework(nodes)
    pod = mkpod("in", 10, "1")
    state, statuses = filtered(fw, pod)
    statuses.set("x1", unresolvable("u"))
    statuses.set("x2", unresolvable("u"))
    _, status = fw.plugins["DefaultPreemption"].post_filter(state, pod, statuses)
    assert status.reasons == ("preemption: 0/12 nodes are available: 10 No preemption victims found for incoming pod, "
                              "2 Preemption is not helpful for scheduling.",)


@pytest.mark.parametrize("offset,want", [(0, "n1"), (1, "n2"), (2, "n3"), (4, "n2")])
def test_post_filter_offset_and_candidate_count(offset, want):
    # Only one candidate wanted (0% / at least 1): the first node visited from the offset wins.
    fw = framework([full("n1"), full("n2"), full("n3")],
                   args={"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 1}, offset=offset)
    result, status = post_filter(fw, mkpod("in", 10, "1"))
    assert status.is_success and result.nominated_node_name == want
    assert result.details["visited"] == [want]


def test_dry_run_goes_on_past_pdb_violating_candidates():
    # One candidate wanted, but n1's only victim breaks a PDB: the search goes on until a
    # PDB-respecting candidate (n2) is found, and n2 wins on fewer violations.
    n1 = mknode("n1", "1", mkpod("v", 1, "1", "n1", labels={"app": "a"}))
    fw = framework([n1, full("n2"), full("n3")], pdbs=(pdb("pa", APP_A, 0),),
                   args={"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 1})
    result, _ = post_filter(fw, mkpod("in", 10, "1"))
    assert result.details["visited"] == ["n1", "n2"]
    assert [(c["node"], c["numPDBViolations"]) for c in result.details["candidates"]] == [("n2", 0), ("n1", 1)]
    assert result.nominated_node_name == "n2"


def test_post_filter_prefilter_unschedulable_makes_every_node_a_potential_node():
    fw = framework([full("n1"), full("n2")])
    pod = mkpod("in", 10, "1")
    state, _ = filtered(fw, pod)
    st = NodeToStatus(absent=unschedulable("pre-filter said no"))
    result, status = fw.plugins["DefaultPreemption"].post_filter(state, pod, st)
    assert status.is_success and result.details["potentialNodes"] == ["n1", "n2"]


def test_post_filter_counts_higher_priority_nominated_pods():
    # n1 has a nominated pod of higher priority that takes 1 of the 2 cpu freed by
    # preemption, so the 2-cpu pod cannot use n1; n2 works.
    fw = framework([full("n1"), full("n2")], nominated={"n1": [mkpod("nom", 50, "1", nominated="n1")]})
    result, status = post_filter(fw, mkpod("in", 10, "2"))
    assert status.is_success and result.nominated_node_name == "n2"


# --- eligibility -------------------------------------------------------------------------

PREEMPTED = [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}]


@pytest.mark.parametrize("deleting,conditions,want", [
    (True, PREEMPTED, True),
    (False, PREEMPTED, False),
    (True, None, False),
    (True, [{"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI"}], False),
    (True, [{"type": "DisruptionTarget", "status": "False", "reason": "PreemptionByScheduler"}], False),
])
def test_terminating_by_preemption(deleting, conditions, want):
    assert terminating_by_preemption(mkpod(deleting=deleting, conditions=conditions)) is want


def test_preemption_policy_never_is_not_eligible():
    fw = framework([full("n1")])
    result, status = post_filter(fw, mkpod("in", 10, "1", policy="Never"))
    assert result is None
    assert status == unschedulable("preemption: not eligible due to preemptionPolicy=Never.")
    assert status.reasons[0] == MESSAGE_PREFIX + ERR_NOT_ELIGIBLE_NEVER


def terminating_node() -> NodeInfo:
    return mknode("n1", "2", mkpod("going", 1, "1", "n1", deleting=True, conditions=PREEMPTED),
                  mkpod("stay", 1, "1", "n1"))


def test_terminating_victim_on_the_nominated_node_is_not_eligible():
    fw = framework([terminating_node(), full("n2")])
    result, status = post_filter(fw, mkpod("in", 10, "2", nominated="n1"))
    assert result is None
    assert status == unschedulable(MESSAGE_PREFIX + ERR_NOT_ELIGIBLE_TERMINATING)
    assert status.reasons == ("preemption: not eligible due to a terminating pod on the nominated node.",)


def test_terminating_pod_of_higher_priority_does_not_block():
    node = mknode("n1", "2", mkpod("going", 50, "1", "n1", deleting=True, conditions=PREEMPTED),
                  mkpod("stay", 1, "1", "n1"))
    fw = framework([node])
    result, status = post_filter(fw, mkpod("in", 10, "1", nominated="n1"))
    assert status.is_success and result.victims == ("default/stay",)


def test_unresolvable_nominated_node_lets_the_pod_preempt_again():
    fw = framework([terminating_node(), full("n2")])
    pod = mkpod("in", 10, "2", nominated="n1")
    state, statuses = filtered(fw, pod)
    statuses.set("n1", unresolvable("node(s) didn't match Pod's node affinity/selector"))
    result, status = fw.plugins["DefaultPreemption"].post_filter(state, pod, statuses)
    assert status.is_success and result.nominated_node_name == "n2"


def test_terminating_pods_elsewhere_do_not_matter():
    fw = framework([terminating_node(), full("n2")])
    result, status = post_filter(fw, mkpod("in", 10, "2", nominated="n2"))
    assert status.is_success


def test_pre_enqueue_always_succeeds():
    fw = framework([full("n1")])
    assert fw.plugins["DefaultPreemption"].pre_enqueue(mkpod("in", 10)) == SUCCESS


def test_preempt_directly_returns_unprefixed_messages():
    fw = framework([mknode("n1", "1")])
    st = NodeToStatus()
    st.set("n1", unresolvable("u"))
    _, status = preempt(fw, CycleState(), mkpod("in", 10), st)
    assert status.reasons == (f"0/1 nodes are available: 1 {ERR_NOT_HELPFUL}.",)
