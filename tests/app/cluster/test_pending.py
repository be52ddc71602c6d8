"""The pending section: every pending pod explained as one batch over the state read once, grouped
by owner (a ReplicaSet's pods by its Deployment) and by the scheduler's answer."""
from __future__ import annotations

from dataclasses import replace

from kexplain.app import live
from kexplain.app.cluster.inputs import read
from kexplain.app.cluster import pending
from kexplain.features import KubeVersion
from kexplain.render.cluster import pod_lines
from tests.app.cluster.helpers import SHOP, inputs_of, request, with_items
from tests.support.cli_helpers import run_cli
from tests.support.html_pages import visible_text


def _rows(section: dict) -> dict[str, dict]:
    return {f"{r['owner']['kind']} {r['owner']['namespace']}/{r['owner']['name']}": r for r in section["rows"]}


def test_a_deployments_replicas_are_one_row_with_their_count():
    rows = _rows(pending.section(inputs_of(SHOP)))
    render = rows["Deployment shop/render"]
    assert render["count"] == 3
    assert render["pods"] == ["shop/render-7f9d4-r1", "shop/render-7f9d4-r2", "shop/render-7f9d4-r3"]
    assert render["result"]["status"] == "Unschedulable"
    assert render["result"]["message"].startswith("0/2 nodes are available: 1 Insufficient cpu")
    assert render["preemptionHelps"] is False
    assert [s["kind"] for s in render["suggestions"]] == ["lower-request"]


def test_the_most_pods_come_first_and_a_bare_pod_is_its_own_owner():
    section = pending.section(inputs_of(SHOP))
    assert [r["count"] for r in section["rows"]] == [3, 1, 1]
    assert (section["held"], section["pods"]) == (3, 5)
    assert _rows(section)["Pod shop/ssd-cache"]["count"] == 1


def test_a_gated_pod_says_its_gates():
    row = _rows(pending.section(inputs_of(SHOP)))["Pod jobs/batch-1"]
    assert row["result"]["status"] == "Gated"
    assert row["preEnqueue"] == [{"plugin": "SchedulingGates", "code": "UnschedulableAndUnresolvable",
                                  "reasons": ["waiting for scheduling gates: [example.com/quota]"]}]
    assert "suggestions" not in row


def test_a_replicaset_not_among_the_objects_is_the_owner(tmp_path):
    pod = """apiVersion: v1
kind: Pod
metadata:
  name: api-5c4b-x1
  namespace: shop
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: api-5c4b, uid: u1, controller: true}]
spec:
  containers: [{name: api, image: api, resources: {requests: {cpu: "9"}}}]
status:
  phase: Pending
  conditions: [{type: PodScheduled, status: "False", reason: Unschedulable}]
"""
    rows = _rows(pending.section(inputs_of(SHOP, with_items(tmp_path, pod))))
    assert rows["ReplicaSet shop/api-5c4b"]["count"] == 1


def test_the_state_read_once_is_explained_without_building_the_cluster_again(monkeypatch):
    inputs = inputs_of(SHOP)

    def built_again(*_, **__):
        raise AssertionError("the cluster was built again")

    monkeypatch.setattr(live, "build_cluster", built_again)
    assert pending.section(inputs)["pods"] == 5


def test_the_pods_are_explained_in_one_batch(monkeypatch):
    calls = []
    original = live.explain_each

    def counted(pods, *args, **kwargs):
        calls.append(1)
        return original(pods, *args, **kwargs)

    monkeypatch.setattr(live, "explain_each", counted)
    pending.section(inputs_of(SHOP))
    assert len(calls) == 1


def test_a_pod_being_deleted_is_left_out(tmp_path):
    pod = """apiVersion: v1
kind: Pod
metadata: {name: going, namespace: shop, deletionTimestamp: "2026-01-01T11:00:00Z"}
spec:
  containers: [{name: c, image: c, resources: {requests: {cpu: "9"}}}]
status:
  phase: Pending
  conditions: [{type: PodScheduled, status: "False", reason: Unschedulable}]
"""
    section = pending.section(inputs_of(SHOP, with_items(tmp_path, pod)))
    assert "Pod shop/going" not in _rows(section)
    assert section["notes"] == ["note: skipped 1 pending pod(s) being deleted (the scheduler skips them)"]


def test_a_groups_fixes_are_found_once_though_its_pods_differ(tmp_path, monkeypatch):
    """Two more pods of render's ReplicaSet, each of its own shape (an annotation), the same answer:
    one row, whose fixes are found for its first pod only (each fix re-runs the scheduler)."""
    from kexplain.app.cluster import pending
    pods = "".join(f"""
- apiVersion: v1
  kind: Pod
  metadata:
    name: render-7f9d4-x{i}
    namespace: shop
    uid: 00000000-0000-4000-8000-00000000009{i}
    creationTimestamp: "2026-01-01T11:5{i}:30Z"
    labels: {{app: render, pod-template-hash: 7f9d4}}
    annotations: {{note: "{i}"}}
    ownerReferences:
    - {{apiVersion: apps/v1, kind: ReplicaSet, name: render-7f9d4, uid: 00000000-0000-4000-8000-000000000004, controller: true}}
  spec:
    containers:
    - {{name: render, image: render, resources: {{requests: {{cpu: "6", memory: 4Gi}}}}}}
  status:
    phase: Pending
    conditions:
    - {{type: PodScheduled, status: "False", reason: Unschedulable, lastTransitionTime: "2026-01-01T11:5{i}:31Z"}}
""" for i in (4, 5))
    extra = with_items(tmp_path, "apiVersion: v1\nkind: List\nitems:" + pods)
    found = []
    real = pending.suggest
    monkeypatch.setattr(pending, "suggest", lambda inputs, *a: found.append(inputs.pod.name) or real(inputs, *a))
    section = pending.section(inputs_of(SHOP, extra))
    (row,) = [r for r in section["rows"] if r["owner"]["name"] == "render"]
    assert row["count"] == 5 and row["suggestions"][0]["description"] == \
        "lower the cpu request from 6 to 4 (container render)"
    assert found == ["render-7f9d4-r1", "ssd-cache"]


def test_a_rows_fixes_found_after_the_batch_are_the_ones_the_batch_finds(monkeypatch):
    """A row whose first pod's fixes the batch did not find (its answer in the queue made it the
    first of a row another pod's fixes were found for) has them found after, the same."""
    from kexplain.app.cluster import pending
    batch = pending.section(inputs_of(SHOP))
    monkeypatch.setattr(pending.OncePerGroup, "__call__", lambda self, *_: [])    # the batch finds none
    after = pending.section(inputs_of(SHOP))
    assert [r.get("suggestions") for r in after["rows"]] == [r.get("suggestions") for r in batch["rows"]]
    assert sum(1 for r in after["rows"] if r.get("suggestions")) == 2


def test_the_pages_first_pod_has_the_fixes_found_after_the_batch_too(monkeypatch):
    """--html: a row's first pod's trace (its `kexplain pod NAME` on the page) says the fixes found
    for it after the batch, as the row does."""
    from kexplain.app.cluster import pending
    batch = pending.section(inputs_of(SHOP, html=True))
    monkeypatch.setattr(pending.OncePerGroup, "__call__", lambda self, *_: [])    # the batch finds none
    after = pending.section(inputs_of(SHOP, html=True))
    assert [r["trace"].get("suggestions") for r in after["rows"]] == \
        [r["trace"].get("suggestions") for r in batch["rows"]]
    assert sum(1 for r in after["rows"] if r["trace"].get("suggestions")) == 2


FITS_NOW = """apiVersion: v1
kind: Pod
metadata:
  name: late
  namespace: shop
  uid: 00000000-0000-4000-8000-000000000041
  creationTimestamp: "2026-01-01T11:59:00Z"
spec:
  containers:
  - {name: late, image: late, resources: {requests: {cpu: 100m, memory: 128Mi}}}
status:
  phase: Pending
  conditions:
  - {type: PodScheduled, status: "False", reason: Unschedulable, lastTransitionTime: "2026-01-01T11:59:01Z"}
"""
SECOND_NODE = """apiVersion: v1
kind: Node
metadata:
  name: node-c
  labels: {kubernetes.io/hostname: node-c, kubernetes.io/os: linux}
status:
  allocatable: {cpu: "4", memory: 16Gi, pods: "110"}
  capacity: {cpu: "4", memory: 16Gi, pods: "110"}
  conditions:
  - {type: Ready, status: "True"}
"""


def test_a_pending_pod_the_scheduler_would_bind_now_is_listed_pending_with_its_node(tmp_path):
    """Still Pending in the cluster: never listed "Scheduled"; the text, -o json and the page say
    where it would go, as `kexplain pod --pending` does ("fits now: would be bound to NODE")."""
    extra = with_items(tmp_path, FITS_NOW)
    row = _rows(pending.section(inputs_of(SHOP, extra)))["Pod shop/late"]
    assert row["fitsNow"] == {"node": "node-a"} and row["result"]["status"] == "Scheduled"
    line = "- Pod shop/late: 1 pod Pending, fits now: would be bound to node-a"
    assert pod_lines(row)[0] == (0, line)
    _, out, _ = run_cli("cluster", "--nodes", str(SHOP), "--nodes", str(extra), "--section", "pending",
                        "--now", "2026-01-01T12:00:00Z", "--html", str(tmp_path / "page.html"), width=200)
    assert line in out.splitlines() and "Scheduled" not in out
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert f"<summary>{line.removeprefix('- ')}</summary>" in page
    said = visible_text(page)       # its embedded page, the scheduler's verdict: said still Pending first
    assert "Still Pending in the cluster; fits now: would be bound to node-a." in said
    assert "PodScheduled=False, Unschedulable" in said       # what the scheduler said, as pod --pending's page


def test_a_random_pick_among_tied_nodes_names_them(tmp_path):
    extra = with_items(tmp_path, FITS_NOW + "---\n" + SECOND_NODE)
    req = replace(request(SHOP, extra), kube=KubeVersion("1.34"), version_given=True)
    row = _rows(pending.section(read(req)))["Pod shop/late"]
    assert row["fitsNow"] == {"oneOf": ["node-a", "node-c"], "atRandom": True}
    assert pod_lines(row)[0][1].endswith("1 pod Pending, fits now: would be bound to one of node-a, node-c, "
                                         "picked at random")
