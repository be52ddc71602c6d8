"""The capacity plugin on Volcano's own unit tests (plugins/capacity/capacity_test.go,
Test_capacityPlugin_OnSessionOpenWithoutHierarchy and TestEnqueueAndAllocatable): the same nodes, pods,
PodGroups and queues, the same tiers and actions, the same binds, pipelines and evictions."""
from __future__ import annotations

from pathlib import Path

from tests.volcano.capacity_inputs import (PREEMPTABLE, binds, evicted, node, pipelined, plugin, pod, pod_group,
                                           queue, rl, run)

# the tier of Test_capacityPlugin_OnSessionOpenWithoutHierarchy
FLAT = [plugin("capacity", "enabledAllocatable", "enablePreemptive", "enableReclaimable", "enableQueueOrder"),
        plugin("predicates", "enablePredicate"), plugin("gang", "enableJobStarving")]
N1 = node("n1", rl("2", "4Gi", pods="10"), {"selector": "worker"})
N2 = node("n2", rl("2", "4Gi", pods="10"))
NO = {PREEMPTABLE: "false"}


def flat(tmp: Path, objects: list) -> dict:
    return run(tmp, objects, "allocate, reclaim", FLAT)


def test_case0_pod_allocatable_when_queue_has_not_exceeded_capability(tmp_path: Path) -> None:
    doc = flat(tmp_path, [N1, N2, pod("ns1", "p1", "n1", "Running", rl("1", "1Gi"), "pg1"),
                          pod("ns1", "p2", "", "Pending", rl("1", "1Gi"), "pg2", selector={"selector": "worker"}),
                          pod_group("pg1", "ns1", "q1", 1, "Running"), pod_group("pg2", "ns1", "q1", 1, "Inqueue"),
                          queue("q1", None, rl("2", "2Gi"))])
    assert binds(doc) == {"ns1/p2": "n1"}


def test_case1_pod_not_allocatable_when_queue_exceeds_capability(tmp_path: Path) -> None:
    doc = flat(tmp_path, [N1, N2, pod("ns1", "p3", "n1", "Running", rl("1", "1Gi"), "pg3"),
                          pod("ns1", "p4", "", "Pending", rl("1", "1Gi"), "pg4"),
                          pod_group("pg3", "ns1", "q2", 1, "Running"), pod_group("pg4", "ns1", "q2", 1, "Inqueue"),
                          queue("q2", None, rl("1.5", "1.5Gi"))])
    assert binds(doc) == {}
    waiting = {q["name"]: q for q in doc["queues"]}["q2"]["waiting"]
    assert waiting == [{"podGroup": "ns1/pg4", "plugin": "capacity",
                        "reason": "task p4 does not fit in queue q2's real capability (allocatable): "
                                  "insufficient cpu, insufficient memory"}]


def test_case2_reclaims_from_another_queue_when_allocated_below_deserved(tmp_path: Path) -> None:
    doc = flat(tmp_path, [N1, N2, pod("ns1", "p5", "n1", "Running", rl("2", "4Gi"), "pg5", NO),
                          pod("ns1", "p6", "n2", "Running", rl("2", "4Gi"), "pg5"),
                          pod("ns1", "p7", "", "Pending", rl("2", "4Gi"), "pg6"),
                          pod_group("pg5", "ns1", "q3", 1, "Running"), pod_group("pg6", "ns1", "q4", 1, "Inqueue"),
                          queue("q3", rl("2", "4Gi"), None), queue("q4", rl("2", "4Gi"), None)])
    assert pipelined(doc) == {"ns1/p7": "n2"}
    assert evicted(doc) == ["ns1/p6"]


def test_case3_reclaims_on_the_scalar_the_reclaimer_asks_for(tmp_path: Path) -> None:
    a100 = {"nvidia.com/A100": "10"}
    n3 = node("n3", rl("2", "4Gi", pods="10", **{"nvidia__com_A100": "10"}), {"selector": "worker"})
    n4 = node("n4", rl("2", "4Gi", pods="10", **{"nvidia__com_A100": "10"}))
    gpu = dict(rl("0", "0Gi"), **a100)
    doc = flat(tmp_path, [n3, n4, pod("ns1", "p8", "n3", "Running", gpu, "pg7", NO),
                          pod("ns1", "p9", "n4", "Running", gpu, "pg7"),
                          pod("ns1", "p10", "n3", "Running", rl("2", "4Gi"), "pg8"),
                          pod("ns1", "p11", "n4", "Running", rl("2", "4Gi"), "pg8"),
                          pod("ns1", "p12", "", "Pending", gpu, "pg9"),
                          pod_group("pg7", "ns1", "q5", 1, "Running"), pod_group("pg8", "ns1", "q6", 1, "Running"),
                          pod_group("pg9", "ns1", "q6", 1, "Inqueue"),
                          queue("q5", dict(rl("2", "4Gi"), **a100), None), queue("q6", dict(rl("2", "4Gi"), **a100), None)])
    assert pipelined(doc) == {"ns1/p12": "n4"}
    assert evicted(doc) == ["ns1/p9"]


def test_case4_pods_assigned_by_queue_priority(tmp_path: Path) -> None:
    n5, n6 = node("n5", rl("2", "4Gi", pods="10")), node("n6", rl("2", "4Gi", pods="10"))
    doc = flat(tmp_path, [n5, n6, pod("ns1", "p13", "n5", "Running", rl("2", "4Gi"), "pg10"),
                          pod("ns1", "p14", "", "Pending", rl("2", "4Gi"), "pg11"),
                          pod("ns1", "p15", "", "Pending", rl("2", "4Gi"), "pg12"),
                          pod_group("pg10", "ns1", "q7", 1, "Running"), pod_group("pg11", "ns1", "q8", 1, "Inqueue"),
                          pod_group("pg12", "ns1", "q9", 1, "Inqueue"),
                          queue("q7", None, rl("2", "4Gi"), priority=5), queue("q8", None, rl("2", "4Gi"), priority=1),
                          queue("q9", None, rl("2", "4Gi"), priority=10)])
    assert binds(doc) == {"ns1/p15": "n6"}


def test_case5_reclaims_when_within_deserved_on_one_dimension(tmp_path: Path) -> None:
    doc = flat(tmp_path, [N1, pod("ns1", "p16", "n1", "Running", rl("1", "3Gi"), "pg16"),
                          pod("ns1", "p17", "", "Pending", rl("1", "1Gi"), "pg17"),
                          pod("ns1", "p18", "n1", "Running", rl("1", "1Gi"), "pg18"),
                          pod_group("pg16", "ns1", "q10", 1, "Running"), pod_group("pg17", "ns1", "q10", 1, "Inqueue"),
                          pod_group("pg18", "ns1", "q11", 1, "Running"),
                          queue("q10", rl("2", "2Gi"), rl("4", "4Gi")), queue("q11", rl("0", "0Gi"), rl("2", "2Gi"))])
    assert pipelined(doc) == {"ns1/p17": "n1"}
    assert evicted(doc) == ["ns1/p18"]


def test_case6_no_reclaim_when_allocated_and_request_exceed_deserved(tmp_path: Path) -> None:
    doc = flat(tmp_path, [N1, pod("ns1", "p19", "n1", "Running", rl("1", "1Gi"), "pg19"),
                          pod("ns1", "p20", "", "Pending", rl("1", "2Gi"), "pg20"),
                          pod("ns1", "p21", "n1", "Running", rl("1", "1Gi"), "pg21"),
                          pod_group("pg19", "ns1", "q12", 1, "Running"), pod_group("pg20", "ns1", "q12", 1, "Inqueue"),
                          pod_group("pg21", "ns1", "q13", 1, "Running"),
                          queue("q12", rl("1", "2Gi"), rl("4", "4Gi")), queue("q13", rl("0", "0Gi"), rl("2", "2Gi"))])
    assert pipelined(doc) == {} and evicted(doc) == []


def test_case7_no_reclaim_of_a_queue_without_the_deserved_scalar(tmp_path: Path) -> None:
    n7 = node("n7", rl("4", "8Gi", nvidia__com_gpu="4", pods="10"))
    gpu = rl("2", "4Gi", nvidia__com_gpu="2")
    doc = flat(tmp_path, [n7, pod("ns1", "p22", "n7", "Running", rl("2", "4Gi"), "pg22"),
                          pod("ns1", "p23", "n7", "Running", rl("0", "0Gi", nvidia__com_gpu="1"), "pg23"),
                          pod("ns1", "p24", "n7", "Running", rl("2", "1Gi", nvidia__com_gpu="1"), "pg24"),
                          pod("ns1", "p25", "", "Pending", rl("2", "3Gi", nvidia__com_gpu="1"), "pg25"),
                          pod_group("pg22", "ns1", "queue14", 1, "Running"),
                          pod_group("pg23", "ns1", "queue15", 1, "Running"),
                          pod_group("pg24", "ns1", "queue16", 1, "Running"),
                          pod_group("pg25", "ns1", "queue16", 1, "Inqueue"),
                          queue("queue14", gpu, None), queue("queue15", None, None), queue("queue16", gpu, None)])
    assert pipelined(doc) == {} and evicted(doc) == []


def test_case8_evicts_on_the_reclaimer_dimensions_only(tmp_path: Path) -> None:
    n8 = node("n8", rl("4", "8Gi", nvidia__com_gpu="1", pods="10"))
    doc = flat(tmp_path, [n8, pod("ns1", "p26", "n8", "Running", rl("0", "4Gi"), "pg26"),
                          pod("ns1", "p27", "n8", "Running", rl("1", "0Gi"), "pg27"),
                          pod("ns1", "p28", "n8", "Running", rl("0", "0Gi", nvidia__com_gpu="1"), "pg28"),
                          pod("ns1", "p29", "n8", "Running", rl("2", "4Gi"), "pg29"),
                          pod("ns1", "p30", "", "Pending", rl("1", "0Gi", nvidia__com_gpu="1"), "pg30"),
                          *(pod_group(f"pg{i}", "ns1", "queue17", 1, "Running") for i in (26, 27, 28)),
                          pod_group("pg29", "ns1", "queue18", 1, "Running"),
                          pod_group("pg30", "ns1", "queue18", 1, "Inqueue"),
                          queue("queue17", rl("2", "2Gi"), None), queue("queue18", rl("2", "4Gi", nvidia__com_gpu="1"), None)])
    assert pipelined(doc) == {"ns1/p30": "n8"}
    assert evicted(doc) == ["ns1/p28"]


def test_case9_no_reclaim_on_cpu_of_a_scalar_only_queue(tmp_path: Path) -> None:
    n8 = node("n8", rl("4", "8Gi", nvidia__com_gpu="1", pods="10"))
    doc = flat(tmp_path, [n8, pod("ns1", "p31", "n8", "Running", rl("4", "4Gi", nvidia__com_gpu="1"), "pg31"),
                          pod("ns1", "p32", "", "Pending", rl("1", "1Gi"), "pg32"),
                          pod_group("pg31", "ns1", "queue19", 1, "Running"),
                          pod_group("pg32", "ns1", "queue20", 1, "Inqueue"),
                          queue("queue19", rl(nvidia__com_gpu="1"), None), queue("queue20", rl("2", "2Gi"), None)])
    assert pipelined(doc) == {} and evicted(doc) == []


def test_case10_no_reclaim_beyond_capability(tmp_path: Path) -> None:
    n9, n10 = node("n9", rl("8", "100Gi", pods="10")), node("n10", rl("8", "100Gi", pods="10"))
    doc = flat(tmp_path, [n9, n10, pod("ns1", "p33", "n9", "Running", rl("7", "90Gi"), "pg33"),
                          pod("ns1", "p34", "", "Pending", rl("2", "5Gi"), "pg34"),
                          pod("ns1", "p35", "n10", "Running", rl("2", "5Gi"), "pg35"),
                          pod_group("pg33", "ns1", "queue21", 1, "Running"),
                          pod_group("pg34", "ns1", "queue21", 1, "Inqueue"),
                          pod_group("pg35", "ns1", "queue22", 1, "Running"),
                          queue("queue21", rl("8", "100Gi"), rl("8", "100Gi")), queue("queue22", None, rl("2", "5Gi"))])
    assert pipelined(doc) == {} and evicted(doc) == []


# TestEnqueueAndAllocatable
ENQUEUE = [plugin("capacity", "enabledAllocatable", "enablePreemptive", "enabledOverused", "enableJobEnqueued")]
E1, E2 = node("n1", rl("3", "3G", pods="10")), node("n2", rl("3", "3G", pods="10"))
RES = {"1c3g": rl("1", "3G"), "3c1g": rl("3", "1G"), "1c0g": rl("1", "0G"), "0c1g": rl("0", "1G"), "1c1g": rl("1", "1G")}
RUNNING = [pod("ns1", "pod1", "n1", "Running", RES["1c3g"], "pg1"), pod("ns1", "pod2", "n2", "Running", RES["3c1g"], "pg2"),
           pod_group("pg1", "ns1", "q1", 1, "Running", RES["1c3g"]), pod_group("pg2", "ns1", "q2", 1, "Running", RES["3c1g"])]
Q12 = [queue("q1", rl("2", "2G"), rl("2", "2G")), queue("q2", rl("2", "2G"), rl("3", "3G"))]


def enqueue(tmp: Path, name: str, group: str, q: str, res: str, extra: list) -> dict:
    return run(tmp, [E1, E2, pod("ns1", name, "", "Pending", RES[res], group),
                     pod_group(group, "ns1", q, 1, "Pending", RES[res]), *extra], "enqueue, allocate", ENQUEUE)


def test_enqueue_case0_memory_over_deserved_a_cpu_only_job_is_enqueued(tmp_path: Path) -> None:
    assert binds(enqueue(tmp_path, "pod3", "pg3", "q1", "1c0g", RUNNING + Q12)) == {"ns1/pod3": "n1"}


def test_enqueue_case1_cpu_over_deserved_a_memory_only_job_is_enqueued(tmp_path: Path) -> None:
    assert binds(enqueue(tmp_path, "pod4", "pg4", "q2", "0c1g", RUNNING + Q12)) == {"ns1/pod4": "n2"}


def test_enqueue_case2_over_capability_is_not_enqueued(tmp_path: Path) -> None:
    doc = enqueue(tmp_path, "pod5", "pg5", "q1", "1c1g", RUNNING + Q12)
    assert binds(doc) == {}
    assert {p["name"]: p["phase"] for p in doc["podGroups"]}["ns1/pg5"] == "Pending"
    assert ("PodGroup ns1/pg5", "Normal", "Unschedulable", "queue resource quota insufficient: insufficient memory") in {
        (e["object"], e["type"], e["reason"], e["message"]) for e in doc["events"]}


def test_enqueue_case4_a_closed_queue_enqueues_nothing(tmp_path: Path) -> None:
    doc = enqueue(tmp_path, "pod6", "pg6", "q3", "1c1g", [queue("q3", None, rl("3", "3G"), state="Closed")])
    assert binds(doc) == {}
    assert {p["name"]: p["phase"] for p in doc["podGroups"]}["ns1/pg6"] == "Pending"
