"""A pod the taint eviction controller deletes from an unreachable node stays Terminating (the
kubelet that would confirm the deletion is gone), and what its owner does then
(`controllers.terminating`): a ReplicaSet replaces it at once (FilterActivePods leaves terminating
pods out), a StatefulSet waits (it does not create the ordinal while the old pod exists), a Job per
its podReplacementPolicy; the way out is the pod GC controller's (Node deleted, the out-of-service
taint) or a force delete. In text, JSON and on the page."""
from __future__ import annotations

import json

import pytest

from kexplain.cli.app import main
from kexplain.controllers.terminating import replacement_policy, waits
from kexplain.features.kube_version import resolve
from tests.eviction.drain_cluster import node, pod, workload, write
from tests.support.cli_helpers import TestEnvironment

NOW = "2026-01-01T00:10:00Z"
UNREACHABLE = {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "timeAdded": "2026-01-01T00:00:00Z"}
OUT_OF_SERVICE = {"key": "node.kubernetes.io/out-of-service", "value": "nodeshutdown", "effect": "NoExecute"}


def job(name: str, **spec) -> dict:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": "default",
                                                                  "uid": f"uid-{name}"},
            "spec": {"template": {"metadata": {"labels": {"app": name}}, "spec": {
                "restartPolicy": "Never", "containers": [{"name": "main", "image": "app:1",
                                                          "resources": {"requests": {"cpu": "500m"}}}]}}, **spec}}


def cluster(*taints: dict) -> list[dict]:
    """node-a unreachable (Ready Unknown, the lifecycle controller's taint, 10 minutes ago: past every
    pod's 300 s), node-b with room; on node-a a ZooKeeper StatefulSet's zk-0, a ReplicaSet's pod and
    two Jobs' pods: one TerminatingOrFailed (the default), one with a podFailurePolicy (Failed)."""
    dead = node("node-a")
    dead["status"]["conditions"] = [{"type": "Ready", "status": "Unknown"}]
    dead["spec"]["taints"] = [UNREACHABLE, *taints]
    failure = {"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}]}
    return [dead, node("node-b"), workload("StatefulSet", "zk", 1, "zk"), workload("ReplicaSet", "web-7d9", 1, "web"),
            job("etl"), job("train", podFailurePolicy=failure),
            pod("zk-0", ("apps/v1", "StatefulSet", "zk"), app="zk"),
            pod("web-7d9-aaaaa", ("apps/v1", "ReplicaSet", "web-7d9")),
            pod("etl-x1", ("batch/v1", "Job", "etl"), app="etl"), pod("train-x1", ("batch/v1", "Job", "train"),
                                                                      app="train")]


def taints(tmp_path, objects: list[dict], *args: str) -> tuple[dict, str, str]:
    path = str(write(tmp_path / "cluster.yaml", objects))
    env, text = TestEnvironment(), TestEnvironment()
    main(["evict", "taints", "node-a", "--nodes", path, "--now", NOW, "-o", "json", *args], env)
    page = tmp_path / "page.html"
    main(["evict", "taints", "node-a", "--nodes", path, "--now", NOW, "--html", str(page), *args], text)
    return json.loads(env.out), " ".join(text.out.split()), page.read_text()


def test_each_owner_as_its_controller_does(tmp_path):
    doc, text, page = taints(tmp_path, cluster())
    rows = {r["pod"]: r for r in doc["whereTheyGo"]}
    zk = rows["default/zk-0"]
    assert zk["replaced"] is False and "node" not in zk
    assert zk["why"].startswith("StatefulSet zk does not create zk-0 again while the old pod exists")
    assert zk["onceGone"]["node"] == "node-b"
    assert any("node.kubernetes.io/out-of-service=nodeshutdown:NoExecute" in w for w in zk["wayOut"])
    assert any("kubectl delete pod zk-0 -n default --grace-period=0 --force" in w for w in zk["wayOut"])
    web = rows["default/web-7d9-aaaaa"]
    assert web["replaced"] is True and web["node"] == "node-b" and "(FilterActivePods)" in web["oldPod"]
    etl = rows["default/etl-x1"]
    assert etl["replaced"] is True and "TerminatingOrFailed" in etl["oldPod"]
    train = rows["default/train-x1"]
    assert train["replaced"] is False and "podReplacementPolicy Failed" in train["why"]
    assert "zk-0: not replaced while it stays Terminating: StatefulSet zk does not create zk-0 again" in text
    assert "zk-0's new pod goes" not in text and "the way out:" in text
    assert "once it is gone, the new pod goes to node-b" in text
    assert "StatefulSet zk does not create zk-0 again" in page and "out-of-service" in page


def test_the_out_of_service_taint_lets_the_statefulset_replace_it(tmp_path):
    doc, text, _ = taints(tmp_path, cluster(OUT_OF_SERVICE))
    zk = next(r for r in doc["whereTheyGo"] if r["pod"] == "default/zk-0")
    assert zk["replaced"] is True and zk["node"] == "node-b" and "pod GC controller" in zk["oldPod"]
    assert "zk-0: StatefulSet zk's new pod goes to node-b" in text


def test_a_reachable_node_changes_nothing(tmp_path):
    objects = cluster()
    objects[0]["status"]["conditions"] = [{"type": "Ready", "status": "True"}]
    objects[0]["spec"]["taints"] = [{"key": "dedicated", "effect": "NoExecute"}]
    doc, _, _ = taints(tmp_path, objects)
    assert all(r["replaced"] and "oldPod" not in r for r in doc["whereTheyGo"])


@pytest.mark.parametrize("spec, policy, waiting", [
    ({}, "TerminatingOrFailed", False), ({"podReplacementPolicy": "Failed"}, "Failed", True),
    ({"podFailurePolicy": {"rules": []}}, "Failed", True),
    ({"podFailurePolicy": {"rules": []}, "podReplacementPolicy": "TerminatingOrFailed"}, "TerminatingOrFailed", True)])
def test_a_jobs_policy_as_the_api_server_defaults_it(spec, policy, waiting):
    kube, _ = resolve("1.33", None)
    obj = job("j", **spec)
    assert replacement_policy(obj, kube) == policy
    assert (waits("Job", "j", "j-1", obj, kube) is not None) is waiting
