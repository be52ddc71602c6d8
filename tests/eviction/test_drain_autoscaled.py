"""What the Cluster Autoscaler would add for a drain's replacements left pending
(`app.eviction.autoscaled`): the app layer's autoscaler pass over the replacements' batch, the node
groups found in the cluster (here Cluster API's MachineSet that scales from zero), over the cluster
as the drain leaves it."""
from __future__ import annotations

import json

from kexplain.cli.app import main
from tests.eviction.drain_cluster import cluster, write
from tests.support.cli_helpers import TestEnvironment

NOW = "2026-01-01T00:00:00Z"
MACHINE_SET = {
    "apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachineSet",
    "metadata": {"name": "workers", "namespace": "capi", "annotations": {
        "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size": "0",
        "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size": "3",
        "capacity.cluster-autoscaler.kubernetes.io/cpu": "4",
        "capacity.cluster-autoscaler.kubernetes.io/memory": "8Gi",
        "capacity.cluster-autoscaler.kubernetes.io/maxPods": "10"}},
    "spec": {"clusterName": "prod", "replicas": 0, "selector": {"matchLabels": {"pool": "workers"}},
             "template": {"metadata": {"labels": {"pool": "workers"}}, "spec": {"clusterName": "prod"}}}}


def drain(tmp_path, objects, *args: str) -> tuple[int, dict, str]:
    path = str(write(tmp_path / "cluster.yaml", objects))
    env = TestEnvironment()
    code = main(["evict", "drain", "node-a", "--nodes", path, "--now", NOW, "-o", "json"], env)
    text = TestEnvironment()
    main(["evict", "drain", "node-a", "--nodes", path, "--now", NOW], text)
    return code, json.loads(env.out), text.out


def test_the_pending_replacements_get_cas_answer(tmp_path):
    """No room left with node-a cordoned: CA scales the MachineSet up for the replacements."""
    code, doc, text = drain(tmp_path, [*cluster({"minAvailable": 0}, b_pods=1, c_pods=1), MACHINE_SET])
    pending = [r for r in doc["replacements"] if r.get("status") == "Unschedulable"]
    assert pending and all(r["autoscalers"][0]["autoscaler"] == "ClusterAutoscaler" for r in pending)
    assert {r["autoscalers"][0]["outcome"] for r in pending} == {"TriggeredScaleUp"}
    assert doc["autoscalers"]["autoscaler"]["expansion"]["scaleUps"] == [
        {"nodeGroup": "MachineSet/capi/workers", "currentSize": 0, "newSize": 1, "maxSize": 3}]
    assert doc["autoscalers"]["autoscaler"]["nodeGroupsFound"]
    assert set(doc["autoscalers"]["replacements"]) == {f"default/{r['replacement']}" for r in pending}
    assert "the Cluster Autoscaler: TriggeredScaleUp (MachineSet/capi/workers 0->1 (max:\n    3))" in text


def test_nothing_is_said_without_node_groups_or_pending_replacements(tmp_path):
    _, doc, text = drain(tmp_path, cluster({"minAvailable": 0}, b_pods=1, c_pods=1))
    assert "autoscalers" not in doc and all("autoscalers" not in r for r in doc["replacements"])
    _, doc, _ = drain(tmp_path, [*cluster({"minAvailable": 0}), MACHINE_SET])
    assert "autoscalers" not in doc       # every replacement fits the nodes left


def test_karpenter_answers_too_when_the_cluster_holds_nodepools(tmp_path):
    """NodePools in the cluster (fixtures/karpenter's): Karpenter's document and answer beside CA's."""
    import yaml

    from tests.support.paths import FIXTURES

    pools = [o for o in yaml.safe_load_all((FIXTURES / "karpenter" / "nodepools.yaml").read_text()) if o]
    _, doc, text = drain(tmp_path, [*cluster({"minAvailable": 0}, b_pods=1, c_pods=1), *pools])
    pending = [r for r in doc["replacements"] if r.get("status") == "Unschedulable"]
    assert pending and "karpenter" in doc["autoscalers"] and "autoscaler" not in doc["autoscalers"]
    assert all(r["autoscalers"][0]["autoscaler"] == "Karpenter" for r in pending)
    # (node-a cordoned carries the unschedulable taint, as Karpenter reads it: a new NodeClaim, not node-a)
    assert {r["autoscalers"][0]["outcome"] for r in pending} == {"NewNodeClaim"}
    assert "Karpenter: NewNodeClaim (new NodeClaim general-00001 from NodePool general" in text
