"""The namespaces' LimitRanges and ResourceQuotas (v1) and the HorizontalPodAutoscalers
(autoscaling/v2) read live for `kexplain snapshot` (kexplain/load/live.py `POLICIES`,
`ClusterReader.read_policies`), from the stand-in API server (tests/support/live_server.py)
serving the recorded cluster and tests/data/live/policies/ beside it: a LimitRange of `shop`
(default requests 250m/256Mi, max cpu 2), a full-but-one quota of `batch` (pods: used 2, hard 3,
as the quota controller wrote it) and an HPA of `default` (minReplicas 3) whose Deployment does
not exist yet. A set explained against the snapshot (`--nodes`) meets them as the API server and
the HPA controller would; the cluster's own pods, stored, meet none of them again. A refused read
is said as the namespace-scoped mode says it, and the snapshot goes on without the kind."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kexplain.autoscaler.cloudprovider.live import CLUSTER_API, STATUS
from kexplain.load.live import DAEMONSETS, KARPENTER, POLICIES, RESOURCES
from kexplain.load.manifests import load_objects
from tests.support.live_server import (DATA, NAMESPACE_VIEW, Rbac, isolated, recorded_api,  # noqa: F401
                                       run_cli)  # (isolated: an autouse fixture)

CHECKOUT = "checkout-6b8d9f7c4-lm3np"         # shop: requests cpu 3, no limit (LimitRanger would refuse it)
POLICY_KINDS = {r.kind for r in POLICIES}
POLICY_PATHS = {r.path for r in POLICIES}
EVERY_KIND = frozenset(r.plural for r in (*RESOURCES, *POLICIES, DAEMONSETS, *KARPENTER, STATUS, *CLUSTER_API))
MAX_BYTES, MAX_OBJECTS = 64 << 20, 100_000
SET = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: cart, namespace: shop}
spec:
  replicas: 1
  selector: {matchLabels: {app: cart}}
  template:
    metadata: {labels: {app: cart}}
    spec:
      containers: [{name: cart, image: nginx}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: etl-workers, namespace: batch}
spec:
  replicas: 2
  selector: {matchLabels: {app: etl-workers}}
  template:
    metadata: {labels: {app: etl-workers}}
    spec:
      containers: [{name: worker, image: busybox, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: default}
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers: [{name: api, image: nginx, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
"""
HPA_MESSAGE = ("Deployment default/api: HorizontalPodAutoscaler default/api sets spec.replicas from 1 to 3 at once "
               "(SuccessfulRescale: New size: 3; reason: Current number of replicas below Spec.MinReplicas); its "
               "pods are explained at 3 replicas")


@pytest.fixture
def api(tmp_path):
    """The recorded cluster with the namespaces' policies and an HPA served."""
    with recorded_api(tmp_path, collections=("policies",)) as server:
        yield server


def snapshot(capsys, api, path: Path, *args: str) -> tuple[int, str]:
    code, _, err = run_cli(capsys, "snapshot", "-o", str(path), "--kubeconfig", api.kubeconfig, *args)
    return code, err


def explain_set(capsys, tmp_path: Path, snap: Path) -> tuple[int, dict, str]:
    app = tmp_path / "app.yaml"
    app.write_text(SET)
    code, out, err = run_cli(capsys, str(app), "--nodes", str(snap), "-o", "json")
    return code, json.loads(out), err


def placement(doc: dict, name: str) -> dict:
    return next(p for p in doc["placements"] if p["object"]["name"] == name)


def cart(doc: dict) -> dict:
    return next(i for i in doc["items"] if i["pod"]["name"].startswith("cart-"))


def as_kubectl_prints() -> list[dict]:
    """The served policies as `kubectl get limitranges,resourcequotas,hpa -A -o json` prints
    them: kind and apiVersion on each, no managedFields, kinds in the order kexplain reads them."""
    out = []
    for res in POLICIES:
        body = json.loads((DATA / "policies" / res.path.lstrip("/")).with_suffix(".json").read_text())
        for item in body["items"]:
            meta = {k: v for k, v in item["metadata"].items() if k != "managedFields"}
            out.append({"apiVersion": res.api_version, "kind": res.kind, **item, "metadata": meta})
    return out


# --- the snapshot: written, read back, met by a set ---------------------------------------------

def test_a_snapshot_has_them_as_stored_paged_and_read_back(capsys, api, tmp_path):
    snap = tmp_path / "cluster.json"
    code, err = snapshot(capsys, api, snap, "--chunk-size", "1")
    assert code == 0, err
    assert "2 limitranges, 1 resourcequotas, 1 horizontalpodautoscalers) read from" in err
    replayed = load_objects([str(snap)], MAX_BYTES, None, max_objects=MAX_OBJECTS)
    assert [o for o, _ in replayed if o.get("kind") in POLICY_KINDS] == as_kubectl_prints()
    assert all(o["metadata"]["resourceVersion"] for o, _ in replayed if o.get("kind") in POLICY_KINDS)
    # paged as every other list: two LimitRanges, one a page
    assert [r.query.get("continue") is not None for r in api.requests if r.path == "/api/v1/limitranges"] == [
        False, True]


def test_a_limitrange_of_the_cluster_gives_a_sets_pod_its_defaults(capsys, api, tmp_path):
    snap = tmp_path / "cluster.json"
    assert snapshot(capsys, api, snap)[0] == 0
    _, doc, _ = explain_set(capsys, tmp_path, snap)
    item = cart(doc)
    assert item["limitRanger"] == {"set": "cpu, memory request for container cart; cpu, memory limit for container "
                                          "cart", "limitRanges": ["shop-defaults"]}
    app = tmp_path / "app.yaml"
    code, out, _ = run_cli(capsys, str(app), "--nodes", str(snap))
    assert "Requests cpu 250m, memory 256Mi; priority 0" in out
    assert "Set by LimitRange shop-defaults (LimitRanger): cpu, memory request for container" in out


def test_a_quota_of_the_cluster_refuses_the_second_replica(capsys, api, tmp_path):
    snap = tmp_path / "cluster.json"
    assert snapshot(capsys, api, snap)[0] == 0
    code, doc, _ = explain_set(capsys, tmp_path, snap)
    assert code == 1
    etl = placement(doc, "etl-workers")
    assert (etl["replicas"], etl["created"], etl["fit"]) == (2, 1, 1)
    assert etl["failedCreate"].startswith('Error creating: pods "etl-workers-')
    assert etl["failedCreate"].endswith("is forbidden: exceeded quota: batch-pods, requested: pods=1, used: pods=3, "
                                        "limited: pods=3")


def test_an_hpa_of_the_cluster_scales_the_sets_deployment(capsys, api, tmp_path):
    snap = tmp_path / "cluster.json"
    assert snapshot(capsys, api, snap)[0] == 0
    _, doc, err = explain_set(capsys, tmp_path, snap)
    api_placement = placement(doc, "api")
    assert (api_placement["replicas"], api_placement["fit"]) == (3, 3)
    assert api_placement["horizontalPodAutoscaler"] == {
        "namespace": "default", "name": "api", "from": 1, "to": 3,
        "reason": "Current number of replicas below Spec.MinReplicas", "message": HPA_MESSAGE}
    assert HPA_MESSAGE in err


def test_the_clusters_own_pods_are_not_admitted_again(capsys, api, tmp_path):
    """db-0 (shop, on node-c1) requests 2 cpu with no limit: created now, shop's LimitRange
    would give it a 500m limit below its request and refuse it. Stored, it is taken as it is
    beside the set: nothing of the cluster is refused, and node-c1 still runs it (a set's pod
    of 1 cpu does not fit there: 3920m, less db-0's 2, web's 1 and the system pods')."""
    snap = tmp_path / "cluster.json"
    assert snapshot(capsys, api, snap)[0] == 0
    app = tmp_path / "one.yaml"
    app.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: big, namespace: shop}\nspec:\n"
                   "  containers: [{name: big, image: nginx, resources: {limits: {cpu: '1'}}}]\n")
    code, out, err = run_cli(capsys, str(app), "--nodes", str(snap), "-o", "json")
    doc = json.loads(out)
    assert code == 1 and "forbidden" not in err and "db-0" not in err
    assert doc["limitRanger"]["limitRanges"] == ["shop-defaults"]      # the set's pod meets the LimitRange
    assert doc["filter"]["node-c1"]["reasons"] == ["Insufficient cpu"]


def test_explaining_a_live_pod_reads_none_of_them(capsys, api):
    """A stored pod has met them: `kexplain pod` (NAME or --pending) asks nothing of them."""
    run_cli(capsys, "pod", CHECKOUT, "-n", "shop", "--kubeconfig", api.kubeconfig)
    run_cli(capsys, "pod", "--pending", "-n", "shop", "--kubeconfig", api.kubeconfig)
    assert not [p for p in api.paths() if p.rsplit("/", 1)[-1] in {r.plural for r in POLICIES}]


# --- refusals -----------------------------------------------------------------------------------

def test_a_refused_limitranges_read_is_said_and_the_snapshot_goes_on(capsys, api, tmp_path):
    api.faults.rbac = Rbac(cluster=EVERY_KIND - {"limitranges"}, namespaced=NAMESPACE_VIEW - {"limitranges"})
    snap = tmp_path / "cluster.json"
    code, err = snapshot(capsys, api, snap, "-n", "shop")
    assert code == 0, err
    lines = err.splitlines()
    assert lines[:6] == [
        "Not read (RBAC refused, 403); what each read would add:",
        "  at the cluster scope: list limitranges: the namespaces' LimitRanges: the default requests and limits, and "
        "the bounds, a set's pods meet.",
        "  in the namespace \"shop\": list limitranges: the namespaces' LimitRanges: the default requests and limits, "
        "and the bounds, a set's pods meet.",
        "  The rules that allow them (the ClusterRole of deploy/rbac.yaml has every cluster-wide one):",
        '    a ClusterRole: {apiGroups: [""], resources: [limitranges], verbs: [get, list]}',
        '    a Role in the namespace "shop": {apiGroups: [""], resources: [limitranges], verbs: [get, list]}']
    assert lines[6] == ("note: the namespaces' policies were not read: LimitRanges (RBAC refused, 403, at the "
                        'cluster scope and in the namespace "shop"); a set explained against this snapshot meets '
                        "none of them")
    assert lines[7].startswith("wrote ") and " limitranges" not in lines[7]
    code, doc, _ = explain_set(capsys, tmp_path, snap)
    assert "limitRanger" not in cart(doc)                           # no LimitRange: no defaults
    assert placement(doc, "etl-workers")["created"] == 1           # the quota and the HPA still act
    assert placement(doc, "api")["replicas"] == 3


def test_a_refused_cluster_wide_list_is_read_in_the_namespace(capsys, api, tmp_path):
    api.faults.rbac = Rbac(cluster=EVERY_KIND - {"limitranges"})        # `view` in shop reads them there
    snap = tmp_path / "cluster.json"
    code, err = snapshot(capsys, api, snap, "-n", "shop")
    assert code == 0, err
    assert ('note: LimitRanges were read in the namespace "shop" only (RBAC refused the cluster-wide list, 403): a '
            "set explained against this snapshot meets none of the other namespaces'") in err.splitlines()
    assert "/api/v1/namespaces/shop/limitranges" in api.paths()
    items = json.loads(snap.read_text())["items"]
    assert [(o["metadata"]["namespace"], o["metadata"]["name"]) for o in items if o["kind"] == "LimitRange"] == [
        ("shop", "shop-defaults")]
    _, doc, _ = explain_set(capsys, tmp_path, snap)
    assert cart(doc)["limitRanger"]["limitRanges"] == ["shop-defaults"]


def test_a_redacted_snapshot_leaves_them_out_and_says_so(capsys, api, tmp_path):
    redacted = tmp_path / "redacted.json"
    code, err = snapshot(capsys, api, redacted, "--redact")
    assert code == 0
    assert err.splitlines()[0] == ("note: a redacted snapshot leaves out 2 limitranges, 1 resourcequotas, 1 "
                                   "horizontalpodautoscalers: redaction keeps only what the scheduler reads; a set "
                                   "explained against it meets none of the namespaces' policies and HPAs")
    assert not {o["kind"] for o in json.loads(redacted.read_text())["items"]} & POLICY_KINDS
