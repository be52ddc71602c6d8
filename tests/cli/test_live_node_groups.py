"""`kexplain pod NAME --node-groups FILE`: the Cluster autoscaler section for a pod of a live
cluster (a local API server serving recorded responses, tests/data/live), the groups' members
found among the live nodes."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kexplain.cli.app import main
from tests.support.live_server import isolate, recorded_api

TOKEN = "t0ken-DO-NOT-PRINT"
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


@pytest.fixture(autouse=True)
def isolated(monkeypatch, tmp_path):
    isolate(monkeypatch, tmp_path / "home")


@pytest.fixture
def api(tmp_path):
    with recorded_api(tmp_path, TOKEN) as server:
        yield server
        assert {seen.method for seen in server.requests} <= {"GET"}


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    assert TOKEN not in out and TOKEN not in err
    return code, out, err


def test_the_section_for_a_live_pod(capsys, api, tmp_path: Path):
    groups = tmp_path / "groups.yaml"
    groups.write_text(GROUPS)
    base = ["pod", CHECKOUT, "-n", "shop", "--kubeconfig", api.kubeconfig, "--node-groups", str(groups)]
    code, out, err = run(capsys, *base, "-o", "json")
    assert code == 1, err
    trace = json.loads(out)
    doc = trace["autoscaler"]
    members = {g["name"]: g["nodes"] for g in doc["nodeGroups"]}
    assert members == {"general": ["node-a1", "node-b1", "node-c1"], "gpu": ["node-a2"], "big": []}
    assert doc["explained"]["pod"] == f"shop/{CHECKOUT}"
    assert set(doc["explained"]["nodeGroups"]) == {"general", "gpu", "big"}
    assert "live" in trace
    code, out, _ = run(capsys, *base)
    assert "\nCluster autoscaler\n" in out and "Node groups" in out
    code, out, _ = run(capsys, *base, "--node-group", "big")
    assert out.startswith(f"Node group big for pod shop/{CHECKOUT}: ")


def test_the_section_after_the_pending_list(capsys, api, tmp_path: Path):
    """--pending: one CA loop over every pending pod of the cluster (every namespace, as CA
    lists them), each pod of the list with its own answer from it; the section after the list."""
    groups = tmp_path / "groups.yaml"
    groups.write_text(GROUPS)
    base = ["pod", "--pending", "-n", "shop", "--kubeconfig", api.kubeconfig, "--node-groups", str(groups)]
    code, out, err = run(capsys, *base, "-o", "json")
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
    code, out, _ = run(capsys, *base)
    assert out.index(f"shop/{CHECKOUT}") < out.index("\nCluster autoscaler\n")


def test_node_group_without_any_group_is_refused_after_reading(capsys, api):
    code, out, err = run(capsys, "pod", CHECKOUT, "-n", "shop", "--kubeconfig", api.kubeconfig, "--node-group", "gpu")
    assert code == 2 and out == ""
    assert err == ("error: --node-group needs node groups: none were found in the cluster (CA's status ConfigMap, "
                   "provider labels, Cluster API): give --node-groups FILE\n")
