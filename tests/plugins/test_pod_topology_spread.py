"""PodTopologySpread against kube-scheduler v1.35.4 (plugins/podtopologyspread, helper/spread.go):
which constraints apply (matchLabelKeys, defaults, DefaultSelector), which nodes and pods count,
Filter codes and reasons, minDomains, AddPod/RemovePod on cloned state, and the scoring
formula (log(size+2) weights, rounding) with its normalisation. Expected numbers are worked
out by hand in the comments."""
from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import pytest

from kexplain.framework.cycle_state import CycleState
from kexplain.framework.interface import NodeScoreList
from kexplain.framework.status import Code
from kexplain.model.labels import IN, NOT_IN, Requirement
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot
from kexplain.plugins.pod_topology_spread import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH as NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH as MISSING_LABEL,
    PRE_FILTER_STATE_KEY,
    PRE_SCORE_STATE_KEY,
    CriticalPaths,
    PodTopologySpread,
    count_matching,
    go_log,
    parse_constraints,
    topology_normalizing_weight,
)
from kexplain.plugins.resource_allocation import go_round
from kexplain.plugins.helper.spread import OwnerIndex, default_selector, parse_group_version

HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
OK, UNSCHED, UNRESOLV, SKIP = Code.SUCCESS, Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.SKIP
WEB = {"matchLabels": {"app": "web"}}


# -- builders ---------------------------------------------------------------------------------

def tsc(key: str = ZONE, skew: int = 1, when: str = "DoNotSchedule", selector: Any = WEB,
        **extra: Any) -> dict[str, Any]:
    c = {"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": when, "labelSelector": selector}
    c.update(extra)
    return c


def pod(name: str = "p", labels: dict[str, str] | None = None, node: str = "", ns: str = "default",
        constraints: list[dict] | None = None, deleting: bool = False, owner: dict | None = None,
        **spec: Any) -> PodInfo:
    meta: dict[str, Any] = {"name": name, "namespace": ns, "labels": dict(labels or {})}
    if deleting:
        meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    if owner is not None:
        meta["ownerReferences"] = [owner]
    s: dict[str, Any] = dict(spec)
    if node:
        s["nodeName"] = node
    if constraints:
        s["topologySpreadConstraints"] = constraints
    return PodInfo({"metadata": meta, "spec": s})


def web(name: str, node: str, **kw: Any) -> PodInfo:
    return pod(name, {"app": "web"}, node, **kw)


def node(name: str, zone: str | None = None, taints: list[dict] | None = None,
         extra: dict[str, str] | None = None, hostname: bool = True) -> Node:
    labels = dict(extra or {})
    if hostname:
        labels[HOST] = name
    if zone is not None:
        labels[ZONE] = zone
    return Node.from_obj({"metadata": {"name": name, "labels": labels}, "spec": {"taints": taints or []}})


def cluster(nodes: list[Node], pods: list[PodInfo] = (), **objects: list[dict]) -> Snapshot:
    infos = {n.name: NodeInfo(n) for n in nodes}
    for p in pods:
        infos[p.node_name].add_pod(p)
    return Snapshot(list(infos.values()), objects={k: v for k, v in objects.items()})


def plugin(snap: Snapshot, args: dict | None = None) -> PodTopologySpread:
    return PodTopologySpread(args, SimpleNamespace(snapshot=snap, profile_name="default-scheduler"))


def pre_filter(snap: Snapshot, p: PodInfo, args: dict | None = None) -> tuple[PodTopologySpread, CycleState, Code]:
    pl, state = plugin(snap, args), CycleState()
    _, status = pl.pre_filter(state, p, snap.node_infos)
    return pl, state, status.code


def filter_all(snap: Snapshot, p: PodInfo, args: dict | None = None) -> dict[str, tuple]:
    pl, state, code = pre_filter(snap, p, args)
    assert code is OK
    return {ni.name: (s.code, s.reasons) for ni in snap.node_infos for s in [pl.filter(state, p, ni)]}


def scores(snap: Snapshot, p: PodInfo, feasible: list[str] | None = None,
           args: dict | None = None) -> dict[str, tuple[int, int]] | None:
    """name -> (raw, normalized); None when PreScore skips."""
    pl, state = plugin(snap, args), CycleState()
    nodes = [snap.get(n) for n in feasible] if feasible is not None else list(snap.node_infos)
    status = pl.pre_score(state, p, nodes)
    if status.code is SKIP:
        return None
    assert status.code is OK
    ns = NodeScoreList([ni.name for ni in nodes], [pl.score(state, p, ni) for ni in nodes])
    raw = list(ns.scores)
    assert pl.normalize_score(state, p, ns).code is OK
    return {name: (r, s) for name, r, s in zip(ns.names, raw, ns.scores)}


# Three zone-labelled nodes (n1, n2 in z1; n3 in z2) with 2 + 1 + 0 "web" pods, plus noise:
# a terminating web pod on n3, a web pod of another namespace on n3, and a non-web pod on n3.
def base_pods() -> list[PodInfo]:
    return [web("w1", "n1"), web("w2", "n1"), web("w3", "n2"),
            web("gone", "n3", deleting=True), web("elsewhere", "n3", ns="other"),
            pod("db", {"app": "db"}, "n3")]


def base_nodes() -> list[Node]:
    return [node("n1", "z1"), node("n2", "z1"), node("n3", "z2")]


# -- constraints -------------------------------------------------------------------------------

def test_parse_constraints_filters_by_action_and_defaults_optional_fields():
    raw = [tsc(ZONE, 2, "DoNotSchedule"), tsc(HOST, 3, "ScheduleAnyway")]
    hard = parse_constraints(raw, {}, "DoNotSchedule")
    assert [(c.topology_key, c.max_skew, c.min_domains, c.node_affinity_policy, c.node_taints_policy)
            for c in hard] == [(ZONE, 2, 1, "Honor", "Ignore")]
    soft = parse_constraints(raw, {}, "ScheduleAnyway")
    assert [(c.topology_key, c.max_skew) for c in soft] == [(HOST, 3)]


@pytest.mark.parametrize("selector,keys,pod_labels,want", [
    # keys the pod carries are ANDed as `key in (value)`
    (WEB, ["rev"], {"app": "web", "rev": "7"},
     (Requirement("app", IN, frozenset({"web"})), Requirement("rev", IN, frozenset({"7"})))),
    # keys the pod lacks are skipped
    (WEB, ["rev"], {"app": "web"}, (Requirement("app", IN, frozenset({"web"})),)),
    # an empty selector gains the requirement (it no longer selects everything)
    ({}, ["rev"], {"rev": "7"}, (Requirement("rev", IN, frozenset({"7"})),)),
])
def test_match_label_keys_are_anded(selector, keys, pod_labels, want):
    (c,) = parse_constraints([tsc(selector=selector, matchLabelKeys=keys)], pod_labels, "DoNotSchedule")
    assert c.selector.requirements == want


def test_match_label_keys_leave_a_null_selector_null():
    (c,) = parse_constraints([tsc(selector=None, matchLabelKeys=["rev"])], {"rev": "7"}, "DoNotSchedule")
    assert c.selector.nothing


def test_explicit_policies_and_min_domains_are_kept():
    (c,) = parse_constraints([tsc(minDomains=3, nodeAffinityPolicy="Ignore", nodeTaintsPolicy="Honor")],
                             {}, "DoNotSchedule")
    assert (c.min_domains, c.node_affinity_policy, c.node_taints_policy) == (3, "Ignore", "Honor")


# -- counting --------------------------------------------------------------------------------

@pytest.mark.parametrize("selector,ns,want", [
    (WEB, "default", 1),           # w-live only: terminating and other-namespace pods are skipped
    (WEB, "other", 1),             # the other namespace's own pod
    ({}, "default", 0),            # an empty selector counts nothing (selector.Empty())
    (None, "default", 0),          # a null selector matches nothing
    ({"matchExpressions": [{"key": "app", "operator": "Exists"}]}, "default", 2),  # w-live + db
])
def test_count_matching(selector, ns, want):
    (c,) = parse_constraints([tsc(selector=selector)], {}, "DoNotSchedule")
    pods = [web("w-live", "n"), web("gone", "n", deleting=True), web("x", "n", ns="other"),
            pod("db", {"app": "db"}, "n")]
    assert count_matching(pods, c.selector, ns) == want


def test_critical_paths_keep_the_minimum_through_updates():
    cp = CriticalPaths()
    for value, num in [("a", 3), ("b", 1), ("c", 2)]:
        cp.update(value, num)
    assert cp.paths == [["b", 1], ["c", 2]]
    cp.update("b", 4)           # tracked path grows past the other: swap
    assert cp.paths == [["c", 2], ["b", 4]]
    cp.update("a", 0)           # untracked path below the minimum takes its place
    assert cp.paths == [["a", 0], ["c", 2]]
    clone = cp.clone()
    clone.update("a", 5)
    assert cp.paths == [["a", 0], ["c", 2]] and clone.min_match == 2


# -- PreFilter ---------------------------------------------------------------------------------

@pytest.mark.parametrize("constraints,want", [
    (None, SKIP),                                       # no constraints; system defaults are all soft
    ([tsc(when="ScheduleAnyway")], SKIP),               # soft only
    ([tsc()], OK),
])
def test_pre_filter_skip(constraints, want):
    snap = cluster(base_nodes(), base_pods(), Service=[{"metadata": {"namespace": "default"},
                                                        "spec": {"selector": {"app": "web"}}}])
    _, _, code = pre_filter(snap, pod("new", {"app": "web"}, constraints=constraints))
    assert code is want


def test_pre_filter_counts_per_domain():
    snap = cluster(base_nodes() + [node("n4")], base_pods())   # n4 has no zone label: excluded
    _, state, _ = pre_filter(snap, pod("new", {"app": "web"}, constraints=[tsc(), tsc(HOST)]))
    s = state.read(PRE_FILTER_STATE_KEY)
    assert s.tp_value_to_match_num == [{"z1": 3, "z2": 0}, {"n1": 2, "n2": 1, "n3": 0}]
    assert [cp.min_match for cp in s.critical_paths] == [0, 0]


@pytest.mark.parametrize("extra,pod_spec,want", [
    # nodeAffinityPolicy Honor (default): the pod's nodeSelector keeps z2 out
    ({}, {"nodeSelector": {ZONE: "z1"}}, {"z1": 3}),
    # ... and its required node affinity too
    ({}, {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": ZONE, "operator": "NotIn", "values": ["z2"]}]}]}}}},
     {"z1": 3}),
    # Ignore: every node counts
    ({"nodeAffinityPolicy": "Ignore"}, {"nodeSelector": {ZONE: "z1"}}, {"z1": 3, "z2": 0}),
    # nodeTaintsPolicy Ignore (default): the NoSchedule-tainted n3 still counts
    ({}, {}, {"z1": 3, "z2": 0}),
    # Honor: n3's untolerated NoSchedule taint keeps it out
    ({"nodeTaintsPolicy": "Honor"}, {}, {"z1": 3}),
    # Honor with a toleration: n3 counts again
    ({"nodeTaintsPolicy": "Honor"}, {"tolerations": [{"key": "dedicated", "operator": "Exists"}]},
     {"z1": 3, "z2": 0}),
])
def test_node_inclusion_policies(extra, pod_spec, want):
    nodes = [node("n1", "z1"), node("n2", "z1"),
             node("n3", "z2", taints=[{"key": "dedicated", "value": "x", "effect": "NoSchedule"}])]
    snap = cluster(nodes, base_pods())
    _, state, _ = pre_filter(snap, pod("new", {"app": "web"}, constraints=[tsc(**extra)], **pod_spec))
    assert state.read(PRE_FILTER_STATE_KEY).tp_value_to_match_num == [want]


@pytest.mark.parametrize("effect,counted", [("NoExecute", False), ("PreferNoSchedule", True)])
def test_taints_policy_honors_only_hard_effects(effect, counted):
    nodes = [node("n1", "z1"), node("n3", "z2", taints=[{"key": "k", "effect": effect}])]
    snap = cluster(nodes, [web("w1", "n1")])
    _, state, _ = pre_filter(snap, pod("new", {"app": "web"}, constraints=[tsc(nodeTaintsPolicy="Honor")]))
    assert ("z2" in state.read(PRE_FILTER_STATE_KEY).tp_value_to_match_num[0]) is counted


# -- Filter ------------------------------------------------------------------------------------

def test_filter_reasons_and_codes():
    snap = cluster(base_nodes() + [node("n4")], base_pods())
    got = filter_all(snap, pod("new", {"app": "web"}, constraints=[tsc()]))
    # z1: 3 + 1 (self) - 0 (min, z2) = 4 > 1; z2: 0 + 1 - 0 = 1 <= 1
    assert got == {"n1": (UNSCHED, (NOT_MATCH,)), "n2": (UNSCHED, (NOT_MATCH,)),
                   "n3": (OK, ()), "n4": (UNRESOLV, (MISSING_LABEL,))}
    assert MISSING_LABEL == "node(s) didn't match pod topology spread constraints (missing required label)"


@pytest.mark.parametrize("constraint,pod_labels,want_ok", [
    # the pod does not match its own selector: z1: 3 + 0 - 0 = 3 > 2 still fails, z2 passes
    (tsc(skew=2), {"app": "other"}, {"n3"}),
    (tsc(skew=3), {"app": "other"}, {"n1", "n2", "n3"}),       # 3 <= 3
    (tsc(skew=3), {"app": "web"}, {"n3"}),                     # 4 > 3
    # hostname: n1 2+1-0 = 3, n2 1+1-0 = 2, n3 0+1-0 = 1
    (tsc(HOST, skew=2), {"app": "web"}, {"n2", "n3"}),
    # an empty selector counts no pods but still self-matches: 0 + 1 - 0 = 1 everywhere
    (tsc(selector={}), {"app": "web"}, {"n1", "n2", "n3"}),
])
def test_filter_skew(constraint, pod_labels, want_ok):
    snap = cluster(base_nodes(), base_pods())
    got = filter_all(snap, pod("new", pod_labels, constraints=[constraint]))
    assert {n for n, (code, _) in got.items() if code is OK} == want_ok


@pytest.mark.parametrize("min_domains,want_ok", [
    (None, {"n1", "n2", "n3", "n4"}),   # z1 = z2 = 1: skew 1 + 1 - 1 = 1 everywhere
    (2, {"n1", "n2", "n3", "n4"}),      # 2 domains >= minDomains: the real minimum (1)
    (3, set()),                         # fewer domains than minDomains: minimum 0 -> 2 > 1
])
def test_min_domains(min_domains, want_ok):
    nodes = [node("n1", "z1"), node("n2", "z1"), node("n3", "z2"), node("n4", "z2")]
    extra = {} if min_domains is None else {"minDomains": min_domains}
    snap = cluster(nodes, [web("a", "n1"), web("b", "n3")])
    got = filter_all(snap, pod("new", {"app": "web"}, constraints=[tsc(**extra)]))
    assert {n for n, (code, _) in got.items() if code is OK} == want_ok


def test_filter_first_failing_constraint_decides():
    # n4 lacks the zone label: the first (zone) constraint rejects it as unresolvable even though
    # the hostname constraint would pass.
    snap = cluster(base_nodes() + [node("n4")], base_pods())
    got = filter_all(snap, pod("new", {"app": "web"}, constraints=[tsc(skew=5), tsc(HOST, skew=5)]))
    assert got["n4"] == (UNRESOLV, (MISSING_LABEL,))
    assert got["n1"] == (OK, ())


# -- AddPod / RemovePod ---------------------------------------------------------------------------

def test_add_and_remove_pod_work_on_a_clone():
    snap = cluster(base_nodes(), base_pods())
    p = pod("new", {"app": "web"}, constraints=[tsc()])
    pl, state, _ = pre_filter(snap, p)
    what_if = state.clone()
    n3 = snap.get("n3")
    assert pl.add_pod(what_if, p, web("nominated", "n3"), n3).code is OK
    assert pl.add_pod(what_if, p, web("foreign", "n3", ns="other"), n3).code is OK   # other namespace
    assert pl.add_pod(what_if, p, pod("db2", {"app": "db"}, "n3"), n3).code is OK    # no match
    s2 = what_if.read(PRE_FILTER_STATE_KEY)
    assert s2.tp_value_to_match_num == [{"z1": 3, "z2": 1}] and s2.critical_paths[0].min_match == 1
    # n3: 1 + 1 - 1 = 1 passes; n1: 3 + 1 - 1 = 3 fails
    assert pl.filter(what_if, p, snap.get("n1")).code is UNSCHED
    # the original state is untouched
    s = state.read(PRE_FILTER_STATE_KEY)
    assert s.tp_value_to_match_num == [{"z1": 3, "z2": 0}] and s.critical_paths[0].min_match == 0
    # removing two z1 pods: z1 = 1, min = 1 -> n1: 1 + 1 - 1 = 1 passes
    n1 = snap.get("n1")
    assert pl.remove_pod(what_if, p, web("w1", "n1"), n1).code is OK
    assert pl.remove_pod(what_if, p, web("w2", "n1"), n1).code is OK
    assert what_if.read(PRE_FILTER_STATE_KEY).tp_value_to_match_num == [{"z1": 1, "z2": 1}]
    assert pl.filter(what_if, p, n1).code is OK


def test_add_pod_ignores_nodes_without_the_keys():
    snap = cluster(base_nodes() + [node("n4")], base_pods())
    p = pod("new", {"app": "web"}, constraints=[tsc()])
    pl, state, _ = pre_filter(snap, p)
    pl.add_pod(state, p, web("x", "n4"), snap.get("n4"))
    assert state.read(PRE_FILTER_STATE_KEY).tp_value_to_match_num == [{"z1": 3, "z2": 0}]


# -- scoring -----------------------------------------------------------------------------------

@pytest.mark.parametrize("x,want", [
    (3.0, 1.0986122886681096),   # Go (fdlibm) value; the C library's log gives ...098
    (4.0, 1.3862943611198906),
    (5.0, 1.6094379124341003),
    (2.0, 0.6931471805599453),
    (5002.0, math.log(5002.0)),
])
def test_go_log(x, want):
    assert go_log(x) == want


def test_go_log_is_within_an_ulp_of_libm():
    for n in range(2, 6000):
        assert abs(go_log(float(n)) - math.log(n)) <= math.ulp(math.log(n))


@pytest.mark.parametrize("x,want", [(0.5, 1), (1.5, 2), (2.5, 3), (2.4999999999999996, 2),
                                    (0.49999999999999994, 0), (4.158883083359672, 4), (0.0, 0)])
def test_round_half_away(x, want):
    assert go_round(x) == want         # the one math.Round the scoring plugins share


def test_weight_formula():
    assert topology_normalizing_weight(2) == pytest.approx(1.3862943611198906)   # ln 4


@pytest.mark.parametrize("constraints,want", [
    # zone, maxSkew 1: 2 zones -> w = ln 4 = 1.386; z1 = 3 -> 4.159 -> 4, z2 = 0 -> 0.
    # normalized = 100 * (max + min - s) / max = 100 * (4 - s) / 4
    ([tsc(when="ScheduleAnyway")], {"n1": (4, 0), "n2": (4, 0), "n3": (0, 100)}),
    # hostname, maxSkew 2: 3 nodes -> w = ln 5 = 1.609; n1: 2w + 1 = 4.22 -> 4, n2: w + 1 = 2.61 -> 3,
    # n3: 1. normalized = 100 * (5 - s) / 4 -> 25, 50, 100
    ([tsc(HOST, 2, "ScheduleAnyway")], {"n1": (4, 25), "n2": (3, 50), "n3": (1, 100)}),
    # both summed before rounding: n1 4.159 + 4.219 = 8.38 -> 8, n2 4.159 + 2.609 = 6.77 -> 7, n3 0 + 1 = 1
    # normalized = 100 * (9 - s) / 8 -> 12 (12.5 truncated), 25, 100
    ([tsc(when="ScheduleAnyway"), tsc(HOST, 2, "ScheduleAnyway")],
     {"n1": (8, 12), "n2": (7, 25), "n3": (1, 100)}),
    # the DoNotSchedule constraint plays no part in scoring
    ([tsc(), tsc(HOST, 2, "ScheduleAnyway")], {"n1": (4, 25), "n2": (3, 50), "n3": (1, 100)}),
])
def test_score(constraints, want):
    snap = cluster(base_nodes(), base_pods())
    assert scores(snap, pod("new", {"app": "web"}, constraints=constraints)) == want


def test_score_skips_without_soft_constraints():
    snap = cluster(base_nodes(), base_pods())
    assert scores(snap, pod("new", {"app": "web"}, constraints=[tsc()])) is None
    assert scores(snap, pod("new", {"app": "web"})) is None   # no Service/controller: no defaults


def test_nodes_missing_a_key_are_ignored_with_own_constraints():
    # n4 has no zone label -> ignored: raw 0, normalized 0. Hostname weight counts only the
    # 3 other feasible nodes: ln 5. Raw scores as in the hostname-only case above.
    snap = cluster(base_nodes() + [node("n4")], base_pods() + [web("w4", "n4")])
    got = scores(snap, pod("new", {"app": "web"}, constraints=[tsc(HOST, 2, "ScheduleAnyway"),
                                                                tsc(when="ScheduleAnyway", skew=1)]))
    # n1: 2*ln5 + 1 + 3*ln4 = 8.38 -> 8, n2: ln5 + 1 + 3*ln4 = 6.77 -> 7, n3: 1
    assert got == {"n1": (8, 12), "n2": (7, 25), "n3": (1, 100), "n4": (0, 0)}


def test_domains_count_pods_on_all_nodes_not_only_feasible_ones():
    # Only n2 and n3 are feasible, but n1's two pods still count for z1: z1 = 3.
    # Zone weight: 2 zones among feasible nodes -> ln 4. n2: 3 ln4 = 4.16 -> 4, n3: 0.
    snap = cluster(base_nodes(), base_pods())
    got = scores(snap, pod("new", {"app": "web"}, constraints=[tsc(when="ScheduleAnyway")]), ["n2", "n3"])
    assert got == {"n2": (4, 0), "n3": (0, 100)}


def test_all_scores_zero_normalize_to_max():
    snap = cluster(base_nodes(), [])
    got = scores(snap, pod("new", {"app": "web"}, constraints=[tsc(when="ScheduleAnyway")]))
    assert got == {"n1": (0, 100), "n2": (0, 100), "n3": (0, 100)}


# -- default constraints -----------------------------------------------------------------------

SERVICE = {"metadata": {"name": "svc", "namespace": "default"}, "spec": {"selector": {"app": "web"}}}


def test_system_defaults_keep_nodes_without_zone():
    # Pod without constraints, selected by a Service (app=web) -> system defaults:
    # hostname maxSkew 3, zone maxSkew 5; nodes lacking the zone label are NOT ignored.
    # n4 (no zone) has 1 web pod. Zone domains among feasible nodes: z1, z2 and "" (n4) -> ln 5;
    # hostname: 4 nodes -> ln 6. Zone counts: z1 3, z2 0, "" 1.
    #   n1: 2 ln6 + 2 + 3 ln5 + 4 = 14.41 -> 14     n2: ln6 + 2 + 3 ln5 + 4 = 12.62 -> 13
    #   n3: 2 + 4 = 6                                n4: ln6 + 2 (no zone term) = 3.79 -> 4
    # normalized = 100 * (18 - s) / 14 -> 28, 35, 85, 100
    snap = cluster(base_nodes() + [node("n4")], base_pods() + [web("w4", "n4")], Service=[SERVICE])
    got = scores(snap, pod("new", {"app": "web"}))
    assert got == {"n1": (14, 28), "n2": (13, 35), "n3": (6, 85), "n4": (4, 100)}


def test_list_defaults_ignore_nodes_without_the_keys():
    # defaultingType List: nodes lacking a key ARE ignored, and hard defaults filter.
    args = {"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"},
        {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway"}]}
    snap = cluster(base_nodes() + [node("n4")], base_pods(), Service=[SERVICE])
    p = pod("new", {"app": "web"})
    got = filter_all(snap, p, args)
    assert got == {"n1": (UNSCHED, (NOT_MATCH,)), "n2": (UNSCHED, (NOT_MATCH,)),
                   "n3": (OK, ()), "n4": (UNRESOLV, (MISSING_LABEL,))}
    # zone: 2 domains -> ln 4; z1 3 -> 4.16 -> 4, z2 0
    assert scores(snap, p, args=args) == {"n1": (4, 0), "n2": (4, 0), "n3": (0, 100), "n4": (0, 0)}


def test_list_defaults_empty_list_means_no_spreading():
    snap = cluster(base_nodes(), base_pods(), Service=[SERVICE])
    args = {"defaultingType": "List", "defaultConstraints": []}
    assert pre_filter(snap, pod("new", {"app": "web"}), args)[2] is SKIP
    assert scores(snap, pod("new", {"app": "web"}), args=args) is None


def test_own_constraints_replace_defaults():
    snap = cluster(base_nodes(), base_pods(), Service=[SERVICE])
    # own hard constraint only -> no soft constraints at all -> PreScore skips
    assert scores(snap, pod("new", {"app": "web"}, constraints=[tsc()])) is None


def owner(kind: str, name: str, api: str = "apps/v1", controller: bool = True) -> dict:
    return {"apiVersion": api, "kind": kind, "name": name, "uid": "u", "controller": controller}


def rs(name: str, selector: Any, ns: str = "default", kind: str = "ReplicaSet") -> dict:
    return {"kind": kind, "metadata": {"name": name, "namespace": ns}, "spec": {"selector": selector}}


def rc(name: str, selector: dict | None) -> dict:
    return {"kind": "ReplicationController", "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": selector}}


def svc(selector: dict | None, ns: str = "default") -> dict:
    spec = {} if selector is None else {"selector": selector}
    return {"kind": "Service", "metadata": {"name": "s", "namespace": ns}, "spec": spec}


def eq(k: str, v: str) -> Requirement:
    return Requirement(k, IN, frozenset({v}))


LABELS = {"app": "web", "tier": "fe", "rev": "1"}


@pytest.mark.parametrize("objects,owner_ref,want", [
    # nothing selects the pod: empty (selects everything -> no default spreading)
    ({}, None, ()),
    # a Service selecting the pod contributes its selector
    ({"Service": [svc({"app": "web"})]}, None, (eq("app", "web"),)),
    # services are merged
    ({"Service": [svc({"app": "web"}), svc({"tier": "fe"})]}, None, (eq("app", "web"), eq("tier", "fe"))),
    # a Service that does not select the pod, one in another namespace, and one with a null
    # selector contribute nothing
    ({"Service": [svc({"app": "db"}), svc({"app": "web"}, ns="other"), svc(None)]}, None, ()),
    # a Service with an empty selector selects the pod but adds no requirement
    ({"Service": [svc({})]}, None, ()),
    # the controlling ReplicaSet's selector requirements are added
    ({"Service": [svc({"app": "web"})],
      "ReplicaSet": [rs("r", {"matchExpressions": [{"key": "rev", "operator": "NotIn", "values": ["0"]}]})]},
     owner("ReplicaSet", "r"), (eq("app", "web"), Requirement("rev", NOT_IN, frozenset({"0"})))),
    # StatefulSet the same
    ({"StatefulSet": [rs("s", {"matchLabels": {"tier": "fe"}}, kind="StatefulSet")]},
     owner("StatefulSet", "s"), (eq("tier", "fe"),)),
    # ReplicationController: its selector map is merged into the label set
    ({"ReplicationController": [rc("c", {"rev": "1"})]}, owner("ReplicationController", "c", "v1"),
     (eq("rev", "1"),)),
    # an owner that is not the controller, a wrong apiVersion, a missing object, another namespace
    ({"ReplicaSet": [rs("r", {"matchLabels": {"tier": "fe"}})]}, owner("ReplicaSet", "r", controller=False), ()),
    ({"ReplicaSet": [rs("r", {"matchLabels": {"tier": "fe"}})]}, owner("ReplicaSet", "r", "apps/v1beta2"), ()),
    ({"ReplicaSet": [rs("r", {"matchLabels": {"tier": "fe"}})]}, owner("ReplicaSet", "other"), ()),
    ({"ReplicaSet": [rs("r", {"matchLabels": {"tier": "fe"}}, ns="other")]}, owner("ReplicaSet", "r"), ()),
    # a Deployment owner is not a supported controller
    ({"ReplicaSet": [rs("r", {"matchLabels": {"tier": "fe"}})]}, owner("Deployment", "r"), ()),
    # a ReplicaSet with a null selector adds nothing
    ({"ReplicaSet": [rs("r", None)]}, owner("ReplicaSet", "r"), ()),
])
def test_default_selector(objects, owner_ref, want):
    snap = cluster([], [], **objects)
    p = pod("new", LABELS, owner=owner_ref)
    sel = default_selector(p, OwnerIndex.build(snap))
    assert not sel.nothing
    assert sel.requirements == want


@pytest.mark.parametrize("api,want", [("v1", ("", "v1")), ("apps/v1", ("apps", "v1")), ("", ("", "")),
                                      ("a/b/c", None)])
def test_parse_group_version(api, want):
    assert parse_group_version(api) == want


def test_default_spreading_counts_pods_of_the_controller():
    # The ReplicaSet selects app=web,rev=1: only those pods count. n1 has two web pods of rev 1,
    # n3 one web pod of rev 2 -> hostname: n1 2, n2 0, n3 0; zone (n1, n2 in z1): z1 2, z2 0.
    # weights: hostname ln 5 (3 nodes), zone ln 4 (2 zones).
    # n1: 2 ln5 + 2 + 2 ln4 + 4 = 11.99 -> 12; n2: 2 + 2 ln4 + 4 = 8.77 -> 9; n3: 2 + 4 = 6
    # normalized = 100 * (18 - s) / 12 -> 50, 75, 100
    pods = [pod("a", {"app": "web", "rev": "1"}, "n1"), pod("b", {"app": "web", "rev": "1"}, "n1"),
            pod("c", {"app": "web", "rev": "2"}, "n3")]
    snap = cluster(base_nodes(), pods,
                   ReplicaSet=[rs("r", {"matchLabels": {"app": "web", "rev": "1"}})])
    got = scores(snap, pod("new", {"app": "web", "rev": "1"}, owner=owner("ReplicaSet", "r")))
    assert got == {"n1": (12, 50), "n2": (9, 75), "n3": (6, 100)}
    assert PRE_SCORE_STATE_KEY == "PreScorePodTopologySpread"
