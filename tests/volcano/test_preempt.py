"""The preempt action on Volcano's own unit-test case "preempt low priority job in same queue"
(actions/preempt/preempt_test.go): the queue's capability (4 cpu) leaves the high-priority job no room
until the low-priority job's running task is evicted; the preemptor is pipelined to n1 with its
nominated node, the victim's job gets the Evict event."""
from __future__ import annotations

import json

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import TESTS

HAND = TESTS / "volcano" / "hand"


def test_preempt_low_priority_job_in_same_queue() -> None:
    env = TestEnvironment()
    main(["volcano", "--nodes", str(HAND / "preempt-low-priority.yaml"), "--scheduler-conf",
          str(HAND / "preempt-conf.yaml"), "-o", "json"], env)
    doc = json.loads(env.out)
    pods = {p["name"]: p for p in doc["pods"]}
    assert pods["c1/preemptee1"].get("evicted") is True
    assert pods["c1/preemptor1"]["nominatedNodeName"] == "n1"
    assert pods["c1/preemptor1"]["podScheduled"]["message"] == (
        "Pod c1/preemptor1 can possibly be assigned to n1, once resource is released and minAvailable is satisfied")
    events = {(e["object"], e["reason"], e["message"]) for e in doc["events"]}
    assert {("Pod c1/preemptee1", "Evict", "Pod is evicted, because of preempt"),
            ("PodGroup c1/pg1", "Evict", "preempt")} <= events
    assert "notes" not in doc


def test_reclaim_from_a_queue_over_its_deserved() -> None:
    """reclaim_test.go "Two Queue with one Queue overusing resource, should reclaim": q1 holds the whole
    node (3 cpu) for a deserved of 1.5; of its three running tasks only preemptee2 is preemptable."""
    env = TestEnvironment()
    main(["volcano", "--nodes", str(HAND / "reclaim-overusing-queue.yaml"), "--scheduler-conf",
          str(HAND / "reclaim-conf.yaml"), "-o", "json"], env)
    doc = json.loads(env.out)
    assert [p["name"] for p in doc["pods"] if p.get("evicted")] == ["c1/preemptee2"]
    assert {p["name"]: p for p in doc["pods"]}["c1/preemptor1"]["nominatedNodeName"] == "n1"
    assert ("PodGroup c1/pg1", "Evict", "reclaim") in {(e["object"], e["reason"], e["message"]) for e in doc["events"]}
