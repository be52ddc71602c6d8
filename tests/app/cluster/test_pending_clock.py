"""The pending section's Cluster Autoscaler loop runs at the report's clock (`--now`), as the scale-down
section's does: CA's allPodsAreNew holds a scale-up while every pending pod is younger than 2 seconds."""
from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from kexplain.app.cluster.report import report
from kexplain.autoscaler.pending import COOLDOWN_REASON
from tests.app.cluster.helpers import NOW, request, with_items
from tests.support.paths import FIXTURES

CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: small, labels: {kubernetes.io/hostname: small}, creationTimestamp: "2025-12-01T00:00:00Z"}
status:
  capacity: {cpu: "2", memory: 8Gi, pods: "110"}
  conditions: [{type: Ready, status: "True"}]
---
apiVersion: v1
kind: Pod
metadata: {name: big, namespace: default, creationTimestamp: "2026-01-01T11:59:59Z"}
spec:
  containers: [{name: main, image: i, resources: {requests: {cpu: "3", memory: 1Gi}}}]
status:
  phase: Pending
  conditions: [{type: PodScheduled, status: "False", reason: Unschedulable}]
"""


def _ca_answer(tmp_path: Path, later: timedelta) -> dict:
    req = request(with_items(tmp_path, CLUSTER), node_groups=str(FIXTURES / "volcano" / "node-groups.yaml"))
    doc = report(replace(req, now=NOW + later))
    pending = next(s for s in doc["sections"] if s["name"] == "pending")
    return next(a for a in pending["rows"][0]["autoscalers"] if a["autoscaler"] == "ClusterAutoscaler")


def test_the_pending_loop_runs_at_the_reports_clock(tmp_path: Path) -> None:
    young = _ca_answer(tmp_path, timedelta(0))          # the pod is 1 s old: CA waits, and says why
    assert young["outcome"] == "NoEvent"
    assert young["reasons"] == [COOLDOWN_REASON]
    assert _ca_answer(tmp_path, timedelta(minutes=10))["outcome"] == "TriggeredScaleUp"


def test_a_pod_held_by_the_loops_cooldown_is_not_said_stopped_by_a_limit(tmp_path: Path) -> None:
    """CA's NoEvent for a pod whose loop scaled up for no pod, every one being new (allPodsAreNew: the
    answer's `heldBy`), is worded as that, on the page's CA table and answer alike, not as a node
    count stopped at a group's max size."""
    from kexplain.cli.app import main
    from tests.support.cli_helpers import TestEnvironment
    assert _ca_answer(tmp_path, timedelta(0))["heldBy"] == "allPodsAreNew"
    page = tmp_path / "page.html"
    main(["cluster", "--nodes", str(with_items(tmp_path, CLUSTER)), "--node-groups",
          str(FIXTURES / "volcano" / "node-groups.yaml"), "--now", "2026-01-01T12:00:00Z", "--section", "pending",
          "--html", str(page)], TestEnvironment())
    text = page.read_text()
    assert "(allPodsAreNew); it looks again in its next loop" in text
    assert "node count stop" not in text


def test_the_pending_loop_reads_the_autoscaler_config(tmp_path: Path) -> None:
    """--autoscaler-config's flags are CA's for the pending section's loop too (as `kexplain pod
    --autoscaler-config` reads them), not only for the scale-down section's: at --max-nodes-total 1
    the one-node cluster gets no node for the pod."""
    settings = tmp_path / "ca.yaml"
    settings.write_text("maxNodesTotal: 1\n")
    req = request(with_items(tmp_path, CLUSTER), node_groups=str(FIXTURES / "volcano" / "node-groups.yaml"))
    doc = report(replace(req, now=NOW + timedelta(minutes=10), autoscaler_config=str(settings)))
    pending = next(s for s in doc["sections"] if s["name"] == "pending")
    answer = next(a for a in pending["rows"][0]["autoscalers"] if a["autoscaler"] == "ClusterAutoscaler")
    assert (answer["outcome"], answer["reasons"]) == ("NotTriggerScaleUp", ["max total nodes in cluster reached"])


def test_the_pending_sections_karpenter_pass_runs_at_the_reports_clock(monkeypatch) -> None:
    """Karpenter's pass over the pending pods reads the report's `--now` (its pods' ages, the bound pods'
    times), as CA's loop does; before, it ran at the wall clock."""
    from kexplain.karpenter import pending as karpenter_pending
    clocks = []
    load = karpenter_pending.load_node_pools

    def spy(req, kube, now=None, applied=None):
        inputs, world = load(req, kube, now, applied)
        clocks.append(inputs.now)
        return inputs, world
    monkeypatch.setattr(karpenter_pending, "load_node_pools", spy)
    monkeypatch.setattr("kexplain.app.karpenter.load_node_pools", spy)
    paths = (FIXTURES / "karpenter" / "cluster.yaml", FIXTURES / "karpenter" / "nodepools.yaml",
             FIXTURES / "karpenter" / "shop.yaml")
    report(replace(request(*paths), sections=("pending",), now=NOW))
    assert clocks and set(clocks) == {NOW}
