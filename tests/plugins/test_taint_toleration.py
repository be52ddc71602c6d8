"""TaintToleration: Filter on NoSchedule/NoExecute taints, Score on PreferNoSchedule taints."""
from __future__ import annotations

import pytest

from kexplain.framework.cycle_state import CycleState
from kexplain.framework.interface import NodeScoreList
from kexplain.plugins.helper.normalize_score import default_normalize_score
from kexplain.features import KubeVersion
from kexplain.plugins.taint_toleration import ERR_REASON_UNTOLERATED, TaintToleration
from tests.support.selection_helpers import handle, node_info, pod, score_all, status_tuple, taint

OK = ("Success", ())
REJECT = ("UnschedulableAndUnresolvable", ("node(s) had untolerated taint(s)",))


def test_reason_text():
    assert ERR_REASON_UNTOLERATED == "node(s) had untolerated taint(s)"


@pytest.mark.parametrize("taints,tolerations,want", [
    ([], [], OK),
    ([taint("k", "NoSchedule", "v")], [], REJECT),
    ([taint("k", "NoExecute", "v")], [], REJECT),
    ([taint("k", "PreferNoSchedule", "v")], [], OK),                        # never filters
    ([taint("k", "NoSchedule", "v")], [{"key": "k", "operator": "Equal", "value": "v"}], OK),
    ([taint("k", "NoSchedule", "v")], [{"key": "k", "value": "v"}], OK),    # empty operator = Equal
    ([taint("k", "NoSchedule", "v")], [{"key": "k", "operator": "Equal", "value": "w"}], REJECT),
    ([taint("k", "NoSchedule", "v")], [{"key": "k", "operator": "Exists"}], OK),
    ([taint("k", "NoSchedule", "v")], [{"operator": "Exists"}], OK),        # tolerates everything
    ([taint("k", "NoSchedule", "v")], [{"key": "k", "operator": "Exists", "effect": "NoExecute"}], REJECT),
    ([taint("k", "NoSchedule", "v")], [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}], OK),
    ([taint("k", "NoSchedule", "v")], [{"key": "other", "operator": "Exists"}], REJECT),
    ([taint("k", "NoSchedule", "5")], [{"key": "k", "operator": "Gt", "value": "1"}], REJECT),  # gate off
    ([taint("a", "NoSchedule"), taint("b", "NoExecute")], [{"key": "a", "operator": "Exists"}], REJECT),
    ([taint("a", "NoSchedule"), taint("b", "NoExecute")],
     [{"key": "a", "operator": "Exists"}, {"key": "b", "operator": "Exists"}], OK),
    ([taint("a", "NoSchedule"), taint("b", "PreferNoSchedule")], [{"key": "a", "operator": "Exists"}], OK),
])
def test_filter(taints, tolerations, want):
    ni = node_info("n", taints=taints)
    pl = TaintToleration({}, handle([ni]))
    assert status_tuple(pl.filter(CycleState(), pod(spec={"tolerations": tolerations}), ni)) == want


def test_score_counts_untolerated_prefer_no_schedule():
    infos = [
        node_info("clean"),
        node_info("one", taints=[taint("a", "PreferNoSchedule")]),
        node_info("two", taints=[taint("a", "PreferNoSchedule"), taint("b", "PreferNoSchedule", "x")]),
        node_info("tolerated", taints=[taint("c", "PreferNoSchedule")]),
        node_info("hard", taints=[taint("z", "NoSchedule")]),       # not counted by Score
        node_info("three", taints=[taint("a", "PreferNoSchedule"), taint("b", "PreferNoSchedule"),
                                   taint("d", "PreferNoSchedule")]),
    ]
    pl = TaintToleration({}, handle(infos))
    p = pod(spec={"tolerations": [
        {"key": "c", "operator": "Exists"},                                   # any effect: counts
        {"key": "b", "operator": "Exists", "effect": "NoSchedule"},          # other effect: ignored
    ]})
    state = CycleState()
    assert pl.pre_score(state, p, infos).is_success
    raw, norm = score_all(pl, state, p, infos)
    assert raw == {"clean": 0, "one": 1, "two": 2, "tolerated": 0, "hard": 0, "three": 3}
    # reversed: 100 - 100*s/3 with integer division
    assert norm == {"clean": 100, "one": 67, "two": 34, "tolerated": 100, "hard": 100, "three": 0}


@pytest.mark.parametrize("reverse,scores,want", [
    (False, [0, 0, 0], [0, 0, 0]),
    (True, [0, 0, 0], [100, 100, 100]),
    (False, [1, 2, 3], [33, 66, 100]),
    (True, [1, 2, 3], [67, 34, 0]),
    (False, [7], [100]),
    (False, [3, 0, 7], [42, 0, 100]),
    (True, [3, 0, 7], [58, 100, 0]),
])
def test_default_normalize_score(reverse, scores, want):
    ns = NodeScoreList([str(i) for i in range(len(scores))], list(scores))
    default_normalize_score(100, reverse, ns)
    assert ns.scores == want


# --- before 1.34 the reason names the first untolerated NoSchedule/NoExecute taint ----------

def _versioned_filter(minor, taints, tolerations=()):
    ni = node_info("n", taints=taints)
    h = handle([ni])
    h.kube = KubeVersion(minor)
    return status_tuple(TaintToleration({}, h).filter(CycleState(), pod(spec={"tolerations": list(tolerations)}), ni))


def _named(text):
    return ("UnschedulableAndUnresolvable", (text,))


@pytest.mark.parametrize("taints,tolerations,want", [
    ([taint("team", "NoSchedule", "payments")], [], _named("node(s) had untolerated taint {team: payments}")),
    ([taint("example.com/maintenance", "NoExecute", "true")], [],
     _named("node(s) had untolerated taint {example.com/maintenance: true}")),
    # no value: the colon is followed by a space and nothing else
    ([taint("node.kubernetes.io/unschedulable", "NoSchedule")], [],
     _named("node(s) had untolerated taint {node.kubernetes.io/unschedulable: }")),
    # the first untolerated one in the node's order; PreferNoSchedule and tolerated ones skipped
    ([taint("soft", "PreferNoSchedule", "x"), taint("a", "NoSchedule", "1"), taint("b", "NoExecute", "2")],
     [{"key": "a", "operator": "Exists"}], _named("node(s) had untolerated taint {b: 2}")),
    ([taint("b", "NoExecute", "2"), taint("a", "NoSchedule", "1")], [], _named("node(s) had untolerated taint {b: 2}")),
    # not-ready as NoSchedule is not covered by the default NoExecute toleration
    ([taint("node.kubernetes.io/not-ready", "NoSchedule")],
     [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"}],
     _named("node(s) had untolerated taint {node.kubernetes.io/not-ready: }")),
    ([taint("soft", "PreferNoSchedule", "x")], [], OK),
])
def test_filter_names_the_taint_before_1_34(taints, tolerations, want):
    assert _versioned_filter("1.33", taints, tolerations) == want


@pytest.mark.parametrize("minor", ["1.34", "1.35", "1.36"])
def test_filter_names_no_taint_from_1_34(minor):
    assert _versioned_filter(minor, [taint("team", "NoSchedule", "payments")]) == REJECT


def test_named_reasons_are_one_status_per_distinct_taint():
    infos = [node_info("a", taints=[taint("k", "NoSchedule", "1")]),
             node_info("b", taints=[taint("k", "NoSchedule", "1")]),
             node_info("c", taints=[taint("k", "NoSchedule", "2")])]
    h = handle(infos)
    h.kube = KubeVersion("1.33")
    got = TaintToleration({}, h).filter_nodes(CycleState(), pod(), infos)
    assert [s.reasons for s in got] == [("node(s) had untolerated taint {k: 1}",)] * 2 + [
        ("node(s) had untolerated taint {k: 2}",)]
