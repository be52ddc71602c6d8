"""The text's queues: per queue its quota rows and share within 80 columns, the jobs that wait on the
queue with the refusing plugin's words, a best-effort capacity queue said as such."""
from __future__ import annotations

from pathlib import Path

import yaml

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.volcano.capacity_inputs import node, plugin, pod, pod_group, queue, rl, run

TIER = [plugin("capacity", "enabledAllocatable", "enableQueueOrder", "enableJobEnqueued"),
        plugin("predicates", "enablePredicate"), plugin("drf", "enableJobOrder")]


def _queues_text(text: str) -> str:
    return text.split("\nQueues:\n", 1)[1].split("\nEvents:\n", 1)[0]


def test_the_text_says_why_a_job_waits_on_its_queue_within_80_columns(tmp_path: Path) -> None:
    objects = [node("n1", rl("8", "8Gi", pods="10")),
               pod("ns1", "p1", "n1", "Running", rl("1", "1Gi"), "pg1"), pod("ns1", "p2", "", "Pending", rl("3", "1Gi"), "pg2"),
               pod_group("pg1", "ns1", "q1", 1, "Running"), pod_group("pg2", "ns1", "q1", 1, "Pending", rl("3", "1Gi")),
               pod("ns1", "p3", "", "Pending", rl("1", "1Gi"), "pg3"), pod_group("pg3", "ns1", "q2", 1, "Inqueue"),
               queue("q1", rl("1", "1Gi"), rl("2", "4Gi")), queue("q2", None, None)]
    text = run(tmp_path, objects, "enqueue, allocate", TIER, output="text")
    queues = _queues_text(text)
    assert all(len(line) <= 80 for line in queues.splitlines()), queues
    flat = " ".join(queues.split())
    assert ("ns1/pg2 waits on capacity, not on nodes: queue resource quota insufficient: insufficient cpu"
            in flat)
    assert "q1 (Open, weight 1) [capacity]" in flat
    assert "capability cpu 2, memory 4Gi" in flat and "deserved cpu 1, memory 1Gi" in flat
    assert "share 1.00 (no deserved: best effort, after the queues below theirs)" in flat   # q2
    assert "drf share ns1/pg1 0.12" in flat


def test_the_json_carries_the_queue_quota_and_the_waiting_jobs(tmp_path: Path) -> None:
    objects = [node("n1", rl("8", "8Gi", pods="10")), pod("ns1", "p2", "", "Pending", rl("1", "1Gi"), "pg2"),
               pod_group("pg2", "ns1", "q1", 1, "Pending", rl("1", "1Gi")),
               queue("q1", None, rl("2", "4Gi"), state="Closed")]
    doc = run(tmp_path, objects, "enqueue, allocate", TIER)
    q1 = {q["name"]: q for q in doc["queues"]}["q1"]
    assert q1["plugin"] == "capacity" and q1["capability"] == {"cpu": "2", "memory": "4Gi"}
    assert q1["waiting"] == [{"podGroup": "ns1/pg2", "plugin": "capacity",
                              "reason": "queue q1 is Closed: capacity enqueues no job of a queue that is not Open"}]


def test_a_pod_of_a_job_waiting_on_its_queue_says_so_in_text_and_page(tmp_path: Path) -> None:
    """`kexplain POD`: the pod's queue line is followed by why its job waits on the queue (proportion's
    enqueue refusal, the default configuration), the same in the text and the page."""
    cluster, target = tmp_path / "cluster.yaml", tmp_path / "pod.yaml"
    cluster.write_text(yaml.safe_dump_all([node("n1", rl("4", "8Gi", pods="10")),
                                           pod_group("pg", "ns1", "q1", 1, "Pending", rl("2", "1Gi")),
                                           queue("q1", None, rl("1", "8Gi"))]))
    target.write_text(yaml.safe_dump(pod("ns1", "p", "", "Pending", rl("2", "1Gi"), "pg")))
    said = "waits on proportion, not on nodes: queue resource quota insufficient: insufficient cpu"
    env = TestEnvironment()
    assert main([str(target), "--nodes", str(cluster)], env) == 1
    assert said in env.out
    env = TestEnvironment()
    assert main([str(target), "--nodes", str(cluster), "--html", str(tmp_path / "page.html")], env) == 1
    page = (tmp_path / "page.html").read_text()
    assert "Waits on proportion, not on nodes: " in page and "queue resource quota insufficient: insufficient cpu" in page


def test_a_task_proportion_does_not_allocate_waits_on_the_queue_deserved(tmp_path: Path) -> None:
    """proportion splits 4 cpus between two queues of weight 1: qa, running 1 cpu, deserves 2, so its
    2-cpu job waits on the queue (allocatable), named with the resource short."""
    tier = [plugin("proportion", "enabledAllocatable", "enableQueueOrder", "enableJobEnqueued", "enabledOverused"),
            plugin("predicates", "enablePredicate")]
    objects = [node("n1", rl("4", "8Gi", pods="10")),
               pod("ns1", "run", "n1", "Running", rl("1", "1Gi"), "pg-run"), pod_group("pg-run", "ns1", "qa", 1, "Running"),
               pod("ns1", "big", "", "Pending", rl("2", "1Gi"), "pg-big"), pod_group("pg-big", "ns1", "qa", 1, "Inqueue"),
               pod("ns1", "other", "", "Pending", rl("2", "1Gi"), "pg-other"),
               pod_group("pg-other", "ns1", "qb", 1, "Inqueue"), queue("qa", None, None), queue("qb", None, None)]
    doc = run(tmp_path, objects, "allocate", tier)
    qa = {q["name"]: q for q in doc["queues"]}["qa"]
    assert qa["plugin"] == "proportion" and qa["deserved"]["cpu"] == "2"
    assert qa["waiting"] == [{"podGroup": "ns1/pg-big", "plugin": "proportion",
                              "reason": "task big does not fit in queue qa's deserved (allocatable): insufficient cpu"}]


def test_an_overused_queue_names_the_configured_actions_that_skip_it(tmp_path: Path) -> None:
    """ssn.Overused is asked by allocate, reclaim and gangreclaim: the waiting job's reason names those the
    configuration runs (q1's 4 CPUs and 1 pod reach its deserved; q2's bigger request keeps the split even)."""
    objects = [node("n1", rl("8", pods="2")),
               pod("ns1", "r1", "n1", "Running", rl("4"), "pg1"), pod_group("pg1", "ns1", "q1", 1, "Running"),
               pod("ns1", "w1", "", "Pending", rl("1"), "pg2"), pod_group("pg2", "ns1", "q1", 1, "Inqueue"),
               pod("ns1", "w2", "", "Pending", rl("6"), "pg3"), pod_group("pg3", "ns1", "q2", 1, "Inqueue"),
               queue("q1", None, None), queue("q2", None, None)]
    tier = [plugin("proportion", "enabledOverused", "enableQueueOrder", "enableJobEnqueued"),
            plugin("predicates", "enablePredicate")]

    def reason(actions: str) -> str:
        doc = run(tmp_path, objects, actions, tier)
        q1 = next(q for q in doc["queues"] if q["name"] == "q1")
        return next(w["reason"] for w in q1["waiting"] if w["podGroup"] == "ns1/pg2")

    head = "queue q1 is overused: its allocated reached its deserved, "
    assert reason("enqueue, allocate") == head + "allocate skips it"
    assert reason("enqueue, allocate, reclaim, gangreclaim") == head + "allocate, reclaim and gangreclaim skip it"
