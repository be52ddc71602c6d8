"""InterPodAffinity against kube-scheduler v1.35.4 (plugins/interpodaffinity): PreFilter skip rule,
Filter reasons, codes and order, the first-pod rule, namespace selectors, preemption's
AddPod/RemovePod on cloned state, and scoring with its min-max normalisation."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from kexplain.framework.cycle_state import CycleState
from kexplain.framework.interface import NodeScoreList
from kexplain.framework.status import Code
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot
from kexplain.plugins.inter_pod_affinity import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH as AFF,
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH as ANTI,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH as EXISTING,
    InterPodAffinity,
)

HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
OK, UNSCHED, UNRESOLV, SKIP = Code.SUCCESS, Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.SKIP


# -- builders ---------------------------------------------------------------------------------

def term(match: dict[str, str] | None = None, key: str = ZONE, *, namespaces: list[str] | None = None,
         ns_selector: dict | None = None, expressions: list[dict] | None = None) -> dict[str, Any]:
    t: dict[str, Any] = {"topologyKey": key, "labelSelector": {}}
    if match:
        t["labelSelector"]["matchLabels"] = match
    if expressions:
        t["labelSelector"]["matchExpressions"] = expressions
    if namespaces is not None:
        t["namespaces"] = namespaces
    if ns_selector is not None:
        t["namespaceSelector"] = ns_selector
    return t


def weighted(weight: int, t: dict[str, Any]) -> dict[str, Any]:
    return {"weight": weight, "podAffinityTerm": t}


def affinity(req=(), anti=(), pref=(), pref_anti=()) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if req or pref:
        out["podAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": list(req),
                              "preferredDuringSchedulingIgnoredDuringExecution": list(pref)}
    if anti or pref_anti:
        out["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": list(anti),
                                  "preferredDuringSchedulingIgnoredDuringExecution": list(pref_anti)}
    return out


def pod(name: str, labels: dict[str, str] | None = None, node: str = "", ns: str = "default",
        aff: dict | None = None) -> PodInfo:
    spec: dict[str, Any] = {"containers": [{"name": "c"}]}
    if node:
        spec["nodeName"] = node
    if aff:
        spec["affinity"] = aff
    return PodInfo({"metadata": {"name": name, "namespace": ns, "labels": labels or {}}, "spec": spec})


def node(name: str, zone: str | None = None, **labels: str) -> dict[str, Any]:
    lbl = {HOST: name, **labels}
    if zone is not None:
        lbl[ZONE] = zone
    return {"metadata": {"name": name, "labels": lbl}}


# Three zoned nodes and one with no zone label.
NODES = [node("a1", "a"), node("a2", "a"), node("b1", "b"), node("nz")]
NAMESPACES = {"default": {"kubernetes.io/metadata.name": "default"},
              "team-x": {"kubernetes.io/metadata.name": "team-x", "team": "x"},
              "team-y": {"kubernetes.io/metadata.name": "team-y", "team": "y"}}


def cluster(pods: list[PodInfo], nodes: list[dict] = NODES, namespaces=None) -> Snapshot:
    infos = [NodeInfo(Node.from_obj(n)) for n in nodes]
    by_name = {ni.name: ni for ni in infos}
    for p in pods:
        by_name[p.node_name].add_pod(p)
    return Snapshot(infos, dict(NAMESPACES if namespaces is None else namespaces))


def plugin(snap: Snapshot, args: dict | None = None) -> InterPodAffinity:
    return InterPodAffinity(args, SimpleNamespace(snapshot=snap))


def run_filter(snap: Snapshot, incoming: PodInfo) -> tuple[Code, dict[str, tuple]]:
    pl, state = plugin(snap), CycleState()
    _, s = pl.pre_filter(state, incoming, snap.node_infos)
    if s.code is not OK:
        return s.code, {}
    return s.code, {ni.name: _summ(pl.filter(state, incoming, ni)) for ni in snap.node_infos}


def _summ(status) -> tuple:
    return (status.code, *status.reasons)


# -- PreFilter and Filter ------------------------------------------------------------------------

DB_A1 = pod("db", {"app": "db"}, "a1")
WEB_A1 = pod("web0", {"app": "web"}, "a1")

FILTER_CASES = [
    pytest.param([DB_A1], pod("p", {"app": "web"}), SKIP, {}, id="no-terms-no-existing-anti-skip"),
    pytest.param([pod("e", {"app": "x"}, "a1", aff=affinity(anti=[term({"app": "other"})]))],
                 pod("p", {"app": "web"}), SKIP, {}, id="existing-anti-not-matching-skip"),
    pytest.param([pod("e", {"app": "x"}, "nz", aff=affinity(anti=[term({"app": "web"})]))],
                 pod("p", {"app": "web"}), SKIP, {}, id="existing-anti-node-lacks-key-skip"),
    pytest.param([pod("e", {"app": "x"}, "a1", aff=affinity(anti=[term({"app": "web"})]))],
                 pod("p", {"app": "web"}), OK,
                 {"a1": (UNSCHED, EXISTING), "a2": (UNSCHED, EXISTING), "b1": (OK,), "nz": (OK,)},
                 id="existing-anti-blocks-its-zone"),
    pytest.param([pod("e", {"app": "x"}, "a1", aff=affinity(anti=[term({"app": "web"}, HOST)]))],
                 pod("p", {"app": "web"}), OK,
                 {"a1": (UNSCHED, EXISTING), "a2": (OK,), "b1": (OK,), "nz": (OK,)},
                 id="existing-anti-hostname"),
    pytest.param([DB_A1], pod("p", {"app": "web"}, aff=affinity(req=[term({"app": "db"})])), OK,
                 {"a1": (OK,), "a2": (OK,), "b1": (UNRESOLV, AFF), "nz": (UNRESOLV, AFF)},
                 id="affinity-zone"),
    pytest.param([DB_A1], pod("p", {"app": "web"}, aff=affinity(req=[term({"app": "db"}, HOST)])), OK,
                 {"a1": (OK,), "a2": (UNRESOLV, AFF), "b1": (UNRESOLV, AFF), "nz": (UNRESOLV, AFF)},
                 id="affinity-hostname"),
    pytest.param([WEB_A1], pod("p", {"app": "db"}, aff=affinity(req=[term({"app": "db"})])), OK,
                 {"a1": (OK,), "a2": (OK,), "b1": (OK,), "nz": (UNRESOLV, AFF)},
                 id="first-pod-matches-itself-needs-key"),
    pytest.param([WEB_A1], pod("p", {"app": "api"}, aff=affinity(req=[term({"app": "db"})])), OK,
                 {n: (UNRESOLV, AFF) for n in ("a1", "a2", "b1", "nz")},
                 id="first-pod-not-matching-itself"),
    pytest.param([pod("db", {"app": "db"}, "nz")], pod("p", {"app": "db"}, aff=affinity(req=[term({"app": "db"})])),
                 OK, {"a1": (OK,), "a2": (OK,), "b1": (OK,), "nz": (UNRESOLV, AFF)},
                 id="first-pod-match-on-node-without-key-counts-nothing"),
    # two terms: the db pod matches both terms -> counts in zone a and on host a1; the
    # node must satisfy both; no first-pod escape because counts are not empty.
    pytest.param([DB_A1], pod("p", {"app": "db"}, aff=affinity(req=[term({"app": "db"}), term({"app": "db"}, HOST)])),
                 OK, {"a1": (OK,), "a2": (UNRESOLV, AFF), "b1": (UNRESOLV, AFF), "nz": (UNRESOLV, AFF)},
                 id="two-terms-both-needed"),
    # a pod matching only one of two terms counts for neither
    pytest.param([DB_A1, pod("c", {"tier": "cache"}, "b1")],
                 pod("p", {"app": "web"}, aff=affinity(req=[term({"app": "db"}), term({"tier": "cache"})])), OK,
                 {"a1": (UNRESOLV, AFF), "a2": (UNRESOLV, AFF), "b1": (UNRESOLV, AFF), "nz": (UNRESOLV, AFF)},
                 id="pod-must-match-all-terms"),
    pytest.param([WEB_A1], pod("p", {"app": "web"}, aff=affinity(anti=[term({"app": "web"})])), OK,
                 {"a1": (UNSCHED, ANTI), "a2": (UNSCHED, ANTI), "b1": (OK,), "nz": (OK,)},
                 id="anti-affinity-zone"),
    pytest.param([DB_A1, WEB_A1], pod("p", {"app": "web"},
                                      aff=affinity(req=[term({"app": "db"}, HOST)], anti=[term({"app": "web"})])),
                 OK, {"a1": (UNSCHED, ANTI), "a2": (UNRESOLV, AFF), "b1": (UNRESOLV, AFF), "nz": (UNRESOLV, AFF)},
                 id="affinity-checked-before-anti"),  # a2 fails both: affinity is reported
    pytest.param([DB_A1, WEB_A1, pod("e", {}, "b1", aff=affinity(anti=[term({"app": "web"})]))],
                 pod("p", {"app": "web"}, aff=affinity(anti=[term({"app": "web"}, HOST)])), OK,
                 {"a1": (UNSCHED, ANTI), "a2": (OK,), "b1": (UNSCHED, EXISTING), "nz": (OK,)},
                 id="anti-before-existing-anti"),
    pytest.param([pod("db", {"app": "db"}, "a1", ns="team-x")],
                 pod("p", {}, aff=affinity(req=[term({"app": "db"})])), OK,
                 {"a1": (UNRESOLV, AFF), "a2": (UNRESOLV, AFF), "b1": (UNRESOLV, AFF), "nz": (UNRESOLV, AFF)},
                 id="own-namespace-only-by-default"),
    pytest.param([pod("db", {"app": "db"}, "a1", ns="team-x")],
                 pod("p", {}, aff=affinity(req=[term({"app": "db"}, namespaces=["team-x"])])), OK,
                 {"a1": (OK,), "a2": (OK,), "b1": (UNRESOLV, AFF), "nz": (UNRESOLV, AFF)},
                 id="namespaces-list"),
    pytest.param([pod("db", {"app": "db"}, "b1", ns="team-x")],
                 pod("p", {}, aff=affinity(req=[term({"app": "db"}, ns_selector={})])), OK,
                 {"a1": (UNRESOLV, AFF), "a2": (UNRESOLV, AFF), "b1": (OK,), "nz": (UNRESOLV, AFF)},
                 id="empty-namespace-selector-all-namespaces"),
    pytest.param([pod("db", {"app": "db"}, "b1", ns="team-x"), pod("db", {"app": "db"}, "a1", ns="team-y")],
                 pod("p", {}, aff=affinity(req=[term({"app": "db"}, ns_selector={"matchLabels": {"team": "x"}})])),
                 OK, {"a1": (UNRESOLV, AFF), "a2": (UNRESOLV, AFF), "b1": (OK,), "nz": (UNRESOLV, AFF)},
                 id="namespace-selector-resolved-against-namespaces"),
    # A pod in a namespace the cluster has no Namespace object for is not selected, even by
    # a selector its (missing) labels would satisfy.
    pytest.param([pod("db", {"app": "db"}, "b1", ns="ghost")],
                 pod("p", {"app": "web"}, aff=affinity(anti=[term(
                     {"app": "db"}, ns_selector={"matchExpressions": [{"key": "team", "operator": "DoesNotExist"}]})])),
                 OK, {n: (OK,) for n in ("a1", "a2", "b1", "nz")},
                 id="namespace-selector-only-known-namespaces"),
    pytest.param([pod("e", {}, "a1", ns="team-y", aff=affinity(anti=[term({"app": "web"}, ns_selector={
                     "matchLabels": {"team": "x"}})]))],
                 pod("p", {"app": "web"}, ns="team-x"), OK,
                 {"a1": (UNSCHED, EXISTING), "a2": (UNSCHED, EXISTING), "b1": (OK,), "nz": (OK,)},
                 id="existing-anti-namespace-selector-on-incoming-namespace"),
    pytest.param([pod("e", {}, "a1", ns="team-y", aff=affinity(anti=[term({"app": "web"})]))],
                 pod("p", {"app": "web"}, ns="team-x"), SKIP, {},
                 id="existing-anti-other-namespace-skip"),
    pytest.param([DB_A1], pod("p", {}, aff=affinity(req=[term(expressions=[
                     {"key": "app", "operator": "In", "values": ["db", "cache"]}])])), OK,
                 {"a1": (OK,), "a2": (OK,), "b1": (UNRESOLV, AFF), "nz": (UNRESOLV, AFF)},
                 id="in-expression"),
    pytest.param([DB_A1, WEB_A1], pod("p", {"app": "x"}, aff=affinity(anti=[term(expressions=[
                     {"key": "app", "operator": "NotIn", "values": ["web"]}], key=HOST)])), OK,
                 {"a1": (UNSCHED, ANTI), "a2": (OK,), "b1": (OK,), "nz": (OK,)},
                 id="notin-expression"),
    pytest.param([pod("n", {"x": "1"}, "b1")], pod("p", {"app": "x"}, aff=affinity(anti=[term(expressions=[
                     {"key": "app", "operator": "DoesNotExist"}])])), OK,
                 {"a1": (OK,), "a2": (OK,), "b1": (UNSCHED, ANTI), "nz": (OK,)},
                 id="doesnotexist-expression"),
]


@pytest.mark.parametrize("pods, incoming, want_pre, want", FILTER_CASES)
def test_filter(pods, incoming, want_pre, want):
    code, got = run_filter(cluster(pods), incoming)
    assert code is want_pre
    assert got == want


def test_null_selector_rejects_with_first_pod_rule():
    # A null labelSelector matches nothing, the pod itself included: no first-pod escape.
    code, got = run_filter(cluster([DB_A1]), pod("p", {}, aff=affinity(req=[{"topologyKey": ZONE}])))
    assert code is OK
    assert got == {n: (UNRESOLV, AFF) for n in ("a1", "a2", "b1", "nz")}


def test_filter_without_prefilter_state_is_error():
    snap = cluster([])
    s = plugin(snap).filter(CycleState(), pod("p"), snap.node_infos[0])
    assert s.code is Code.ERROR
    assert s.reasons == ('error reading "PreFilterInterPodAffinity" from cycleState: not found',)


# -- AddPod / RemovePod on cloned state -------------------------------------------------------------

def test_remove_pod_on_clone_frees_anti_affinity_and_keeps_original():
    snap = cluster([WEB_A1])
    pl, state = plugin(snap), CycleState()
    incoming = pod("p", {"app": "web"}, aff=affinity(anti=[term({"app": "web"})]))
    pl.pre_filter(state, incoming, snap.node_infos)
    a2 = snap.get("a2")
    clone = state.clone()
    assert pl.remove_pod(clone, incoming, WEB_A1, snap.get("a1")).code is OK
    assert pl.filter(clone, incoming, a2).code is OK
    assert _summ(pl.filter(state, incoming, a2)) == (UNSCHED, ANTI)
    # and back
    assert pl.add_pod(clone, incoming, WEB_A1, snap.get("a1")).code is OK
    assert _summ(pl.filter(clone, incoming, a2)) == (UNSCHED, ANTI)


def test_add_pod_existing_anti_affinity_and_affinity_counts():
    snap = cluster([DB_A1])
    pl, state = plugin(snap), CycleState()
    incoming = pod("p", {"app": "web"}, aff=affinity(req=[term({"app": "db"})]))
    pl.pre_filter(state, incoming, snap.node_infos)
    b1 = snap.get("b1")
    clone = state.clone()
    # a nominated pod with anti-affinity to the incoming one, added on b1
    hater = pod("h", {"app": "db"}, "b1", aff=affinity(anti=[term({"app": "web"}, HOST)]))
    pl.add_pod(clone, incoming, hater, b1)
    # it matches the affinity term (zone b now has a db) but hates web on its host
    assert _summ(pl.filter(clone, incoming, b1)) == (UNSCHED, EXISTING)
    assert _summ(pl.filter(state, incoming, b1)) == (UNRESOLV, AFF)


def test_remove_last_affinity_match_enables_first_pod_rule():
    snap = cluster([DB_A1])
    pl, state = plugin(snap), CycleState()
    incoming = pod("p", {"app": "db"}, aff=affinity(req=[term({"app": "db"})]))
    pl.pre_filter(state, incoming, snap.node_infos)
    clone = state.clone()
    pl.remove_pod(clone, incoming, DB_A1, snap.get("a1"))
    assert pl.filter(clone, incoming, snap.get("b1")).code is OK
    assert _summ(pl.filter(state, incoming, snap.get("b1"))) == (UNRESOLV, AFF)


# -- PreScore, Score, NormalizeScore ---------------------------------------------------------------

def run_score(snap: Snapshot, incoming: PodInfo, args: dict | None = None):
    pl, state = plugin(snap, args), CycleState()
    s = pl.pre_score(state, incoming, snap.node_infos)
    if s.code is SKIP:
        return SKIP, None, None
    raw = {ni.name: pl.score(state, incoming, ni) for ni in snap.node_infos}
    scores = NodeScoreList(list(raw), list(raw.values()))
    assert pl.normalize_score(state, incoming, scores).code is OK
    return s.code, raw, dict(zip(scores.names, scores.scores))


SCORE_CASES = [
    pytest.param([DB_A1], pod("p", {"app": "web"}), None, SKIP, None, None,
                 id="nothing-to-score-skip"),
    pytest.param([DB_A1], pod("p", {"app": "web"}, aff=affinity(pref=[weighted(10, term({"app": "nope"}))])), None,
                 SKIP, None, None, id="preferred-terms-match-nothing-skip"),
    pytest.param([DB_A1], pod("p", {"app": "web"}, aff=affinity(pref=[weighted(10, term({"app": "db"}))])), None,
                 OK, {"a1": 10, "a2": 10, "b1": 0, "nz": 0}, {"a1": 100, "a2": 100, "b1": 0, "nz": 0},
                 id="preferred-affinity-zone"),
    pytest.param([DB_A1], pod("p", {}, aff=affinity(pref_anti=[weighted(5, term({"app": "db"}, HOST))])), None,
                 OK, {"a1": -5, "a2": 0, "b1": 0, "nz": 0}, {"a1": 0, "a2": 100, "b1": 100, "nz": 100},
                 id="preferred-anti-affinity-host"),
    pytest.param([DB_A1, pod("db2", {"app": "db"}, "a2"), pod("db3", {"app": "db"}, "b1")],
                 pod("p", {}, aff=affinity(pref=[weighted(3, term({"app": "db"}))],
                                           pref_anti=[weighted(2, term({"app": "db"}, HOST))])), None,
                 OK, {"a1": 4, "a2": 4, "b1": 1, "nz": 0}, {"a1": 100, "a2": 100, "b1": 25, "nz": 0},
                 id="affinity-and-anti-sum"),
    # existing pod's required affinity matches the incoming pod: hardPodAffinityWeight (default 1)
    pytest.param([pod("e", {}, "b1", aff=affinity(req=[term({"app": "web"})]))], pod("p", {"app": "web"}), None,
                 OK, {"a1": 0, "a2": 0, "b1": 1, "nz": 0}, {"a1": 0, "a2": 0, "b1": 100, "nz": 0},
                 id="existing-required-affinity-hard-weight-default"),
    pytest.param([pod("e", {}, "b1", aff=affinity(req=[term({"app": "web"})]))], pod("p", {"app": "web"}),
                 {"hardPodAffinityWeight": 0}, SKIP, None, None, id="hard-weight-zero-ignored"),
    pytest.param([pod("e", {}, "b1", aff=affinity(req=[term({"app": "web"})],
                                                   pref_anti=[weighted(7, term({"app": "web"}, HOST))]))],
                 pod("p", {"app": "web"}), {"hardPodAffinityWeight": 5},
                 OK, {"a1": 0, "a2": 0, "b1": -2, "nz": 0}, {"a1": 100, "a2": 100, "b1": 0, "nz": 100},
                 id="hard-weight-and-existing-preferred-anti"),
    pytest.param([pod("e", {}, "a2", aff=affinity(pref=[weighted(40, term({"app": "web"}))]))],
                 pod("p", {"app": "web"}), None,
                 OK, {"a1": 40, "a2": 40, "b1": 0, "nz": 0}, {"a1": 100, "a2": 100, "b1": 0, "nz": 0},
                 id="existing-preferred-affinity"),
    pytest.param([pod("e", {}, "a2", aff=affinity(pref=[weighted(40, term({"app": "web"}))]))],
                 pod("p", {"app": "web"}), {"ignorePreferredTermsOfExistingPods": True},
                 SKIP, None, None, id="ignore-existing-preferred-skips"),
    # existing terms see the incoming pod's namespace labels through their namespaceSelector
    pytest.param([pod("e", {}, "b1", ns="team-y", aff=affinity(pref=[weighted(9, term(
                     {"app": "web"}, HOST, ns_selector={"matchLabels": {"team": "x"}}))]))],
                 pod("p", {"app": "web"}, ns="team-x"), None,
                 OK, {"a1": 0, "a2": 0, "b1": 9, "nz": 0}, {"a1": 0, "a2": 0, "b1": 100, "nz": 0},
                 id="existing-term-namespace-selector"),
    # a matching term whose weights cancel still leaves an entry: not skipped, all equal -> 0
    pytest.param([DB_A1], pod("p", {}, aff=affinity(pref=[weighted(4, term({"app": "db"}))],
                                                     pref_anti=[weighted(4, term({"app": "db"}))])), None,
                 OK, {"a1": 0, "a2": 0, "b1": 0, "nz": 0}, {"a1": 0, "a2": 0, "b1": 0, "nz": 0},
                 id="cancelling-weights-not-skipped"),
]


@pytest.mark.parametrize("pods, incoming, args, want_pre, want_raw, want_norm", SCORE_CASES)
def test_score(pods, incoming, args, want_pre, want_raw, want_norm):
    code, raw, norm = run_score(cluster(pods), incoming, args)
    assert code is want_pre
    assert raw == want_raw
    assert norm == want_norm


@pytest.mark.parametrize("raw, want", [
    ([0, 29, 100], [0, 28, 100]),        # 100 * (29/100) = 28.999999999999996 -> 28
    ([0, 1, 2, 3], [0, 33, 66, 100]),
    ([-3, 7, 1], [0, 100, 40]),
    ([5, 5], [0, 0]),
    ([-10, -57, -110], [100, 53, 0]),   # 100 * (53/100) = 53.0
])
def test_normalize_score_arithmetic(raw, want):
    snap = cluster([DB_A1])
    pl, state = plugin(snap), CycleState()
    incoming = pod("p", {}, aff=affinity(pref=[weighted(1, term({"app": "db"}))]))
    assert pl.pre_score(state, incoming, snap.node_infos).code is OK
    scores = NodeScoreList([f"n{i}" for i in range(len(raw))], list(raw))
    pl.normalize_score(state, incoming, scores)
    assert scores.scores == want


def test_prescore_counts_pods_on_nodes_outside_the_feasible_list():
    # PreScore reads the whole snapshot, not only the nodes handed to it.
    snap = cluster([pod("db", {"app": "db"}, "a2")])
    pl, state = plugin(snap), CycleState()
    incoming = pod("p", {}, aff=affinity(pref=[weighted(6, term({"app": "db"}))]))
    assert pl.pre_score(state, incoming, [snap.get("a1"), snap.get("b1")]).code is OK
    assert pl.score(state, incoming, snap.get("a1")) == 6
    assert pl.score(state, incoming, snap.get("b1")) == 0


# -- the pod index behind the counts -----------------------------------------------------------

INDEX_PODS = [pod("w1", {"app": "web", "tier": "fe"}, "a1"), pod("w2", {"app": "web", "tier": "be"}, "a1"),
              pod("w3", {"app": "web", "tier": "fe"}, "b1"), pod("d1", {"app": "db"}, "a2"),
              pod("x1", {"app": "web", "tier": "fe"}, "b1", ns="team-x")]


@pytest.mark.parametrize("terms, want", [
    pytest.param([term({"app": "web"})], {"a1": 2, "b1": 1}, id="single-in-exact"),
    pytest.param([term({"app": "web", "tier": "fe"})], {"a1": 1, "b1": 1}, id="in-plus-other-key"),
    pytest.param([term(expressions=[{"key": "tier", "operator": "Exists"}])], {"a1": 2, "b1": 1}, id="no-narrowing"),
    pytest.param([term({})], {"a1": 2, "b1": 1, "a2": 1}, id="everything-in-namespace"),
    pytest.param([term({"app": "web"}, ns_selector={})], {"a1": 2, "b1": 2}, id="all-namespaces"),
    pytest.param([term({"app": "web"}), term({"tier": "fe"}, HOST)], {"a1": 1, "b1": 1}, id="all-terms"),
    pytest.param([term(expressions=[{"key": "app", "operator": "In", "values": ["db", "web"]}],
                       namespaces=["team-x", "default"])], {"a1": 2, "b1": 2, "a2": 1}, id="in-two-values"),
])
def test_matches_per_node(terms, want):
    from kexplain.model.pod_index import pod_index
    from kexplain.plugins.inter_pod_affinity import resolve_all
    snap = cluster(INDEX_PODS)
    resolved = resolve_all(pod("p", {}, aff=affinity(req=terms)).required_affinity_terms, snap)
    got = {ni.name: n for ni, n in pod_index(snap).matches_per_node(resolved)}
    assert got == want


def test_matches_per_node_agrees_with_a_scan_of_every_pod():
    import random
    from kexplain.model.pod_index import pod_index
    from kexplain.plugins.inter_pod_affinity import resolve_all
    rnd = random.Random(7)
    values = ["a", "b", "c"]
    pods = [pod(f"p{i}", {k: rnd.choice(values) for k in ("k1", "k2") if rnd.random() < 0.8},
                rnd.choice(NODES)["metadata"]["name"], ns=rnd.choice(list(NAMESPACES) + ["ghost"]))
            for i in range(300)]
    snap = cluster(pods)
    ops = [{"key": "k1", "operator": "In", "values": ["a", "b"]}, {"key": "k2", "operator": "NotIn", "values": ["c"]},
           {"key": "k2", "operator": "Exists"}, {"key": "k1", "operator": "DoesNotExist"}]
    for trial in range(60):
        raw = [term(rnd.choice([None, {"k1": rnd.choice(values)}, {"k2": "b"}]),
                    expressions=rnd.sample(ops, rnd.randint(0, 2)),
                    ns_selector=rnd.choice([None, {}, {"matchLabels": {"team": "x"}}]),
                    namespaces=rnd.choice([None, ["team-y"], ["ghost", "default"]]))
               for _ in range(rnd.randint(1, 2))]
        incoming = pod("p", {}, ns=rnd.choice(["default", "team-x"]), aff=affinity(req=raw))
        resolved = resolve_all(incoming.required_affinity_terms, snap)
        got = {ni.name: n for ni, n in pod_index(snap).matches_per_node(resolved)}
        want: dict[str, int] = {}
        for ni in snap.node_infos:
            n = sum(all(t.matches(p, {}) for t in resolved) for p in ni.pods)
            if n:
                want[ni.name] = n
        assert got == want, (trial, raw)
