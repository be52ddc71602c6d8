"""`kexplain pod NAME --node-groups FILE`: the Cluster autoscaler section for a pod of a live
cluster (a local API server serving recorded responses, tests/data/live), the groups' members
found among the live nodes."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kexplain.cli.app import main
from tests.support.live_server import api, isolated, run_cli  # noqa: F401 (fixtures; isolated: autouse)

CHECKOUT = "checkout-6b8d9f7c4-lm3np"         # unschedulable
GROUPS = """nodeGroups:
- name: general
  minSize: 1
  maxSize: 4
  nodeSelector: {node.kubernetes.io/instance-type: m5.xlarge}
- name: gpu
  minSize: 0
  maxSize: 2
  nodeSelector: {workload: gpu}
- name: big
  minSize: 0
  maxSize: 3
  nodeSelector: {node.kubernetes.io/instance-type: m5.4xlarge}
  template:
    metadata:
      labels: {kubernetes.io/arch: amd64, kubernetes.io/os: linux, topology.kubernetes.io/zone: us-east-1a,
               node.kubernetes.io/instance-type: m5.4xlarge}
    status:
      allocatable: {cpu: "16", memory: 64Gi, pods: "110"}
"""


def test_the_section_for_a_live_pod(capsys, api, tmp_path: Path):
    groups = tmp_path / "groups.yaml"
    groups.write_text(GROUPS)
    base = ["pod", CHECKOUT, "-n", "shop", "--kubeconfig", api.kubeconfig, "--node-groups", str(groups)]
    code, out, err = run_cli(capsys, *base, "-o", "json")
    assert code == 1, err
    trace = json.loads(out)
    doc = trace["autoscaler"]
    members = {g["name"]: g["nodes"] for g in doc["nodeGroups"]}
    assert members == {"general": ["node-a1", "node-b1", "node-c1"], "gpu": ["node-a2"], "big": []}
    assert doc["explained"]["pod"] == f"shop/{CHECKOUT}"
    assert set(doc["explained"]["nodeGroups"]) == {"general", "gpu", "big"}
    assert "live" in trace
    code, out, _ = run_cli(capsys, *base)
    assert "\nCluster autoscaler\n" in out and "Node groups" in out
    code, out, _ = run_cli(capsys, *base, "--node-group", "big")
    assert out.startswith(f"Node group big for pod shop/{CHECKOUT}: ")


def test_the_section_after_the_pending_list(capsys, api, tmp_path: Path):
    """--pending: one CA loop over every pending pod of the cluster (every namespace, as CA
    lists them), each pod of the list with its own answer from it; the section after the list."""
    groups = tmp_path / "groups.yaml"
    groups.write_text(GROUPS)
    base = ["pod", "--pending", "-n", "shop", "--kubeconfig", api.kubeconfig, "--node-groups", str(groups)]
    code, out, err = run_cli(capsys, *base, "-o", "json")
    assert code == 1, err
    doc = json.loads(out)
    loop = {f"{p['namespace']}/{p['name']}": p for p in doc["autoscaler"]["pods"]}
    assert list(loop) == ["batch/train-0", "default/upload-0", f"shop/{CHECKOUT}", "shop/gated-report",
                          "shop/vip-9f7c6d5b8-t4wqz", "shop/web-5f6d8c7b9-x9n2k"]    # listing order
    for item in doc["items"]:
        key = f"{item['pod']['namespace']}/{item['pod']['name']}"
        [answer] = item["autoscalers"]
        assert (answer["autoscaler"], answer["pod"], answer["outcome"]) == \
            ("ClusterAutoscaler", key, loop[key]["outcome"])
    assert loop["shop/gated-report"]["outcome"] == "NotListedAsUnschedulable"
    passed = doc["autoscaler"]["pendingPass"]
    assert set(passed["pods"]) == {f"shop/{i['pod']['name']}" for i in doc["items"]} and passed["clusterPending"] == 2
    assert "nodeGroupsFound" not in doc["autoscaler"]      # given, not found
    code, out, _ = run_cli(capsys, *base)
    assert out.index(f"shop/{CHECKOUT}") < out.index("\nCluster autoscaler\n")


def test_node_group_without_any_group_is_refused_after_reading(capsys, api):
    code, out, err = run_cli(capsys, "pod", CHECKOUT, "-n", "shop", "--kubeconfig", api.kubeconfig, "--node-group", "gpu")
    assert code == 2 and out == ""
    assert err == ("error: --node-group needs node groups: none were found in the cluster (CA's status ConfigMap, "
                   "provider labels, Cluster API): give --node-groups FILE\n")


# -- ONE loop over every pending pod of the cluster (all namespaces), whichever pod is explained --
# The recorded cluster plus pending pods in three more namespaces: two pods that only the `big`
# group's template can take (one scale-up covers both) and a pod no group can take (in a loop that
# scales up for the others, CA records no event on it: alone, it would get NotTriggerScaleUp).
ADDED = {"team-a/big-1": {"cpu": "12"}, "team-b/big-2": {"cpu": "12"},
         "ml/trainer": {"cpu": "1", "nvidia.com/gpu": "4"}}


def pending_pod(key: str, requests: dict[str, str], minute: int) -> dict:
    namespace, name = key.split("/")
    limits = {k: v for k, v in requests.items() if k == "nvidia.com/gpu"}
    created = f"2025-11-03T10:{minute:02d}:00Z"
    return {"metadata": {"name": name, "namespace": namespace, "uid": f"uid-{namespace}-{name}",
                         "resourceVersion": "50001", "creationTimestamp": created},
            "spec": {"containers": [{"name": "c", "image": "app:1",
                                     "resources": {"requests": requests, **({"limits": limits} if limits else {})}}],
                     "schedulerName": "default-scheduler", "priority": 0,
                     "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]},
            "status": {"phase": "Pending", "conditions": [
                {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "lastTransitionTime": created,
                 "message": "0/6 nodes are available"}]}}


def namespace(name: str) -> dict:
    return {"metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}, "uid": f"uid-ns-{name}",
                        "resourceVersion": "50000", "creationTimestamp": "2025-11-03T09:00:00Z"},
            "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}


@pytest.fixture
def busy(api):
    """The stand-in API server with the pending pods of three more namespaces (`ADDED`)."""
    api.collections["/api/v1/namespaces"]["items"] += [namespace(n) for n in ("team-a", "team-b", "ml")]
    api.collections["/api/v1/pods"]["items"] += [pending_pod(k, r, i) for i, (k, r) in enumerate(ADDED.items())]
    return api


def run_json(capsys, *args: str) -> tuple[int, dict]:
    code, out, err = run_cli(capsys, *args)
    assert code in (0, 1), err
    return code, json.loads(out)


def test_each_pod_gets_the_outcome_of_the_loop_over_all_of_them(capsys, busy, tmp_path: Path):
    groups = tmp_path / "groups.yaml"
    groups.write_text(GROUPS)
    live = ["--kubeconfig", busy.kubeconfig, "--node-groups", str(groups), "-o", "json"]
    _, listed = run_json(capsys, "pod", "--pending", "-A", *live)
    loop = {f"{p['namespace']}/{p['name']}": p for p in listed["autoscaler"]["pods"]}
    assert set(ADDED) <= set(loop)
    # the loop over all of them: one scale-up of big covers both big pods; no event on the trainer
    assert listed["autoscaler"]["expansion"]["scaleUps"] == [
        {"nodeGroup": "big", "currentSize": 0, "newSize": 2, "maxSize": 3}]
    assert loop["ml/trainer"]["outcome"] == "RemainsUnschedulableNoEvent" and loop["ml/trainer"]["events"] == []
    for key in ("team-a/big-1", "team-b/big-2"):
        assert loop[key]["events"][0]["message"] == "pod triggered scale-up: [{big 0->2 (max: 3)}]"
    answers = {f"{i['pod']['namespace']}/{i['pod']['name']}": i["autoscalers"][0] for i in listed["items"]}
    assert {k: a["outcome"] for k, a in answers.items()} == {k: loop[k]["outcome"] for k in answers}
    for key in ADDED:       # each pod explained on its own: the same loop, the same answer
        namespace_, name = key.split("/")
        _, trace = run_json(capsys, "pod", name, "-n", namespace_, *live)
        doc = trace["autoscaler"]
        assert [f"{p['namespace']}/{p['name']}" for p in doc["pods"]] == list(loop)
        [answer] = trace["autoscalers"]
        assert (answer["pod"], answer["outcome"], answer["events"]) == (key, loop[key]["outcome"], loop[key]["events"])
        assert doc["explained"]["pod"] == key
        assert doc["pendingPass"]["pods"] == {key: {"standsFor": f"Pod {key}"}}


def test_alone_the_pod_without_a_group_would_get_an_event(capsys, busy, tmp_path: Path):
    """What the one loop changes: the trainer's answer in a loop of its own (a file of just it,
    against the same nodes and groups) is CA's NotTriggerScaleUp, not the live loop's."""
    groups = tmp_path / "groups.yaml"
    groups.write_text(GROUPS)
    snapshot = tmp_path / "cluster.json"
    assert main(["snapshot", "--kubeconfig", busy.kubeconfig, "-o", str(snapshot)]) == 0
    capsys.readouterr()
    items = json.loads(snapshot.read_text())["items"]
    alone = [o for o in items if not (o.get("kind") == "Pod" and not (o.get("spec") or {}).get("nodeName"))]
    cluster = tmp_path / "alone.json"
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": alone}))
    pod = tmp_path / "trainer.json"
    pod.write_text(json.dumps({"apiVersion": "v1", "kind": "Pod", **pending_pod("ml/trainer", ADDED["ml/trainer"], 2)}))
    _, trace = run_json(capsys, str(pod), "--nodes", str(cluster), "--node-groups", str(groups), "--stored",
                   "-o", "json")
    [answer] = trace["autoscalers"]
    assert answer["outcome"] == "NotTriggerScaleUp"


def test_the_list_says_each_pods_answer(capsys, busy, tmp_path: Path):
    groups = tmp_path / "groups.yaml"
    groups.write_text(GROUPS)
    code, out, _ = run_cli(capsys, "pod", "--pending", "-A", "--kubeconfig", busy.kubeconfig, "--node-groups", str(groups),
                       "--details")
    assert code == 1
    section = out[out.index("\nCluster autoscaler\n"):]
    assert "Pending pods, each CA's answer in one loop over all of them" in section
    rows = {w[0]: w[1] for w in (line.split() for line in section.splitlines()) if len(w) == 2}
    assert rows["ml/trainer"] == "RemainsUnschedulableNoEvent" and rows["team-a/big-1"] == "TriggeredScaleUp"
    details = out[:out.index("\nCluster autoscaler\n")]        # each pod explained in full: its answer
    assert "Cluster autoscaler: RemainsUnschedulableNoEvent: no event: no group can take it" in " ".join(details.split())


# -- the scheduler's queue: pods explained alone, side by side with CA's one loop --
# Four copies of a 3-CPU api pod and a pod of team-b, all pending: node-a2 (7910m, the one GPU
# node; they tolerate its taint) has room for two of them. Alone, each fits node-a2; in the
# scheduler's queue (priority, then creation time) api-0 and api-1 take that room and the others
# no longer fit. CA's loop packs every pending pod of every scheduler by priority alone: the
# gpu-scheduler's batch/train-0 (4 CPUs and the GPU) goes to node-a2 before them, so it finds room
# for api-0 only.
CROWDED = {**{f"team-a/api-{i}": {"cpu": "3"} for i in range(4)}, "team-b/solo": {"cpu": "3"}}


@pytest.fixture
def crowded(api):
    api.collections["/api/v1/namespaces"]["items"] += [namespace(n) for n in ("team-a", "team-b")]
    api.collections["/api/v1/pods"]["items"] += [pending_pod(k, r, 20 + i) for i, (k, r) in enumerate(CROWDED.items())]
    return api


def test_each_pod_in_the_schedulers_queue_and_in_cas_loop(capsys, crowded, tmp_path: Path):
    groups = tmp_path / "groups.yaml"
    groups.write_text(GROUPS)
    live = ["--kubeconfig", crowded.kubeconfig, "--node-groups", str(groups)]
    code, listed = run_json(capsys, "pod", "--pending", "-A", *live, "-o", "json")
    loop = {f"{p['namespace']}/{p['name']}": p for p in listed["autoscaler"]["pods"]}
    assert {k: loop[k]["outcome"] for k in CROWDED} == {
        "team-a/api-0": "FilteredOut", "team-a/api-1": "TriggeredScaleUp", "team-a/api-2": "TriggeredScaleUp",
        "team-a/api-3": "TriggeredScaleUp", "team-b/solo": "TriggeredScaleUp"}
    assert loop["batch/train-0"]["node"] == loop["team-a/api-0"]["node"] == "node-a2"
    items = {f"{i['pod']['namespace']}/{i['pod']['name']}": i for i in listed["items"]}
    for key in CROWDED:         # each one's first attempt, alone: unchanged
        assert items[key]["result"]["status"] == "Scheduled" and items[key]["result"]["suggestedHost"] == "node-a2"
    in_queue = {k: (items[k].get("queue") or items[k])["result"]["status"] for k in CROWDED}
    assert in_queue == {"team-a/api-0": "Scheduled", "team-a/api-1": "Scheduled", "team-a/api-2": "Unschedulable",
                        "team-a/api-3": "Unschedulable", "team-b/solo": "Unschedulable"}
    assert [p["pod"] for p in items["team-a/api-2"]["queue"]["takenBy"]] == ["team-a/api-0", "team-a/api-1"]
    said = {k: items[k]["autoscalers"][0]["scheduler"] for k in CROWDED}
    assert {k: s["agrees"] for k, s in said.items()} == {k: k != "team-a/api-1" for k in CROWDED}
    assert "puts batch/train-0, team-a/api-0 on node-a2 first" in said["team-a/api-1"]["why"]
    assert code == 1
    for key in CROWDED:         # explained on its own: the same verdict in the queue, the same answer
        namespace_, name = key.split("/")
        code, trace = run_json(capsys, "pod", name, "-n", namespace_, *live, "-o", "json")
        assert (trace.get("queue") or trace)["result"]["status"] == in_queue[key]
        assert code == (0 if in_queue[key] == "Scheduled" else 1)
        if key == "team-a/api-0":       # the queue places it and CA finds it room: nothing to say
            assert "autoscalers" not in trace and "queue" not in trace
            continue
        [answer] = trace["autoscalers"]
        assert (answer["outcome"], answer["events"]) == (loop[key]["outcome"], loop[key]["events"])
        assert answer["scheduler"] == said[key]
    code, out, _ = run_cli(capsys, "pod", "api-2", "-n", "team-a", *live)
    top = " ".join(out[:out.index("Kubernetes 1.")].split())
    assert top.startswith("Pod team-a/api-2 (profile default-scheduler): Scheduled In the scheduler's queue it is "
                          "Unschedulable: alone it would be bound to node-a2, but of the ")
    assert "team-a/api-0, team-a/api-1 on node-a2; then: 0/6 nodes are available" in top
    assert "Cluster autoscaler: scales up big 0 -> " in top
    page = tmp_path / "api-2.html"
    run_cli(capsys, "pod", "api-2", "-n", "team-a", *live, "--html", str(page))
    assert "In the scheduler&#x27;s queue it is Unschedulable: alone it would be bound to node-a2" in page.read_text()
    code, out, _ = run_cli(capsys, "pod", "api-1", "-n", "team-a", *live)
    top = " ".join(out[:out.index("Kubernetes 1.")].split())
    assert "Cluster autoscaler: scales up big 0 -> " in top and "CA and the scheduler's queue differ here: " in top
    code, out, _ = run_cli(capsys, "pod", "--pending", "-A", *live)
    listing = out[:out.index("\nCluster autoscaler\n")]
    rows = {line.split()[0]: line for line in listing.splitlines() if line.startswith("team-")}
    assert [k for k, line in rows.items() if "fits now: would be bound to node-a2" in line] == \
        ["team-a/api-0", "team-a/api-1"]
    assert "alone it fits node-a2, taken first in the scheduler's queue by team-a/api-0, team-a/api-1; then: " \
        in rows["team-b/solo"]


def test_a_live_pod_preemption_nominates_gets_no_scale_up(capsys, api, tmp_path: Path):
    """The recorded vip pod without the nomination the scheduler gave it: its explanation's
    preemption nominates node-a1 again, so CA's loop counts it there, not among the pods to scale
    up for (pod NAME and --pending alike), and its victim is terminating in what CA reads."""
    pods = api.collections["/api/v1/pods"]["items"]
    vip = next(p for p in pods if p["metadata"]["name"].startswith("vip-"))
    del vip["status"]["nominatedNodeName"]
    groups = tmp_path / "groups.yaml"
    groups.write_text(GROUPS)
    live = ["--kubeconfig", api.kubeconfig, "--node-groups", str(groups), "-o", "json"]
    _, trace = run_json(capsys, "pod", vip["metadata"]["name"], "-n", "shop", *live)
    assert trace["postFilter"]["nominatedNodeName"] == "node-a1"
    [answer] = trace["autoscalers"]
    assert (answer["outcome"], answer["nominatedNodeName"]) == ("NotListedAsUnschedulable", "node-a1")
    assert trace["autoscaler"]["pendingPass"]["preempting"][f"shop/{vip['metadata']['name']}"]["victims"]
    _, listed = run_json(capsys, "pod", "--pending", "-A", *live)
    item = next(i for i in listed["items"] if i["pod"]["name"] == vip["metadata"]["name"])
    assert item["autoscalers"][0]["outcome"] == "NotListedAsUnschedulable"


def test_a_walk_cut_short_says_so(capsys, crowded, monkeypatch, tmp_path: Path):
    """The queue's walk schedules at most RERUNS pods again: the others keep their verdict alone,
    and stderr says which."""
    import kexplain.explain.queue_order as queue_order
    monkeypatch.setattr(queue_order, "RERUNS", 1)
    code, out, err = run_cli(capsys, "pod", "--pending", "-A", "--kubeconfig", crowded.kubeconfig, "-o", "json")
    # default/upload-0, ahead of them and after the nominated vip, is the one scheduled again
    assert err == ("note: walking the scheduler's queue, kexplain scheduled again at most 1 pods that fit alone and "
                   "8 that preempt; 5 more (team-a/api-0, ...) keep their verdict alone\n")
    items = {i["pod"]["name"]: i for i in json.loads(out)["items"]}
    assert "queue" not in items["api-2"] and items["api-2"]["result"]["status"] == "Scheduled"
