"""Hierarchical DRF (drf with enableHierarchy): hdrf_test.go's TestHDRF, its two cases ("rescaling test",
"blocking nodes test") built as the Go test builds them (makePods, BuildQueueWithAnnos, minMember 0,
Inqueue, one node), run through allocate with drf's queue and job order; the allocations its `expected`
states. (The Go test's own check is inverted, `if DeepEqual(expected, job.Allocated)`, and never fails;
its tier also holds proportion, which Volcano's configuration loader refuses beside drf's hierarchy, so
drf runs alone here.) Then reclaim by the hierarchy, and the tree's pieces."""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from kexplain.volcano.api.resource import Resource
from kexplain.volcano.plugins.drf_hierarchy import resource_saturated
from tests.volcano.capacity_inputs import evicted, node, pipelined, plugin, pod, pod_group, queue, rl, run

HDRF = [dict(plugin("drf", "enableQueueOrder", "enableJobOrder"), enableHierarchy=True)]


def hqueue(name: str, hierarchy: str, weights: str) -> dict[str, Any]:
    """util.BuildQueueWithAnnos (weight 1) with the hierarchy annotations."""
    obj = queue(name, None, None)
    obj["metadata"]["annotations"] = {"volcano.sh/hierarchy": hierarchy, "volcano.sh/hierarchy-weights": weights}
    return obj


def make_pods(n: int, cpu: str, mem: str, group: str, node_name: str = "", phase: str = "Pending") -> list[dict[str, Any]]:
    return [pod("default", f"{group}-p{i}", node_name, phase, rl(cpu, mem), group) for i in range(n)]


def allocated(doc: dict[str, Any]) -> Counter[str]:
    """Tasks bound per PodGroup (each PodGroup's tasks alike: the count is its allocation)."""
    groups = {p["name"]: p["podGroup"] for p in doc["pods"]}
    return Counter(groups[p["name"]].split("/")[-1] for p in doc["pods"] if p.get("boundTo"))


def test_rescaling(tmp_path: Path) -> None:
    """sci (weight 50) against eng (50), whose dev asks cpu only and prod memory only: each half of the
    cluster's scarce resource goes to sci and eng, eng's split between its two."""
    objects = [node("n1", rl("10", "10G", pods="50")),
               hqueue("root-sci", "root/sci", "100/50"), hqueue("root-eng-dev", "root/eng/dev", "100/50/50"),
               hqueue("root-eng-prod", "root/eng/prod", "100/50/50"),
               pod_group("pg1", "default", "root-sci", 0, "Inqueue"),
               pod_group("pg21", "default", "root-eng-dev", 0, "Inqueue"),
               pod_group("pg22", "default", "root-eng-prod", 0, "Inqueue"),
               *make_pods(10, "1", "1G", "pg1"), *make_pods(10, "1", "0G", "pg21"), *make_pods(10, "0", "1G", "pg22")]
    assert allocated(run(tmp_path, objects, "allocate", HDRF)) == {"pg1": 5, "pg21": 5, "pg22": 5}


def test_blocking_nodes(tmp_path: Path) -> None:
    """Once cpu is all taken the cpu jobs are saturated and no longer hold the memory jobs back."""
    objects = [node("n1", rl("30", "30G", pods="500")),
               hqueue("root-pg1", "root/pg1", "100/25"), hqueue("root-pg2", "root/pg2", "100/25"),
               hqueue("root-pg3-pg31", "root/pg3/pg31", "100/25/50"),
               hqueue("root-pg3-pg32", "root/pg3/pg32", "100/25/50"), hqueue("root-pg4", "root/pg4", "100/25"),
               pod_group("pg1", "default", "root-pg1", 0, "Inqueue"),
               pod_group("pg2", "default", "root-pg2", 0, "Inqueue"),
               pod_group("pg31", "default", "root-pg3-pg31", 0, "Inqueue"),
               pod_group("pg32", "default", "root-pg3-pg31", 0, "Inqueue"),
               pod_group("pg4", "default", "root-pg4", 0, "Inqueue"),
               *make_pods(30, "1", "0G", "pg1"), *make_pods(30, "1", "0G", "pg2"), *make_pods(30, "1", "0G", "pg31"),
               *make_pods(30, "0", "1G", "pg32"), *make_pods(30, "0", "1G", "pg4")]
    assert allocated(run(tmp_path, objects, "allocate", HDRF)) == {"pg1": 10, "pg2": 10, "pg31": 10, "pg32": 15,
                                                                   "pg4": 15}


def test_reclaim_by_the_hierarchy(tmp_path: Path) -> None:
    """team a holds the whole node; team b's job, starving, reclaims one task of a's: without it a's share
    (3/4) is still above b's with the reclaimer's task (1/4). drf reclaims nothing without the hierarchy."""
    objects = [node("n1", rl("4", "4Gi", pods="10")),
               hqueue("qa", "root/a", "1/1"), hqueue("qb", "root/b", "1/1"),
               pod_group("ja", "default", "qa", 1, "Running"), *make_pods(4, "1", "1Gi", "ja", "n1", "Running"),
               pod_group("jb", "default", "qb", 1, "Inqueue"), *make_pods(1, "1", "1Gi", "jb")]
    tier = [plugin("gang", "enableJobStarving"),
            dict(plugin("drf", "enableQueueOrder", "enableJobOrder", "enableReclaimable"), enableHierarchy=True)]
    doc = run(tmp_path, objects, "reclaim", tier)
    assert evicted(doc) == ["default/ja-p3"] and pipelined(doc) == {"default/jb-p0": "n1"}
    tier[1].pop("enableHierarchy")
    assert evicted(run(tmp_path, objects, "reclaim", tier)) == []


def test_resource_saturated() -> None:
    """resourceSaturated: all it asks is held, or it asks for a resource nobody can have more of."""
    held = Resource.of(rl("2", "1Gi"))
    assert resource_saturated(held, Resource.of(rl("2", "4Gi")), {"cpu", "memory"})
    assert not resource_saturated(held, Resource.of(rl("4", "4Gi")), {"cpu", "memory"})
    assert resource_saturated(held, Resource.of(rl("4", "4Gi")), {"cpu"})
