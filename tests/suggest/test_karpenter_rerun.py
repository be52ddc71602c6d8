"""A pass the suggestions run again starts from the first pass's cluster state, read and indexed once
(`kexplain.karpenter.state.cluster.overlay`), and from its existing nodes' starts (`NodeBases`): the
same answer as a pass made from scratch over the changed inputs, without reading the cluster again."""
from __future__ import annotations

import json
from typing import Any

from kexplain.features import KubeVersion
from kexplain.karpenter.inputs import load_pass
from kexplain.karpenter.run import Pass, document
from kexplain.karpenter.state import cluster as cluster_module
from kexplain.suggest.change import Op
from kexplain.suggest.karpenter_pass import PassRun, changed_pass, run
from tests.suggest.test_karpenter import GENERAL, NODE_CLASS, WORLD, pod, write

DS_UID = "ds-agent"


def node(name: str, zone: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                                                  "topology.kubernetes.io/zone": zone,
                                                  "node.kubernetes.io/instance-type": "m5.xlarge"}},
            "status": {"capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                       "allocatable": {"cpu": "3920m", "memory": "15Gi", "pods": "110"}}}


def bound(name: str, node_name: str, cpu: str, daemonset: bool = False) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default", "labels": {"app": name.split("-")[0]},
                            "creationTimestamp": "2026-01-01T00:00:00Z"}
    if daemonset:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent", "uid": DS_UID,
                                    "controller": True}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"nodeName": node_name, "containers": [{"name": "c", "image": "i", "resources": {
                "requests": {"cpu": cpu, "memory": "256Mi"}}}]},
            "status": {"phase": "Running"}}


AGENT = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "default",
                                                                      "uid": DS_UID},
         "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {
             "metadata": {"labels": {"app": "agent"}},
             "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "100m"}}}]}}}}


def inputs_of(tmp_path):
    """Three nodes in two zones, nearly full, a DaemonSet's pod on each; pending: a pod that fits on
    an existing node, one too big for them, and one whose nodeSelector no NodePool declares."""
    nodes = [node("node-a1", "us-west-2a"), node("node-a2", "us-west-2a"), node("node-b1", "us-west-2b")]
    pods = [bound(f"agent-{n['metadata']['name']}", n["metadata"]["name"], "100m", daemonset=True) for n in nodes]
    pods += [bound("busy-1", "node-a1", "3"), bound("busy-2", "node-a2", "3500m"), bound("busy-3", "node-b1", "2")]
    pending = [pod("small", "500m", "512Mi"), pod("big", "6", "8Gi"),
               pod("batch-job", node_selector={"workload": "batch"})]
    cluster = write(tmp_path, "cluster.yaml", [*nodes, *pods, AGENT, GENERAL, NODE_CLASS])
    return load_pass(write(tmp_path, "pending.yaml", pending), (cluster,), None, KubeVersion("1.35"),
                     max_bytes=1 << 22, max_objects=10_000)


DECLARE: list[Op] = [{"op": "add", "path": "/spec/template/metadata",
                      "value": {"labels": {"workload": "batch"}},
                      "object": {"kind": "NodePool", "name": "default"}}]
DROP_SELECTOR: list[Op] = [{"op": "remove", "path": "/spec/nodeSelector",
                            "object": {"kind": "Pod", "namespace": "default", "name": "batch-job"}}]


def doc_of(done: PassRun) -> str:
    return json.dumps(document(Pass(done.inputs, done.cloud, done.cluster, done.result)), sort_keys=True)


def test_a_pass_run_again_reads_the_cluster_once_and_answers_as_a_fresh_pass(tmp_path, monkeypatch):
    first = run(inputs_of(tmp_path), WORLD)
    assert first.placements["default/small"].result == "ExistingNode"
    assert not first.placed("default/batch-job")
    read: list[int] = []
    real = cluster_module._bound_pods

    def counting(*args: Any) -> Any:
        read.append(len(args[0]))
        return real(*args)

    monkeypatch.setattr(cluster_module, "_bound_pods", counting)
    for change in (DECLARE, DROP_SELECTOR):
        changed = changed_pass(first.inputs, change)
        assert changed is not None
        again = run(changed, WORLD, first)
        assert read == []                   # the bound pods were not read again
        assert all(a is b for a, b in zip(again.cluster.nodes, first.cluster.nodes))
        assert again.result.node_bases is first.result.node_bases
        assert again.placed("default/batch-job")
        monkeypatch.setattr(cluster_module, "_kept", [])     # (no state kept from the same objects)
        fresh = run(changed_pass(first.inputs, change), WORLD)          # from scratch: the cluster read again
        assert read
        read.clear()
        assert again.placements == fresh.placements
        assert doc_of(again) == doc_of(fresh)
        assert again.inputs.warnings == fresh.inputs.warnings


def test_the_overlay_chooses_each_daemonsets_pod_among_the_pending_pods_again(tmp_path, monkeypatch):
    """A DaemonSet's newest pod (whose requests Karpenter takes as its overhead) may be a pending one: a
    pass over other pending pods chooses again, as a cluster read afresh does."""
    inputs = inputs_of(tmp_path)
    first = run(inputs, WORLD)
    newer = bound("agent-new", "", "300m", daemonset=True)
    newer["metadata"]["creationTimestamp"] = "2026-01-01T06:00:00Z"
    del newer["spec"]["nodeName"]
    from dataclasses import replace
    from kexplain.model.pod import PodInfo
    with_new = replace(inputs, pending=[*inputs.pending, PodInfo(newer)], warnings=[])
    overlaid = cluster_module.new_cluster(with_new, first.cluster)
    monkeypatch.setattr(cluster_module, "_kept", [])     # (no state kept from the same objects)
    fresh = cluster_module.new_cluster(replace(with_new, warnings=[]))
    assert overlaid.nodes is first.cluster.nodes
    assert overlaid.daemonset_pods == fresh.daemonset_pods
    assert overlaid.daemonset_pods[("default", "agent")].name == "agent-new"
    assert first.cluster.daemonset_pods[("default", "agent")].name != "agent-new"
    assert [p.name for p in overlaid.pods] == [p.name for p in fresh.pods]
    # other bound pods (one fewer): read afresh; the same pod objects in another list are the same reads
    other = replace(inputs, bound_pods=list(inputs.bound_pods)[:-1], warnings=[])
    assert cluster_module.new_cluster(other, first.cluster).nodes is not first.cluster.nodes
