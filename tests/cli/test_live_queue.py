"""The scheduler's queue over a live cluster's pending pods (kexplain/explain/queue_order.py), on
the stand-in API server (tests/support/live_server.py): two nodes, each full with one batch pod
(the victims), and two pods of priority 1000 that each need the room of one victim (the
preemptors). Alone, each one's preemption nominates node-2 (its victim started last); in the
queue the second meets the first's nomination there (kube-scheduler counts nominated pods in
Filter and in preemption's check of a candidate node) and nominates node-1, evicting batch-1,
as the same pods in one file get offline. `kexplain pod NAME` and `--pending -A` walk the same
queue, so the autoscalers read the same nominations from both."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.live_server import api, isolated, run_cli  # noqa: F401 (fixtures; isolated: autouse)

GROUPS = """nodeGroups:
- name: general
  minSize: 0
  maxSize: 4
  nodeSelector: {node.kubernetes.io/instance-type: m5.large}
"""


def node(name: str) -> dict:
    return {"metadata": {"name": name, "uid": f"uid-{name}", "resourceVersion": "10",
                         "creationTimestamp": "2025-11-03T09:00:00Z",
                         "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                                    "kubernetes.io/arch": "amd64", "node.kubernetes.io/instance-type": "m5.large",
                                    "topology.kubernetes.io/zone": "us-east-1a"}},
            "spec": {},
            "status": {"capacity": {"cpu": "2", "memory": "8Gi", "pods": "110"},
                       "allocatable": {"cpu": "2", "memory": "8Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def pod(name: str, cpu: str, priority: int, minute: int, node_name: str | None = None) -> dict:
    created = f"2025-11-03T{9 + minute // 60:02d}:{minute % 60:02d}:00Z"
    spec: dict = {"containers": [{"name": "c", "image": "app:1", "resources": {"requests": {"cpu": cpu,
                                                                                          "memory": "1Gi"}}}],
                  "schedulerName": "default-scheduler", "priority": priority,
                  "preemptionPolicy": "PreemptLowerPriority"}
    if node_name:
        spec["nodeName"] = node_name
        status = {"phase": "Running", "startTime": created,
                  "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": created}]}
    else:
        status = {"phase": "Pending", "conditions": [{
            "type": "PodScheduled", "status": "False", "reason": "Unschedulable", "lastTransitionTime": created,
            "message": "0/2 nodes are available: 2 Insufficient cpu."}]}
    return {"metadata": {"name": name, "namespace": "shop", "uid": f"uid-{name}", "resourceVersion": "20",
                         "creationTimestamp": created}, "spec": spec, "status": status}


# batch-2 started last: alone, both preemptors pick its node (the candidates' later start)
PODS = [pod("batch-1", "1500m", 0, 0, "node-1"), pod("batch-2", "1500m", 0, 30, "node-2"),
        pod("pre-a", "1500m", 1000, 60), pod("pre-b", "1500m", 1000, 61)]
BIG = pod("big", "8", 0, 62)        # no node, no victim, no group's template: CA's answer only


@pytest.fixture
def victims(api):
    """The stand-in API server with two nodes, two victims and two preemptors pending."""
    api.collections["/api/v1/nodes"]["items"] = [node("node-1"), node("node-2")]
    api.collections["/api/v1/pods"]["items"] = [dict(p) for p in PODS]
    return api


def run_json(capsys, *args: str) -> tuple[int, dict]:
    code, out, err = run_cli(capsys, *args, "-o", "json")
    assert code in (0, 1), err
    return code, json.loads(out)


def nomination(trace: dict) -> tuple[str, list[str]]:
    """Where the pod's preemption nominates it as the queue leaves it, and the victims."""
    post = (trace.get("queue") or trace).get("postFilter") or {}
    return post.get("nominatedNodeName"), post.get("victims")


WALKED = {"shop/pre-a": ("node-2", ["shop/batch-2"]), "shop/pre-b": ("node-1", ["shop/batch-1"])}


def test_the_second_preemptor_meets_the_first_ones_nomination(capsys, victims):
    code, listed = run_json(capsys, "pod", "--pending", "-A", "--kubeconfig", victims.kubeconfig)
    items = {f"{i['pod']['namespace']}/{i['pod']['name']}": i for i in listed["items"]}
    assert code == 1
    # alone, each one's preemption nominates node-2; in the queue, pre-b goes to node-1
    assert {k: i["postFilter"]["nominatedNodeName"] for k, i in items.items()} == {k: "node-2" for k in WALKED}
    assert {k: nomination(i) for k, i in items.items()} == WALKED
    queue = items["shop/pre-b"]["queue"]
    assert queue["takenBy"] == [{"pod": "shop/pre-a", "node": "node-2", "nominated": True}]
    assert "queue" not in items["shop/pre-a"]
    code, out, _ = run_cli(capsys, "pod", "--pending", "-A", "--kubeconfig", victims.kubeconfig)
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert rows["shop/pre-a"].endswith("(preemption would nominate node-2; victims: shop/batch-2)")
    assert "alone its preemption nominates node-2, taken first in the scheduler's queue by shop/pre-a (nominated " \
           "there)" in rows["shop/pre-b"]
    assert rows["shop/pre-b"].endswith("(preemption would nominate node-1; victims: shop/batch-1)")
    code, out, _ = run_cli(capsys, "pod", "pre-b", "-n", "shop", "--kubeconfig", victims.kubeconfig)
    top = " ".join(out[:out.index("Kubernetes 1.")].split())
    assert top.startswith("Pod shop/pre-b (profile default-scheduler): Unschedulable In the scheduler's queue it is "
                          "Unschedulable: alone its preemption nominates node-2, but of the 1 pending pod it comes "
                          "after")
    assert top.endswith("its preemption nominates node-1.")


def test_live_and_offline_nominate_alike(capsys, victims, tmp_path: Path):
    """The same pods in one file, against the snapshot of the same cluster: the file's pods are
    scheduled one after another (`explain.batch`), the live ones walked in the queue; each ends
    nominated where the other says."""
    _, listed = run_json(capsys, "pod", "--pending", "-A", "--kubeconfig", victims.kubeconfig)
    live = {f"{i['pod']['namespace']}/{i['pod']['name']}": nomination(i) for i in listed["items"]}
    snap = tmp_path / "cluster.json"
    code, _, err = run_cli(capsys, "snapshot", "--kubeconfig", victims.kubeconfig, "-o", str(snap))
    assert code == 0, err
    items = json.loads(snap.read_text())["items"]
    pending = [o for o in items if o["kind"] == "Pod" and not o["spec"].get("nodeName")]
    nodes, pods = tmp_path / "nodes.json", tmp_path / "pods.json"
    nodes.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [o for o in items if o not in pending]}))
    pods.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": pending}))
    _, offline = run_json(capsys, str(pods), "--nodes", str(nodes), "--stored")
    assert {f"{i['pod']['namespace']}/{i['pod']['name']}": nomination(i) for i in offline["items"]} == live == WALKED


def test_pod_name_and_the_pending_list_give_each_pod_one_answer(capsys, victims, tmp_path: Path):
    """CA's loop reads every pending pod's nomination as the queue leaves it: from `pod NAME`
    (whichever pod is named) the same as from `--pending -A`. The big pod no group can take gets
    NotTriggerScaleUp in a loop that scales up for nobody (both preemptors wait on their nodes)."""
    victims.collections["/api/v1/pods"]["items"].append(dict(BIG))
    groups = tmp_path / "groups.yaml"
    groups.write_text(GROUPS)
    live = ["--kubeconfig", victims.kubeconfig, "--node-groups", str(groups)]
    _, listed = run_json(capsys, "pod", "--pending", "-A", *live)
    loop = {f"{p['namespace']}/{p['name']}": p for p in listed["autoscaler"]["pods"]}
    assert listed["autoscaler"]["pendingPass"]["preempting"] == {
        k: {"nominatedNodeName": n, "victims": v} for k, (n, v) in WALKED.items()}
    outcomes = {k: p["outcome"] for k, p in loop.items()}
    assert outcomes == {"shop/pre-a": "NotListedAsUnschedulable", "shop/pre-b": "NotListedAsUnschedulable",
                        "shop/big": "NotTriggerScaleUp"}
    for item in listed["items"]:
        key = f"{item['pod']['namespace']}/{item['pod']['name']}"
        [answer] = item["autoscalers"]
        assert answer["outcome"] == outcomes[key]
        _, trace = run_json(capsys, "pod", item["pod"]["name"], "-n", "shop", *live)
        [alone] = trace["autoscalers"]
        assert (alone["pod"], alone["outcome"], alone.get("nominatedNodeName"), alone["events"]) == \
            (key, outcomes[key], answer.get("nominatedNodeName"), loop[key]["events"]), key
        assert trace["autoscaler"]["pendingPass"]["preempting"] == listed["autoscaler"]["pendingPass"]["preempting"]
