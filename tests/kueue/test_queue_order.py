"""GetQueueOrderTimestamp and QueuedWaitTime (pkg/workload/workload.go): a Workload evicted by an
admission check, or by a PodsReady timeout (requeuing timestamp `Eviction`, the default), queues by
its eviction's time, not its creation; the QuotaReserved event counts the wait from the Requeued
condition's last change when there is one; a Workload's reclaimable pods hold no quota
(totalRequestsFromAdmission, podSetsCountsAfterReclaim)."""
from __future__ import annotations

from typing import Any

import pytest
import yaml

from kexplain.kueue.apis.workload import parse_workload
from kexplain.kueue.workload.info import new_info
from kexplain.kueue.workload.ordering import queue_order_timestamp
from kexplain.kueue.workload.workload import Workload
from tests.kueue.builders import cluster_queue, flavor, local_queue, read, run, workload

BASE = (flavor("default-flavor"), cluster_queue("cq", {"default-flavor": {"cpu": "8"}}), local_queue("q", "cq"))


def _with(text: str, *conditions: dict[str, Any]) -> str:
    obj = yaml.safe_load(text)
    obj["status"] = {"conditions": list(conditions)}
    return yaml.safe_dump(obj)


def _evicted(reason: str, at: str) -> dict[str, Any]:
    return {"type": "Evicted", "status": "True", "reason": reason, "message": "x", "lastTransitionTime": at}


@pytest.mark.parametrize(("reason", "first"), [
    ("AdmissionCheck", "a"),        # evicted at 12:00: after a, created at 10:00
    ("PodsReadyTimeout", "a"),
    ("Preempted", "b"),             # (read only with PrioritySortingWithinCohort off)
])
def test_an_evicted_workload_queues_by_its_eviction(reason, first):
    a = workload("a", "q", {"cpu": "6"}, created="2025-12-31T10:00:00Z")
    b = _with(workload("b", "q", {"cpu": "6"}, created="2025-12-31T09:00:00Z"),
              _evicted(reason, "2025-12-31T12:00:00Z"))
    done = run(*BASE, a, b)
    reserved = {name for name in ("a", "b") if done.workloads[f"default/{name}"].is_true("QuotaReserved")}
    assert reserved == {first}


def test_the_requeuing_timestamp_creation_orders_a_pods_ready_eviction_by_creation():
    done = run(*BASE, _with(workload("b", "q", {"cpu": "9"}, created="2025-12-31T09:00:00Z"),     # (stays pending)
                            _evicted("PodsReadyTimeout", "2025-12-31T12:00:00Z")))
    wl = done.workloads["default/b"]
    assert wl.is_true("Evicted")
    assert queue_order_timestamp(wl, pods_ready_eviction=False) == wl.meta.created
    assert queue_order_timestamp(wl) != wl.meta.created


def test_the_wait_counts_from_the_requeued_condition():
    requeued = {"type": "Requeued", "status": "True", "reason": "Preempted", "message": "Requeued after preemption",
                "lastTransitionTime": "2025-12-31T23:00:00Z"}
    done = run(*BASE, _with(workload("w", "q", {"cpu": "1"}, created="2025-12-31T00:00:00Z"), requeued),
               workload("v", "q", {"cpu": "1"}, created="2025-12-31T00:00:00Z"))
    said = {e.message for e in done.events if e.reason == "QuotaReserved"}
    assert said == {"Quota reserved in ClusterQueue cq, wait time since queued was 3600s",
                    "Quota reserved in ClusterQueue cq, wait time since queued was 86400s"}


def test_reclaimable_pods_leave_the_quota_they_held():
    """ReclaimablePods: an admitted Workload of 4 pods x 2 cpu with 2 pods reclaimable holds 4 cpu of
    its 8, so a 4-cpu Workload fits beside it; its pending twin asks for 2 pods' worth only."""
    running = yaml.safe_load(workload("running", "q", {"cpu": "2"}, count=4, admitted_in="cq",
                                      flavors={"cpu": "default-flavor"}))
    running["status"]["reclaimablePods"] = [{"name": "main", "count": 2}]
    done = run(*BASE, yaml.safe_dump(running), workload("new", "q", {"cpu": "4"}))
    assert done.workloads["default/new"].is_true("QuotaReserved")
    pending = yaml.safe_load(workload("twin", "q", {"cpu": "2"}, count=4))
    pending["status"] = {"reclaimablePods": [{"name": "main", "count": 3}]}
    info = new_info(Workload.of(parse_workload(pending)))
    assert [(p.name, p.count, p.requests) for p in info.total_requests] == [("main", 1, {"cpu": 2000})]


def _requeuing(timestamp: str | None) -> tuple[str, ...]:
    """Kueue's Configuration with waitForPodsReady and, when given, its requeuing timestamp."""
    strategy = {"requeuingStrategy": {"timestamp": timestamp}} if timestamp else {}
    return (yaml.safe_dump({"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
                            "waitForPodsReady": {"timeout": "3h", **strategy}}),)


def _older_evicted_at_noon(queue: str) -> str:
    """b: created at 09:00, before a, evicted by a PodsReady timeout at 12:00, after a's creation."""
    return _with(workload("b", queue, {"cpu": "6"}, created="2025-12-31T09:00:00Z"),
                 _evicted("PodsReadyTimeout", "2025-12-31T12:00:00Z"))


@pytest.mark.parametrize("version", ["0.17", "0.19"])
@pytest.mark.parametrize(("config", "first"), [
    ((), "a"), (_requeuing(None), "a"), (_requeuing("Eviction"), "a"),
    (_requeuing("Creation"), "b"),          # podsReadyRequeuingTimestamp: every Ordering by creation
])
def test_the_configured_requeuing_timestamp_orders_the_queue(version, config, first):
    """The queue manager's heap (one ClusterQueue: the head is admitted, the other does not fit)."""
    a = workload("a", "q", {"cpu": "6"}, created="2025-12-31T10:00:00Z")
    done = run(*BASE, *config, a, _older_evicted_at_noon("q"), version=version)
    reserved = {name for name in ("a", "b") if done.workloads[f"default/{name}"].is_true("QuotaReserved")}
    assert reserved == {first}


@pytest.mark.parametrize(("config", "first"), [((), "a"), (_requeuing("Creation"), "b")])
def test_the_scheduler_orders_the_heads_by_it_too(config, first):
    """The scheduler's entries (two ClusterQueues' heads, each borrowing the other's 3 cpu: only one
    fits the cohort), in the classical iterator's order."""
    cohort = (flavor("default-flavor"),
              cluster_queue("cq1", {"default-flavor": {"cpu": "3"}}, cohort="c"), local_queue("q1", "cq1"),
              cluster_queue("cq2", {"default-flavor": {"cpu": "3"}}, cohort="c"), local_queue("q2", "cq2"))
    a = workload("a", "q1", {"cpu": "6"}, created="2025-12-31T10:00:00Z")
    done = run(*cohort, *config, a, _older_evicted_at_noon("q2"))
    reserved = {name for name in ("a", "b") if done.workloads[f"default/{name}"].is_true("QuotaReserved")}
    assert reserved == {first}


def test_the_configuration_says_which_timestamp():
    assert read().config.pods_ready_eviction
    assert read(*_requeuing("Eviction")).config.pods_ready_eviction
    assert not read(*_requeuing("Creation")).config.pods_ready_eviction


@pytest.mark.parametrize(("config", "preempts"), [((), False), (_requeuing("Creation"), True)])
def test_lower_or_newer_equal_priority_reads_the_same_timestamps(config, preempts):
    """SatisfiesPreemptionPolicy: p, created at 08:00 and evicted by a PodsReady timeout at 12:00, is
    newer than c (created at 11:00) under Eviction, older under Creation."""
    queue = cluster_queue("cq", {"default-flavor": {"cpu": "6"}}, preemption={"withinClusterQueue":
                                                                              "LowerOrNewerEqualPriority"})
    c = workload("c", "q", {"cpu": "6"}, created="2025-12-31T11:00:00Z", admitted_in="cq",
                 flavors={"cpu": "default-flavor"})
    p = _with(workload("p", "q", {"cpu": "6"}, created="2025-12-31T08:00:00Z"),
              _evicted("PodsReadyTimeout", "2025-12-31T12:00:00Z"))
    done = run(flavor("default-flavor"), queue, local_queue("q", "cq"), *config, c, p)
    assert any(e.reason == "Preempted" and e.object == "default/c" for e in done.events) is preempts
