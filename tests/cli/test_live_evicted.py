"""Why was this pod evicted? `kexplain pod NAME` (live, against the stand-in API server) and
`kexplain POD.yaml` (files) on a pod the kubelet evicted or one with a DisruptionTarget
condition: the trace's `eviction` key and its text section, the scheduling answer and the exit
code kept as for the same pod without its eviction."""
from __future__ import annotations

import copy
import json

import pytest
import yaml

from tests.support.live_server import POD_PATH, isolated, recorded_api, run_cli  # noqa: F401
from tests.support.paths import ROOT

BOUND = "web-5f6d8c7b9-2xkqp"       # the recorded cluster's web pod on node-a1
MESSAGE = ("The node was low on resource: memory. Threshold quantity: 500Mi, available: 409600Ki. "
           "Container web was using 1536Mi, request is 1Gi, has larger consumption of memory. ")
FAILED = {"phase": "Failed", "reason": "Evicted", "message": MESSAGE,
          "conditions": [{"type": "DisruptionTarget", "status": "True", "reason": "TerminationByKubelet",
                          "message": MESSAGE, "lastTransitionTime": "2026-11-27T04:00:00Z"}]}


@pytest.fixture
def api(tmp_path):
    """The recorded cluster with two failed copies of the web pod on node-a1: one the kubelet
    evicted, one that failed without an eviction (the same pod, to compare with)."""
    with recorded_api(tmp_path) as server:
        items = server.collections[POD_PATH]["items"]
        bound = next(i for i in items if i["metadata"]["name"] == BOUND)
        for name, status in (("web-evicted", FAILED), ("web-failed", {"phase": "Failed"})):
            pod = copy.deepcopy(bound)
            pod["metadata"]["name"], pod["status"] = name, copy.deepcopy(status)
            items.append(pod)
        yield server


def live(capsys, api, name: str, *more: str) -> tuple[int, str, str]:
    return run_cli(capsys, "pod", name, "-n", "shop", "--kubeconfig", api.kubeconfig, *more)


def test_live_evicted_pod_says_who_and_why(capsys, api):
    code, out, _ = live(capsys, api, "web-evicted", "-o", "json")
    trace = json.loads(out)
    doc = trace["eviction"]
    assert (doc["by"], doc["cause"], doc["node"]) == ("kubelet", "TerminationByKubelet", "node-a1")
    assert doc["condition"]["lastTransitionTime"] == "2026-11-27T04:00:00Z"
    assert doc["kubelet"]["threshold"] == "500Mi" and doc["kubelet"]["available"] == "409600Ki"
    assert doc["kubelet"]["usages"] == [{"kind": "Container", "name": "web", "usage": "1536Mi", "request": "1Gi",
                                         "overRequest": "512Mi"}]
    same_code, same_out, _ = live(capsys, api, "web-failed", "-o", "json")
    same = json.loads(same_out)
    assert "eviction" not in same
    assert code == same_code and trace["result"] == same["result"]     # the scheduling answer is kept
    assert api.methods == {"GET"}


def test_live_evicted_pod_text(capsys, api):
    code, out, _ = live(capsys, api, "web-evicted")
    assert out.startswith("Removed by the kubelet of node-a1\n")
    assert "Container web: used 1536Mi, requested 1Gi, 512Mi over its request" in out
    assert "Threshold: 500Mi, available: 409600Ki" in out
    assert "Below: where the scheduler would place it now" in out
    assert out.index("Removed by") < out.index("Pod shop/web-evicted")
    assert all(len(line) <= 80 for line in out.splitlines()[:12])


@pytest.mark.parametrize("reason, by", [("EvictionByEvictionAPI", "Eviction API"),
                                        ("DeletionByTaintManager", "taint eviction controller"),
                                        ("PreemptionByScheduler", "kube-scheduler")])
def test_files_disruption_target(capsys, tmp_path, reason, by):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "shop"},
           "spec": {"containers": [{"name": "web", "image": "web", "resources": {"requests": {"cpu": "100m"}}}]},
           "status": {"phase": "Running", "conditions": [{"type": "DisruptionTarget", "status": "True",
                                                          "reason": reason, "message": "said"}]}}
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump(pod))
    nodes = str(ROOT / "fixtures" / "cluster.yaml")
    code, out, _ = run_cli(capsys, str(path), "--nodes", nodes, "-o", "json")
    trace = json.loads(out)
    assert trace["eviction"] == {"by": by, "cause": reason, "phase": "Running",
                                 "condition": {"type": "DisruptionTarget", "reason": reason, "message": "said"}}
    del pod["status"]
    path.write_text(yaml.safe_dump(pod))
    plain_code, plain_out, _ = run_cli(capsys, str(path), "--nodes", nodes, "-o", "json")
    assert code == plain_code and json.loads(plain_out)["result"] == trace["result"]
    code, out, _ = run_cli(capsys, str(path.with_name("pod.yaml")), "--nodes", nodes)
    assert "Removed by" not in out


def test_files_evicted_pod_naming_its_node(capsys, tmp_path):
    """A pod file that names its node: the kubelet's admission is the answer now, after who removed it."""
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "shop"},
           "spec": {"nodeName": "node-1", "containers": [{"name": "web", "image": "web",
                                                          "resources": {"requests": {"memory": "1Gi"}}}]},
           "status": FAILED}
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump(pod))
    code, out, _ = run_cli(capsys, str(path), "--nodes", str(ROOT / "fixtures" / "cluster.yaml"))
    assert out.startswith("Removed by the kubelet of node-1\n")
    assert "Below: whether its node's kubelet would admit it now" in out
    assert out.index("Removed by") < out.index("Pod shop/web (spec.nodeName node-1)")
    assert code == 0


def test_docs_show_the_real_output(capsys):
    """docs/eviction.md's "Why was my pod evicted?" shows what kexplain prints for its fixture."""
    code, out, _ = run_cli(capsys, str(ROOT / "fixtures" / "eviction" / "evicted-pod.yaml"),
                           "--nodes", str(ROOT / "fixtures" / "cluster.yaml"))
    docs = (ROOT / "docs" / "eviction.md").read_text()
    shown = docs[docs.index("$ kexplain fixtures/eviction/evicted-pod.yaml"):]
    head = "\n".join(out.splitlines()[:18])
    assert code == 0 and head in shown
