"""NodeAffinity: PreFilter skip and node-name narrowing, Filter reasons, preferred-term scoring."""
from __future__ import annotations

import pytest

from kexplain.framework.cycle_state import CycleState
from kexplain.plugins.node_affinity import NodeAffinity
from tests.support.selection_helpers import handle, node_info, pod, score_all, status_tuple

OK = ("Success", ())
SKIP = ("Skip", ())
POD_REASON = ("UnschedulableAndUnresolvable", ("node(s) didn't match Pod's node affinity/selector",))
ENFORCED = ("UnschedulableAndUnresolvable", ("node(s) didn't match scheduler-enforced node affinity",))
CONFLICT = ("UnschedulableAndUnresolvable", ("pod affinity terms conflict",))

INFOS = [node_info("n1", {"zone": "a", "disk": "ssd"}), node_info("n2", {"zone": "b", "disk": "ssd"}),
         node_info("n3", {"zone": "b"})]


def expr(key, op, *values):
    return {"key": key, "operator": op, "values": list(values)} if values else {"key": key, "operator": op}


def required(*terms):
    return {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": list(terms)}}}}


def name_in(*names):
    return {"key": "metadata.name", "operator": "In", "values": list(names)}


def preferred(*weighted):
    return {"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": w, "preference": term} for w, term in weighted]}}}


def run_filters(pl, p):
    state = CycleState()
    result, status = pl.pre_filter(state, p, INFOS)
    per_node = None
    if status.is_success:
        per_node = {ni.name: status_tuple(pl.filter(state, p, ni)) for ni in INFOS}
    names = None if result is None else (None if result.all_nodes else sorted(result.node_names))
    return status_tuple(status), names, per_node


@pytest.mark.parametrize("spec,want_status,want_names,want_nodes", [
    # No nodeSelector, no required affinity: PreFilter skips (preferred terms do not matter).
    ({}, SKIP, None, None),
    ({"affinity": {"nodeAffinity": {}}}, SKIP, None, None),
    (preferred((1, {"matchExpressions": [expr("zone", "In", "a")]})), SKIP, None, None),
    ({"nodeSelector": {"zone": "b"}}, OK, None, {"n1": POD_REASON, "n2": OK, "n3": OK}),
    (required({"matchExpressions": [expr("disk", "Exists")]}), OK, None, {"n1": OK, "n2": OK, "n3": POD_REASON}),
    ({"nodeSelector": {"zone": "b"}, **required({"matchExpressions": [expr("disk", "Exists")]})},
     OK, None, {"n1": POD_REASON, "n2": OK, "n3": POD_REASON}),
    # Narrowing: every term names nodes; union over terms, intersection within a term.
    (required({"matchFields": [name_in("n1")]}, {"matchFields": [name_in("n3")]}),
     OK, ["n1", "n3"], {"n1": OK, "n2": POD_REASON, "n3": OK}),
    (required({"matchFields": [name_in("n1"), name_in("n1")]}), OK, ["n1"], None),
    (required({"matchFields": [name_in("n1"), {"key": "metadata.name", "operator": "NotIn", "values": ["n2"]}]}),
     OK, ["n1"], None),
    (required({"matchFields": [name_in("n1")]}, {"matchExpressions": [expr("zone", "In", "b")]}), OK, None, None),
    (required({"matchFields": [name_in("ghost")]}), OK, ["ghost"], None),
    # Each term's names intersect to nothing: conflict.
    (required({"matchFields": [name_in("n1"), name_in("n2")]}), CONFLICT, None, None),
    (required({"matchFields": [name_in("n1"), name_in("n2")]}, {"matchFields": [name_in("n3")]}),
     OK, ["n3"], None),
    # A required affinity without terms: no narrowing, and no node matches.
    (required(), OK, None, {"n1": POD_REASON, "n2": POD_REASON, "n3": POD_REASON}),
])
def test_pre_filter_and_filter(spec, want_status, want_names, want_nodes):
    pl = NodeAffinity({}, handle(INFOS))
    status, names, per_node = run_filters(pl, pod(spec=spec))
    assert status == want_status
    assert names == want_names
    if want_nodes is not None:
        assert per_node == want_nodes


def test_added_affinity():
    args = {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [expr("disk", "Exists")]}]}}}
    pl = NodeAffinity(args, handle(INFOS))
    # Added affinity: PreFilter never skips; the enforced reason comes first.
    status, _, per_node = run_filters(pl, pod())
    assert status == OK
    assert per_node == {"n1": OK, "n2": OK, "n3": ENFORCED}
    _, _, per_node = run_filters(pl, pod(spec={"nodeSelector": {"zone": "a"}}))
    assert per_node == {"n1": OK, "n2": POD_REASON, "n3": ENFORCED}


def test_added_affinity_parse_error_refuses_plugin():
    args = {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [expr("disk", "Foo")]}]}}}
    with pytest.raises(ValueError):
        NodeAffinity(args, handle(INFOS))


def test_pre_score_skips_without_preferences():
    pl = NodeAffinity({}, handle(INFOS))
    assert status_tuple(pl.pre_score(CycleState(), pod(), INFOS)) == SKIP
    assert status_tuple(pl.pre_score(CycleState(), pod(spec={"nodeSelector": {"zone": "a"}}), INFOS)) == SKIP


def test_score_sums_weights_and_normalizes():
    pl = NodeAffinity({}, handle(INFOS))
    p = pod(spec=preferred((3, {"matchExpressions": [expr("zone", "In", "b")]}),
                           (5, {"matchExpressions": [expr("disk", "In", "ssd")]}),
                           (2, {"matchFields": [name_in("n3")]})))
    state = CycleState()
    assert pl.pre_score(state, p, INFOS).is_success
    raw, norm = score_all(pl, state, p, INFOS)
    assert raw == {"n1": 5, "n2": 8, "n3": 5}
    assert norm == {"n1": 62, "n2": 100, "n3": 62}   # 100*5//8 = 62


def test_score_with_added_preferred_terms():
    args = {"addedAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 10, "preference": {"matchExpressions": [expr("zone", "In", "a")]}}]}}
    pl = NodeAffinity(args, handle(INFOS))
    state = CycleState()
    # Added preferences alone keep PreScore from skipping.
    assert status_tuple(pl.pre_score(state, pod(), INFOS)) == OK
    raw, norm = score_all(pl, state, pod(), INFOS)
    assert raw == {"n1": 10, "n2": 0, "n3": 0}
    assert norm == {"n1": 100, "n2": 0, "n3": 0}
    p = pod(spec=preferred((30, {"matchExpressions": [expr("zone", "In", "b")]})))
    state = CycleState()
    pl.pre_score(state, p, INFOS)
    raw, norm = score_all(pl, state, p, INFOS)
    assert raw == {"n1": 10, "n2": 30, "n3": 30}
    assert norm == {"n1": 33, "n2": 100, "n3": 100}


def test_all_zero_scores_stay_zero():
    pl = NodeAffinity({}, handle(INFOS))
    p = pod(spec=preferred((4, {"matchExpressions": [expr("zone", "In", "z")]})))
    state = CycleState()
    pl.pre_score(state, p, INFOS)
    assert score_all(pl, state, p, INFOS) == ({"n1": 0, "n2": 0, "n3": 0}, {"n1": 0, "n2": 0, "n3": 0})


def test_invalid_preferred_terms_error_in_pre_score():
    pl = NodeAffinity({}, handle(INFOS))
    status = pl.pre_score(CycleState(), pod(spec=preferred((1, {"matchExpressions": [expr("zone", "Bad")]}))), INFOS)
    assert status.code.value == "Error"
