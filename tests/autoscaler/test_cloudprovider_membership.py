"""Node groups as the providers make them (CA's NodeGroupForNode per provider): a GKE node pool over
three zones is three MIGs, each with its zone's nodes (by providerID, else by pool label and
zone), an empty zone's MIG templated from its pool's nodes; Azure scale sets by providerID;
EKS managed node groups' ASGs by their label; and the names people know a group by."""
from __future__ import annotations

import pytest

from kexplain.apimachinery.labels import LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_TOPOLOGY_ZONE
from kexplain.autoscaler.cloudprovider import aws, azure, discover, gce, names
from kexplain.autoscaler.cloudprovider.membership import NodeRef, members

PROJECT = "shop-prod"
POOL = gce.POOL_LABEL
MIG = {"a": "gke-prod-default-pool-1a2b3c4d-grp", "b": "gke-prod-default-pool-5e6f7a8b-grp",
       "c": "gke-prod-default-pool-9c0d1e2f-grp"}
HIGHMEM = {"a": "gke-prod-highmem-pool-0a1b2c3d-grp", "b": "gke-prod-highmem-pool-4e5f6a7b-grp"}


def url(zone: str, name: str) -> str:
    return f"https://www.googleapis.com/compute/v1/projects/{PROJECT}/zones/us-central1-{zone}/instanceGroups/{name}"


def gke_node(instance: str, pool: str, zone: str, provider_id: bool = True, cpu: str = "3920m") -> dict:
    labels = {POOL: pool, LABEL_TOPOLOGY_ZONE: f"us-central1-{zone}", LABEL_FAILURE_DOMAIN_BETA_ZONE:
              f"us-central1-{zone}", "topology.gke.io/zone": f"us-central1-{zone}",
              "topology.kubernetes.io/region": "us-central1", "kubernetes.io/hostname": instance,
              "node.kubernetes.io/instance-type": "e2-standard-4"}
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": instance, "labels": labels},
            "spec": {"taints": [{"key": "dedicated", "value": "shop", "effect": "NoSchedule"}]},
            "status": {"capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                       "allocatable": {"cpu": cpu, "memory": "13Gi", "pods": "110"}}}
    if provider_id:
        node["spec"]["providerID"] = f"gce://{PROJECT}/us-central1-{zone}/{instance}"
    return node


def status(*groups: str) -> dict:
    items = "".join(f"- name: {g}\n  health: {{cloudProviderTarget: 1, maxSize: 5, minSize: 0}}\n" for g in groups)
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"namespace": "kube-system", "name": "cluster-autoscaler-status"},
            "data": {"status": f"autoscalerStatus: Running\nnodeGroups:\n{items}"}}


def gke_cluster(provider_id: bool = True) -> list[dict]:
    """A GKE-like cluster: default-pool over zones a, b and c (a node each, two in c), highmem-pool
    in a (no node yet) and b."""
    nodes = [gke_node(f"{MIG[z].removesuffix('-grp')}-{s}", "default-pool", z, provider_id)
             for z, s in (("a", "x1k2"), ("b", "p9q8"), ("c", "m3n4"), ("c", "t5u6"))]
    nodes.append(gke_node(f"{HIGHMEM['b'].removesuffix('-grp')}-w7v6", "highmem-pool", "b", provider_id, cpu="7910m"))
    return nodes + [status(*(url(z, MIG[z]) for z in "abc"), *(url(z, HIGHMEM[z]) for z in "ab"))]


@pytest.mark.parametrize("provider_id", [True, False], ids=["providerID", "labels"])
def test_a_gke_pool_over_three_zones_is_three_migs_each_with_its_zones_nodes(provider_id):
    found = discover(gke_cluster(provider_id))
    assert [g.name for g in found.groups] == [*(url(z, MIG[z]) for z in "abc"), *(url(z, HIGHMEM[z]) for z in "ab")]
    assert dict(found.members) == {
        url("a", MIG["a"]): ("gke-prod-default-pool-1a2b3c4d-x1k2",),
        url("b", MIG["b"]): ("gke-prod-default-pool-5e6f7a8b-p9q8",),
        url("c", MIG["c"]): ("gke-prod-default-pool-9c0d1e2f-m3n4", "gke-prod-default-pool-9c0d1e2f-t5u6"),
        url("a", HIGHMEM["a"]): (),
        url("b", HIGHMEM["b"]): ("gke-prod-highmem-pool-4e5f6a7b-w7v6",)}
    assert not any("claimed" in n or "not ready for scale-up" in n for n in found.notes)
    assert dict(found.groups[1].node_selector) == {POOL: "default-pool", LABEL_TOPOLOGY_ZONE: "us-central1-b"}
    assert found.by_provider_id == (frozenset(g.name for g in found.groups if found.members[g.name])
                                    if provider_id else frozenset())


def test_an_empty_zones_mig_takes_its_template_from_a_node_of_its_pool_in_another_zone():
    found = discover(gke_cluster())
    empty = next(g for g in found.groups if g.name == url("a", HIGHMEM["a"]))
    labels = empty.template["metadata"]["labels"]
    assert labels[POOL] == "highmem-pool" and "kubernetes.io/hostname" not in labels
    assert {labels[k] for k in (LABEL_TOPOLOGY_ZONE, LABEL_FAILURE_DOMAIN_BETA_ZONE, "topology.gke.io/zone")} == {
        "us-central1-a"}
    assert labels["topology.kubernetes.io/region"] == "us-central1"
    assert empty.template["status"]["allocatable"]["cpu"] == "7910m"
    assert empty.template["spec"]["taints"] == [{"key": "dedicated", "value": "shop", "effect": "NoSchedule"}]
    (note,) = [n for n in found.notes if n.startswith(f"node group {empty.name}")]
    assert note == (f"node group {empty.name}: no node in its zone us-central1-a; template from node "
                    "gke-prod-highmem-pool-4e5f6a7b-w7v6 of the same node pool (MIG gke-prod-highmem-pool-4e5f6a7b-grp, "
                    "zone us-central1-b) with its zone labels set to us-central1-a, as CA builds it from the MIG's "
                    "instance template; not included: the kube-proxy pod CA adds to it (100m cpu)")


def test_the_providerid_decides_over_the_labels():
    """An instance is its MIG's by project, zone and base instance name, whatever its labels;
    an instance named as no MIG's base name falls back to the pool label and the providerID's zone."""
    groups = [url(z, MIG[z]) for z in "ab"]
    stale = NodeRef("n1", {POOL: "other-pool", LABEL_TOPOLOGY_ZONE: "us-central1-a"},
                    f"gce://{PROJECT}/us-central1-b/gke-prod-default-pool-5e6f7a8b-zz11")
    by_hand = NodeRef("n2", {POOL: "default-pool", LABEL_TOPOLOGY_ZONE: "us-central1-b"},
                      f"gce://{PROJECT}/us-central1-a/worker-7")
    elsewhere = NodeRef("n3", {POOL: "default-pool"}, f"gce://other-project/us-central1-a/worker-8")
    found = members(groups, [stale, by_hand, elsewhere, NodeRef("default-pool", {})], [POOL])
    assert found.members == {groups[0]: ["n2"], groups[1]: ["n1"]} and found.notes == []
    assert found.by_provider_id == {groups[1]}


def test_mig_urls_and_provider_ids_are_read_as_ca_reads_them():
    assert gce.parse_mig_url(url("a", MIG["a"])) == gce.GceRef(PROJECT, "us-central1-a", MIG["a"])
    assert gce.parse_mig_url("gke-prod-default-pool-1a2b3c4d-grp") is None
    assert gce.ref_from_provider_id("gce://p/z/i") == gce.GceRef("p", "z", "i")
    assert gce.ref_from_provider_id("gce://p/z") is None and gce.ref_from_provider_id("aws:///z/i-1") is None
    assert gce.basename(gce.GceRef("p", "z", MIG["a"])) == "gke-prod-default-pool-1a2b3c4d"
    assert gce.basename(gce.GceRef("p", "z", "workers")) == "workers"


AKS = "aks-userpool-12345678-vmss"


def vmss_id(scale_set: str, n: int) -> str:
    return (f"azure:///subscriptions/0000/resourceGroups/MC_rg_aks_eastus/providers/Microsoft.Compute/"
            f"virtualMachineScaleSets/{scale_set}/virtualMachines/{n}")


def test_an_azure_scale_set_has_the_instances_its_providerid_names_without_regard_to_case():
    flexible = ("azure:///subscriptions/0000/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/"
                "aks-userpool-vm-3")
    nodes = [NodeRef("aks-userpool-12345678-vmss000000", {}, vmss_id(AKS.upper(), 0)),
             NodeRef("aks-userpool-vm-3", {azure.AGENTPOOL_LABEL: "userpool"}, flexible),
             NodeRef("aks-system-87654321-vmss000000", {azure.AGENTPOOL_LABEL: "system"},
                     vmss_id("aks-system-87654321-vmss", 0))]
    found = members([AKS], nodes, [azure.AGENTPOOL_LABEL])
    assert found.members == {AKS: ["aks-userpool-12345678-vmss000000", "aks-userpool-vm-3"]}
    assert found.by_provider_id == {AKS}
    assert azure.scale_set_of(flexible) == "" and azure.agent_pool(AKS) == "userpool"


EKS_ASG = "eks-general-xlarge-d2c5e8a1-3b4f-4c6d-9e0f-1a2b3c4d5e6f"


def test_an_asg_has_the_nodes_of_its_managed_node_group_label_not_of_its_providerid():
    nodes = [NodeRef("ip-10-0-1-11", {aws.NODEGROUP_LABEL: "general-xlarge"}, "aws:///us-east-1a/i-0a1b"),
             NodeRef("ip-10-0-2-12", {aws.NODEGROUP_LABEL: "general-xlarge"}, "aws:///us-east-1b/i-0c2d"),
             NodeRef("ip-10-0-3-13", {}, "aws:///us-east-1c/i-0e3f")]
    found = members([EKS_ASG], nodes, [aws.NODEGROUP_LABEL])
    assert found.members == {EKS_ASG: ["ip-10-0-1-11", "ip-10-0-2-12"]}      # an ASG spans zones
    assert found.by_provider_id == frozenset()
    assert aws.managed_node_group(EKS_ASG) == "general-xlarge" and aws.managed_node_group("general-xlarge") == ""


# --- the names people know ---------------------------------------------------------------------

def gke_named() -> list[names.Named]:
    found = discover(gke_cluster())
    # the document's templates carry the pool label: the MIGs with a member (and the empty one)
    labels = {g.name: ({POOL: "default-pool"} if "default" in g.name else {}) for g in found.groups}
    labels[url("b", HIGHMEM["b"])] = {POOL: "highmem-pool"}
    return names.known([(g.name, labels[g.name]) for g in found.groups])


def test_a_gke_pool_names_its_migs_and_a_mig_is_named_by_its_name():
    known = gke_named()
    assert [g.group for g in names.resolve("default-pool", known)] == [url(z, MIG[z]) for z in "abc"]
    # a MIG without labels of its own shares its pool's name (one GKE name but the hash)
    assert [g.group for g in names.resolve("highmem-pool", known)] == [url(z, HIGHMEM[z]) for z in "ab"]
    assert [g.group for g in names.resolve(MIG["b"], known)] == [url("b", MIG["b"])]
    assert [g.group for g in names.resolve(url("c", MIG["c"]), known)] == [url("c", MIG["c"])]
    assert names.closest("default-pol", known)[0] == "default-pool"


@pytest.mark.parametrize("typed, group", [
    ("general-xlarge", EKS_ASG), (EKS_ASG, EKS_ASG), ("userpool", AKS), ("AKS-USERPOOL-12345678-VMSS", AKS),
    ("workers-md-0", "MachineDeployment/capi-prod/workers-md-0"), ("batch", "batch")])
def test_the_name_people_know_names_the_group(typed, group):
    known = names.known([(EKS_ASG, {}), (AKS, {}), ("MachineDeployment/capi-prod/workers-md-0", {}),
                         ("batch", {aws.NODEGROUP_LABEL: "spot-batch"})])
    assert [g.group for g in names.resolve(typed, known)] == [group]
    assert names.resolve("spot-batch", known)[0].group == "batch"      # the managed node group its nodes carry
    assert names.resolve("nothing", known) == []
