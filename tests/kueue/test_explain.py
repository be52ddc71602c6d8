"""The explanation (kueue/explain.py): per pending Workload the verdict, its place in its queue,
each flavor tried with the quota numbers behind it, the lenders of its cohort, and why each
admitted Workload is or is not a preemption candidate."""
from __future__ import annotations

from kexplain.kueue.explain import explained_pass
from tests.kueue.builders import cluster_queue, flavor, local_queue, run, workload

SPOT = [{"key": "spot", "value": "true", "effect": "NoSchedule"}]


def _explained(*docs, submitted=(), version="0.17"):
    doc = explained_pass(run(*docs, submitted=submitted, version=version))
    return {w["workload"]: w for w in doc["explanation"]["workloads"]}


def test_quota_numbers_and_lenders() -> None:
    got = _explained(flavor("default"), local_queue("a", "team-a"),
                     cluster_queue("team-a", {"default": {"cpu": {"nominalQuota": "4", "borrowingLimit": "2"}}},
                                   cohort="c"),
                     cluster_queue("team-b", {"default": {"cpu": "4"}}, cohort="c"),
                     submitted=(workload("w", "a", {"cpu": "7"}),))["default/w"]
    assert got["verdict"] == "Pending"
    (trial,) = got["podSets"][0]["trials"]
    (q,) = trial["quotas"]
    assert {k: q[k] for k in ("request", "nominal", "used", "available", "maxCapacity", "borrowingLimit",
                              "overCapacity")} == {"request": "7", "nominal": "4", "used": "0", "available": "6",
                                                   "maxCapacity": "6", "borrowingLimit": "2", "overCapacity": "1"}
    assert q["lenders"] == [{"kind": "ClusterQueue", "name": "team-b", "unused": "4", "lendable": "4"}]


def test_skipped_flavors_name_the_taint_and_the_fungibility_rule() -> None:
    got = _explained(flavor("spot", {"capacity": "spot"}, SPOT), flavor("on-demand", {"capacity": "on-demand"}),
                     cluster_queue("cq", {"spot": {"cpu": "8"}, "on-demand": {"cpu": "2"}}), local_queue("q", "cq"),
                     submitted=(workload("w", "q", {"cpu": "4"}),))["default/w"]
    trials = got["podSets"][0]["trials"]
    assert trials[0] == {"resource": "cpu", "flavor": "spot", "skipped": "taint",
                         "taint": {"key": "spot", "value": "true", "effect": "NoSchedule"}}
    assert trials[1]["flavor"] == "on-demand" and trials[1]["mode"] == "NoFit" and trials[1]["searchWentOn"] == "noFit"


def test_queue_position_and_a_strict_fifo_head() -> None:
    got = _explained(flavor("default"), local_queue("q", "cq"),
                     cluster_queue("cq", {"default": {"cpu": "4"}}, queueingStrategy="StrictFIFO"),
                     submitted=(workload("big", "q", {"cpu": "8"}, created="2025-12-31T10:00:00Z"),
                                workload("small", "q", {"cpu": "1"}, created="2025-12-31T11:00:00Z")))
    assert got["default/small"]["verdict"] == "NotTried"
    assert got["default/small"]["queue"] == {"clusterQueue": "cq", "strategy": "StrictFIFO", "position": 2, "of": 2,
                                             "ahead": ["default/big"], "setAside": False, "blockedBy": "default/big"}


def test_preemption_candidates() -> None:
    got = _explained(flavor("default"), local_queue("q", "cq"),
                     cluster_queue("cq", {"default": {"cpu": "4"}}, preemption={"withinClusterQueue": "LowerPriority"}),
                     workload("low", "q", {"cpu": "2"}, priority=0, admitted_in="cq", uid="u1"),
                     workload("peer", "q", {"cpu": "2"}, priority=100, admitted_in="cq", uid="u2"),
                     submitted=(workload("high", "q", {"cpu": "2"}, priority=100),))["default/high"]
    assert got["verdict"] == "PendingPreemption"
    verdicts = {c["workload"]: c["verdict"] for c in got["preemption"]["candidates"]}
    assert verdicts == {"default/low": "target", "default/peer": "not-lower-priority"}


def test_inadmissible() -> None:
    got = _explained(flavor("default"), cluster_queue("cq", {"default": {"cpu": "4"}}),
                     submitted=(workload("w", "nope", {"cpu": "1"}),))["default/w"]
    assert (got["verdict"], got["message"]) == ("Inadmissible", "LocalQueue nope doesn't exist")
    assert "podSets" not in got
