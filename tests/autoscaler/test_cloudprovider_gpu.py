"""The cloud provider CA runs with and its GPU label (cloudprovider/<p>: GPULabel()): which provider
kexplain follows (--cloud-provider, the groups' ids, the nodes' providerIDs, else CA's test
provider), and that --gpu-total, GPU readiness and GPU utilization read that provider's label."""
from __future__ import annotations

import pytest

from kexplain.autoscaler.cloudprovider.provider import PROVIDERS, TEST, choose, unknown_name
from kexplain.autoscaler.gpu import gpu_target, listed_gpu_ready, node_gpu_config
from kexplain.autoscaler.readiness import RESOURCE_UNREADY, node_readiness
from kexplain.autoscaler.resourcelimits import node_resources
from kexplain.autoscaler.scaledown.utilization import gpu_resource
from kexplain.errors import InputError, Source
from kexplain.autoscaler.params import parse_settings
from tests.autoscaler.test_flags import by_name, group, node, pod, run, template

MIG = "https://www.googleapis.com/compute/v1/projects/p/zones/us-central1-a/instanceGroups/gke-prod-gpu-1a2b3c4d-grp"
ASG = "eks-gpu-0f1e2d3c-4b5a-4697-8877-665544332211"


def gpu_node(labels: dict, gpus: str | None = "1", provider_id: str = "") -> dict:
    status = {"capacity": {"cpu": "8", "memory": "32Gi"}, "allocatable": {"cpu": "8", "memory": "32Gi"},
              "conditions": [{"type": "Ready", "status": "True"}]}
    if gpus is not None:
        status["capacity"]["nvidia.com/gpu"] = status["allocatable"]["nvidia.com/gpu"] = gpus
    out = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "g1", "labels": labels}, "status": status}
    if provider_id:
        out["spec"] = {"providerID": provider_id}
    return out


# -- which provider -----------------------------------------------------------------------------
@pytest.mark.parametrize(("flag", "groups", "cluster_api", "provider_ids", "name", "why"), [
    ("aws", [MIG], False, ["gce://p/us-central1-a/i"], "aws", "--cloud-provider=aws in --autoscaler-config"),
    (None, ["MachineDeployment/ns/md"], True, ["aws:///us-east-1a/i-1"], "clusterapi", "Cluster API"),
    (None, [MIG, "other"], False, [], "gce", "MIG URLs"),
    (None, [ASG], False, [], "aws", "ASG names"),
    (None, ["aks-gpu-12345678-vmss"], False, [], "azure", "scale set names"),
    (None, ["general"], False, ["aws:///us-east-1a/i-1", ""], "aws", "providerIDs are aws's"),
    (None, ["general"], False, ["azure:///subscriptions/s/x"], "azure", "providerIDs are azure's"),
    (None, [MIG, ASG], False, ["gce://p/z/i"], "gce", "providerIDs are gce's"),     # the ids disagree: the nodes say
    (None, ["general"], False, ["aws:///z/i", "gce://p/z/i"], "test", "several providers (aws, gce)"),
    (None, ["general"], False, [], "test", "nothing names another provider"),
])
def test_the_provider_followed_and_why(flag, groups, cluster_api, provider_ids, name, why):
    nodes = [{"kind": "Node", "metadata": {"name": f"n{i}"}, "spec": {"providerID": p}}
             for i, p in enumerate(provider_ids)]
    chosen = choose(flag, dict.fromkeys(groups), cluster_api, nodes)
    assert chosen.provider.name == name and why in chosen.why


@pytest.mark.parametrize(("name", "label"), [
    ("aws", "k8s.amazonaws.com/accelerator"), ("gce", "cloud.google.com/gke-accelerator"),
    ("azure", "kubernetes.azure.com/accelerator"), ("clusterapi", "cluster-api/accelerator"),
])
def test_each_providers_gpu_label_is_cas(name, label):
    assert PROVIDERS[name].gpu_label == label
    assert TEST.gpu_label == "TestGPULabel/accelerator"


def test_cloud_provider_is_a_flag_kexplain_applies():
    assert parse_settings({"flags": {"cloud-provider": "gce"}}, Source("p.yaml")).given == {"cloud-provider": "gce"}
    with pytest.raises(InputError, match="kexplain applies the providers aws, gce, azure, clusterapi"):
        parse_settings({"flags": {"cloud-provider": "hetzner"}}, Source("p.yaml"))
    assert unknown_name("aws") is None


# -- what reads the label ------------------------------------------------------------------------
def test_gpu_type_counts_under_the_providers_label_only():
    eks = gpu_node({"k8s.amazonaws.com/accelerator": "nvidia-tesla-t4"}, "4")
    assert gpu_target(eks, None, PROVIDERS["aws"]) == ("nvidia-tesla-t4", 4)
    assert gpu_target(eks, None, TEST) is None and gpu_target(eks, None, PROVIDERS["gce"]) is None
    assert node_resources(eks, None, PROVIDERS["aws"])["nvidia-tesla-t4"] == 4
    assert "nvidia-tesla-t4" not in node_resources(eks)


def test_a_gke_node_with_gpus_through_dra_counts_none_and_is_never_gpu_unready():
    gce = PROVIDERS["gce"]
    dra = gpu_node({"cloud.google.com/gke-accelerator": "nvidia-l4", "cloud.google.com/gke-gpu-dra-driver": "true"},
                   None)
    assert node_gpu_config(dra, gce).via_dra and gpu_target(dra, None, gce) is None
    assert listed_gpu_ready(dra, gce) is dra
    assert gpu_resource(dra, gce) is None


def test_a_node_with_the_label_and_no_gpu_allocatable_is_listed_unready():
    gce = PROVIDERS["gce"]
    waiting = gpu_node({"cloud.google.com/gke-accelerator": "nvidia-l4"}, None)
    listed = listed_gpu_ready(waiting, gce)
    assert not node_readiness(listed).ready and node_readiness(listed).reason == RESOURCE_UNREADY
    assert listed_gpu_ready(waiting, TEST) is waiting          # not the followed provider's label
    assert listed_gpu_ready(gpu_node({"cloud.google.com/gke-accelerator": "nvidia-l4"}), gce)["status"][
        "conditions"] == [{"type": "Ready", "status": "True"}]
    assert gpu_resource(waiting, gce) == "nvidia.com/gpu" and gpu_resource(waiting, TEST) is None


# -- the loop ---------------------------------------------------------------------------------------
EKS_GROUPS = [group("small"), group("gpu", 6, template("gpu", "8", {"k8s.amazonaws.com/accelerator": "nvidia-tesla-t4"},
                                                         **{"nvidia.com/gpu": "4"}))]


@pytest.mark.parametrize(("flags", "provider_id", "result", "provider"), [
    ({}, "", "ScaleUpSuccessful", "test"),                                   # nothing says aws: the test provider
    ({"cloud-provider": "aws"}, "", "ScaleUpNoOptionsAvailable", "aws"),     # --cloud-provider says it
    ({}, "aws:///us-east-1a/i-0abc", "ScaleUpNoOptionsAvailable", "aws"),    # the nodes' providerIDs say it
])
def test_gpu_total_reads_the_providers_label(tmp_path, flags, provider_id, result, provider):
    cluster = [node("n1", "small", **({"spec": {"providerID": provider_id}} if provider_id else {}))]
    code, doc, err = run(tmp_path, [pod("t", "1", gpu=True)], cluster, EKS_GROUPS,
                         {"flags": {"gpu-total": ["nvidia-tesla-t4:0:3"], **flags}})
    assert doc["result"] == result, err
    assert doc["cloudProvider"]["name"] == provider
    if provider == "aws":
        assert by_name(doc)["gpu"]["skipped"] == ['exceeded quota: "cluster-wide", resources: nvidia-tesla-t4']
        assert doc["cloudProvider"]["notes"] == []
    else:       # the label CA does not read is said
        (note,) = doc["cloudProvider"]["notes"]
        assert note.startswith("node group gpu's template carries k8s.amazonaws.com/accelerator, aws's GPU label")
        assert note.endswith("give cloud-provider: aws in --autoscaler-config if CA runs on aws")


def test_a_gpu_node_whose_driver_is_not_up_is_no_template(tmp_path):
    """FilterOutNodesWithUnreadyResources: on gce, a member with the GPU label and no GPU
    allocatable is unready, so the group's template comes from the provider."""
    waiting = node("g1", "gpu", metadata={"labels": {"pool": "gpu", "cloud.google.com/gke-accelerator": "nvidia-l4"}},
                   spec={"providerID": "gce://p/us-central1-a/g1"})
    groups = [group("gpu", 6, template("gpu", "8", {"from": "provider"}, **{"nvidia.com/gpu": "1"}))]
    code, doc, err = run(tmp_path, [pod("t", "1", gpu=True)], [waiting], groups)
    assert doc["cloudProvider"]["name"] == "gce", err
    assert by_name(doc)["gpu"]["template"]["source"] == "template"
    code, doc, err = run(tmp_path, [pod("t", "1", gpu=True)], [waiting], groups, {"flags": {"cloud-provider": "aws"}})
    assert by_name(doc)["gpu"]["template"]["source"] == "node"
