"""Node groups found in a cluster's objects: CA's status ConfigMap (YAML and the older plain text),
members by the managed offerings' node-group labels, Cluster API MachineDeployments/MachineSets
with their Machines and scale-from-zero templates, and the --node-groups file."""
from __future__ import annotations

import copy
import json

import pytest
import yaml

from kexplain.autoscaler.cloudprovider import (DEFAULT_LABEL_KEYS, Discovery, discover, label_keys, membership, provenance,
                                              status_configmap)
from kexplain.autoscaler.cloudprovider.clusterapi import normalized_provider_id
from kexplain.errors import InputError, Source
from tests.support.paths import DATA

HERE = DATA / "autoscaler-live"
EKS_GENERAL = "eks-general-xlarge-d2c5e8a1-3b4f-4c6d-9e0f-1a2b3c4d5e6f"
EKS_GPU = "eks-gpu-12xlarge-0f1e2d3c-4b5a-4697-8877-665544332211"


def load(name: str) -> list[dict]:
    text = (HERE / name).read_text()
    return [json.loads(text)] if name.endswith(".json") else [d for d in yaml.safe_load_all(text) if d]


def node(name: str, **labels: str) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": dict(labels)}}


def with_status(text: str) -> dict:
    (cm,) = load("status-yaml.yaml")
    return {**cm, "data": {"status": text}}


EKS = "eks.amazonaws.com/nodegroup"


# --- the status ConfigMap -----------------------------------------------------------------------

def test_the_yaml_status_ca_writes_gives_each_group_its_sizes_in_cas_order():
    (cm,) = load("status-yaml.yaml")
    status = status_configmap.parse(cm)
    assert (status.format, status.state, status.time) == ("yaml", "Running", "2026-11-23 14:02:11.410928313 +0000 UTC")
    assert [(g.name, g.min_size, g.max_size, g.target_size, g.health, g.scale_up) for g in status.groups] == [
        (EKS_GENERAL, 1, 10, 3, "Healthy", "NoActivity"),
        ("memory-large", 0, 6, 2, "Healthy", "NoActivity"),
        (EKS_GPU, 0, 4, 0, "Healthy", "Backoff")]


def test_cas_own_status_test_yaml_is_read():
    (cm,) = load("status-upstream.yaml")
    (group,) = status_configmap.parse(cm).groups
    assert (group.name, group.min_size, group.max_size, group.target_size, group.scale_up) == (
        "sample-node-group", 2, 12, 8, "Backoff")


def test_the_plain_text_status_of_older_releases_is_read_exactly():
    (cm,) = load("status-text.json")
    status = status_configmap.parse(cm)
    assert (status.format, status.time) == ("text", "2023-06-01 10:15:42.113345111 +0000 UTC")
    assert [(g.name, g.min_size, g.max_size, g.target_size, g.scale_up) for g in status.groups] == [
        (EKS_GENERAL, 1, 10, 3, "NoActivity"), ("memory-large", 0, 6, 2, "InProgress")]


def test_an_initializing_ca_reports_no_group():
    found = discover([with_status("autoscalerStatus: Initializing\ntime: 2026-11-23 14:02:11 +0000 UTC\n")])
    assert found.groups == () and any("initializing" in n for n in found.notes)
    text = status_configmap.parse(with_status("Cluster-autoscaler status at 2019-01-01 00:00:00 +0000 UTC:\nInitializing"))
    assert (text.format, text.state, text.groups) == ("text", "Initializing", ())


@pytest.mark.parametrize("text, field, what", [
    ("hello: world\n", "data.status", "not a status CA writes"),
    ("just some words", "data.status", "not a status CA writes"),
    ("nodeGroups: {a: 1}\n", "data.status: nodeGroups", "expected a list"),
    ("autoscalerStatus: Running\nnodeGroups:\n- name: g\n  health: {minSize: 1, maxSize: ten, cloudProviderTarget: 1}\n",
     "data.status: nodeGroups[0].health.maxSize", "expected an integer >= 0, found 'ten'"),
    ("autoscalerStatus: Running\nnodeGroups:\n- health: {minSize: 1, maxSize: 2, cloudProviderTarget: 1}\n",
     "data.status: nodeGroups[0].name", "expected the node group's name"),
    ("Cluster-autoscaler status at 2017-02-21 10:00:00 +0000 UTC:\nCluster-wide:\n  Health:      Healthy (ready=1)\n"
     "\nNodeGroups:\n  Name:        g1\n  Health:      Healthy (ready=1 unready=0 notStarted=0 longNotStarted=0 "
     "registered=1 cloudProviderTarget=1 (min=1, max=3))\n\n",
     "data.status: NodeGroups: Name: g1: Health", "cloudProviderTarget=N (minSize=A, maxSize=B)"),
])
def test_a_status_in_an_unknown_format_is_one_error_naming_object_field_and_what_is_accepted(text, field, what):
    with pytest.raises(InputError) as err:
        discover([with_status(text)], source=Source("https://api.example:6443"))
    line = str(err.value)
    assert line.startswith(f"https://api.example:6443: ConfigMap kube-system/cluster-autoscaler-status: {field}: ")
    assert what in line and "accepted: the YAML ClusterAutoscalerStatus" in line and "\n" not in line


def test_a_status_configmap_without_its_status_key_is_an_error():
    (cm,) = load("status-yaml.yaml")
    with pytest.raises(InputError, match=r"ConfigMap kube-system/cluster-autoscaler-status: data.status: missing"):
        discover([{**cm, "data": {}}])


# --- members by the providers' labels --------------------------------------------------------------

@pytest.mark.parametrize("group, key, value, named", [
    (EKS_GENERAL, EKS, "general-xlarge", True),                    # a managed node group's ASG
    ("general-xlarge", EKS, "general-xlarge", True),               # the node group's own name
    (EKS_GENERAL, EKS, "general", False),                          # a prefix of it is another group
    ("https://www.googleapis.com/compute/v1/projects/p/zones/us-central1-a/instanceGroups/"
     "gke-prod-default-pool-1a2b3c4d-grp", "cloud.google.com/gke-nodepool", "default-pool", True),
    ("gke-prod-default-pool-1a2b3c4d-grp", "cloud.google.com/gke-nodepool", "pool", True),   # cluster prod-default?
    ("gke-prod-default-pool-1a2b3c4d-grp", "cloud.google.com/gke-nodepool", "prod", False),
    ("gke-prod-default-pool-1a2b-grp", "cloud.google.com/gke-nodepool", "default-pool", False),
    ("aks-system-12345678-vmss", "kubernetes.azure.com/agentpool", "system", True),
    ("aks-system-12345678-vmss", "pool", "system", False),         # a user's label: the value itself only
    ("batch", "pool", "batch", True),
])
def test_a_group_id_names_the_nodes_of_a_label_value(group, key, value, named):
    assert membership.names_value(group, key, value) is named


def test_members_are_the_nodes_whose_label_names_the_group_and_a_group_without_any_is_said():
    (cm,) = load("status-yaml.yaml")
    nodes = [node("n1", **{EKS: "general-xlarge"}), node("n2", pool="memory-large"),
             node("n3", **{EKS: "general-xlarge"}), node("n4", **{EKS: "memory-large"})]
    found = discover(nodes + [cm])
    assert [(g.name, dict(g.node_selector), g.target_size) for g in found.groups] == [
        (EKS_GENERAL, {EKS: "general-xlarge"}, 3), ("memory-large", {EKS: "memory-large"}, 2), (EKS_GPU, {}, 0)]
    assert dict(found.members) == {EKS_GENERAL: ("n1", "n3"), "memory-large": ("n4",), EKS_GPU: ()}
    backoff, note = found.notes        # the status reports the GPU group in backoff, and it has no member
    assert backoff.startswith(f"node group {EKS_GPU}: in backoff after a failed scale-up")
    assert note.startswith(f"node group {EKS_GPU} (CA's status ConfigMap): no node carries a node-group label")
    assert "not ready for scale-up" in note and "--node-group-label" in note
    assert found.sources == ("status ConfigMap",)


def test_node_group_label_adds_a_key_tried_after_the_providers():
    (cm,) = load("status-yaml.yaml")
    nodes = [node("n1", pool="memory-large"), node("n2", pool="other")]
    assert discover(nodes + [cm]).members["memory-large"] == ()
    found = discover(nodes + [cm], label_keys(["pool"]))
    assert found.members["memory-large"] == ("n1",) and dict(found.groups[1].node_selector) == {"pool": "memory-large"}
    assert label_keys(["pool", EKS]) == (*DEFAULT_LABEL_KEYS, "pool")


def test_of_several_label_values_naming_a_group_the_longest_is_taken():
    gke = "cloud.google.com/gke-nodepool"
    status = ("autoscalerStatus: Running\nnodeGroups:\n- name: https://www.googleapis.com/compute/v1/projects/p/zones/"
              "us-central1-a/instanceGroups/gke-prod-default-pool-1a2b3c4d-grp\n"
              "  health: {cloudProviderTarget: 1, maxSize: 3, minSize: 0}\n")
    zone = {"topology.kubernetes.io/zone": "us-central1-a"}
    found = discover([node("n1", **{gke: "pool"}, **zone), node("n2", **{gke: "default-pool"}, **zone),
                      with_status(status)])
    assert dict(found.groups[0].node_selector) == {gke: "default-pool", **zone}
    assert tuple(found.members.values()) == (("n2",),)


# --- Cluster API ----------------------------------------------------------------------------------

def test_cluster_api_groups_members_sizes_and_options_follow_cas_provider():
    found = discover(load("capi.yaml"))
    assert [(g.name, g.min_size, g.max_size, g.target_size) for g in found.groups] == [
        ("MachineSet/capi-prod/gpu-ms", 0, 3, 0), ("MachineDeployment/capi-prod/workers-md-0", 1, 8, 2)]
    # one node by its providerID, one by its machine annotation; the third belongs to no group
    assert dict(found.members) == {"MachineSet/capi-prod/gpu-ms": (),
                                   "MachineDeployment/capi-prod/workers-md-0": ("ip-10-0-1-11.ec2.internal",
                                                                                "ip-10-0-2-12.ec2.internal")}
    workers = found.groups[1]
    assert workers.template is None and dict(workers.node_selector) == {}
    assert (workers.options.scale_down_utilization_threshold, workers.options.scale_down_unneeded_time) == (0.6, 300.0)
    assert any(n.startswith("MachineDeployment/capi-prod/batch-md: 0 replicas and no capacity annotations")
               for n in found.notes)
    assert not any("infra-md" in n for n in found.notes)      # not autoscaled: nothing to say
    assert found.sources == ("Cluster API",)


def test_scale_from_zero_annotations_make_the_template_node_ca_builds():
    found = discover(load("capi.yaml"))
    template = found.groups[0].template
    assert template["status"]["capacity"] == {"cpu": "48", "memory": "192G", "ephemeral-storage": "100Gi",
                                              "nvidia.com/gpu": "4", "pods": "58"}
    assert template["status"]["allocatable"] == template["status"]["capacity"]
    assert template["metadata"]["labels"] == {
        "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux", "node-role.kubernetes.io/gpu": "",
        "node.cluster.x-k8s.io/pool": "gpu", "accelerator": "t4", "node.kubernetes.io/instance-type": "g4dn.12xlarge"}
    # the annotation's dedicated:NoExecute replaces the template's; the GPU taint is added
    assert template["spec"]["taints"] == [{"key": "dedicated", "value": "ml", "effect": "NoExecute"},
                                          {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    assert {c["type"]: c["status"] for c in template["status"]["conditions"]}["Ready"] == "True"
    assert any(n.startswith("node group MachineSet/capi-prod/gpu-ms: template from its capacity annotations")
               and "kube-proxy" in n for n in found.notes)


def test_a_template_takes_the_well_known_labels_of_the_first_member_and_pods_default_to_110():
    objs = load("capi.yaml")
    md = next(o for o in objs if o["metadata"]["name"] == "workers-md-0")
    md["metadata"]["annotations"].update({"capacity.cluster-autoscaler.kubernetes.io/cpu": "4",
                                          "capacity.cluster-autoscaler.kubernetes.io/memory": "16Gi"})
    template = discover(objs).groups[1].template
    assert template["status"]["capacity"] == {"cpu": "4", "memory": "16Gi", "pods": "110"}
    labels = template["metadata"]["labels"]
    assert (labels["node.kubernetes.io/instance-type"], labels["topology.kubernetes.io/region"]) == ("m5.xlarge",
                                                                                                      "us-east-1")
    assert "topology.kubernetes.io/zone" not in labels        # not one of the labels CA copies


def test_a_machine_set_of_a_deployment_is_not_its_own_group_and_a_paused_one_is_none():
    objs = load("capi.yaml")
    ms = next(o for o in objs if o["kind"] == "MachineSet" and o["metadata"]["name"] == "gpu-ms")
    ms["metadata"]["annotations"]["cluster.x-k8s.io/paused"] = ""
    found = discover(objs)
    assert [g.name for g in found.groups] == ["MachineDeployment/capi-prod/workers-md-0"]
    assert any(n.startswith("MachineSet/capi-prod/gpu-ms: paused") for n in found.notes)


def test_a_group_with_no_member_and_no_template_is_not_ready_for_scale_up():
    objs = [o for o in load("capi.yaml") if o["kind"] != "Node"]
    found = discover(objs)
    assert found.members["MachineDeployment/capi-prod/workers-md-0"] == ()
    assert any(n.startswith("node group MachineDeployment/capi-prod/workers-md-0: no node of it was found")
               and n.endswith("not ready for scale-up, as CA says") for n in found.notes)


@pytest.mark.parametrize("annotation, value, what", [
    ("max-size", "eight", "expected an integer >= 0, found 'eight' (CA refuses the node group: invalid max annotation)"),
    ("min-size", "-1", "expected an integer >= 0, found '-1' (CA refuses the node group: invalid min annotation)"),
    ("min-size", "9", "8 is below the min-size annotation's 9 (CA refuses the node group: invalid max annotation)"),
])
def test_bad_size_annotations_are_an_error_naming_the_object_and_annotation(annotation, value, what):
    objs = load("capi.yaml")
    md = objs[0]
    md["metadata"]["annotations"][f"cluster.x-k8s.io/cluster-api-autoscaler-node-group-{annotation}"] = value
    with pytest.raises(InputError) as err:
        discover(objs)
    field = "max-size" if "below" in what else annotation
    assert str(err.value) == (f"MachineDeployment capi-prod/workers-md-0: metadata.annotations[cluster.x-k8s.io/"
                              f"cluster-api-autoscaler-node-group-{field}]: {what}")


def test_capacity_that_is_not_a_quantity_means_no_scale_from_zero():
    objs = load("capi.yaml")
    ms = next(o for o in objs if o["metadata"]["name"] == "gpu-ms")
    ms["metadata"]["annotations"]["capacity.cluster-autoscaler.kubernetes.io/memory"] = "lots"
    found = discover(objs)
    assert [g.name for g in found.groups] == ["MachineDeployment/capi-prod/workers-md-0"]


@pytest.mark.parametrize("provider_id, normalized", [
    ("aws:///us-east-1a/i-0a1b2c3d", "i-0a1b2c3d"),
    ("azure:///subscriptions/s/resourceGroups/r/providers/Microsoft.Compute/virtualMachineScaleSets/v/virtualMachines/0",
     "azure:///subscriptions/s/resourceGroups/r/providers/Microsoft.Compute/virtualMachineScaleSets/v/virtualMachines/0"),
    ("openstack:///9f1c", "9f1c"),
])
def test_provider_ids_are_normalized_as_ca_does(provider_id, normalized):
    assert normalized_provider_id(provider_id) == normalized


def test_a_status_group_cluster_api_knows_is_taken_from_cluster_api_in_the_status_order():
    objs = load("capi.yaml")
    status = ("autoscalerStatus: Running\nnodeGroups:\n"
              "- name: MachineDeployment/capi-prod/workers-md-0\n  health: {cloudProviderTarget: 2, maxSize: 8, minSize: 1}\n"
              "- name: spot-pool\n  health: {cloudProviderTarget: 1, maxSize: 3, minSize: 0}\n")
    found = discover(objs + [with_status(status)])
    assert [g.name for g in found.groups] == ["MachineDeployment/capi-prod/workers-md-0", "spot-pool",
                                              "MachineSet/capi-prod/gpu-ms"]
    assert found.members["MachineDeployment/capi-prod/workers-md-0"] == ("ip-10-0-1-11.ec2.internal",
                                                                         "ip-10-0-2-12.ec2.internal")
    assert found.sources == ("status ConfigMap", "Cluster API")


def test_a_node_two_groups_claim_stays_in_the_first_and_is_said():
    status = ("autoscalerStatus: Running\nnodeGroups:\n"
              "- name: a\n  health: {cloudProviderTarget: 1, maxSize: 3, minSize: 0}\n"
              "- name: b\n  health: {cloudProviderTarget: 1, maxSize: 3, minSize: 0}\n")
    found = discover([node("n1", pool="a", team="b"), with_status(status)], label_keys(["pool", "team"]))
    assert dict(found.members) == {"a": ("n1",), "b": ()}
    assert "node n1 is claimed by node groups a and b: counted in a" in found.notes


# --- the --node-groups file -------------------------------------------------------------------------

def test_a_node_groups_file_gives_its_groups_members_by_their_node_selector(tmp_path):
    path = tmp_path / "groups.yaml"
    path.write_text(yaml.safe_dump({"nodeGroups": [
        {"name": "g1", "minSize": 0, "maxSize": 3, "nodeSelector": {"pool": "a"}},
        {"name": "g2", "minSize": 0, "maxSize": 3, "nodeSelector": {"pool": "b"}}]}))
    found = Discovery.from_file(str(path))
    members = found.members_among([("n1", {"pool": "a"}), ("n2", {"pool": "c"})])
    assert [g.name for g in found.groups] == ["g1", "g2"] and dict(members) == {"g1": ["n1"], "g2": []}
    assert found.file == str(path) and found.sources == (str(path),)


def test_discovery_does_not_change_the_objects():
    objs = load("capi.yaml") + load("status-yaml.yaml")
    before = copy.deepcopy(objs)
    discover(objs)
    assert objs == before


def test_a_group_ca_reports_in_backoff_carries_it_with_its_error_and_a_note():
    (cm,) = load("status-yaml.yaml")
    status = status_configmap.parse(cm)
    assert [g.backoff for g in status.groups[:2]] == [None, None]
    backoff = status.groups[2].backoff
    assert (backoff.error_code, backoff.since) == ("InsufficientInstanceCapacity", "2026-11-23T13:31:47Z")
    assert backoff.error_message.startswith("We currently do not have sufficient g4dn.12xlarge capacity")
    found = discover([cm])
    assert {g.name: g.backoff for g in found.groups}[EKS_GPU] == backoff
    assert provenance(found)["backoff"] == {EKS_GPU: backoff.to_json()}
    assert any(n.startswith(f"node group {EKS_GPU}: in backoff after a failed scale-up, CA's status ConfigMap says "
                            "(scaleUp.status Backoff since 2026-11-23T13:31:47Z; InsufficientInstanceCapacity: ")
               for n in found.notes)
    (old,) = load("status-upstream.yaml")           # CA's own test status: Backoff without backoffInfo
    assert status_configmap.parse(old).groups[0].backoff is not None


BACKOFF_STATUS = """autoscalerStatus: Running
nodeGroups:
- name: {a}
  health: {{cloudProviderTarget: 1, maxSize: 5, minSize: 1}}
  scaleUp: {{status: NoActivity}}
- name: {b}
  health: {{cloudProviderTarget: 1, maxSize: 5, minSize: {b_min}}}
  scaleUp: {{status: Backoff, backoffInfo: {{errorCode: InsufficientInstanceCapacity}}}}
"""


@pytest.mark.parametrize(("flags", "sizes"), [
    ({"balance-similar-node-groups": True, "balancing-ignore-label": [EKS]}, {"a": 3, "b": 1}),   # similar, not safe
    ({"enforce-node-group-min-size": True}, {"a": 1, "b": 1}),   # b below its minimum stays: not safe to scale
])
def test_a_group_in_backoff_is_neither_balanced_to_nor_grown_to_its_minimum(tmp_path, flags, sizes):
    from kexplain.autoscaler.document import build_document
    from tests.support.ca_loop import ca_loop
    from kexplain.autoscaler.loop import run_once
    from kexplain.features import KubeVersion

    ids = {"a": "eks-web-a-d2c5e8a1-3b4f-4c6d-9e0f-1a2b3c4d5e6f", "b": "eks-web-b-0f1e2d3c-4b5a-4697-8877-665544332211"}
    nodes = [{**node(f"n-{k}", **{EKS: f"web-{k}", "kubernetes.io/hostname": f"n-{k}"}),
              "status": {"capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                         "allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}} for k in ids]
    status = with_status(BACKOFF_STATUS.format(a=ids["a"], b=ids["b"], b_min=3 if "enforce-node-group-min-size"
                                               in flags else 0))
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(nodes))
    pods = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "default"},
             "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "3"}}}]}}
            for i in range(4 if "balance-similar-node-groups" in flags else 0)]
    (tmp_path / "pods.yaml").write_text(yaml.safe_dump_all(pods) if pods else "")
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({"flags": flags}))
    loop = ca_loop(str(tmp_path / "pods.yaml"), (str(tmp_path / "cluster.yaml"),), discover([*nodes, status]),
                     str(tmp_path / "params.yaml"), KubeVersion(), max_bytes=1 << 20, max_objects=1000)
    doc = build_document(loop, run_once(loop))
    assert {k: next(g["newTargetSize"] for g in doc["nodeGroups"] if g["name"] == gid) for k, gid in ids.items()} \
        == sizes


def test_a_group_found_in_the_cluster_has_a_stand_in_for_the_providers_template():
    """The provider's TemplateNodeInfo (an ASG's launch template here) stands in as the group's
    member made it: not its cordon, nor its node-condition taints' state."""
    (cm,) = load("status-yaml.yaml")
    member = {**node("n1", **{EKS: "general-xlarge", "kubernetes.io/hostname": "n1"}),
              "spec": {"providerID": "aws:///us-east-1a/i-0abc", "unschedulable": True,
                       "taints": [{"key": "dedicated", "value": "web", "effect": "NoSchedule"}]},
              "status": {"capacity": {"cpu": "4"}, "allocatable": {"cpu": "3920m"},
                         "conditions": [{"type": "Ready", "status": "False"}]}}
    found = discover([member, cm])
    general = next(g for g in found.groups if g.name == EKS_GENERAL)
    assert general.template_origin == "the ASG's launch template, stood in for by its member node n1"
    assert general.template == {"apiVersion": "v1", "kind": "Node", "metadata": {"labels": {EKS: "general-xlarge"}},
                                "spec": {"taints": [{"key": "dedicated", "value": "web", "effect": "NoSchedule"}]},
                                "status": {"capacity": {"cpu": "4"}, "allocatable": {"cpu": "3920m"},
                                           "conditions": [{"type": "Ready", "status": "True"}]}}
    assert next(g for g in found.groups if g.name == "memory-large").template is None     # no member: none
