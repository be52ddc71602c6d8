"""The capacity plugin with hierarchical queues on Volcano's own unit test
(plugins/capacity/capacity_test.go, Test_capacityPlugin_OnSessionOpenWithHierarchy): the same queue
trees, PodGroups and pods, actions enqueue, reclaim, allocate, the same binds, pipelines, evictions and
PodGroup phases."""
from __future__ import annotations

from pathlib import Path

from tests.volcano.capacity_inputs import (PREEMPTABLE, binds, evicted, node, pipelined, plugin, pod, pod_group,
                                           queue, rl, run)

TIER = [plugin("capacity", "enabledAllocatable", "enablePreemptive", "enableReclaimable", "enableQueueOrder",
               "enableJobEnqueued", hierarchy=True),
        plugin("predicates", "enablePredicate"), plugin("gang", "enableJobStarving")]
N1 = node("n1", rl("8", "8Gi", pods="11"))
N2 = node("n2", rl("8", "8Gi", nvidia__com_gpu="8", pods="10", **{"hugepages-1Gi": "0"}))
ROOT = queue("root", None, None)
TREE1 = [ROOT, queue("q1", None, rl("4", "4Gi"), "root"), queue("q2", None, rl("4", "4Gi"), "root"),
         queue("q11", None, rl("1", "1Gi"), "q1"), queue("q12", None, rl("3", "3Gi"), "q1")]
Q3 = queue("q3", rl("4", "4Gi", pods="10"), rl("4", "4Gi", pods="10"), "root")
Q4 = queue("q4", rl("2", "2Gi", pods="1"), rl("4", "4Gi", pods="4"), "root")
Q31 = queue("q31", rl("2", "2Gi", pods="2"), rl("4", "4Gi", pods="4"), "q3")
Q32 = queue("q32", rl("2", "2Gi", pods="2"), rl("4", "4Gi", pods="4"), "q3")
Q33 = queue("q33", rl("0", "0Gi", pods="2"), rl("4", "4Gi", pods="4"), "q3")
P6 = pod("ns1", "p6", "n1", "Running", rl("2", "2Gi"), "pg5", {PREEMPTABLE: "false"})


def session(tmp: Path, objects: list) -> dict:
    return run(tmp, objects, "enqueue, reclaim, allocate", TIER)


def phases(doc: dict) -> dict[str, str]:
    return {p["name"]: p["phase"] for p in doc["podGroups"]}


def test_case0_a_leaf_queue_allocates(tmp_path: Path) -> None:
    doc = session(tmp_path, [N1, pod("ns1", "p1", "", "Pending", rl("1", "1Gi"), "pg1"),
                             pod_group("pg1", "ns1", "q11", 1, "Inqueue"), *TREE1])
    assert binds(doc) == {"ns1/p1": "n1"}


def test_case1_a_queue_with_children_does_not(tmp_path: Path) -> None:
    doc = session(tmp_path, [N1, pod("ns1", "p2", "", "Pending", rl("1", "1Gi"), "pg2"),
                             pod_group("pg2", "ns1", "q1", 1, "Pending"), *TREE1])
    assert binds(doc) == {}
    assert phases(doc)["ns1/pg2"] == "Inqueue"          # (no minResources: enqueue asks no plugin)
    [waiting] = {q["name"]: q for q in doc["queues"]}["q1"]["waiting"]
    assert waiting["reason"] == ("capacity cannot use the queue hierarchy: "
                                 "The Queue <q1> of Job <ns1/pg2> is not leaf queue")
    assert "realCapability" not in {q["name"]: q for q in doc["queues"]}["q11"]      # (never computed)


def test_case2_allocatable_within_capability(tmp_path: Path) -> None:
    doc = session(tmp_path, [N1, pod("ns1", "p3", "", "Pending", rl("2", "2Gi"), "pg3"),
                             pod("ns1", "p4", "", "Pending", rl("2", "2Gi"), "pg3"),
                             pod_group("pg3", "ns1", "q31", 2, "Inqueue"), ROOT, Q3, Q4, Q31, Q32])
    assert binds(doc) == {"ns1/p3": "n1", "ns1/p4": "n1"}


def test_case3_reclaims_from_a_sibling_over_its_deserved(tmp_path: Path) -> None:
    doc = session(tmp_path, [N1, pod("ns1", "p5", "n1", "Running", rl("4", "4Gi"), "pg4"), P6,
                             pod("ns1", "p7", "n1", "Running", rl("2", "2Gi"), "pg5"),
                             pod("ns1", "p8", "", "Pending", rl("2", "2Gi"), "pg6"),
                             pod_group("pg4", "ns1", "q4", 1, "Running"), pod_group("pg5", "ns1", "q31", 1, "Running"),
                             pod_group("pg6", "ns1", "q32", 1, "Inqueue"), ROOT, Q3, Q31, Q32, Q4])
    assert pipelined(doc) == {"ns1/p8": "n1"}
    assert evicted(doc) == ["ns1/p7"]


def test_case4_not_allocatable_when_an_ancestor_is_full(tmp_path: Path) -> None:
    doc = session(tmp_path, [N1, P6, pod("ns1", "p9", "n1", "Running", rl("2", "2Gi"), "pg7"),
                             pod("ns1", "p10", "", "Pending", rl("3", "3Gi"), "pg8"),
                             pod_group("pg5", "ns1", "q31", 1, "Running"), pod_group("pg7", "ns1", "q32", 1, "Running"),
                             pod_group("pg8", "ns1", "q33", 1, "Inqueue"), ROOT, Q3, Q31, Q32, Q33])
    assert binds(doc) == {}
    waiting = {q["name"]: q for q in doc["queues"]}["q33"]["waiting"]
    assert [(w["podGroup"], w["plugin"]) for w in waiting] == [("ns1/pg8", "capacity")]


def test_case5_capability_inherited_from_the_parent(tmp_path: Path) -> None:
    doc = session(tmp_path, [N1, pod("ns1", "p11", "", "Pending", rl("1", ""), "pg9"),
                             pod_group("pg9", "ns1", "q51", 1, "Running"), ROOT,
                             queue("q5", None, rl("", "4Gi"), "root"), queue("q51", None, rl("", "2Gi"), "q5")])
    assert binds(doc) == {"ns1/p11": "n1"}
    q51 = {q["name"]: q for q in doc["queues"]}["q51"]
    assert q51["parent"] == "q5" and q51["capability"]["memory"] == "2Gi"


def test_case6_not_enqueued_when_an_ancestor_capability_is_short(tmp_path: Path) -> None:
    doc = session(tmp_path, [N1, pod_group("pg10", "ns1", "q61", 1, "Pending", rl("2", "4Gi")),
                             pod_group("pg11", "ns1", "q62", 1, "Pending", rl("2", "4Gi")), ROOT,
                             queue("q6", None, rl("2", "4Gi"), "root"), queue("q61", None, None, "q6"),
                             queue("q62", None, None, "q6")])
    assert phases(doc) == {"ns1/pg10": "Inqueue", "ns1/pg11": "Pending"}
    waiting = {q["name"]: q for q in doc["queues"]}["q62"]["waiting"]
    assert waiting[0]["reason"] == "queue resource quota insufficient: insufficient cpu, insufficient memory"


def test_case7_and_case10_odd_trees_open_without_error(tmp_path: Path) -> None:
    g = {"cpu": "4", "memory": "3Gi"}
    doc = session(tmp_path, [N1, ROOT, queue("q7", None, rl("6", "4Gi"), "root"),
                             queue("q71", None, rl("6", "4Gi"), "q7", guarantee=g),
                             queue("q72", None, rl("6", "4Gi"), "q7", guarantee=g)])
    assert {q["name"] for q in doc["queues"]} >= {"q7", "q71", "q72"}
    doc = session(tmp_path, [N1, queue("root", None, rl("16", "16Gi")), queue("q10", None, rl("10", "4Gi"), "root")])
    assert {q["name"]: q for q in doc["queues"]}["root"]["capability"]["cpu"] == "16"


def test_case8_a_scalar_in_deserved_passes(tmp_path: Path) -> None:
    gpu_node = node("n-gpu", rl("8", "8Gi", nvidia__com_gpu="8", pods="10"))
    doc = session(tmp_path, [gpu_node, pod("ns1", "p12", "", "Pending", rl("2", "2Gi", nvidia__com_gpu="1"), "pg12"),
                             pod_group("pg12", "ns1", "q81", 1, "Inqueue"), ROOT,
                             queue("q8", rl("4", "4Gi", nvidia__com_gpu="8"), None, "root"),
                             queue("q81", rl("2", "2Gi", nvidia__com_gpu="4"), None, "q8"),
                             queue("q82", rl("2", "2Gi", nvidia__com_gpu="4"), None, "q8")])
    assert binds(doc) == {"ns1/p12": "n-gpu"}


def test_case9_a_zero_scalar_in_deserved_passes(tmp_path: Path) -> None:
    huge = {"hugepages-1Gi": "0"}
    doc = session(tmp_path, [N2, pod("ns1", "p13", "", "Pending", rl("2", "2Gi", nvidia__com_gpu="1"), "pg13"),
                             pod_group("pg13", "ns1", "q91", 1, "Inqueue"), ROOT,
                             queue("q9", rl("2", "2Gi", nvidia__com_gpu="8", **huge), None, "root"),
                             queue("q91", rl("2", "2Gi", nvidia__com_gpu="4", **huge), None, "q9")])
    assert binds(doc) == {"ns1/p13": "n2"}


def test_case11_scalar_capability_inherited_from_the_parent(tmp_path: Path) -> None:
    cap = rl("4", "4Gi", nvidia__com_gpu="4")
    req = rl("1", "1Gi", nvidia__com_gpu="4")
    doc = session(tmp_path, [N2, pod("ns1", "p14", "", "Pending", req, "pg14"), pod("ns1", "p15", "", "Pending", req, "pg15"),
                             pod_group("pg14", "ns1", "case11_queue11", 1, "Inqueue"),
                             pod_group("pg15", "ns1", "case11_queue12", 1, "Inqueue"), ROOT,
                             queue("case11_queue1", None, None, "root"),
                             queue("case11_queue11", None, cap, "case11_queue1"),
                             queue("case11_queue12", None, cap, "case11_queue1")])
    assert binds(doc) == {"ns1/p14": "n2", "ns1/p15": "n2"}


def test_case12_reclaims_on_a_single_scalar_dimension(tmp_path: Path) -> None:
    n3 = node("n3", rl("16", "16Gi", nvidia__com_a100="5", rdma_hca="1001", pods="11"))
    req = rl("1", "1Gi", nvidia__com_a100="2", rdma_hca="1")
    a100 = rl(nvidia__com_a100="2")
    doc = session(tmp_path, [n3, pod("ns1", "p16", "", "Pending", req, "pg16"),
                             pod("ns1", "p17", "n3", "Running", req, "pg17"),
                             pod("ns1", "p18", "n3", "Running", req, "pg18", {PREEMPTABLE: "false"}),
                             pod_group("pg16", "ns1", "case12_queue11", 1, "Inqueue"),
                             pod_group("pg17", "ns1", "case12_queue12", 1, "Running"),
                             pod_group("pg18", "ns1", "case12_queue12", 1, "Running"),
                             queue("root", rl("16", "16Gi", nvidia__com_a100="4", rdma="1000"), None),
                             queue("case12_queue1", a100, None, "root"), queue("case12_queue11", a100, None, "case12_queue1"),
                             queue("case12_queue12", None, None, "case12_queue1")])
    assert pipelined(doc) == {"ns1/p16": "n3"}
    assert evicted(doc) == ["ns1/p17"]
