"""capacity_test.go's smaller tests: Test_updateQueueAttrShare (a queue's share; best-effort queues
share 1), Test_buildHierarchicalQueueAttrs_nilSafety (no queue but root, a job of a deleted queue) and
TestNoDoubleCountingForInqueueJobWithBindingTasks (an Inqueue job's bound tasks are not counted twice)."""
from __future__ import annotations

from pathlib import Path

import pytest

from kexplain.volcano.api.resource import Resource
from kexplain.volcano.plugins.capacity import QueueAttr
from tests.volcano.capacity_inputs import binds, node, plugin, pod, pod_group, queue, rl, run


def res(cpu: str = "", memory: str = "") -> Resource:
    return Resource.of(rl(cpu, memory))


@pytest.mark.parametrize("deserved,allocated,requested,share", [
    (Resource(), res("1", "1Gi"), Resource(), 1.0),
    (Resource(), Resource(), res("1", "1Gi"), 1.0),
    (Resource(), res("1", "1Gi"), res("0.5", "0.5Gi"), 1.0),
    (Resource(), Resource(), Resource(), 1.0),
    (res("2", "2Gi"), Resource(), Resource(), 0.0),
    (res("2", "2Gi"), res("1", "1Gi"), Resource(), 0.5),
    (res("2", "2Gi"), res("2", "2Gi"), Resource(), 1.0),
    (res("2", "2Gi"), res("3", "2Gi"), Resource(), 1.5),
    (res("2", "4Gi"), res("1", "3Gi"), Resource(), 0.75),
    (res("2", "4Gi"), res("1.5", "2Gi"), Resource(), 0.75),
    (res("2", "2Gi"), res("3", "3Gi"), Resource(), 1.5),
    (res("2", "2Gi"), res("1", "1Gi"), res("1", "1Gi"), 0.5),
    (res("0", "0Gi"), res("1", "1Gi"), Resource(), 1.0),
    (res("2", "2Gi"), res("0", "0Gi"), Resource(), 0.0),
    (Resource(), res("1", "0Gi"), Resource(), 1.0),
    (Resource(), res("0", "1Gi"), Resource(), 1.0),
    (Resource(), Resource(), res("1", "0Gi"), 1.0),
])
def test_update_queue_attr_share(deserved: Resource, allocated: Resource, requested: Resource, share: float) -> None:
    attr = QueueAttr("test-queue", deserved=deserved, allocated=allocated, request=requested)
    attr.update_share()
    assert attr.share == share


NIL_SAFETY = [plugin("capacity", "enabledAllocatable", "enableReclaimable", "enableQueueOrder", "enableJobEnqueued",
                     hierarchy=True),
              plugin("predicates", "enablePredicate"), plugin("gang", "enableJobStarving")]


def test_no_queue_but_the_ones_the_cache_makes(tmp_path: Path) -> None:
    doc = run(tmp_path, [node("n1", rl("4", "4Gi", pods="10"))], "allocate", NIL_SAFETY)
    assert binds(doc) == {} and {q["name"] for q in doc["queues"]} == {"default", "root"}


def test_a_job_of_a_deleted_queue(tmp_path: Path) -> None:
    doc = run(tmp_path, [node("n1", rl("4", "4Gi", pods="10")), queue("root", None, None),
                         pod("ns1", "orphan", "", "Pending", rl("1", "1Gi"), "pg-orphan"),
                         pod_group("pg-orphan", "ns1", "deleted-queue", 1, "Inqueue")], "allocate", NIL_SAFETY)
    assert binds(doc) == {}
    assert doc["skippedJobs"] == [{"podGroup": "ns1/pg-orphan", "reason": "queue deleted-queue does not exist"}]


def test_an_inqueue_jobs_bound_tasks_are_not_counted_twice(tmp_path: Path) -> None:
    """Cycle 2 of the Go test: pgA's three tasks bound (Pending on n1) while pgA stays Inqueue; pgB's
    1 cpu fits the queue's 4: 1 + 3 allocated + 0 inqueue (3 less the 3 it holds). (Pod names in lower
    case: the API server refuses Go's `pA1`.)"""
    tier = [plugin("capacity", "enabledAllocatable", "enabledOverused", "enableJobEnqueued")]
    objects = [node("n1", rl("4", "8Gi", pods="10")), queue("q1", None, rl("4", "8Gi")),
               pod_group("pgA", "ns1", "q1", 3, "Inqueue", rl("3", "3Gi")),
               *(pod("ns1", f"pa{i}", "n1", "Pending", rl("1", "1Gi"), "pgA") for i in (1, 2, 3)),
               pod_group("pgB", "ns1", "q1", 1, "Pending", rl("1", "1Gi")),
               pod("ns1", "pb1", "", "Pending", rl("1", "1Gi"), "pgB")]
    doc = run(tmp_path, objects, "enqueue, allocate", tier)
    assert binds(doc) == {"ns1/pb1": "n1"}
