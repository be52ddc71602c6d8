"""Pods whose requests add up alike but whose non-zero requests differ (a container, a sidecar or an
init container that requests nothing; memory requested as 0). NodeResourcesFit's Score reads the
non-zero requests (GetNonzeroRequests: 100m cpu, 200Mi memory per container that requests none),
but the real scheduler signs only the totals (Fit.SignPod signs computePodResourceRequest), so
OpportunisticBatching hands the second pod a node of the first pod's ranking even where its own
scores rank another node first. That is v1.35/v1.36's behaviour, kept; what no shortcut of ours may
do is reuse one pod's Filter or Score answers for the other (node memo, shared cycles)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.support.cli_helpers import explain_json

LIST_DEFAULTING = {     # (the System defaulting's spread constraints make no pod signable)
    "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
    "profiles": [{"schedulerName": "default-scheduler",
                  "pluginConfig": [{"name": "PodTopologySpread", "args": {"defaultingType": "List"}}]}]}
SIDE = {"name": "side", "image": "nginx"}       # requests nothing: non-zero 100m cpu, 200Mi memory


def _node(name: str, cpu: str, pods: str = "110") -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"capacity": {"cpu": cpu, "memory": "8Gi", "pods": pods}}}


def _pod(name: str, requests: dict, **spec) -> dict:
    containers = [{"name": "c", "image": "nginx", "resources": {"requests": requests}}, *spec.pop("extra", ())]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": containers, **spec}}


def _bound(pod: dict, node: str) -> dict:
    name = pod["metadata"]["name"]
    return {**pod, "metadata": {**pod["metadata"], "uid": f"uid-{name}"}, "spec": {**pod["spec"], "nodeName": node},
            "status": {"phase": "Running"}}


def _cluster(q_used: str, x_pods: str) -> list[dict]:
    """x: the first pod's best node (64 CPUs); p: 1 CPU, empty; q: 2 CPUs, `q_used` of them taken."""
    used = _pod("q-used", {"cpu": q_used, "memory": "0"})
    kata = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "kata"}, "handler": "kata",
            "overhead": {"podFixed": {"cpu": "100m"}}}
    return [_node("x", "64", pods=x_pods), _node("p", "1"), _node("q", "2"), _bound(used, "q"), kata]


def _explain(tmp_path: Path, capsys, name: str, pods: list[dict], cluster: list[dict], version: str) -> dict:
    (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump_all(pods))
    (tmp_path / f"{name}-cluster.yaml").write_text(yaml.safe_dump_all(cluster))
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(LIST_DEFAULTING))
    code, out, err = explain_json(capsys, str(tmp_path / f"{name}.yaml"), "--nodes", str(tmp_path / f"{name}-cluster.yaml"),
                                  "--config", str(tmp_path / "config.yaml"), "--kubernetes-version", version)
    assert code == 0, err
    return json.loads(out)


def _totals(trace: dict) -> dict[str, int]:
    return {node: s["total"] for node, s in trace["score"].items()}


def _fit(trace: dict, node: str) -> int:
    return trace["score"][node]["plugins"]["NodeResourcesFit"]["raw"]


A = _pod("a", {"cpu": "200m"})
B = _pod("b", {"cpu": "200m"}, extra=[SIDE])       # the same totals as A; non-zero 300m cpu, 400Mi memory


# q's used cpu that puts p first in A's ranking and q first in B's own (BalancedAllocation's score
# changed in 1.36, so the balance point moved)
@pytest.mark.parametrize("version, q_used", [("1.35", "220m"), ("1.36", "350m")])
def test_the_batch_hands_a_pod_the_previous_pods_ranking_as_the_scheduler_does(tmp_path, capsys, version, q_used):
    # x holds one pod: after A, B no longer fits there, so the batch hands B the next node of A's
    # ranking (p) without scoring; B's own scores (A bound on x, B alone) rank q first.
    cluster = _cluster(q_used, x_pods="1")
    first, second = _explain(tmp_path, capsys, "pods", [A, B], cluster, version)["items"]
    alone = _explain(tmp_path, capsys, "alone", [B], [*cluster, _bound(A, "x")], version)
    assert first["result"]["suggestedHost"] == "x"
    ranking = _totals(first)
    assert ranking["p"] > ranking["q"]
    assert second["hint"] == "p" and second["result"]["suggestedHost"] == "p" and second["score"] is None
    own = _totals(alone)
    assert own["q"] > own["p"] and alone["result"]["suggestedHost"] == "q"


def test_without_batching_the_second_pod_gets_its_own_answer(tmp_path, capsys):
    # 1.34 has no OpportunisticBatching: B's cycle is its own, whatever A's was.
    cluster = _cluster("220m", x_pods="1")
    _, second = _explain(tmp_path, capsys, "pods", [A, B], cluster, "1.34")["items"]
    alone = _explain(tmp_path, capsys, "alone", [B], [*cluster, _bound(A, "x")], "1.34")
    assert "hint" not in second
    assert second["score"] == alone["score"] and second["result"]["suggestedHost"] == "q"


@pytest.mark.parametrize("a, b", [
    (A, B),
    (A, _pod("b", {"cpu": "200m"}, initContainers=[{**SIDE, "restartPolicy": "Always"}])),   # a sidecar
    (_pod("a", {"cpu": "50m"}), _pod("b", {"cpu": "50m"}, initContainers=[SIDE])),          # init: 100m cpu
    (A, _pod("b", {"cpu": "200m", "memory": "0"})),                                         # memory: 0
    (A, _pod("b", {"cpu": "200m"}, runtimeClassName="kata")),                              # overhead
])
def test_a_pod_after_another_is_scored_as_alone(tmp_path, capsys, a, b):
    # x keeps room: B still fits where A went, so there is no hint and B's cycle scores every node,
    # through the node memo that A's cycle filled on the same NodeInfos of p and q.
    cluster = _cluster("220m", x_pods="110")
    first, second = _explain(tmp_path, capsys, "pods", [a, b], cluster, "1.35")["items"]
    alone = _explain(tmp_path, capsys, "alone", [b], [*cluster, _bound(a, "x")], "1.35")
    assert "hint" not in second
    # (p and q are the very NodeInfos A's cycle scored: A's answers there are not B's)
    assert [_fit(second, n) for n in "pq"] != [_fit(first, n) for n in "pq"]
    assert second["score"] == alone["score"]
    assert second["result"]["suggestedHost"] == alone["result"]["suggestedHost"]


GPU_CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
             "spec": {"extendedResourceName": "example.com/gpu"}}


@pytest.mark.parametrize("version, classes, hinted", [
    ("1.36", [GPU_CLASS], False),       # DRAExtendedResource on: Fit.SignPod refuses to sign
    ("1.36", [], True),                 # no DeviceClass provides the resource
    ("1.35", [GPU_CLASS], True),        # the gate is off
])
def test_a_pod_requesting_an_extended_resource_a_device_class_provides_is_never_batched(
        tmp_path, capsys, version, classes, hinted):
    nodes = [_node(f"n{i}", "4") for i in range(3)]
    for node in nodes:
        node["status"]["capacity"]["example.com/gpu"] = "1"
    pods = [_pod(name, {"cpu": "100m", "example.com/gpu": "1"}) for name in ("a", "b")]
    for pod in pods:
        pod["spec"]["containers"][0]["resources"]["limits"] = {"example.com/gpu": "1"}
    _, second = _explain(tmp_path, capsys, "pods", pods, [*nodes, *classes], version)["items"]
    assert ("hint" in second) is hinted
    assert (second["score"] is None) is hinted
