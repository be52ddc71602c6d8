"""Live mode for a user RBAC lets read only their own namespace (a RoleBinding to `view`/`edit`):
the stand-in API server refuses every cluster-scope read with the Status body kube-apiserver's
RBAC authorizer sends, and kexplain answers from what is readable (the pod, its namespace's
objects and events), says it is the scheduler's own verdict and names what was refused."""
from __future__ import annotations

import json

import pytest

from kexplain.load.live import RESOURCES
from tests.support.live_server import (TOKEN, NAMESPACE_VIEW, Rbac, isolated, recorded_api,  # noqa: F401
                                       run_cli)  # (isolated: an autouse fixture)
from tests.support.paths import ROOT

CHECKOUT = "checkout-6b8d9f7c4-lm3np"
VIP = "vip-9f7c6d5b8-t4wqz"
CLUSTER_SCOPED = [r.plural for r in RESOURCES if not r.namespaced]


@pytest.fixture
def api(tmp_path):
    with recorded_api(tmp_path, rbac=Rbac()) as server:
        yield server


def run(capsys, api, *args: str) -> tuple[int, str, str]:
    return run_cli(capsys, *args, "--kubeconfig", api.kubeconfig)


def test_a_namespace_reader_gets_the_schedulers_verdict_and_the_missing_permissions(capsys, api):
    code, out, err = run(capsys, api, "pod", CHECKOUT, "-n", "shop")
    assert code == 1, err
    lines = out.splitlines()
    assert lines[0].startswith(f"shop/{CHECKOUT}: Unschedulable: its FailedScheduling event, seen 7 times, "
                               "last at 2026-11-23T14:20:00.000000Z (")
    assert "the scheduler's own verdict, not a simulation" in lines[0]
    assert "Not read (RBAC refused, 403); what each read would add:" in lines
    assert any(line.startswith("  at the cluster scope: ") and "list nodes: kexplain's own run of every filter" in line
               for line in lines)
    assert ('    a ClusterRole: {apiGroups: [""], resources: [namespaces, nodes, persistentvolumes, '
            "persistentvolumeclaims, pods, services, replicationcontrollers], verbs: [get, list]}") in lines
    assert lines[-1].endswith(f"kexplain snapshot {CHECKOUT} -n shop --redact -o cluster.json")
    # Namespaces: the list is refused, the get of the pod's own namespace is allowed.
    assert "list namespaces: namespace labels" in out and "get namespaces" not in out
    assert "/api/v1/namespaces/shop" in api.paths()


def test_each_refused_read_is_asked_once_then_read_in_the_namespace(capsys, api):
    run(capsys, api, "pod", CHECKOUT, "-n", "shop")
    paths = api.paths()
    for res in RESOURCES:
        assert paths.count(res.path) == 1, res.path
        if res.namespaced:
            assert paths.count(res.path_in("shop")) == 1, res.path
    assert "/api/v1/namespaces/shop/events" in paths
    assert api.methods == {"GET"}


def test_json_keeps_the_verdict_its_source_and_each_refusal(capsys, api):
    code, out, _ = run(capsys, api, "pod", CHECKOUT, "-n", "shop", "-o", "json")
    doc = json.loads(out)
    assert code == 1
    assert doc["pod"] == {"namespace": "shop", "name": CHECKOUT}
    word = doc["fromEvent"]["scheduler"]
    assert (word["status"], word["source"], word["count"]) == ("Unschedulable", "event", 7)
    assert word["message"].startswith("0/6 nodes are available: 1 node(s) had untolerated taint(s)")
    refused = {r["resource"]: r for r in doc["fromEvent"]["refused"]}
    assert set(refused) == {r.plural for r in RESOURCES}
    assert refused["nodes"] == {"verb": "list", "resource": "nodes", "apiGroup": "", "namespace": None,
                                "adds": "kexplain's own run of every filter, node by node",
                                "rule": {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list"]},
                                "roleKind": "ClusterRole",
                                "message": 'nodes is forbidden: User "alice@example.com" cannot list resource "nodes" '
                                           'in API group "" at the cluster scope'}
    assert doc["live"]["snapshot"] == f"kexplain snapshot {CHECKOUT} -n shop --redact -o cluster.json"


def test_the_newest_failed_scheduling_event_is_the_one_shown(capsys, api):
    _, out, _ = run(capsys, api, "pod", CHECKOUT, "-n", "shop", "-o", "json")
    word = json.loads(out)["fromEvent"]["scheduler"]
    assert word["message"].startswith("0/6 ")        # not the older event's 0/5
    assert word["lastSeen"] == "2026-11-23T14:20:00.000000Z"


def test_an_event_of_the_older_api_keeps_its_count(capsys, api):
    _, out, _ = run(capsys, api, "pod", VIP, "-n", "shop", "-o", "json")
    word = json.loads(out)["fromEvent"]["scheduler"]
    assert (word["count"], word["firstSeen"], word["lastSeen"]) == (3, "2026-11-23T13:50:00Z", "2026-11-23T14:20:00Z")


def test_events_refused_too_fall_back_to_the_pods_condition(capsys, api):
    api.faults.rbac = Rbac(namespaced=NAMESPACE_VIEW - {"events"})
    code, out, _ = run(capsys, api, "pod", CHECKOUT, "-n", "shop")
    assert code == 1
    assert out.splitlines()[0].startswith(f"shop/{CHECKOUT}: Unschedulable: its PodScheduled condition "
                                          "(Unschedulable since ")
    assert 'in the namespace "shop": list events: the scheduler\'s and the autoscaler\'s events (age, count).' in out
    assert '    a Role in the namespace "shop": {apiGroups: [""], resources: [events], verbs: [get, list]}' in out


def test_one_refused_list_degrades_the_answer(capsys, api):
    api.faults.rbac = Rbac(cluster=frozenset(r.plural for r in RESOURCES) - {"csinodes"})
    code, out, _ = run(capsys, api, "pod", CHECKOUT, "-n", "shop")
    assert code == 1
    assert "  at the cluster scope: list csinodes: volume limits." in out
    assert '    a ClusterRole: {apiGroups: ["storage.k8s.io"], resources: [csinodes], verbs: [get, list]}' in out


@pytest.mark.parametrize("name, code, first", [
    ("gated-report", 1, "shop/gated-report: Gated: its PodScheduled condition (SchedulingGated)"),
    ("db-0", 0, "shop/db-0: Scheduled (bound to node-c1)."),
])
def test_gated_and_bound_pods(capsys, api, name, code, first):
    got, out, _ = run(capsys, api, "pod", name, "-n", "shop")
    assert got == code
    assert out.splitlines()[0].startswith(first)


def test_pending_in_the_namespace_works_for_a_namespace_reader(capsys, api):
    code, out, _ = run(capsys, api, "pod", "--pending", "-n", "shop")
    assert code == 1
    firsts = [line.split(":")[0] for line in out.splitlines() if line.startswith("shop/")]
    assert firsts == [f"shop/{CHECKOUT}", "shop/gated-report", "shop/vip-9f7c6d5b8-t4wqz",
                      "shop/web-5f6d8c7b9-x9n2k"]
    assert out.count("Not read (RBAC refused, 403)") == 1
    code, out, _ = run(capsys, api, "pod", "--pending", "-n", "shop", "-o", "json")
    doc = json.loads(out)
    assert doc["kind"] == "FromEventsList" and len(doc["items"]) == 4
    assert {r["resource"] for r in doc["refused"]} >= {"nodes", "pods"}


def test_all_namespaces_still_needs_the_cluster(capsys, api):
    code, out, err = run(capsys, api, "pod", "-A")
    assert code == 2 and out == ""
    assert 'forbidden (403): kexplain needs "list" on resource "namespaces"' in err


# --- the FailedScheduling event taken apart against the pod's spec (tests/data/live/namespaced) ------

@pytest.fixture
def shop(tmp_path):
    with recorded_api(tmp_path, TOKEN, "namespaced") as server:
        server.faults.rbac = Rbac()
        yield server


def explained(capsys, api, name: str, minor: str) -> tuple[int, dict]:
    code, out, err = run(capsys, api, "pod", name, "-n", "shop", "-o", "json", "--kubernetes-version", minor)
    return code, json.loads(out)


def rows(doc: dict) -> list[tuple]:
    return [(r["count"], r["reason"], r["plugin"]) for r in doc["fromEvent"]["message"]["reasons"]]


def test_resources_against_the_effective_requests(capsys, shop):
    code, doc = explained(capsys, shop, "api-cpu", "1.35")
    assert code == 1
    assert rows(doc) == [(3, "Insufficient cpu", "NodeResourcesFit")]
    row = doc["fromEvent"]["message"]["reasons"][0]
    # max(containers 4, init container 6) + overhead 250m
    assert row["podSide"].startswith("the pod requests cpu 6250m (counted from containers, init containers")
    assert "overhead cpu 250m" in row["podSide"]
    assert row["needsNodes"] is True and row["fix"].startswith("request less cpu")
    message = doc["fromEvent"]["message"]
    assert message["postFilter"][0] == {"reason": "no new claims to deallocate", "plugin": "DynamicResources"}
    assert message["preemption"]["reasons"] == [{"count": 3, "reason": "No preemption victims found for incoming pod",
                                                 "plugin": "DefaultPreemption"}]


def test_node_selection_against_the_selector_and_required_terms(capsys, shop):
    _, doc = explained(capsys, shop, "gpu-selector", "1.35")
    row = doc["fromEvent"]["message"]["reasons"][0]
    assert (row["plugin"], row["count"]) == ("NodeAffinity", 3)
    assert row["podSide"] == ("nodeSelector accelerator=h100; required node affinity "
                              "(topology.kubernetes.io/zone In [z2, z3])")


def test_a_named_taint_of_1_33_against_the_tolerations(capsys, shop):
    code, doc = explained(capsys, shop, "payments-api", "1.33")
    assert code == 1
    assert rows(doc) == [(1, "Insufficient memory", "NodeResourcesFit"),
                         (2, "node(s) had untolerated taint {team: payments}", "TaintToleration")]
    taint = doc["fromEvent"]["message"]["reasons"][1]
    assert (taint["key"], taint["value"]) == ("team", "payments")
    assert taint["podSide"] == "taint team=payments: none of the pod's tolerations (team=search:NoSchedule) matches it"
    assert taint["needsNodes"] is False
    assert 'add the toleration {key: team, operator: Equal, value: "payments", effect: NoSchedule}' in taint["fix"]


def test_the_1_33_wording_read_as_1_35_is_not_invented(capsys, shop):
    _, doc = explained(capsys, shop, "payments-api", "1.35")
    assert rows(doc)[1] == (2, "node(s) had untolerated taint {team: payments}", None)


def test_an_unbound_claim_against_the_namespaces_claims(capsys, shop):
    _, doc = explained(capsys, shop, "db-0", "1.35")
    pre = doc["fromEvent"]["message"]["preFilter"]
    assert (pre["message"], pre["plugin"]) == ("pod has unbound immediate PersistentVolumeClaims", "VolumeBinding")
    assert pre["podSide"] == "the pod's claims: data-db-0 (Pending, class fast, ReadWriteOnce)"
    assert pre["fix"] == "kubectl describe pvc data-db-0 shows why the claim is not bound"
    assert doc["fromEvent"]["message"]["reasons"] == []


def test_inter_pod_anti_affinity_against_its_terms(capsys, shop):
    _, doc = explained(capsys, shop, "cache-1", "1.35")
    row = doc["fromEvent"]["message"]["reasons"][0]
    assert (row["plugin"], row["count"]) == ("InterPodAffinity", 3)
    assert row["podSide"] == "the pod's required podAntiAffinity: app=cache per kubernetes.io/hostname"


def test_the_table_view_of_a_taken_apart_event(capsys, shop):
    code, out, _ = run(capsys, shop, "pod", "payments-api", "-n", "shop", "--kubernetes-version", "1.33")
    assert code == 1
    lines = out.splitlines()
    at = lines.index("  Taken apart (Kubernetes 1.33's texts), 3 node(s):")
    assert lines[at + 1].split() == ["NODES", "REASON", "PLUGIN", "THE", "POD'S", "SIDE"]
    assert lines[at + 3].startswith("    2      node(s) had untolerated taint {team: payments}  TaintToleration ")
    assert ("    Preemption (DefaultPreemption): 1 No preemption victims found for incoming pod, "
            "2 Preemption is not helpful for scheduling") in lines
    assert "  On the pod's side:" in lines
    assert "  Needs the nodes, which were not read: Insufficient memory." in lines


def test_an_unknown_reason_and_a_message_of_another_shape_are_shown_as_they_are(capsys, shop):
    code, doc = explained(capsys, shop, "odd-one", "1.35")
    assert code == 1
    assert rows(doc) == [(3, "node(s) were struck by lightning", None)]
    code, out, err = run(capsys, shop, "pod", "not-a-fit-error", "-n", "shop", "--kubernetes-version", "1.35")
    assert code == 1 and "Traceback" not in err
    assert '  binding rejected: running Bind plugin "DefaultBinder": Operation cannot be fulfilled' in out
    assert ("  Note: this is not a FailedScheduling message of Kubernetes 1.35's scheduler as kexplain knows them: "
            "shown as it is.") in out
    _, doc = explained(capsys, shop, "not-a-fit-error", "1.35")
    assert doc["fromEvent"]["message"] == {"parsed": False, "kubernetesVersion": "1.35"}
    assert doc["fromEvent"]["scheduler"]["source"] == "condition"


# --- partial rights ------------------------------------------------------------------------------------

def test_nodes_readable_but_not_other_pods_explains_per_node_as_an_upper_bound(capsys, shop):
    shop.faults.rbac = Rbac(cluster=frozenset({"nodes"}))
    code, doc = explained(capsys, shop, "payments-api", "1.33")
    assert code == 1
    assert doc["fromEvent"]["scheduler"]["source"] == "event"          # the verdict stays the scheduler's
    per_node = {r["node"]: r for r in doc["fromEvent"]["perNode"]["nodes"]}
    assert (per_node["node-1"]["verdict"], per_node["node-1"]["plugin"]) == ("rejected", "TaintToleration")
    assert per_node["node-1"]["taints"] == ["team=payments:NoSchedule"]
    assert (per_node["node-3"]["verdict"], per_node["node-3"]["reasons"]) == ("rejected", ["Insufficient memory"])
    assert per_node["node-3"]["allocatable"]["memory"] == "8Gi"
    assert {r["resource"] for r in doc["fromEvent"]["refused"]} >= {"pods", "persistentvolumes"}
    assert "nodes" not in {r["resource"] for r in doc["fromEvent"]["refused"]}


def test_a_pass_that_depends_on_usage_is_an_upper_bound(capsys, shop):
    """cache-1 needs only 500m cpu: node-3 passes on allocatable minus the namespace's web-0,
    which says nothing of other namespaces' pods there; its anti-affinity is not known."""
    shop.faults.rbac = Rbac(cluster=frozenset({"nodes"}))
    code, out, _ = run(capsys, shop, "pod", "cache-1", "-n", "shop", "--kubernetes-version", "1.35")
    assert code == 1
    lines = out.splitlines()
    at = next(n for n, line in enumerate(lines) if line.startswith("  Per node, from the nodes read"))
    assert "not the scheduler's verdict" in lines[at] and "upper bound" in lines[at]
    row = next(line for line in lines[at:] if line.lstrip().startswith("node-3"))
    assert "may fit (upper bound)" in row
    assert "    Not known without the cluster's other objects: InterPodAffinity." in lines
    assert not any(line.startswith("  Needs the nodes") for line in lines)


def test_pods_readable_but_not_nodes_has_no_per_node_view(capsys, shop):
    shop.faults.rbac = Rbac(cluster=frozenset({"pods", "namespaces"}))
    code, doc = explained(capsys, shop, "api-cpu", "1.35")
    assert code == 1
    assert doc["fromEvent"]["perNode"] is None
    assert "nodes" in {r["resource"] for r in doc["fromEvent"]["refused"]}
    assert "pods" not in {r["resource"] for r in doc["fromEvent"]["refused"]}


def test_pending_with_partial_rights(capsys, shop):
    shop.faults.rbac = Rbac(cluster=frozenset({"nodes"}))
    code, out, _ = run(capsys, shop, "pod", "--pending", "-n", "shop", "-o", "json", "--kubernetes-version", "1.35")
    doc = json.loads(out)
    assert code == 1
    names = [item["pod"]["name"] for item in doc["items"]]
    assert names == ["api-cpu", "cache-1", "db-0", "gpu-selector", "not-a-fit-error", "odd-one", "payments-api",
                     "report-gated"]
    assert all(item["fromEvent"]["perNode"] is not None for item in doc["items"][:-1])
    assert [item["fromEvent"]["scheduler"]["status"] for item in doc["items"]] == ["Unschedulable"] * 7 + ["Gated"]


# --- events beyond the scheduler's, and pods with no FailedScheduling ---------------------------------

def test_the_autoscalers_not_triggered_event_taken_apart(capsys, shop):
    _, doc = explained(capsys, shop, "api-cpu", "1.35")
    (event,) = doc["fromEvent"]["autoscaler"]
    assert (event["reason"], event["count"], event["lastSeen"]) == ("NotTriggerScaleUp", 9, "2026-11-23T14:06:00Z")
    assert [(g["count"], g["reason"], g["plugin"]) for g in event["groups"]] == [
        (2, "Insufficient cpu", "NodeResourcesFit"), (1, "max node group size reached", "ClusterAutoscaler")]
    assert event["groups"][0]["podSide"].startswith("the pod requests cpu 6250m")
    code, out, _ = run(capsys, shop, "pod", "api-cpu", "-n", "shop", "--kubernetes-version", "1.35")
    assert ("  The Cluster Autoscaler (NotTriggerScaleUp, seen 9 times, last at 2026-11-23T14:06:00Z, ") in out
    assert any(line.split()[:2] == ["1", "max"] and "the node group is at its maximum size" in line
               for line in out.splitlines())


def test_the_autoscalers_scale_up(capsys, shop):
    _, doc = explained(capsys, shop, "cache-1", "1.35")
    (event,) = doc["fromEvent"]["autoscaler"]
    assert event["scaleUps"] == [{"group": "general-large", "from": 1, "to": 3, "max": 5}]
    _, out, _ = run(capsys, shop, "pod", "cache-1", "-n", "shop", "--kubernetes-version", "1.35")
    assert "    Scaling up general-large from 1 to 3 nodes (max 5): the pod should be placed once they are ready." in out


def test_with_node_groups_the_loop_is_not_run_and_cas_own_events_stand_in(capsys, shop):
    # CA's loop holds every pending pod of the cluster, which a namespace reader cannot list:
    # kexplain says so once, on stderr, and answers from CA's events on the pod instead.
    groups = str(ROOT / "fixtures" / "autoscaler" / "nodegroups.yaml")
    code, out, err = run(capsys, shop, "pod", "api-cpu", "-n", "shop", "--node-groups", groups,
                         "-o", "json", "--kubernetes-version", "1.35")
    doc = json.loads(out)
    assert code == 1
    assert err.splitlines()[0] == ("note: the Cluster Autoscaler's loop is not run: it holds every pending pod of "
                                   "the cluster, which RBAC does not let kexplain list; CA's own events on the pod "
                                   "are shown instead")
    assert "autoscaler" not in doc and "autoscalers" not in doc
    assert [e["reason"] for e in doc["fromEvent"]["autoscaler"]] == ["NotTriggerScaleUp"]
    _, out, err = run(capsys, shop, "pod", "--pending", "-n", "shop", "--node-groups", groups,
                      "--kubernetes-version", "1.35")
    assert err.count("the Cluster Autoscaler's loop is not run") == 1
    assert "Cluster autoscaler" not in out and "Node groups" not in out


def test_a_gated_pod_is_explained_by_its_pre_enqueue_plugins(capsys, shop):
    code, doc = explained(capsys, shop, "report-gated", "1.35")
    assert code == 1
    assert doc["fromEvent"]["preEnqueue"] == [{"plugin": "SchedulingGates", "code": "UnschedulableAndUnresolvable",
                                               "reasons": ["waiting for scheduling gates: [example.com/quota]"]}]


def test_a_pod_waiting_for_its_claim_with_no_event(capsys, shop):
    code, out, _ = run(capsys, shop, "pod", "trainer", "-n", "shop", "--kubernetes-version", "1.35")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("shop/trainer: Pending: the scheduler has not reported on it yet")
    assert lines[1] == ("  Held before any node is looked at (DynamicResources, as kexplain's own PreEnqueue run on the "
                        'pod and its namespace finds): could not find ResourceClaim "shop/trainer-gpu"')


def test_the_html_page_shows_the_taken_apart_event_and_the_refusals(capsys, shop, tmp_path):
    page = tmp_path / "page.html"
    code, out, _ = run(capsys, shop, "pod", "payments-api", "-n", "shop", "--kubernetes-version", "1.33",
                       "--html", str(page))
    assert code == 1
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and "<script" not in text
    assert "shop/payments-api: Unschedulable" in text
    assert "node(s) had untolerated taint {team: payments}</td><td>TaintToleration</td>" in text
    assert "Not read (RBAC refused, 403)" in text and "kexplain snapshot payments-api -n shop --redact" in text
    listing = tmp_path / "pending.html"
    code, _, _ = run(capsys, shop, "pod", "--pending", "-n", "shop", "--kubernetes-version", "1.35",
                     "--html", str(listing))
    assert code == 1
    assert listing.read_text().count('<section class="pod">') == 8


@pytest.mark.parametrize("git_version, plugin", [("v1.33.3", "TaintToleration"), ("v1.36.3", None)])
def test_the_wording_followed_is_the_servers_own_minor(capsys, tmp_path, git_version, plugin):
    """1.33 names the taint; from 1.34 no scheduler writes that text, so read as 1.36 it is
    shown as it is, without a plugin."""
    with recorded_api(tmp_path, TOKEN, "namespaced", git_version=git_version) as server:
        server.faults.rbac = Rbac()
        code, out, _ = run(capsys, server, "pod", "payments-api", "-n", "shop", "-o", "json")
    doc = json.loads(out)
    assert code == 1
    assert doc["kubernetesVersion"] == git_version[1:5]
    assert doc["fromEvent"]["message"]["reasons"][1]["plugin"] == plugin


def test_node_asked_for_is_said_not_to_be_shown(capsys, shop):
    code, out, err = run(capsys, shop, "pod", "api-cpu", "-n", "shop", "--node", "node-1")
    assert code == 1 and out.startswith("shop/api-cpu: Unschedulable")
    assert err == "note: --node node-1 is not shown: a node's full verdict needs the reads RBAC refused\n"


def test_per_node_shows_the_labels_the_pod_reads(capsys, shop):
    shop.faults.rbac = Rbac(cluster=frozenset({"nodes"}))
    _, doc = explained(capsys, shop, "gpu-selector", "1.35")
    rows = {r["node"]: r for r in doc["fromEvent"]["perNode"]["nodes"]}
    assert rows["node-3"]["labels"] == {"topology.kubernetes.io/zone": "z1"}     # accelerator: no node has it
    assert (rows["node-3"]["verdict"], rows["node-3"]["plugin"]) == ("rejected", "NodeAffinity")
    assert rows["node-3"]["capacity"]["cpu"] == "2"
