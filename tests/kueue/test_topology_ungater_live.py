"""The topology ungater over ALL a pod set's pods (`controller.tas.ungater.assign`, what live mode
runs: pkg/controller/tas/topology_ungater.go assignGatedPodsToDomains): only gated pods are given a
domain; by rank when every pod's rank reads and each pod already ungated sits in its rank's domain;
else greedily, each domain's pods already ungated (by their node selectors) counted first."""
from __future__ import annotations

from kexplain.kueue.apis.topology import DomainAssignment, IndexLabels, TopologyAssignment
from kexplain.kueue.controller.tas.ungater import GATE, Ranks, assign, gated, ungate

RACK = "rack"
INDEX = IndexLabels(pod_index="idx")
TWO_RACKS = TopologyAssignment((RACK,), (DomainAssignment(("r1",), 2), DomainAssignment(("r2",), 2)))


def _pod(index: int | None, rack: str | None = None) -> dict:
    """A pod with completion index `index`; gated, or (`rack`) ungated there."""
    labels = {"idx": str(index)} if index is not None else {}
    spec = {"nodeSelector": {RACK: rack}} if rack else {"schedulingGates": [{"name": GATE}]}
    return {"metadata": {"labels": labels}, "spec": spec}


def _racks(pods: list[dict], index: IndexLabels | None = INDEX) -> tuple[list[str | None], str]:
    given = assign(pods, TWO_RACKS, 4, index, Ranks(0, 4))
    return [labels.get(RACK) for labels in given.labels], given.by


def test_by_rank_only_the_gated_pods_are_given_a_domain() -> None:
    assert _racks([_pod(3), _pod(0, "r1"), _pod(1), _pod(2)]) == (["r2", None, "r1", "r2"], "rank")


def test_an_ungated_pod_outside_its_ranks_domain_makes_it_greedy() -> None:
    """Rank 0 belongs to r1; the pod there sits on r2: greedily, r2 has one place left."""
    assert _racks([_pod(3), _pod(0, "r2"), _pod(1), _pod(2)]) == (["r1", None, "r1", "r2"], "order")


def test_greedily_the_ungated_pods_count_against_their_domain() -> None:
    pods = [_pod(None, "r1"), _pod(None, "r1"), _pod(None), _pod(None)]
    assert _racks(pods, None) == ([None, None, "r2", "r2"], "order")
    assert _racks([_pod(None, "r1"), _pod(None), _pod(None), _pod(None)], None) == ([None, "r1", "r2", "r2"], "order")


def test_a_rank_beyond_the_pod_set_falls_back_to_order() -> None:
    assert _racks([_pod(7), _pod(0)]) == (["r1", "r1"], "order")


def test_a_bad_offset_annotation_ungates_nothing() -> None:
    pod = _pod(0)
    pod["metadata"]["annotations"] = {"kueue.x-k8s.io/pod-index-offset": "x"}
    assert _racks([pod, _pod(1)]) == ([None, None], "order")


def test_ungate_removes_only_the_topology_gate_and_adds_the_domain() -> None:
    pod = {"spec": {"schedulingGates": [{"name": GATE}, {"name": "other"}], "nodeSelector": {"pool": "h100"}}}
    out = ungate(pod, {RACK: "r1"})
    assert out["spec"] == {"schedulingGates": [{"name": "other"}], "nodeSelector": {"pool": "h100", RACK: "r1"}}
    assert gated(pod) and not gated(out) and not gated(ungate(_pod(0), {RACK: "r2"}))
