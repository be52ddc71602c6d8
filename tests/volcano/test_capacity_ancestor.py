"""The capacity plugin's `ancestorReclaimLevel` on Volcano's own unit test
(plugins/capacity/capacity_test.go, Test_capacityPlugin_AncestorReclaimScenarios, the cases without
pod priorities): a reclaim checked, besides the victim's leaf queue, against its ancestors up to the
level, and refused between queues sharing an ancestor when neither leaf has a deserved."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.volcano.capacity_inputs import PREEMPTABLE, evicted, node, pipelined, plugin, pod, pod_group, queue, rl, run


def tier(level: int, priority: bool) -> list:
    out = [plugin("capacity", "enabledAllocatable", "enablePreemptive", "enableReclaimable", "enableQueueOrder",
                  "enableJobEnqueued", hierarchy=True, ancestorReclaimLevel=level),
           plugin("predicates", "enablePredicate"), plugin("gang", "enableJobStarving")]
    return out + ([plugin("priority", "enableJobOrder", "enableTaskOrder")] if priority else [])


def reclaim(tmp: Path, level: int, objects: list, priority: bool = False) -> dict:
    return run(tmp, objects, "enqueue, reclaim, allocate", tier(level, priority))


GPU_ROOT = queue("root", rl("16", "16Gi", nvidia__com_a100="4", rdma="1000"), None)
A100 = {n: rl(nvidia__com_a100=str(n)) for n in (1, 2)}


def test_case1_reclaims_on_the_parent_deserved_at_level_1(tmp_path: Path) -> None:
    n1 = node("n1", rl("16", "16Gi", nvidia__com_a100="4", rdma_hca="1001", pods="11"))
    doc = reclaim(tmp_path, 1, [
        n1, GPU_ROOT, queue("case1_queue1", A100[1], None, "root"), queue("case1_queue11", None, None, "case1_queue1"),
        queue("case1_queue2", None, None, "root"),
        pod_group("pg1", "ns1", "case1_queue2", 1, "Running"), pod_group("pg2", "ns1", "case1_queue11", 1, "Inqueue"),
        pod("ns1", "p1", "n1", "Running", rl("1", "1Gi", nvidia__com_a100="4", rdma_hca="1"), "pg1"),
        pod("ns1", "p2", "", "Pending", rl("1", "1Gi", nvidia__com_a100="1", rdma_hca="1"), "pg2")], priority=True)
    assert pipelined(doc) == {"ns1/p2": "n1"}
    assert evicted(doc) == ["ns1/p1"]


def test_case4_blocked_when_the_victim_child_is_not_over_deserved(tmp_path: Path) -> None:
    n1 = node("n1", rl("8", "8Gi", nvidia__com_a100="1", rdma_hca="1001", pods="11"))
    req = rl("1", "1Gi", nvidia__com_a100="1", rdma_hca="1")
    doc = reclaim(tmp_path, 1, [
        n1, GPU_ROOT, queue("case4_parent1", A100[1], None, "root"),
        queue("case4_child1", A100[1], None, "case4_parent1"), queue("case4_child1_sibling", None, None, "case4_parent1"),
        queue("case4_parent2", A100[1], None, "root"), queue("case4_child2", A100[1], None, "case4_parent2"),
        pod_group("pg1", "ns1", "case4_child1", 1, "Running"), pod_group("pg2", "ns1", "case4_child2", 1, "Pending"),
        pod_group("pg3", "ns1", "case4_child1_sibling", 1, "Running"),
        pod("ns1", "p1", "n1", "Running", req, "pg1"), pod("ns1", "p2", "", "Pending", req, "pg2"),
        pod("ns1", "p3", "n1", "Running", req, "pg3", {PREEMPTABLE: "false"})], priority=True)
    assert pipelined(doc) == {} and evicted(doc) == []


def level_tree() -> list:
    return [queue("root", None, None), queue("grand-a", rl("2", "2Gi"), rl("4", "4Gi"), "root"),
            queue("parent-a", rl("2", "2Gi"), rl("2", "2Gi"), "grand-a"),
            queue("queue-a", rl("2", "2Gi"), rl("2", "2Gi"), "parent-a"),
            queue("grand-b", rl("3", "3Gi"), rl("4", "4Gi"), "root"),
            queue("parent-b", rl("1", "1Gi"), rl("2", "2Gi"), "grand-b"),
            queue("queue-b", rl("1", "1Gi"), rl("2", "2Gi"), "parent-b")]


def victim_and_reclaimer(victim_queue: str, reclaimer_queue: str, victim: dict | None = None,
                         reclaimer: dict | None = None) -> list:
    return [node("n1", rl("2", "2Gi", pods="10")) if victim is None else node("n1", rl("4", "4Gi", pods="10", nvidia__com_a100="2")),
            pod("ns1", "p-victim", "n1", "Running", victim or rl("2", "2Gi"), "pg-victim"),
            pod("ns1", "p-reclaimer", "", "Pending", reclaimer or rl("2", "2Gi"), "pg-reclaimer"),
            pod_group("pg-victim", "ns1", victim_queue, 1, "Running"),
            pod_group("pg-reclaimer", "ns1", reclaimer_queue, 1, "Inqueue")]


@pytest.mark.parametrize("level,reclaimed", [(0, True), (1, True), (2, False)])
def test_case5_to_7_the_level_decides_which_ancestors_are_checked(tmp_path: Path, level: int, reclaimed: bool) -> None:
    doc = reclaim(tmp_path, level, level_tree() + victim_and_reclaimer("queue-b", "queue-a"))
    assert pipelined(doc) == ({"ns1/p-reclaimer": "n1"} if reclaimed else {})
    assert evicted(doc) == (["ns1/p-victim"] if reclaimed else [])


def test_case8_siblings_without_deserved_under_one_parent_do_not_reclaim(tmp_path: Path) -> None:
    tree = [queue("root", None, None), queue("parent", rl("4", "4Gi"), rl("4", "4Gi"), "root"),
            queue("queue-a", None, None, "parent"), queue("queue-b", None, None, "parent")]
    doc = reclaim(tmp_path, 1, tree + victim_and_reclaimer("queue-b", "queue-a"))
    assert pipelined(doc) == {} and evicted(doc) == []


def test_case9_cousins_without_deserved_under_one_grandparent_do_not_reclaim(tmp_path: Path) -> None:
    tree = [queue("root", None, None), queue("grand", rl("2", "2Gi"), rl("2", "2Gi"), "root"),
            queue("parent-a", None, None, "grand"), queue("queue-a", None, None, "parent-a"),
            queue("parent-b", None, None, "grand"), queue("queue-b", None, None, "parent-b")]
    doc = reclaim(tmp_path, 2, tree + victim_and_reclaimer("queue-b", "queue-a"))
    assert pipelined(doc) == {} and evicted(doc) == []


def test_case10_unbalanced_tree_sharing_the_grandparent(tmp_path: Path) -> None:
    tree = [queue("root", None, None), queue("grand", rl("1", "1Gi"), rl("2", "2Gi"), "root"),
            queue("parent-deep", rl("1", "1Gi"), rl("2", "2Gi"), "grand"), queue("queue-deep", None, None, "parent-deep"),
            queue("queue-shallow", None, None, "grand")]
    doc = reclaim(tmp_path, 2, tree + victim_and_reclaimer("queue-deep", "queue-shallow"))
    assert pipelined(doc) == {} and evicted(doc) == []


def test_case11_unbalanced_tree_depth_2_ancestor_not_over_deserved(tmp_path: Path) -> None:
    tree = [queue("root", None, None), queue("shallow-parent", A100[1], None, "root"),
            queue("queue-shallow", A100[1], None, "shallow-parent"), queue("deep-grand", A100[2], None, "root"),
            queue("deep-parent", A100[1], None, "deep-grand"), queue("queue-deep", A100[1], None, "deep-parent")]
    doc = reclaim(tmp_path, 2, tree + victim_and_reclaimer("queue-deep", "queue-shallow",
                                                          rl("1", "1Gi", nvidia__com_a100="2"),
                                                          rl("1", "1Gi", nvidia__com_a100="1")))
    assert pipelined(doc) == {} and evicted(doc) == []


def project_tree() -> list:
    """buildProjectQueueTree: two projects, each a non-preemptable queue with a deserved and a
    preemptable one without."""
    return [GPU_ROOT, queue("project1_root", A100[1], A100[2], "root"),
            queue("project1_non-preemptable", A100[1], A100[1], "project1_root"),
            queue("project1_preemptable", None, None, "project1_root"),
            queue("project2_root", rl(nvidia__com_a100="3"), rl(nvidia__com_a100="4"), "root"),
            queue("project2_non-preemptable", rl(nvidia__com_a100="3"), rl(nvidia__com_a100="3"), "project2_root"),
            queue("project2_preemptable", None, None, "project2_root")]


def classes() -> list:
    """BuildPodWithPriority's priorities as PriorityClasses (the API server sets a pod's priority from one)."""
    return [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": f"p{v}"}, "value": v}
            for v in (1, 2)]


def gpu_pod(name: str, node_name: str, group: str, priority: int = 0) -> dict:
    p = pod("ns1", name, node_name, "Running" if node_name else "Pending",
            rl("1", "1Gi", nvidia__com_a100="1", rdma_hca="1"), group)
    if priority:
        p["spec"]["priorityClassName"] = f"p{priority}"
    return p


N_PROJECT = node("n1", rl("16", "16Gi", nvidia__com_a100="4", rdma_hca="1001", pods="11"))


def test_case2_cross_parent_reclaim_when_the_victim_child_and_parent_are_over_deserved(tmp_path: Path) -> None:
    doc = reclaim(tmp_path, 1, [
        N_PROJECT, *classes(), *project_tree(),
        *(pod_group(f"pg{i}", "ns1", "project2_preemptable", 1, "Running") for i in (1, 2, 3, 4)),
        pod_group("pg5", "ns1", "project1_preemptable", 1, "Pending"),
        gpu_pod("p1", "n1", "pg1", 2), gpu_pod("p2", "n1", "pg2", 2), gpu_pod("p3", "n1", "pg3", 2),
        gpu_pod("p4", "n1", "pg4", 1), gpu_pod("p5", "", "pg5")], priority=True)
    assert pipelined(doc) == {"ns1/p5": "n1"}
    assert evicted(doc) == ["ns1/p4"]


def test_case3_cross_parent_reclaim_can_evict_a_sibling_queue_victim_first(tmp_path: Path) -> None:
    doc = reclaim(tmp_path, 1, [
        N_PROJECT, *classes(), *project_tree(),
        *(pod_group(f"pg{i}", "ns1", "project2_preemptable", 1, "Running") for i in (1, 2, 3)),
        pod_group("pg4_reclaimed", "ns1", "project2_preemptable", 1, "Inqueue"),
        pod_group("pg5_pipelined", "ns1", "project1_preemptable", 1, "Running"),
        pod_group("pg6", "ns1", "project2_non-preemptable", 1, "Pending"),
        gpu_pod("p1", "n1", "pg1", 2), gpu_pod("p2", "n1", "pg2", 2), gpu_pod("p3", "n1", "pg3", 2),
        gpu_pod("p4", "", "pg4_reclaimed"), gpu_pod("p5", "n1", "pg5_pipelined"), gpu_pod("p6", "", "pg6")],
        priority=True)
    assert pipelined(doc) == {"ns1/p6": "n1"}
    assert evicted(doc) == ["ns1/p3"]
