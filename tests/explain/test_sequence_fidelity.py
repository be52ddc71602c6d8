"""Several pods scheduled as v1.35.4 schedules them one after another: OpportunisticBatching's
hints and the nominations and terminating victims a preemption leaves for later pods."""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from kexplain.explain.carryover import terminating
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot
from kexplain.plugins.default_preemption import terminating_by_preemption
from tests.support.cli_helpers import explain_json

LIST_DEFAULTING = {
    "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
    "profiles": [{"schedulerName": "default-scheduler",
                  "pluginConfig": [{"name": "PodTopologySpread", "args": {"defaultingType": "List"}}]}]}


def _node(name: str, cpu: str) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"capacity": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}}


def _priority_class(value: int) -> dict:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": f"p{value}"},
            "value": value}


def _pod(name: str, cpu: str = "600m", priority: int | None = None, **spec) -> dict:
    body = {"containers": [{"name": "c", "image": "nginx:1.27", "resources": {"requests": {"cpu": cpu}}}], **spec}
    if priority:
        body["priorityClassName"] = f"p{priority}"
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": body}


def _bound(name: str, node: str, cpu: str, priority: int = 0) -> dict:
    obj = _pod(name, cpu, priority)
    obj["spec"]["nodeName"] = node
    obj["metadata"]["uid"] = f"uid-{name}"
    obj["status"] = {"phase": "Running", "startTime": "2026-01-01T00:00:00Z"}
    return obj


def _run(tmp_path: Path, capsys, pods: list[dict], cluster: list[dict], config: dict | None = None) -> list[dict]:
    (tmp_path / "pods.yaml").write_text(yaml.safe_dump_all(pods))
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(cluster))
    args = [str(tmp_path / "pods.yaml"), "--nodes", str(tmp_path / "cluster.yaml")]
    if config is not None:
        (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
        args += ["--config", str(tmp_path / "config.yaml")]
    code, out, err = explain_json(capsys, *args)
    assert code in (0, 1), err
    return json.loads(out)["items"]


def test_alike_pods_take_the_next_node_of_the_previous_ranking_without_a_search(tmp_path, capsys):
    # One 600m pod per 1-CPU node: after the first pod's full search, its node no longer fits
    # the next pod, so the next node of the first pod's ranking is handed out as a hint.
    nodes = [_node(f"n{i}", "1") for i in range(4)]
    items = _run(tmp_path, capsys, [_pod("a"), _pod("b"), _pod("c")], nodes, LIST_DEFAULTING)
    first, second, third = items
    assert first["search"]["numNodesSearched"] == 4 and first["score"] is not None
    assert "hint" not in first
    for item in (second, third):
        hint = item["hint"]
        assert item["search"]["order"] == [hint]
        assert item["search"]["numFeasibleNodesToFind"] == 1
        assert item["search"]["nextStartIndex"] == item["search"]["startIndex"]
        assert item["score"] is None
        assert item["result"]["suggestedHost"] == hint
    chosen = [i["result"]["suggestedHost"] for i in items]
    assert len(set(chosen)) == 3
    # The hints are the first pod's ranking after its pick, best first.
    ranking = sorted(first["score"], key=lambda n: -first["score"][n]["total"])
    assert set(chosen[1:]) <= set(ranking) - {chosen[0]}


def test_no_hint_under_the_system_default_spread_constraints(tmp_path, capsys):
    # The System defaulting gives PodTopologySpread default constraints: no pod is signable.
    nodes = [_node(f"n{i}", "1") for i in range(4)]
    items = _run(tmp_path, capsys, [_pod("a"), _pod("b")], nodes)
    assert all("hint" not in i for i in items)
    assert items[1]["search"]["numNodesSearched"] == 4 and items[1]["score"] is not None


def test_pods_that_sign_differently_get_no_hint(tmp_path, capsys):
    nodes = [_node(f"n{i}", "1") for i in range(4)]
    items = _run(tmp_path, capsys, [_pod("a"), _pod("b", cpu="700m")], nodes, LIST_DEFAULTING)
    assert "hint" not in items[1] and items[1]["score"] is not None


def test_a_pod_that_still_fits_the_previous_node_gets_no_hint(tmp_path, capsys):
    # 4-CPU nodes hold several pods: the previous pod's node may still rank first.
    nodes = [_node(f"n{i}", "4") for i in range(3)]
    items = _run(tmp_path, capsys, [_pod("a"), _pod("b")], nodes, LIST_DEFAULTING)
    assert "hint" not in items[1] and items[1]["score"] is not None


def test_a_nominated_pod_counts_on_its_node_for_later_pods(tmp_path, capsys):
    # n1 is full of a low-priority pod; the high-priority pod `big` preempts it and is nominated
    # to n1. The later pod `small` (lower priority than `big`) would fit n1 as it is, but with
    # `big` counted in it does not: Filter says so in `filter` and in `filterAll`.
    cluster = [_node("n1", "2"), _bound("low", "n1", "1500m", priority=0), *map(_priority_class, (10, 100, 200))]
    pods = [_pod("big", cpu="1500m", priority=100), _pod("small", cpu="400m", priority=10)]
    big, small = _run(tmp_path, capsys, pods, cluster)
    assert big["result"]["status"] == "Unschedulable"
    assert big["postFilter"]["nominatedNodeName"] == "n1"
    assert small["result"]["status"] == "Unschedulable"
    assert small["filter"]["n1"]["plugin"] == "NodeResourcesFit"
    assert small["filterAll"]["n1"]["NodeResourcesFit"]["code"] == "Unschedulable"


def test_only_nominations_of_at_least_the_pods_priority_count(tmp_path, capsys):
    # A pending pod of priority 100 is nominated to n1 in the cluster. `hi` (200) ignores it;
    # `lo` (10) counts it, so n1, with room for `lo` as it is, rejects it.
    waiting = _pod("waiting", cpu="1500m", priority=100)
    waiting["metadata"]["uid"] = "uid-waiting"
    waiting["status"] = {"phase": "Pending", "nominatedNodeName": "n1"}
    cluster = [_node("n1", "2"), _bound("low", "n1", "100m"), waiting, *map(_priority_class, (10, 100, 200))]
    pods = [_pod("lo", cpu="50m", priority=10), _pod("hi", cpu="400m", priority=200)]
    items = {i["pod"]["name"]: i for i in _run(tmp_path, capsys, pods, cluster)}
    assert items["hi"]["result"]["status"] == "Scheduled"
    assert items["lo"]["result"]["status"] == "Unschedulable"
    assert items["lo"]["filter"]["n1"]["reasons"] == ["Insufficient cpu"]


def test_victims_stay_on_their_node_terminating():
    victim = PodInfo(_bound("low", "n1", "1500m"))
    other = PodInfo(_bound("other", "n1", "100m"))
    info = NodeInfo(Node.from_obj(_node("n1", "2")))
    info.add_pod(victim)
    info.add_pod(other)
    before = Snapshot([info])
    after = terminating(before, {"nominatedNodeName": "n1", "victims": ["default/low"]})
    pods = {p.name: p for p in after.get("n1").pods}
    assert terminating_by_preemption(pods["low"]) and not terminating_by_preemption(pods["other"])
    assert after.get("n1").requested.milli_cpu == before.get("n1").requested.milli_cpu == 1600
    assert not terminating_by_preemption(victim)              # the snapshot passed in is unchanged
    assert [p for p, _ in after.pods_by_namespace["default"] if p.name == "low"][0].deletion_timestamp
