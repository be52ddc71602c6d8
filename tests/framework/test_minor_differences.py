"""Whole scheduling cycles where 1.33's kube-scheduler differs from later minors: the taint
named in the reason (and the longer FailedScheduling message, cut at 1,024 bytes), NodeResourcesFit
never UnschedulableAndUnresolvable (so preemption dry-runs more nodes), and DefaultPreemption
running after a PreFilter rejection (no DynamicResources PostFilter before it). The expected
texts are those the real v1.33.3 and v1.34.7 schedulers printed for these inputs."""
from __future__ import annotations

from pathlib import Path

import yaml

from kexplain.explain.inputs import load
from kexplain.explain.request import Request
from kexplain.explain.run import explain
from kexplain.features import KubeVersion


def node(name: str, cpu: str = "4", taints: list | None = None, unschedulable: bool = False) -> dict:
    spec: dict = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    alloc = {"cpu": cpu, "memory": "8Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "spec": spec, "status": {"capacity": alloc, "allocatable": alloc}}


def pod(name: str, cpu: str, node_name: str = "", volumes: list | None = None) -> dict:
    spec: dict = {"containers": [{"name": "c", "image": "nginx",
                                  "resources": {"requests": {"cpu": cpu, "memory": "256Mi"}}}]}
    if node_name:
        spec["nodeName"] = node_name
    if volumes:
        spec["volumes"] = volumes
    out = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}
    if node_name:
        out["status"] = {"phase": "Running"}
    return out


def trace(tmp_path: Path, minor: str, pending: dict, cluster: list[dict]) -> dict:
    pod_file, cluster_file = tmp_path / "pod.yaml", tmp_path / "cluster.yaml"
    pod_file.write_text(yaml.safe_dump(pending))
    cluster_file.write_text(yaml.safe_dump_all(cluster))
    req = Request(pod_path=str(pod_file), node_paths=(str(cluster_file),), kube=KubeVersion(minor))
    return explain(load(req).single, req.run).to_json()


GPU = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}
TAINTED_AND_SMALL = [node("n1", taints=[GPU]), node("n2", taints=[GPU]), node("n3", cpu="1"), node("n4", cpu="1"),
                     node("n5", cpu="2"), node("n6", unschedulable=True), pod("busy-5", "1500m", node_name="n5")]


def test_taint_named_and_fit_resolvable_by_preemption_in_1_33(tmp_path):
    t = trace(tmp_path, "1.33", pod("big", "2"), TAINTED_AND_SMALL)
    assert t["filter"]["n1"] == {"plugin": "TaintToleration", "code": "UnschedulableAndUnresolvable",
                                 "reasons": ["node(s) had untolerated taint {dedicated: gpu}"]}
    # the node smaller than the request is a potential preemption node in 1.33
    assert t["filter"]["n3"] == {"plugin": "NodeResourcesFit", "code": "Unschedulable", "reasons": ["Insufficient cpu"]}
    assert t["postFilter"]["plugins"] == [{
        "plugin": "DefaultPreemption", "code": "Unschedulable", "nominatedNodeName": "",
        "reasons": ["preemption: 0/6 nodes are available: 3 No preemption victims found for incoming pod, "
                    "3 Preemption is not helpful for scheduling."]}]
    assert t["result"]["message"] == (
        "0/6 nodes are available: 1 node(s) were unschedulable, 2 node(s) had untolerated taint {dedicated: gpu}, "
        "3 Insufficient cpu. preemption: 0/6 nodes are available: 3 No preemption victims found for incoming pod, "
        "3 Preemption is not helpful for scheduling.")


def test_same_cluster_in_1_34(tmp_path):
    t = trace(tmp_path, "1.34", pod("big", "2"), TAINTED_AND_SMALL)
    assert t["filter"]["n3"]["code"] == "UnschedulableAndUnresolvable"
    assert t["result"]["message"] == (
        "0/6 nodes are available: 1 node(s) were unschedulable, 2 node(s) had untolerated taint(s), "
        "3 Insufficient cpu. no new claims to deallocate, preemption: 0/6 nodes are available: "
        "1 No preemption victims found for incoming pod, 5 Preemption is not helpful for scheduling.")


def test_one_message_entry_per_taint_cut_at_1024_bytes_in_1_33(tmp_path):
    """FitError counts reasons by text, so each taint is its own entry; the event keeps 1,020
    bytes and ` ...`."""
    nodes = [node(f"n{i:02d}", taints=[{"key": f"example.com/team-{i:02d}", "value": "x" * 10, "effect": "NoSchedule"}])
             for i in range(30)]
    t = trace(tmp_path, "1.33", pod("p", "100m"), nodes)
    entries = sorted(f"1 node(s) had untolerated taint {{example.com/team-{i:02d}: xxxxxxxxxx}}" for i in range(30))
    full = (f"0/30 nodes are available: {', '.join(entries)}. "
            "preemption: 0/30 nodes are available: 30 Preemption is not helpful for scheduling.")
    assert len(full) > 1024
    assert t["result"]["message"] == full[:1020] + " ..."
    t34 = trace(tmp_path, "1.34", pod("p", "100m"), nodes)
    assert t34["result"]["message"] == (
        "0/30 nodes are available: 30 node(s) had untolerated taint(s). no new claims to deallocate, "
        "preemption: 0/30 nodes are available: 30 Preemption is not helpful for scheduling.")


IMMEDIATE_UNBOUND = [
    {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "fast"},
     "provisioner": "example.com/csi", "volumeBindingMode": "Immediate"},
    {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "default"},
     "spec": {"storageClassName": "fast", "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}},
    node("n1"), node("n2")]
CLAIMING = pod("db", "500m", volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}])


def test_preemption_runs_after_a_pre_filter_rejection_in_1_33(tmp_path):
    t = trace(tmp_path, "1.33", CLAIMING, IMMEDIATE_UNBOUND)
    assert t["postFilter"]["plugin"] == "DefaultPreemption"
    assert t["result"]["message"] == ("0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims. "
                                      "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.")


def test_dynamic_resources_post_filter_stops_it_from_1_34(tmp_path):
    t = trace(tmp_path, "1.34", CLAIMING, IMMEDIATE_UNBOUND)
    assert t["postFilter"]["framework"] == {"plugin": "DynamicResources", "code": "Error", "reasons": ["not found"]}
    assert t["result"]["message"] == "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found"
