"""Node groups found on a live cluster: the stand-in API server (tests/support/live_server.py)
serves CA's status ConfigMap, nodes with node-group labels and Cluster API objects; live mode
finds the groups with gets and lists only, says what it could not read, and refuses a status in
an unknown format in one line (exit 2)."""
from __future__ import annotations

import copy
import io
import json

import pytest
import yaml

from kexplain.autoscaler.cloudprovider.live import STATUS_PATH
from kexplain.cli.app import main
from kexplain.cli.env import Environment
from kexplain.cli.live import Connect, session
from tests.support.live_server import isolated, recorded_api  # noqa: F401 (isolated: an autouse fixture)
from tests.support.paths import DATA

TOKEN = "t0ken-autoscaler-7b1e"
CHECKOUT = "checkout-6b8d9f7c4-lm3np"       # a pending pod of the recorded cluster
EKS = "eks.amazonaws.com/nodegroup"
HERE = DATA / "autoscaler-live"
GENERAL = "eks-general-xlarge-d2c5e8a1-3b4f-4c6d-9e0f-1a2b3c4d5e6f"
GPU = "eks-gpu-12xlarge-0f1e2d3c-4b5a-4697-8877-665544332211"


@pytest.fixture
def api(tmp_path):
    """The recorded cluster with EKS node-group labels on its nodes (node-a1, node-b1 and
    node-c1 in general-xlarge; node-b2 and node-c2 in memory-large by a label of the user's)."""
    with recorded_api(tmp_path, TOKEN) as server:
        nodes = copy.deepcopy(server.collections["/api/v1/nodes"])
        for item in nodes["items"]:
            name = item["metadata"]["name"]
            if name in ("node-a1", "node-b1", "node-c1"):
                item["metadata"]["labels"][EKS] = "general-xlarge"
            elif name in ("node-b2", "node-c2"):
                item["metadata"]["labels"]["example.com/pool"] = "memory-large"
        server.collections["/api/v1/nodes"] = nodes
        yield server


def serve_status(api, doc: dict | None = None) -> None:
    api.objects[STATUS_PATH] = doc or yaml.safe_load((HERE / "status-yaml.yaml").read_text())


def serve_cluster_api(api) -> None:
    """The Cluster API objects of capi.yaml at v1beta1; node-a1 the machine of workers-md-0."""
    docs = [d for d in yaml.safe_load_all((HERE / "capi.yaml").read_text()) if d]
    for kind, plural in (("MachineDeployment", "machinedeployments"), ("MachineSet", "machinesets"),
                         ("Machine", "machines")):
        items = [{k: v for k, v in d.items() if k not in ("apiVersion", "kind")} for d in docs if d["kind"] == kind]
        api.collections[f"/apis/cluster.x-k8s.io/v1beta1/{plural}"] = {
            "kind": f"{kind}List", "apiVersion": "cluster.x-k8s.io/v1beta1", "metadata": {"resourceVersion": "7"},
            "items": items}
    nodes = copy.deepcopy(api.collections["/api/v1/nodes"])
    nodes["items"][0]["spec"]["providerID"] = "aws:///us-east-1a/i-0a1b2c3d4e5f60001"   # node-a1: a machine's
    api.collections["/api/v1/nodes"] = nodes


def read(api, *labels: str):
    with session(Environment(stdout=io.StringIO(), stderr=io.StringIO()), Connect(api.kubeconfig)) as s:
        return s.read(None, node_group_labels=labels).node_groups


def test_the_groups_ca_reports_are_found_with_their_members_by_labels(api):
    serve_status(api)
    found = read(api, "example.com/pool")
    assert [(g.name, g.min_size, g.max_size, g.target_size) for g in found.groups] == [
        (GENERAL, 1, 10, 3), ("memory-large", 0, 6, 2), (GPU, 0, 4, 0)]
    assert dict(found.members) == {GENERAL: ("node-a1", "node-b1", "node-c1"),
                                   "memory-large": ("node-b2", "node-c2"), GPU: ()}
    assert any(n.startswith(f"node group {GPU} (CA's status ConfigMap): no node carries") for n in found.notes)
    assert api.methods == {"GET"}
    assert STATUS_PATH in api.paths()
    # the Cluster API kinds are not served here: each version asked once, no error
    assert api.paths().count("/apis/cluster.x-k8s.io/v1beta2/machinedeployments") == 1
    assert api.paths().count("/apis/cluster.x-k8s.io/v1beta1/machinedeployments") == 1


def test_without_the_label_of_the_user_a_group_has_no_member(api):
    serve_status(api)
    found = read(api)
    assert found.members["memory-large"] == () and found.members[GENERAL] == ("node-a1", "node-b1", "node-c1")


def test_cluster_api_objects_served_at_v1beta1_make_groups(api):
    serve_cluster_api(api)
    found = read(api)
    assert [g.name for g in found.groups] == ["MachineSet/capi-prod/gpu-ms", "MachineDeployment/capi-prod/workers-md-0"]
    assert found.members["MachineDeployment/capi-prod/workers-md-0"] == ("node-a1",)
    assert found.groups[0].template["status"]["capacity"]["nvidia.com/gpu"] == "4"
    assert found.sources == ("Cluster API",)
    assert any(n.startswith("no ConfigMap kube-system/cluster-autoscaler-status") for n in found.notes)
    assert not any(n.startswith("no Cluster API") for n in found.notes)
    # the same objects without the autoscaler's annotations: read, and none is a node group
    for plural in ("machinedeployments", "machinesets"):
        for item in api.collections[f"/apis/cluster.x-k8s.io/v1beta1/{plural}"]["items"]:
            item["metadata"].pop("annotations", None)
    found = read(api)
    assert found.groups == () and found.notes[-1].startswith("no Cluster API MachineDeployment or MachineSet is a node "
                                                             "group")


def test_no_source_of_node_groups_is_said_not_an_error(api):
    found = read(api)
    assert found.groups == ()
    assert found.notes[0].startswith("no ConfigMap kube-system/cluster-autoscaler-status: CA is not running")
    assert found.notes[1] == "no Cluster API MachineDeployment or MachineSet (cluster.x-k8s.io is not served, or has none)"
    assert len(found.notes) == 2


def test_a_refused_read_is_a_note(api):
    serve_status(api)
    api.faults.forbidden[STATUS_PATH] = "forbidden-get-pods.json"
    api.faults.forbidden["/apis/cluster.x-k8s.io/v1beta2/machines"] = "forbidden-list-csinodes.json"
    found = read(api)
    assert found.groups == ()
    assert found.notes[0].startswith("CA's status ConfigMap kube-system/cluster-autoscaler-status could not be read: "
                                     "forbidden (403)")
    assert found.notes[1].startswith('Cluster API machines could not be read: forbidden (403): kexplain needs "list" '
                                     'on resource "machines" in API group "cluster.x-k8s.io"')
    assert len(found.notes) == 2


def test_live_pod_commands_take_node_group_label_and_only_read(capsys, api):
    serve_status(api)
    code = main(["pod", CHECKOUT, "-n", "shop", "--kubeconfig", api.kubeconfig, "--node-group-label",
                 "example.com/pool", "--node-group-label", "example.com/other", "-o", "json"])
    out, err = capsys.readouterr()
    assert code == 1 and json.loads(out)["live"]["agrees"] is True
    code = main(["pod", "--pending", "-n", "shop", "--kubeconfig", api.kubeconfig, "--node-group-label",
                 "example.com/pool"])
    assert code == 1
    assert api.methods == {"GET"} and api.paths().count(STATUS_PATH) == 2


def test_a_status_in_an_unknown_format_is_an_error_after_the_pod_is_explained(capsys, api):
    serve_status(api)
    cm = api.objects[STATUS_PATH]
    cm["data"]["status"] = "Cluster autoscaler is doing fine\n"
    code = main(["pod", CHECKOUT, "-n", "shop", "--kubeconfig", api.kubeconfig])
    out, err = capsys.readouterr()
    assert code == 2 and "kexplain agrees with the scheduler" in out     # bad input, the pod explained all the same
    assert "\nCluster autoscaler\n" not in out          # no node group found: no section
    (line,) = err.strip().splitlines()
    assert line.startswith("error: the autoscaler's node groups could not be found: ")
    assert f"{api.url}: ConfigMap kube-system/cluster-autoscaler-status: data.status: not a status CA writes" in line
    assert "accepted: the YAML ClusterAutoscalerStatus" in line and TOKEN not in err


def test_a_snapshot_keeps_the_objects_that_report_node_groups(capsys, api, tmp_path):
    """A snapshot keeps CA's status ConfigMap and Cluster API's objects, as read, for its replay
    (tests/cli/test_snapshot_node_groups.py replays one)."""
    serve_status(api)
    serve_cluster_api(api)
    code = main(["snapshot", "-o", str(tmp_path / "cluster.json"), "--kubeconfig", api.kubeconfig])
    assert code == 0 and STATUS_PATH in api.paths() and api.methods == {"GET"}
    kinds = [o["kind"] for o in json.loads((tmp_path / "cluster.json").read_text())["items"]]
    assert {k: kinds.count(k) for k in ("ConfigMap", "MachineDeployment", "MachineSet", "Machine")} == {
        "ConfigMap": 1, "MachineDeployment": 3, "MachineSet": 2, "Machine": 2}
    # replayed, both sources give the groups they give live
    code = main(["snapshot", CHECKOUT, "-n", "shop", "-o", str(tmp_path / "cluster.json"), "--kubeconfig",
                 api.kubeconfig])
    capsys.readouterr()
    code = main([str(tmp_path / "cluster.pod.json"), "--nodes", str(tmp_path / "cluster.json"), "--stored", "-o",
                 "json"])
    replay = json.loads(capsys.readouterr().out)["autoscaler"]
    code = main(["pod", CHECKOUT, "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json"])
    live = json.loads(capsys.readouterr().out)["autoscaler"]
    assert replay["nodeGroupsFound"]["sources"] == live["nodeGroupsFound"]["sources"] == [
        "CA's status ConfigMap kube-system/cluster-autoscaler-status",
        "Cluster API MachineDeployments and MachineSets (members through their Machines)"]
    assert replay["nodeGroups"] == live["nodeGroups"]


def test_a_node_group_label_that_is_no_label_name_is_refused_before_reading(capsys, api):
    code = main(["pod", CHECKOUT, "-n", "shop", "--kubeconfig", api.kubeconfig, "--node-group-label", "bad key!"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("error: --node-group-label 'bad key!': not a label name: name part must consist of ")
    assert STATUS_PATH not in api.paths() and "/api/v1/nodes" not in api.paths()


# --- the groups found, used: the "Cluster autoscaler" section without --node-groups ---------------

def test_the_section_runs_with_the_groups_found_and_says_where_from(capsys, api, tmp_path):
    serve_status(api)
    base = ["pod", CHECKOUT, "-n", "shop", "--kubeconfig", api.kubeconfig]
    code = main([*base, "-o", "json"])
    out, err = capsys.readouterr()
    assert code == 1, err
    doc = json.loads(out)["autoscaler"]
    assert {g["name"]: g["nodes"] for g in doc["nodeGroups"]} == {
        GENERAL: ["node-a1", "node-b1", "node-c1"], "memory-large": [], GPU: []}
    assert doc["nodeGroupsFound"]["sources"] == ["CA's status ConfigMap kube-system/cluster-autoscaler-status"]
    assert doc["nodeGroupsFound"]["memberLabels"] == [EKS]
    assert any(n.startswith("node group memory-large (CA's status ConfigMap)") for n in doc["nodeGroupsFound"]["notes"])
    # the general group's template (built from a member) takes the pod: CA scales it up by one
    assert doc["expansion"]["bestOption"]["nodeGroup"] == GENERAL and doc["result"] == "ScaleUpSuccessful"
    code = main(base)
    out, _ = capsys.readouterr()
    section = out[out.index("\nCluster autoscaler\n"):]
    assert "Node groups found in the cluster: CA's status ConfigMap" in " ".join(section.split())
    assert f"members by label {EKS}" in " ".join(section.split())
    assert section.index("Node groups found") < section.index("Event: Normal TriggeredScaleUp")
    # --node-group: one group found; a name not among them is refused with the closest
    code = main([*base, "--node-group", "memory-large"])
    out, _ = capsys.readouterr()
    assert code == 1 and out.startswith(f"Node group memory-large for pod shop/{CHECKOUT}: skipped")
    code = main([*base, "--node-group", "memory-larg"])
    out, err = capsys.readouterr()
    assert code == 2 and err == ("error: --node-group memory-larg: no node group of that name among the 3 node groups "
                                 "found in the cluster; the closest: memory-large\n")
    page = tmp_path / "page.html"
    code = main([*base, "--html", str(page)])
    capsys.readouterr()
    html = page.read_text()
    start = html.index('<h3 id="t0-ca">Cluster autoscaler</h3>')
    assert code == 1 and html.index('class="note ca-found">Node groups found in the cluster: CA', start) > start
    assert api.methods == {"GET"}


def test_a_user_label_makes_members_of_the_group_ca_reports(capsys, api):
    serve_status(api)
    code = main(["pod", CHECKOUT, "-n", "shop", "--kubeconfig", api.kubeconfig, "--node-group-label",
                 "example.com/pool", "-o", "json"])
    doc = json.loads(capsys.readouterr().out)["autoscaler"]
    assert code == 1 and {g["name"]: g["nodes"] for g in doc["nodeGroups"]}["memory-large"] == ["node-b2", "node-c2"]
    assert doc["nodeGroupsFound"]["memberLabels"] == [EKS, "example.com/pool"]


def test_pending_runs_one_loop_over_every_pending_pod(capsys, api):
    serve_status(api)
    code = main(["pod", "--pending", "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json"])
    out, err = capsys.readouterr()
    assert code == 1, err
    listed = json.loads(out)
    doc = listed["autoscaler"]
    looped = [f"{p['namespace']}/{p['name']}" for p in doc["pods"]]     # every namespace's, as CA lists them
    assert {f"shop/{i['pod']['name']}" for i in listed["items"]} <= set(looped) and f"shop/{CHECKOUT}" in looped
    assert all(i["autoscalers"][0]["pod"] == f"shop/{i['pod']['name']}" for i in listed["items"])
    assert "nodeGroupsFound" in doc
    code = main(["pod", "--pending", "-n", "shop", "--kubeconfig", api.kubeconfig])
    out, _ = capsys.readouterr()
    assert out.index(f"shop/{CHECKOUT}") < out.index("\nCluster autoscaler\n")
    assert api.methods == {"GET"}


def test_no_group_found_no_section(capsys, api):
    code = main(["pod", CHECKOUT, "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json"])
    out, err = capsys.readouterr()
    assert code == 1 and "autoscaler" not in json.loads(out) and err == ""


def test_cluster_api_groups_bring_their_members(capsys, api):
    """A Cluster API group's instances are its Machines' nodes (by providerID), not a label:
    the loop takes them as found."""
    serve_cluster_api(api)
    code = main(["pod", CHECKOUT, "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json"])
    doc = json.loads(capsys.readouterr().out)["autoscaler"]
    assert code == 1
    members = {g["name"]: g["nodes"] for g in doc["nodeGroups"]}
    assert members == {"MachineSet/capi-prod/gpu-ms": [], "MachineDeployment/capi-prod/workers-md-0": ["node-a1"]}
    assert doc["nodeGroupsFound"]["sources"] == [
        "Cluster API MachineDeployments and MachineSets (members through their Machines)"]
    assert doc["nodeGroupsFound"]["memberLabels"] == []


DAEMONSET = {"metadata": {"name": "node-agent", "namespace": "kube-system", "uid": "6f1c2d3e-0000-4000-8000-00000000a9e1",
                          "creationTimestamp": "2025-11-01T00:00:00Z"},
             "spec": {"selector": {"matchLabels": {"app": "node-agent"}},
                      "template": {"metadata": {"labels": {"app": "node-agent"}},
                                   "spec": {"tolerations": [{"operator": "Exists"}],
                                            "containers": [{"name": "agent", "image": "agent:1",
                                                            "resources": {"requests": {"cpu": "100m"}}}]}}}}


def test_daemonsets_are_read_for_the_templates_and_a_refusal_is_a_note(capsys, api):
    """A provider's template (Cluster API's scale-from-zero annotations, or --node-groups)
    runs a copy of each DaemonSet's pod that would land there, as CA's template does."""
    serve_cluster_api(api)
    gpu = "MachineSet/capi-prod/gpu-ms"
    api.collections["/apis/apps/v1/daemonsets"] = {"kind": "DaemonSetList", "apiVersion": "apps/v1",
                                                   "metadata": {"resourceVersion": "9"}, "items": [DAEMONSET]}
    base = ["pod", CHECKOUT, "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json"]
    code = main(base)
    doc = json.loads(capsys.readouterr().out)["autoscaler"]
    template = next(g for g in doc["nodeGroups"] if g["name"] == gpu)["template"]
    assert code == 1 and template["source"] == "template" and template["pods"] == ["DaemonSet kube-system/node-agent"]
    assert api.methods == {"GET"} and "/apis/apps/v1/daemonsets" in api.paths()
    api.faults.forbidden["/apis/apps/v1/daemonsets"] = "forbidden-list-csinodes.json"
    code = main(base)
    trace = json.loads(capsys.readouterr().out)
    doc = trace["autoscaler"]
    template = next(g for g in doc["nodeGroups"] if g["name"] == gpu)["template"]
    assert code == 1 and template["pods"] == []
    assert doc["nodeGroupsFound"]["notes"][0].startswith("DaemonSets could not be read (the template nodes get no "
                                                         "DaemonSet pod): forbidden (403)")
    assert trace["live"]["agrees"] is True       # the scheduler's reads are whole: a full explanation


# --- a GKE-like cluster: node pools over three zones, a MIG per zone -------------------------------

GKE_PROJECT = "shop-prod"
GKE_MIGS = {("default-pool", "a"): "gke-prod-default-pool-1a2b3c4d-grp",
            ("default-pool", "b"): "gke-prod-default-pool-5e6f7a8b-grp",
            ("default-pool", "c"): "gke-prod-default-pool-9c0d1e2f-grp",
            ("highmem-pool", "a"): "gke-prod-highmem-pool-0a1b2c3d-grp",
            ("highmem-pool", "b"): "gke-prod-highmem-pool-4e5f6a7b-grp",
            ("highmem-pool", "c"): "gke-prod-highmem-pool-8c9d0e1f-grp"}
GKE_NODES = {"node-a1": ("default-pool", "a"), "node-b1": ("default-pool", "b"), "node-c1": ("default-pool", "c"),
             "node-b2": ("highmem-pool", "b"), "node-c2": ("highmem-pool", "c")}


def mig_url(pool: str, zone: str) -> str:
    return (f"https://www.googleapis.com/compute/v1/projects/{GKE_PROJECT}/zones/us-central1-{zone}/instanceGroups/"
            f"{GKE_MIGS[pool, zone]}")


@pytest.fixture
def gke(api):
    """The recorded cluster made GKE-like: its nodes in zones us-central1-a/b/c, labelled with
    their node pool and zone, with gce providerIDs of their MIG's instances (node-a2, the GPU
    node, in no autoscaled pool); CA's status lists default-pool's and highmem-pool's MIGs,
    highmem-pool's in zone a without a node yet."""
    nodes = copy.deepcopy(api.collections["/api/v1/nodes"])
    for item in nodes["items"]:
        name = item["metadata"]["name"]
        zone = f"us-central1-{name[5]}"
        labels = item["metadata"]["labels"]
        for key in ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone"):
            labels[key] = zone
        for key in ("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region"):
            labels[key] = "us-central1"
        for key in ("topology.ebs.csi.aws.com/zone", EKS, "example.com/pool"):
            labels.pop(key, None)
        if name in GKE_NODES:
            labels["cloud.google.com/gke-nodepool"] = GKE_NODES[name][0]
            instance = f"{GKE_MIGS[GKE_NODES[name]].removesuffix('-grp')}-{name[-2:]}x7"
        else:
            labels["cloud.google.com/gke-nodepool"] = "gpu-pool"
            instance = f"gke-prod-gpu-pool-77aa88bb-{name[-2:]}k1"
        item["spec"]["providerID"] = f"gce://{GKE_PROJECT}/{zone}/{instance}"
    api.collections["/api/v1/nodes"] = nodes
    groups = "".join(f"- name: {mig_url(pool, zone)}\n  health: {{cloudProviderTarget: {target}, maxSize: 4, "
                     f"minSize: 0}}\n" for (pool, zone) in GKE_MIGS
                     for target in [sum(1 for v in GKE_NODES.values() if v == (pool, zone))])
    (cm,) = [d for d in yaml.safe_load_all((HERE / "status-yaml.yaml").read_text()) if d]
    serve_status(api, {**cm, "data": {"status": f"autoscalerStatus: Running\nnodeGroups:\n{groups}"}})
    return api


def test_a_gke_pool_over_three_zones_is_three_migs_with_their_zones_nodes(capsys, gke):
    base = ["pod", CHECKOUT, "-n", "shop", "--kubeconfig", gke.kubeconfig]
    code = main([*base, "-o", "json"])
    out, err = capsys.readouterr()
    assert code == 1, err
    doc = json.loads(out)["autoscaler"]
    assert {g["name"]: g["nodes"] for g in doc["nodeGroups"]} == {
        mig_url("default-pool", "a"): ["node-a1"], mig_url("default-pool", "b"): ["node-b1"],
        mig_url("default-pool", "c"): ["node-c1"], mig_url("highmem-pool", "a"): [],
        mig_url("highmem-pool", "b"): ["node-b2"], mig_url("highmem-pool", "c"): ["node-c2"]}
    found = doc["nodeGroupsFound"]
    assert not any("claimed" in n for n in found["notes"])
    assert found["memberProviderIds"] == [g["name"] for g in doc["nodeGroups"] if g["nodes"]]
    assert found["memberLabels"] == ["cloud.google.com/gke-nodepool", "topology.kubernetes.io/zone"]
    # every MIG has a template (highmem-pool's zone a from its pool's node in zone b): none is "not ready"
    # the loop holds every pending pod of the cluster: none finds a MIG not ready
    assert len(doc["pods"]) > 1 and any(p.get("nodeGroups") for p in doc["pods"])
    for pod in doc["pods"]:
        assert not any("not ready for scale-up" in (v.get("reasons") or ()) for v in (pod.get("nodeGroups") or {}).values())
    empty = next(g for g in doc["nodeGroups"] if g["name"] == mig_url("highmem-pool", "a"))
    assert empty["template"]["source"] == "template"
    assert empty["template"]["labels"]["topology.kubernetes.io/zone"] == "us-central1-a"
    assert doc["result"] == "ScaleUpSuccessful"
    assert gke.methods == {"GET"}


def test_node_group_takes_a_pools_mig_by_its_name_and_asks_which_for_the_pool(capsys, gke):
    base = ["pod", CHECKOUT, "-n", "shop", "--kubeconfig", gke.kubeconfig]
    code = main([*base, "--node-group", "default-pool"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err == ("error: --node-group default-pool: node pool default-pool is 3 node groups, a MIG per zone: give "
                   "one of them: gke-prod-default-pool-1a2b3c4d-grp (us-central1-a), gke-prod-default-pool-5e6f7a8b-grp "
                   "(us-central1-b), gke-prod-default-pool-9c0d1e2f-grp (us-central1-c)\n")
    code = main([*base, "--node-group", "gke-prod-default-pool-9c0d1e2f-grp"])
    out, _ = capsys.readouterr()
    # (the terminal folds the URL where it must: compared without the breaks)
    assert code == 1 and "".join(out.split()).startswith(f"Nodegroup{mig_url('default-pool', 'c')}forpod"
                                                         f"shop/{CHECKOUT}:fits")
    code = main([*base, "--node-group", "highmem"])
    out, err = capsys.readouterr()
    assert code == 2 and err.startswith("error: --node-group highmem: no node group of that name among the 6 node "
                                        "groups found in the cluster; the closest: highmem-pool")


def test_node_group_takes_the_managed_node_groups_name(capsys, api):
    serve_status(api)
    base = ["pod", CHECKOUT, "-n", "shop", "--kubeconfig", api.kubeconfig]
    code = main([*base, "--node-group", "general-xlarge"])
    out, _ = capsys.readouterr()
    assert code == 1 and " ".join(out.split()).startswith(f"Node group {GENERAL} for pod shop/{CHECKOUT}: fits")
    code = main([*base, "--node-group", "general-xlarg"])
    out, err = capsys.readouterr()
    assert code == 2 and err.endswith("; the closest: general-xlarge\n")


@pytest.mark.parametrize("scale_up", ["Backoff", "NoActivity"])
def test_a_group_ca_reports_in_backoff_is_skipped_and_the_status_is_named(capsys, api, scale_up):
    """clusterstate's NodeGroupScaleUpSafety: CA skips a group in backoff ("in backoff after
    failed scale-up"); kexplain knows it only from CA's status ConfigMap (node-a2, the GPU node,
    is the GPU group's member, so the group has a template)."""
    nodes = copy.deepcopy(api.collections["/api/v1/nodes"])
    next(i for i in nodes["items"] if i["metadata"]["name"] == "node-a2")["metadata"]["labels"][EKS] = "gpu-12xlarge"
    api.collections["/api/v1/nodes"] = nodes
    cm = yaml.safe_load((HERE / "status-yaml.yaml").read_text())
    cm["data"]["status"] = cm["data"]["status"].replace("status: Backoff", f"status: {scale_up}")
    serve_status(api, cm)
    base = ["pod", CHECKOUT, "-n", "shop", "--kubeconfig", api.kubeconfig]
    code = main([*base, "-o", "json"])
    out, err = capsys.readouterr()
    doc = json.loads(out)["autoscaler"]
    verdict = next(p for p in doc["pods"] if p["name"] == CHECKOUT)["nodeGroups"][GPU]
    if scale_up == "NoActivity":
        assert verdict["verdict"] != "skipped" and doc["nodeGroupsFound"]["backoff"] == {}, err
        return
    assert verdict == {"verdict": "skipped", "reasons": ["in backoff after failed scale-up"]}, err
    assert doc["nodeGroupsFound"]["backoff"][GPU]["errorCode"] == "InsufficientInstanceCapacity"
    assert all(u["nodeGroup"] != GPU for u in (doc["expansion"] or {}).get("scaleUps") or ())
    code = main([*base, "--node-group", GPU])
    out, _ = capsys.readouterr()
    assert ("Skipped by CA: in backoff after failed scale-up (CA's status ConfigMap: scaleUp Backoff since "
            "2026-11-23T13:31:47Z; InsufficientInstanceCapacity: We currently") in " ".join(out.split())


def test_a_mig_whose_only_member_is_cordoned_takes_the_instance_templates_stand_in(capsys, gke):
    """MixedTemplateNodeInfoProvider: no good member (node-b1 is cordoned), so the provider's
    template (GCE: the MIG's instance template, which node-b1 stands in for, without its cordon)
    comes before the cordoned member, which is only a last resort."""
    nodes = copy.deepcopy(gke.collections["/api/v1/nodes"])
    b1 = next(i for i in nodes["items"] if i["metadata"]["name"] == "node-b1")
    b1["spec"]["unschedulable"] = True
    b1["spec"]["taints"] = [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]
    gke.collections["/api/v1/nodes"] = nodes
    mig = mig_url("default-pool", "b")
    base = ["pod", CHECKOUT, "-n", "shop", "--kubeconfig", gke.kubeconfig]
    code = main([*base, "-o", "json"])
    out, err = capsys.readouterr()
    doc = json.loads(out)["autoscaler"]
    template = next(g for g in doc["nodeGroups"] if g["name"] == mig)["template"]
    assert template["source"] == "template" and template["taints"] == [], err
    assert template["origin"].startswith("the MIG's instance template, stood in for by its member node node-b1")
    assert next(p for p in doc["pods"] if p["name"] == CHECKOUT)["nodeGroups"][mig] == {"verdict": "fits"}
    code = main([*base, "--node-group", "gke-prod-default-pool-5e6f7a8b-grp"])
    out, _ = capsys.readouterr()
    text = " ".join(out.split())
    assert "template: the MIG's instance template, stood in for by its member node node-b1" in text
    assert "NodeUnschedulable Success" in text and "Rejected by" not in text
