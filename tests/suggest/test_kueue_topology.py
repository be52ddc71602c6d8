"""Kueue's fixes for a pod set no topology domain holds (suggest/kueue_topology.py): four 8-GPU pods
required in one rack, every rack with three free Nodes: partial admission with the three the
closest rack takes, the requirement at the block level, and preferred instead of required, each
verified by Kueue's pass, and each admitting the Job when kexplain runs on the changed Job."""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from kexplain.suggest.change import apply_ops
from tests.support.cli_helpers import run_cli

TOPOLOGY = """apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: gpu-topology}
spec:
  levels: [{nodeLabel: block}, {nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: tas-gpu}
spec: {nodeLabels: {pool: gpu}, topologyName: gpu-topology}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: gpu-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors: [{name: tas-gpu, resources: [{name: nvidia.com/gpu, nominalQuota: "96"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: gpu-q, namespace: ml}
spec: {clusterQueue: gpu-cq}
"""
NODE = """---
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{pool: gpu, block: {block}, rack: {rack}, kubernetes.io/hostname: {name}}}
status:
  allocatable: {{cpu: "96", memory: 1Ti, pods: "110", nvidia.com/gpu: "8"}}
  conditions: [{{type: Ready, status: "True"}}]
"""
JOB = {"apiVersion": "batch/v1", "kind": "Job",
       "metadata": {"name": "train", "namespace": "ml", "uid": "0c8b6f9e-0000-4000-8000-000000000001",
                    "creationTimestamp": "2025-12-31T20:00:00Z", "labels": {"kueue.x-k8s.io/queue-name": "gpu-q"}},
       "spec": {"parallelism": 4, "completions": 4, "suspend": True, "template": {
           "metadata": {"annotations": {"kueue.x-k8s.io/podset-required-topology": "rack"}},
           "spec": {"restartPolicy": "Never", "containers": [
               {"name": "main", "image": "x", "resources": {"requests": {"nvidia.com/gpu": "8"},
                                                            "limits": {"nvidia.com/gpu": "8"}}}]}}}}


def _files(tmp_path: Path, job: dict) -> tuple[str, str]:
    nodes = "".join(NODE.format(name=f"{b}-{r}-n{i}", block=b, rack=f"{b}-{r}")
                    for b in ("b1", "b2") for r in ("r1", "r2") for i in range(3))
    (tmp_path / "cluster.yaml").write_text(TOPOLOGY + nodes)
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(job))
    return str(tmp_path / "job.yaml"), str(tmp_path / "cluster.yaml")


def _kueue(job: str, cluster: str, *extra: str) -> tuple[int, dict]:
    code, out, err = run_cli("kueue", job, "--nodes", cluster, "--now", "2026-01-01T00:00:00Z", "-o", "json", *extra)
    assert code in (0, 1), err
    return code, json.loads(out)


def test_a_rack_required_job_gets_the_topology_fixes_verified(tmp_path: Path) -> None:
    job, cluster = _files(tmp_path, JOB)
    code, doc = _kueue(job, cluster)
    assert code == 1
    topology = doc["explanation"]["workloads"][0]["podSets"][0]["topology"]
    assert topology["largestFit"]["count"] == 3
    found = {s["kind"]: s for s in doc["suggestions"]}
    assert set(found) == {"partial-admission", "topology-level-up", "topology-preferred"}
    assert found["partial-admission"]["values"]["minCount"] == 3
    assert found["partial-admission"]["change"][0]["path"] == "/metadata/annotations/kueue.x-k8s.io~1job-min-parallelism"
    assert found["topology-level-up"]["values"]["to"] == "block"
    assert found["topology-preferred"]["values"]["level"] == "rack"
    wl = doc["explanation"]["workloads"][0]["workload"]
    for s in found.values():
        assert s["verified"]["admits"] == [wl]
        changed = apply_ops(JOB, [op for op in s["change"] if op["object"]["kind"] == "Job"])
        (tmp_path / s["kind"]).mkdir()
        again, after = _kueue(*_files(tmp_path / s["kind"], changed), "--no-suggestions")
        assert again == 0 and after["workloads"][0]["quotaReserved"], s["kind"]
    code, text, _ = run_cli("kueue", job, "--nodes", cluster, "--now", "2026-01-01T00:00:00Z")
    flat = " ".join(text.split())
    assert "No single change was verified" not in flat
    assert "Require topology level block instead of rack for pod set main of Job ml/train" in flat
    assert "Prefer topology level rack instead of requiring it for pod set main of Job ml/train" in flat
