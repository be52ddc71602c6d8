"""Several pods and replicas: PrioritySort order, each pod bound before the next, copies counted
(N of M fit, where), the round-robin position carried over, and the output shapes."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.cli.app import main
from kexplain.errors import Source
from kexplain.explain.pod_file import entries
from kexplain.controllers.workloads import replica_count
from tests.support.copies import copy_names

Obj = dict[str, Any]


def node(name: str, cpu: str = "4", zone: str | None = None) -> Obj:
    labels = {"kubernetes.io/hostname": name}
    if zone:
        labels["topology.kubernetes.io/zone"] = zone
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "status": {"capacity": {"cpu": cpu, "memory": "16Gi", "pods": "110"}}}


def pod(name: str, cpu: str = "1", priority_class: str | None = None, **spec: Any) -> Obj:
    obj: Obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}],
                         **spec}}
    if priority_class:
        obj["spec"]["priorityClassName"] = priority_class
    return obj


def deployment(name: str, replicas: int | None, cpu: str = "1", kind: str = "Deployment") -> Obj:
    spec: Obj = {"selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}},
                              "spec": {"containers": [{"name": "c", "image": "x",
                                                       "resources": {"requests": {"cpu": cpu}}}]}}}
    if replicas is not None:
        spec["replicas"] = replicas
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": name, "namespace": "shop"}, "spec": spec}


def priority_class(name: str, value: int) -> Obj:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": value}


def run(capsys, tmp_path: Path, pods: list[Obj], cluster: list[Obj], *args: str) -> tuple[int, str]:
    (tmp_path / "pods.yaml").write_text(yaml.safe_dump_all(pods))
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(cluster))
    code = main([str(tmp_path / "pods.yaml"), "--nodes", str(tmp_path / "cluster.yaml"), *args])
    out, _ = capsys.readouterr()
    return code, out


def as_json(capsys, tmp_path: Path, pods: list[Obj], cluster: list[Obj], *args: str) -> tuple[int, dict]:
    code, out = run(capsys, tmp_path, pods, cluster, "-o", "json", *args)
    return code, json.loads(out)


# --- replicas -------------------------------------------------------------------------------------

def test_replicas_n_of_m_fit_and_where(capsys, tmp_path):
    code, doc = as_json(capsys, tmp_path, [deployment("web", 5)], [node("n1", "2"), node("n2", "1")])
    assert code == 1
    assert doc["kind"] == "SchedulingTraceList" and doc["apiVersion"] == "kexplain/v1"
    assert [t["pod"] for t in doc["items"]] == [{"namespace": "shop", "name": n}
                                                for n in copy_names(deployment("web", 5), 4)]
    assert [t["result"]["status"] for t in doc["items"]] == ["Scheduled"] * 3 + ["Unschedulable"]
    (placement,) = doc["placements"]
    assert placement["object"] == {"kind": "Deployment", "namespace": "shop", "name": "web"}
    assert (placement["replicas"], placement["fit"]) == (5, 3)
    assert placement["nodes"] == {"n1": 2, "n2": 1}
    assert [p["node"] for p in placement["pods"]] == [t["result"]["suggestedHost"] for t in doc["items"][:3]] + [None]
    last = doc["items"][-1]
    assert last["result"]["message"].startswith("0/2 nodes are available: 2 Insufficient cpu.")
    assert "suggestions" in last          # the first copy that does not fit gets them


def test_all_replicas_fit_exit_0_and_round_robin_carries_over(capsys, tmp_path):
    code, doc = as_json(capsys, tmp_path, [deployment("web", 4, cpu="100m")], [node(f"n{i}") for i in range(1, 5)])
    assert code == 0
    items = doc["items"]
    assert doc["placements"][0]["fit"] == 4
    assert items[0]["search"]["startIndex"] == 0
    for before, after in zip(items, items[1:]):
        assert after["search"]["startIndex"] == before["search"]["nextStartIndex"]
    assert all("suggestions" not in t for t in items)


def test_replicas_option_overrides_the_workload_and_copies_a_plain_pod(capsys, tmp_path):
    code, doc = as_json(capsys, tmp_path, [deployment("web", 5)], [node("n1", "2")], "--replicas", "2")
    assert code == 0 and doc["placements"][0]["replicas"] == 2 and doc["placements"][0]["fit"] == 2
    code, doc = as_json(capsys, tmp_path, [pod("p", "1")], [node("n1", "2")], "--replicas", "3")
    assert code == 1
    assert [p["name"] for p in doc["placements"][0]["pods"]] == ["p-0", "p-1", "p-2"]
    assert doc["placements"][0]["nodes"] == {"n1": 2}


def test_one_pod_or_one_replica_is_still_one_trace(capsys, tmp_path):
    for pods in ([pod("p")], [deployment("web", 1)], [deployment("web", None)], [deployment("web", 5)]):
        args = ("--replicas", "1") if pods[0].get("spec", {}).get("replicas") == 5 else ()
        code, doc = as_json(capsys, tmp_path, pods, [node("n1")], *args)
        assert code == 0 and doc["kind"] == "SchedulingTrace"


def test_table_says_how_many_fit_and_why_the_next_does_not(capsys, tmp_path):
    code, out = run(capsys, tmp_path, [deployment("web", 5)], [node("n1", "2"), node("n2", "1")])
    assert code == 1
    assert "=== Deployment shop/web (priority 0): 3 of 5 replicas fit" in out.splitlines()
    assert "On 2 nodes: n1 ×2, n2" in out.splitlines()
    assert f"Why {copy_names(deployment('web', 5), 4)[3]} does not fit:" in out and "Insufficient cpu" in out
    assert "Copies, in the order they were placed:" in out.splitlines()      # one line, not wrapped
    assert "add a node like n1 (cpu 2, memory 16Gi)" in " ".join(out.split())     # its suggestions


@pytest.mark.parametrize("obj, count", [
    ({"kind": "Deployment", "spec": {"replicas": 3}}, 3),
    ({"kind": "Deployment", "spec": {}}, 1),
    ({"kind": "StatefulSet", "spec": {"replicas": 0}}, 0),
    ({"kind": "ReplicaSet", "spec": {"replicas": 2}}, 2),
    ({"kind": "Job", "spec": {"parallelism": 4, "completions": 2}}, 2),
    ({"kind": "Job", "spec": {"parallelism": 4}}, 4),
    ({"kind": "Job", "spec": {}}, 1),
    ({"kind": "CronJob", "spec": {"jobTemplate": {"spec": {"parallelism": 3}}}}, 3),
    ({"kind": "DaemonSet", "spec": {"replicas": 9}}, 1),
    ({"kind": "Pod", "spec": {}}, 1),
])
def test_replica_count(obj, count):
    assert replica_count(obj) == count


def test_entries_name_copies_after_the_workload():
    found = entries([(deployment("web", 3), Source("f", 1)), (deployment("one", 1), Source("f", 2)),
                     (deployment("zero", 0), Source("f", 3))], "f")
    assert [(e.name, e.copies, e.replicated, e.pod["metadata"]["name"]) for e in found] == [
        ("web", 3, True, copy_names(deployment("web", 3), 1)[0]),
        ("one", 1, False, copy_names(deployment("one", 1), 1)[0]),
        ("zero", 1, False, copy_names(deployment("zero", 0), 1)[0])]
    assert [e.pod["metadata"]["name"].startswith(f"{e.name}-") for e in found] == [True] * 3


# --- several pods ---------------------------------------------------------------------------------

CLASSES = [priority_class("mid", 100), priority_class("high", 1000)]


def test_several_pods_in_priority_sort_order(capsys, tmp_path):
    pods = [pod("low", "100m"), pod("mid", "100m", "mid"), pod("high", "100m", "high"), pod("mid2", "100m", "mid")]
    code, doc = as_json(capsys, tmp_path, pods, [*CLASSES, node("n1")])
    assert code == 0
    assert [t["pod"]["name"] for t in doc["items"]] == ["high", "mid", "mid2", "low"]
    assert [(p["object"]["name"], p["priority"]) for p in doc["placements"]] == [
        ("high", 1000), ("mid", 100), ("mid2", 100), ("low", 0)]


def test_each_pod_is_bound_before_the_next_is_scheduled(capsys, tmp_path):
    """Listed first but of lower priority, `first` is scheduled after `vip` took the room."""
    pods = [pod("first", "1500m"), pod("vip", "1500m", "high")]
    code, doc = as_json(capsys, tmp_path, pods, [*CLASSES, node("n1", "2")], "--no-preemption")
    assert code == 1
    assert [(t["pod"]["name"], t["result"]["status"]) for t in doc["items"]] == [
        ("vip", "Scheduled"), ("first", "Unschedulable")]
    assert doc["items"][1]["result"]["message"] == ("0/1 nodes are available: 1 Insufficient cpu. "
                                                       "no new claims to deallocate")
    # the suggestion is verified against the cluster as vip left it
    lower = next(s for s in doc["items"][1]["suggestions"] if s["kind"] == "lower-request")
    assert lower["description"] == "lower the cpu request from 1500m to 500m (container c)"


def test_several_pods_share_the_round_robin_position(capsys, tmp_path):
    pods = [pod(f"p{i}", "100m") for i in range(3)]
    code, doc = as_json(capsys, tmp_path, pods, [node(f"n{i}") for i in range(3)], "--start-index", "1")
    items = doc["items"]
    assert code == 0 and items[0]["search"]["startIndex"] == 1
    for before, after in zip(items, items[1:]):
        assert after["search"]["startIndex"] == before["search"]["nextStartIndex"]


def test_pods_and_workloads_mixed(capsys, tmp_path):
    code, doc = as_json(capsys, tmp_path, [pod("solo", "1"), deployment("web", 2)], [node("n1", "2")])
    assert code == 1
    assert [p["fit"] for p in doc["placements"]] == [1, 1]
    assert [t["pod"]["name"] for t in doc["items"]] == ["solo", *copy_names(deployment("web", 2), 2)]


def test_several_pods_table_and_yaml(capsys, tmp_path):
    pods = [pod("a", "100m"), pod("b", "100m")]
    code, out = run(capsys, tmp_path, pods, [node("n1")])
    assert code == 0 and "Pod default/a (priority 0)" in out and "Pod default/b (priority 0)" in out
    code, out = run(capsys, tmp_path, pods, [node("n1")], "-o", "yaml")
    doc = yaml.safe_load(out)
    assert code == 0 and doc["kind"] == "SchedulingTraceList" and len(doc["items"]) == 2


def test_a_bad_pod_among_several_is_one_clear_line(capsys, tmp_path):
    (tmp_path / "pods.yaml").write_text(yaml.safe_dump_all([pod("a"), pod("b", "-1")]))
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump(node("n1")))
    code = main([str(tmp_path / "pods.yaml"), "--nodes", str(tmp_path / "cluster.yaml")])
    _, err = capsys.readouterr()
    assert code == 2
    assert err.startswith("error: ") and "document 2" in err and err.count("\n") == 1


# --- DaemonSets: one pod per eligible node, as lint places them -----------------------------------

def daemonset(name: str = "agent", cpu: str = "500m", **spec: Any) -> Obj:
    obj = deployment(name, None, cpu, kind="DaemonSet")
    obj["spec"]["template"]["spec"].update(spec)
    return obj


def tainted(name: str, cpu: str = "4") -> Obj:
    obj = node(name, cpu)
    obj["spec"] = {"taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]}
    return obj


def test_a_daemonset_runs_a_pod_on_every_eligible_node(capsys, tmp_path):
    code, doc = as_json(capsys, tmp_path, [daemonset()], [node("n2"), node("n1"), tainted("gpu1")])
    assert code == 0
    assert [t["pod"]["name"] for t in doc["items"]] == copy_names(daemonset(), 2)   # node name order
    (placement,) = doc["placements"]
    assert (placement["replicas"], placement["fit"], placement["nodes"]) == (2, 2, {"n1": 1, "n2": 1})
    assert placement["notEligible"] == {"gpu1": "untolerated taint dedicated=gpu:NoSchedule"}
    # each copy is pinned to its node: PreFilter narrowed the nodes to it
    assert [t["preFilterNodeNames"] for t in doc["items"]] == [["n1"], ["n2"]]
    # the round-robin position carries over from copy to copy
    assert doc["items"][1]["search"]["startIndex"] == doc["items"][0]["search"]["nextStartIndex"]


def test_a_daemonset_that_does_not_fit_on_a_node_and_lint_agrees(capsys, tmp_path):
    from kexplain.lint.linter import LintOptions, lint

    code, doc = as_json(capsys, tmp_path, [daemonset(cpu="1500m")], [node("n1", "2"), node("small", "1")],
                        "--no-suggestions")
    assert code == 1
    first, second = copy_names(daemonset(), 2)
    assert [(p["name"], p["node"], p["status"]) for p in doc["placements"][0]["pods"]] == [
        (first, "n1", "Scheduled"), (second, None, "Unschedulable")]
    (finding,) = lint(LintOptions((str(tmp_path / "pods.yaml"),), (str(tmp_path / "cluster.yaml"),))).findings
    assert (finding.rule, finding.details["fit"], finding.details["replicas"]) == ("replicas", 1, 2)


def test_a_daemonset_with_no_eligible_node_runs_no_pod_nothing_to_schedule(capsys, tmp_path):
    code, doc = as_json(capsys, tmp_path, [daemonset(nodeSelector={"gpu": "true"})], [node("n1"), tainted("gpu1")])
    assert code == 0 and doc["items"] == []
    (placement,) = doc["placements"]
    assert (placement["replicas"], placement["fit"], placement["pods"]) == (0, 0, [])
    assert placement["notEligible"] == {"gpu1": "node selector or affinity does not match",
                                        "n1": "node selector or affinity does not match"}
    assert "FailedScheduling" not in json.dumps(doc)
    code, out = run(capsys, tmp_path, [daemonset(nodeSelector={"gpu": "true"})], [node("n1"), tainted("gpu1")])
    assert code == 0 and "would run no pod" in out and "FailedScheduling" not in out
    assert "DaemonSet shop/agent (priority 0): no eligible node, it would run no pod" in out
    assert "  node selector or affinity does not match: gpu1, n1" in out.splitlines()
    assert max(len(line) for line in out.splitlines()) <= 80


def test_a_daemonset_among_other_pods_takes_its_room_first_when_it_comes_first(capsys, tmp_path):
    code, doc = as_json(capsys, tmp_path, [daemonset(cpu="3"), pod("web", "2")], [node("n1"), node("n2")],
                        "--no-suggestions", "--no-preemption")
    assert code == 1
    first, second = copy_names(daemonset(), 2)
    assert [(t["pod"]["name"], t["result"]["status"]) for t in doc["items"]] == [
        (first, "Scheduled"), (second, "Scheduled"), ("web", "Unschedulable")]
