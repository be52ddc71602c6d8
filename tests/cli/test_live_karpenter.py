"""Karpenter's objects read live (kexplain/load/live.py `KARPENTER`, `ClusterReader.read_karpenter`):
NodePools, NodeClaims (karpenter.sh/v1) and EC2NodeClasses (karpenter.k8s.aws/v1), with the
DaemonSets, from the stand-in API server (tests/support/live_server.py) serving the recorded
cluster and tests/data/live/karpenter/ beside it. They reach the cluster set as a `--nodes` file
of the same objects gives them; a cluster without Karpenter is asked nothing more; a refused read
is said as the namespace-scoped mode says it, and the rest goes on."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml

from kexplain.cli.env import Environment
from kexplain.cli.live import Connect, say_karpenter_reads, session
from kexplain.errors import Source
from kexplain.load.live import APIS_PATH, DAEMONSETS, KARPENTER, RESOURCES, KarpenterRead
from kexplain.load.manifests import load_objects
from tests.support.live_server import DATA, TOKEN, Rbac, isolated, recorded_api, run_cli  # noqa: F401 (isolated: autouse)

CHECKOUT = "checkout-6b8d9f7c4-lm3np"         # unschedulable: 3 cpu
KARPENTER_DATA = DATA / "karpenter"
KARPENTER_KINDS = {r.kind for r in KARPENTER}
READ_KINDS = KARPENTER_KINDS | {DAEMONSETS.kind}
KARPENTER_PATHS = [r.path for r in KARPENTER]
EVERY_KIND = frozenset(r.plural for r in (*RESOURCES, *KARPENTER, DAEMONSETS))
MAX_BYTES, MAX_OBJECTS = 64 << 20, 100_000
# Two pods for one Karpenter pass: the EC2NodeClass's status has subnets in us-east-1a and b only.
ZONE_PODS = """apiVersion: v1
kind: Pod
metadata: {name: zone-a, namespace: shop}
spec:
  nodeSelector: {topology.kubernetes.io/zone: us-east-1a}
  containers: [{name: app, image: nginx, resources: {requests: {cpu: "2", memory: 1Gi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: zone-c, namespace: shop}
spec:
  nodeSelector: {topology.kubernetes.io/zone: us-east-1c}
  containers: [{name: app, image: nginx, resources: {requests: {cpu: "2", memory: 1Gi}}}]
"""


@pytest.fixture
def api(tmp_path):
    """The recorded cluster with Karpenter installed (its kinds and the DaemonSets served)."""
    with recorded_api(tmp_path, collections=("karpenter",)) as server:
        yield server


@pytest.fixture
def plain(tmp_path):
    """The recorded cluster as it is: no Karpenter."""
    with recorded_api(tmp_path) as server:
        yield server


def read(api, namespace: str | None = None):
    """What `kexplain snapshot` reads (`Session.read`), and what it says of Karpenter's reads on stderr."""
    err = io.StringIO()
    env = Environment(stdout=io.StringIO(), stderr=err, stderr_is_terminal=False, is_terminal=False)
    with session(env, Connect(kubeconfig=api.kubeconfig, namespace=namespace)) as s:
        live = s.read()
    say_karpenter_reads(env, live)
    return live, err.getvalue()


def as_kubectl_prints(folder: Path) -> list[dict]:
    """The served objects as `kubectl get nodepools,nodeclaims,ec2nodeclasses,daemonsets -A -o
    yaml` prints them: kind and apiVersion on each, no managedFields. In the order kexplain
    reads the kinds (Karpenter's, then the DaemonSets)."""
    out = []
    for res in (*KARPENTER, DAEMONSETS):
        body = json.loads((folder / res.path.lstrip("/")).with_suffix(".json").read_text())
        for item in body["items"]:
            meta = {k: v for k, v in item["metadata"].items() if k != "managedFields"}
            out.append({"apiVersion": res.api_version, "kind": res.kind, **item, "metadata": meta})
    return out


def write_yaml(path: Path, objects: list[dict]) -> Path:
    path.write_text(yaml.safe_dump_all(objects, sort_keys=False))
    return path


# --- the objects, as a --nodes file gives them ----------------------------------------------

def test_the_objects_reach_the_cluster_set_as_a_nodes_file_gives_them(api, tmp_path):
    live, said = read(api)
    assert live.karpenter == KarpenterRead(installed=True)
    assert said == ""
    read_objects = [(o, s) for o, s in live.cluster if o.get("kind") in READ_KINDS]
    nodes_file = write_yaml(tmp_path / "karpenter.yaml", as_kubectl_prints(KARPENTER_DATA))
    given = load_objects([str(nodes_file)], MAX_BYTES, None, max_objects=MAX_OBJECTS)
    assert [o for o, _ in read_objects] == [o for o, _ in given]
    assert [o["kind"] for o, _ in read_objects] == ["NodePool", "NodePool", "NodeClaim", "EC2NodeClass", "DaemonSet"]
    # each named by the collection it was listed from
    sources = {o["kind"]: s for o, s in read_objects}
    assert sources["EC2NodeClass"] == Source(f"{api.url}/apis/karpenter.k8s.aws/v1/ec2nodeclasses")
    assert sources["DaemonSet"] == Source(f"{api.url}{DAEMONSETS.path}")
    # the EC2NodeClass's status as stored: the zones of its subnets
    ec2_class = next(o for o, _ in read_objects if o["kind"] == "EC2NodeClass")
    assert [s["zone"] for s in ec2_class["status"]["subnets"]] == ["us-east-1a", "us-east-1b"]
    # the scheduler's kinds first, as read without Karpenter; Karpenter's after them
    kinds = [o["kind"] for o, _ in live.cluster]
    assert kinds.index("NodePool") > max(i for i, k in enumerate(kinds) if k not in READ_KINDS)


def test_karpenter_decides_on_the_live_objects_as_on_the_nodes_file(capsys, api, tmp_path):
    """One Karpenter pass (`kexplain karpenter`) over a snapshot of the live cluster, and over
    the same cluster without Karpenter's objects plus a --nodes file of them: the same
    document. The EC2NodeClass's status is what decides the zones: us-east-1c has no subnet."""
    snap = tmp_path / "cluster.json"
    code, _, err = run_cli(capsys, "snapshot", "-o", str(snap), "--kubeconfig", api.kubeconfig)
    assert code == 0, err
    assert "2 nodepools, 1 nodeclaims, 1 ec2nodeclasses" in err and "1 daemonsets" in err
    listed = json.loads(snap.read_text())["items"]
    scheduler_only = tmp_path / "scheduler.json"
    scheduler_only.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                          "items": [o for o in listed if o["kind"] not in READ_KINDS]}))
    nodes_file = write_yaml(tmp_path / "karpenter.yaml", as_kubectl_prints(KARPENTER_DATA))
    pods = tmp_path / "pods.yaml"
    pods.write_text(ZONE_PODS)
    base = ["karpenter", str(pods), "-o", "json", "--no-suggestions"]
    code, out, err = run_cli(capsys, *base, "--nodes", str(snap))
    from_live = json.loads(out)
    code_file, out, _ = run_cli(capsys, *base, "--nodes", str(scheduler_only), "--nodes", str(nodes_file))
    assert (code_file, json.loads(out)) == (code, from_live)
    assert [p["nodePool"] for p in from_live["explained"]["nodePools"]] == ["gpu", "default"]     # by weight
    pods_by_name = {p["pod"]: p for p in from_live["pods"]}
    assert pods_by_name[f"shop/{CHECKOUT}"]["nodeClaim"] == "default-x7k2p"     # the in-flight NodeClaim
    zone_c = {e["nodePool"]: e["error"] for e in pods_by_name["shop/zone-c"]["nodePoolErrors"]}
    assert pods_by_name["shop/zone-c"]["result"] == "Failed"
    assert "had a required offering" in zone_c["default"]
    m5 = next(t for t in from_live["instanceTypes"]["default"] if t["name"] == "m5.large")
    assert [o for o in m5["offerings"] if "unavailable" in o] == ["us-east-1c on-demand 0.096 unavailable",
                                                                  "us-east-1c spot 0.096 unavailable"]
    # the DaemonSets read with them: their pods' requests are each NodePool's overhead
    overhead = {p["nodePool"]: p["daemonSetOverhead"] for p in from_live["explained"]["nodePools"]}
    assert overhead == {"gpu": {"cpu": "10m", "memory": "40Mi", "pods": "1"},
                        "default": {"cpu": "10m", "memory": "40Mi", "pods": "1"}}


# --- a cluster without Karpenter --------------------------------------------------------------

def test_a_cluster_without_karpenter_is_asked_nothing_more(capsys, plain):
    live, said = read(plain)
    assert live.karpenter == KarpenterRead(installed=False, unserved=tuple((res, ()) for res in KARPENTER))
    assert said == ""
    assert not [o for o, _ in live.cluster if o.get("kind") in READ_KINDS]
    asked = plain.paths()
    assert APIS_PATH in asked
    assert not set(asked) & {*KARPENTER_PATHS, DAEMONSETS.path}
    code, out, err = run_cli(capsys, "pod", CHECKOUT, "-n", "shop", "--kubeconfig", plain.kubeconfig)
    assert code == 1 and "Karpenter" not in err


def test_an_older_karpenter_is_a_note_and_not_read(capsys, plain):
    """karpenter.sh served at v1beta1 only (Karpenter before v1.0): not listed, said once."""
    plain.collections["/apis/karpenter.sh/v1beta1/nodepools"] = {
        "kind": "NodePoolList", "apiVersion": "karpenter.sh/v1beta1", "metadata": {"resourceVersion": "1"},
        "items": []}
    live, said = read(plain)
    assert live.karpenter.notes == ("karpenter.sh is served at v1beta1 only, not v1 (Karpenter before v1.0): its "
                                    "objects are not read, kexplain reads karpenter.sh/v1",)
    assert not live.karpenter.installed
    assert not [p for p in plain.paths() if p.startswith("/apis/karpenter.sh/")]
    assert said.count("note: karpenter.sh is served at v1beta1 only") == 1


def test_without_the_group_list_every_kind_is_listed(capsys, api):
    """GET /apis refused (a server that does not let everyone read discovery): Karpenter's
    kinds are listed all the same, a 404 meaning not served."""
    api.faults.forbidden[APIS_PATH] = "forbidden-list-csinodes.json"
    live, said = read(api)
    assert live.karpenter == KarpenterRead(installed=True)
    assert [o["kind"] for o, _ in live.cluster if o.get("kind") in KARPENTER_KINDS] == [
        "NodePool", "NodePool", "NodeClaim", "EC2NodeClass"]


# --- refusals ---------------------------------------------------------------------------------

def test_a_refused_nodepools_read_is_said_and_the_rest_goes_on(capsys, api):
    api.faults.rbac = Rbac(cluster=EVERY_KIND - {"nodepools"})
    code, out, err = run_cli(capsys, "pod", CHECKOUT, "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json")
    assert code == 1
    assert json.loads(out)["result"]["status"] == "Unschedulable"      # the scheduler's simulation, in full
    lines = err.splitlines()
    assert lines[0] == "Not read (RBAC refused, 403); what each read would add:"
    assert lines[1] == ("  at the cluster scope: list nodepools: Karpenter's NodePools: whether Karpenter would "
                        "launch a node for a pending pod, and why not.")
    assert '    a ClusterRole: {apiGroups: ["karpenter.sh"], resources: [nodepools], verbs: [get, list]}' in lines
    assert "redacted snapshot" not in err          # the cluster was read: nothing to ask of someone else
    live, said = read(api)
    assert [r.resource.plural for r in live.karpenter.refusals] == ["nodepools"]
    assert live.refusals == ()                     # not a partial read of the cluster
    assert [o["kind"] for o, _ in live.cluster if o.get("kind") in READ_KINDS] == [
        "NodeClaim", "EC2NodeClass", "DaemonSet"]
    assert "list nodepools" in said


def test_refused_daemonsets_are_a_note_of_karpenter(capsys, api):
    api.faults.rbac = Rbac(cluster=EVERY_KIND - {"daemonsets"})
    live, said = read(api)
    assert live.karpenter.installed and live.karpenter.refusals == ()
    assert len(live.karpenter.notes) == 1
    assert live.karpenter.notes[0].startswith("DaemonSets could not be read (Karpenter's DaemonSet overhead on new "
                                              'nodes is not counted): forbidden (403): kexplain needs "list" on '
                                              'resource "daemonsets"')
    assert f"note: {live.karpenter.notes[0]}\n" in said
    assert [o["kind"] for o, _ in live.cluster if o.get("kind") in READ_KINDS] == [
        "NodePool", "NodePool", "NodeClaim", "EC2NodeClass"]


def test_the_namespace_scoped_mode_names_them_in_its_block(capsys, tmp_path):
    """A user of one namespace: no simulation; Karpenter's refused reads are in the one block
    of refused reads, with their rules, and nothing else is said of Karpenter."""
    with recorded_api(tmp_path, TOKEN, scenario="namespaced") as api:
        api.add_collections("karpenter")
        api.faults.rbac = Rbac()
        code, out, err = run_cli(capsys, "pod", "api-cpu", "-n", "shop", "--kubeconfig", api.kubeconfig)
    assert code == 1
    assert "Karpenter" not in err and "DaemonSets" not in err
    refused = out[out.index("Not read (RBAC refused, 403)"):]
    for plural, group in (("nodepools", "karpenter.sh"), ("nodeclaims", "karpenter.sh"),
                          ("ec2nodeclasses", "karpenter.k8s.aws")):
        res = next(r for r in KARPENTER if r.plural == plural)
        assert f"list {plural}: {res.adds}" in refused
    assert '    a ClusterRole: {apiGroups: ["karpenter.sh"], resources: [nodepools, nodeclaims], verbs: [get, list]}' \
        in refused.splitlines()
    assert '    a ClusterRole: {apiGroups: ["karpenter.k8s.aws"], resources: [ec2nodeclasses], verbs: [get, list]}' \
        in refused.splitlines()


# --- snapshots --------------------------------------------------------------------------------

def test_a_snapshot_has_them_and_a_redacted_one_says_what_it_leaves_out(capsys, api, tmp_path):
    snap = tmp_path / "cluster.yaml"
    code, _, err = run_cli(capsys, "snapshot", "-o", str(snap), "--kubeconfig", api.kubeconfig)
    assert code == 0, err
    replayed = load_objects([str(snap)], MAX_BYTES, None, max_objects=MAX_OBJECTS)
    live, _ = read(api)
    assert [o for o, _ in replayed if o.get("kind") in READ_KINDS] == \
        [o for o, _ in live.cluster if o.get("kind") in READ_KINDS]
    redacted = tmp_path / "redacted.json"
    code, _, err = run_cli(capsys, "snapshot", "--redact", "-o", str(redacted), "--kubeconfig", api.kubeconfig)
    assert code == 0
    assert err.splitlines()[0] == ("note: a redacted snapshot leaves out 1 daemonsets, 2 nodepools, 1 nodeclaims, "
                                   "1 ec2nodeclasses: redaction keeps only what the scheduler reads; a replay has no "
                                   "Karpenter section")
    assert not {o["kind"] for o in json.loads(redacted.read_text())["items"]} & READ_KINDS


# --- end to end: the Karpenter section of a live pod ------------------------------------------

def test_a_live_pod_has_the_karpenter_section_as_its_offline_replay(capsys, api, tmp_path):
    """`kexplain pod NAME` on a cluster with NodePools: Karpenter's pass over the live objects
    (the checkout pod waits for the in-flight NodeClaim), in the table and -o json's `karpenter`
    key, the same as the offline replay of the pod's snapshot."""
    base = ["pod", CHECKOUT, "-n", "shop", "--kubeconfig", api.kubeconfig]
    code, out, err = run_cli(capsys, *base, "-o", "json")
    assert code == 1, err
    live = json.loads(out)
    doc = live["karpenter"]
    answer = next(p for p in doc["pods"] if p["pod"] == f"shop/{CHECKOUT}")
    assert (answer["result"], answer["nodeClaim"]) == ("ExistingNode", "default-x7k2p")
    assert [a for a in live["autoscalers"] if a["autoscaler"] == "Karpenter"] == [
        {"autoscaler": "Karpenter", "pod": f"shop/{CHECKOUT}", "outcome": "ExistingNode",
         "reasons": ["in-flight NodeClaim default-x7k2p"], "nodeClaim": "default-x7k2p"}]
    assert [p["nodePool"] for p in doc["explained"]["nodePools"]] == ["gpu", "default"]
    assert not [s for s in live["suggestions"] if s["kind"] == "add-node"]     # a node comes from a NodePool
    snap = tmp_path / "cluster.json"
    code_snap, _, err = run_cli(capsys, "snapshot", CHECKOUT, "-n", "shop", "-o", str(snap),
                            "--kubeconfig", api.kubeconfig)
    assert code_snap == 0, err
    off_code, out, _ = run_cli(capsys, str(tmp_path / "cluster.pod.json"), "--nodes", str(snap), "--stored", "-o", "json")
    # Live, the pass holds the scheduler's queue over the cluster's pending pods as `--pending -A`
    # walks it (the vip pod's preemption nominates node-a1 there); the replay explains the pod alone.
    walked = live["karpenter"]["pendingPass"].pop("preempting")
    assert walked == {"shop/vip-9f7c6d5b8-t4wqz": {"nominatedNodeName": "node-a1",
                                                   "victims": ["shop/web-5f6d8c7b9-2xkqp"]}}
    assert (off_code, json.loads(out)) == (code, {k: v for k, v in live.items() if k != "live"})
    code, out, _ = run_cli(capsys, *base)
    assert "\nKarpenter: ExistingNode (an existing node or in-flight NodeClaim): in-flight\nNodeClaim default-x7k2p." \
        in out
    assert "\nKarpenter: 0 new NodeClaims; pods: 4 ExistingNode, 2 NotProvisionable\n" in out


def test_the_pending_list_has_the_section(capsys, api):
    """--pending: one Karpenter pass over every pending pod of the cluster, the section after the list."""
    code, out, _ = run_cli(capsys, "pod", "--pending", "-n", "shop", "--kubeconfig", api.kubeconfig)
    assert code == 1
    assert out.splitlines()[0].split() == ["POD", "KEXPLAIN", "SCHEDULER", "WHY"]
    assert "\nKarpenter: 0 new NodeClaims; pods: 4 ExistingNode, 2 NotProvisionable\n" in out
    code, out, _ = run_cli(capsys, "pod", "--pending", "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json")
    doc = json.loads(out)["karpenter"]
    assert {p["pod"]: p["result"] for p in doc["pods"]}[f"shop/{CHECKOUT}"] == "ExistingNode"


@pytest.mark.parametrize("refused", [None, "nodepools"])
def test_no_section_without_nodepools(capsys, request, refused):
    """No Karpenter (or its NodePools refused): no section, no key, the rest as ever."""
    server = request.getfixturevalue("plain" if refused is None else "api")
    if refused:
        server.faults.rbac = Rbac(cluster=EVERY_KIND - {refused})
    code, out, _ = run_cli(capsys, "pod", CHECKOUT, "-n", "shop", "--kubeconfig", server.kubeconfig, "-o", "json")
    trace = json.loads(out)
    assert code == 1 and trace["result"]["status"] == "Unschedulable"
    assert "karpenter" not in trace and not [a for a in trace.get("autoscalers", ()) if a["autoscaler"] == "Karpenter"]
