"""The sections "queued" (every Workload Kueue holds, from one pass of Kueue) and "evictions" (nodes
under pressure, pods NoExecute taints evict): what they list, in which order, and what they say
when their inputs are missing (one line, never "all clear")."""
from __future__ import annotations

import json

from kexplain.app.cluster.report import report
from kexplain.kueue import started
from tests.app.cluster.helpers import SHOP, request, with_items
from tests.support.cli_helpers import run_cli
from tests.support.paths import FIXTURES

KUEUE = (FIXTURES / "kueue" / "cluster.yaml", FIXTURES / "cluster" / "kueue-held.yaml")
RANKING = FIXTURES / "eviction" / "ranking-now"
PRESSURE = (RANKING / "cluster.yaml", FIXTURES / "eviction" / "taints.yaml", FIXTURES / "cluster" / "cordoned.yaml")
STATS = (("node-a", str(RANKING / "stats.json")),)
NOW = "2026-01-01T12:00:00Z"


def _section(doc: dict, name: str) -> dict:
    return next(s for s in doc["sections"] if s["name"] == name)


def test_without_a_cluster_queue_the_queued_section_is_skipped_with_why():
    doc = report(request(SHOP, sections=("queued",)))
    assert _section(doc, "queued") == {"name": "queued", "title": "Queued work",
                                       "skipped": "no Kueue ClusterQueue (kueue.x-k8s.io) among the inputs"}
    assert doc["held"] is False


def test_held_workloads_by_cluster_queue_in_queue_order_from_one_pass(monkeypatch):
    passes = []
    run = started.live_run
    monkeypatch.setattr(started, "live_run", lambda *a, **k: passes.append(1) or run(*a, **k))
    queued = _section(report(request(*KUEUE, sections=("queued",))), "queued")
    assert len(passes) == 1
    assert [(r["clusterQueue"], r["workload"], r.get("position"), r["verdict"]) for r in queued["rows"]] == [
        ("team-a-cq", "team-a/job-train-101b2", {"position": 1, "of": 2}, "Pending"),
        ("team-a-cq", "team-a/job-eval-5c1d3", {"position": 2, "of": 2}, "Pending"),
        ("", "team-b/job-report-39ff8", None, "Inadmissible")]
    assert (queued["held"], queued["clusterQueues"]) == (3, 2)
    assert queued["rows"][0]["owner"] == {"kind": "Job", "namespace": "team-a", "name": "train"}
    assert queued["rows"][2]["message"] == "LocalQueue b-queu doesn't exist"
    assert queued["rows"][0]["kueue"]["suggestions"][0]["kind"] == "raise-nominal-quota"


GATED = """apiVersion: v1
kind: Pod
metadata:
  name: solo
  namespace: team-b
  uid: 11111111-2222-4333-8444-555555555555
  labels: {kueue.x-k8s.io/queue-name: b-queue, kueue.x-k8s.io/managed: "true"}
spec:
  schedulingGates: [{name: kueue.x-k8s.io/admission}]
  containers: [{name: c, image: c, resources: {requests: {cpu: "9"}}}]
status:
  phase: Pending
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: pod-solo-1a2b3
  namespace: team-b
  creationTimestamp: "2025-12-31T23:50:00Z"
  ownerReferences:
  - {apiVersion: v1, kind: Pod, name: solo, uid: 11111111-2222-4333-8444-555555555555, controller: true}
spec:
  queueName: b-queue
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers: [{name: c, image: c, resources: {requests: {cpu: "9"}}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: job-small-4d5e6
  namespace: team-b
  creationTimestamp: "2025-12-31T23:55:00Z"
spec:
  queueName: b-queue
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers: [{name: c, image: c, resources: {requests: {cpu: "1"}}}]
"""


def test_a_gated_pod_goes_with_its_workload_and_one_kueue_admits_next_is_counted_apart(tmp_path):
    extra = with_items(tmp_path, GATED)
    queued = _section(report(request(*KUEUE, extra, sections=("queued",))), "queued")
    row = next(r for r in queued["rows"] if r["workload"] == "team-b/pod-solo-1a2b3")
    assert (row["clusterQueue"], row["gatedPods"]) == ("team-b-cq", ["team-b/solo"])
    assert "team-b/job-small-4d5e6" not in {r["workload"] for r in queued["rows"]}
    assert queued["admittedNextCycle"] == 1


def test_the_text_says_each_cluster_queue_and_the_first_fix():
    code, out, _ = run_cli("cluster", *[a for p in KUEUE for a in ("--nodes", str(p))], "--section", "queued",
                           "--now", NOW, width=200)
    lines = out.splitlines()
    assert (code, lines[0]) == (1, "3 Workloads held")
    assert "ClusterQueue team-a-cq (2 held):" in lines
    assert "No ClusterQueue takes them (1 held):" in lines
    assert any(line.strip() == "fix (verified): Raise ClusterQueue team-a-cq's nominalQuota of cpu in flavor "
                               "on-demand from 8 to 12" for line in lines)


REFUSED_CONFIG_MAP = """apiVersion: v1
kind: ConfigMap
metadata: {name: kueue-manager-config, namespace: kueue-system}
data:
  controller_manager_config.yaml: |
    apiVersion: config.kueue.x-k8s.io/v1beta2
    kind: Configuration
    fairSharing: {preemptionStrategies: [Fastest]}
"""
REFUSAL = 'fairSharing.preemptionStrategies: Unsupported value: []v1beta2.PreemptionStrategy{"Fastest"}'


def test_a_kueue_configuration_kueue_refuses_skips_the_queued_work_with_its_words(tmp_path):
    """Kueue's manager does not start on it: the section says it was not run and the loader's words,
    never answers on Kueue's defaults; the other sections go on."""
    extra = with_items(tmp_path, REFUSED_CONFIG_MAP)
    doc = report(request(*KUEUE, extra, SHOP, sections=("pending", "queued", "drains")))
    queued = _section(doc, "queued")
    assert set(queued) == {"name", "title", "skipped"}
    assert queued["skipped"].startswith("not run: Kueue's manager refuses its Configuration (it does not start on "
                                        f"it): {extra}: document 1: ConfigMap kueue-system/kueue-manager-config "
                                        "controller_manager_config.yaml: Configuration: ")
    assert queued["skipped"].endswith(REFUSAL + ': supported values: "LessThanOrEqualToFinalShare", '
                                      '"LessThanInitialShare", "LessThanOrEqualToFinalShare,LessThanInitialShare"')
    assert _section(doc, "pending")["skipped"] == queued["skipped"]     # (Kueue's pass over the pending pods too)
    assert _section(doc, "drains")["held"] == 1
    code, out, _ = run_cli("cluster", *[a for p in (*KUEUE, extra) for a in ("--nodes", str(p))], "--section",
                           "queued", "--now", NOW, width=400)
    assert (code, out.splitlines()[0]) == (0, "queued skipped")
    assert f"Queued work: skipped: {queued['skipped']}" in " ".join(out.split())


def test_a_refused_configuration_document_is_said_too(tmp_path):
    config = with_items(tmp_path, "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"
                                  "waitForPodsReady: {enable: true, timeout: -1s}\n")
    queued = _section(report(request(*KUEUE, config, sections=("queued",))), "queued")
    assert queued["skipped"].startswith("not run: Kueue's manager refuses its Configuration") and \
        "waitForPodsReady.timeout" in queued["skipped"], queued


def test_without_stats_the_pressure_part_is_skipped_in_one_line():
    evictions = _section(report(request(*PRESSURE, sections=("evictions",))), "evictions")
    assert evictions["pressureSkipped"].startswith("no node's stats Summary among the inputs")
    assert (evictions["pressureChecked"], evictions["pressureUnread"]) == (0, ["node-c"])
    assert [r["family"] for r in evictions["rows"]] == ["taints"]
    _, out, _ = run_cli("cluster", *[a for p in PRESSURE for a in ("--nodes", str(p))], "--section", "evictions",
                        "--now", NOW, width=200)
    assert out.splitlines()[0] == "3 evictions coming (node pressure not checked)"
    assert any(line.startswith("Node pressure: skipped: no node's stats Summary") for line in out.splitlines())


def test_no_node_reporting_pressure_is_said_not_left_unchecked():
    evictions = _section(report(request(SHOP, sections=("evictions",))), "evictions")
    assert (evictions["pressureReported"], evictions["pressureChecked"]) == (0, 0)
    assert "pressureSkipped" not in evictions and "pressureUnread" not in evictions
    _, out, _ = run_cli("cluster", "--nodes", str(SHOP), "--section", "evictions", "--now", NOW, width=200)
    lines = out.splitlines()
    assert lines[0] == "0 evictions coming (no node reports pressure)"
    assert "Node pressure: no node reports MemoryPressure, DiskPressure or PIDPressure: nothing to check" in lines
    assert "not checked" not in out


def test_a_node_reporting_pressure_without_stats_beside_one_with_is_not_checked():
    args = [a for p in PRESSURE for a in ("--nodes", str(p))]
    _, out, _ = run_cli("cluster", *args, "--node-stats", f"node-a={STATS[0][1]}", "--kubelet-config",
                        str(RANKING / "kubelet-config.yaml"), "--section", "evictions", "--now", NOW, width=200)
    assert out.splitlines()[0] == "4 evictions coming (node pressure not checked on 1 node)"


def test_the_soonest_eviction_comes_first():
    evictions = _section(report(request(*PRESSURE, sections=("evictions",), node_stats=STATS,
                                        kubelet_config=str(RANKING / "kubelet-config.yaml"))), "evictions")
    assert [(r["family"], r["node"], r["evicts"]) for r in evictions["rows"]] == [
        ("pressure", "node-a", ["shop/agent-434"]),
        ("taints", "worker-3", ["shop/cache-0", "ml/trainer-0", "shop/web-7d9f-abcde"])]
    assert evictions["held"] == 4
    assert evictions["rows"][1]["when"][0] == {"pod": "shop/cache-0", "decision": "evictAfter", "afterSeconds": 30,
                                               "at": "2026-01-01T12:00:30Z"}


def test_a_snapshots_recorded_stats_are_read(tmp_path):
    summary = json.loads((RANKING / "stats.json").read_text())
    record = {"apiVersion": "kexplain/v1", "kind": "NodeStats", "metadata": {"name": "node-a"}, "summary": summary}
    kept = with_items(tmp_path, json.dumps(record), "stats.json")
    evictions = _section(report(request(RANKING / "cluster.yaml", kept, sections=("evictions",))), "evictions")
    assert "pressureSkipped" not in evictions
    (row,) = evictions["rows"]
    assert (row["node"], row["conditions"]) == ("node-a", ["MemoryPressure"])


def test_stats_of_a_node_not_in_the_cluster_is_bad_input():
    code, _, err = run_cli("cluster", "--nodes", str(RANKING / "cluster.yaml"), "--node-stats",
                           f"node-z={RANKING / 'stats.json'}", "--section", "evictions")
    assert code == 2
    assert "--node-stats node-z=" in err and "node node-z is not in the cluster" in err


def test_node_stats_without_a_file_is_bad_usage():
    code, _, err = run_cli("cluster", "--nodes", str(RANKING / "cluster.yaml"), "--node-stats", "node-a")
    assert code == 2 and "NODE=FILE expected" in err


def test_the_new_sections_fit_80_columns():
    for args in ([a for p in KUEUE for a in ("--nodes", str(p))],
                 [*(a for p in PRESSURE for a in ("--nodes", str(p))), "--node-stats", f"node-a={STATS[0][1]}"]):
        _, out, _ = run_cli("cluster", *args, "--section", "queued", "--section", "evictions", "--now", NOW, width=80)
        assert max(len(line) for line in out.splitlines()) <= 80
