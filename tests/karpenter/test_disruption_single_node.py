"""SingleNodeConsolidation over candidates whose simulation fails (Karpenter v1.13.0's
singlenodeconsolidation.go): computeConsolidation's error is logged and the next candidate tried,
so the method ends without a command and without an error, where MultiNodeConsolidation and Drift
return the error (Reconcile stops there)."""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from kexplain.cli.app import main
from tests.karpenter.test_disruption import NODEPOOLS, node, pod
from tests.support.cli_helpers import TestEnvironment

COSTLY = {"controller.kubernetes.io/pod-deletion-cost": "1000000000"}
NOT_READY = """\
status:
  conditions:
  - {type: Ready, status: "False", reason: AMIsNotFound, message: no AMI, lastTransitionTime: "2026-01-01T10:00:00Z"}
"""


def _run(tmp_path: Path, objects: list[dict], output: str, *extra: str, want: int = 0) -> str:
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(objects))
    pools = NODEPOOLS.replace("BUDGET", "10").replace("TYPES", "m5.large") + NOT_READY
    (tmp_path / "nodepools.yaml").write_text(pools)
    env = TestEnvironment()
    code = main(["karpenter", "--disruption", "--nodes", str(tmp_path / "cluster.yaml"), "--nodes",
                 str(tmp_path / "nodepools.yaml"), "--now", "2026-01-01T12:00:00Z", "-o", output, *extra], env)
    assert code == want, env.out + env.err
    return env.out


def _document(tmp_path: Path, objects: list[dict]) -> dict:
    return json.loads(_run(tmp_path, objects, "json"))


def test_a_failing_simulation_moves_single_node_consolidation_on(tmp_path):
    # the only NodePool is not ready (its EC2NodeClass is not): every simulation's scheduler
    # finds no NodePool
    doc = _document(tmp_path, [*node(1), *node(2), pod("web-0", 1, cpu="100m"),
                               pod("web-1", 2, cpu="1", annotations=COSTLY)])
    multi, single = doc["methods"][3], doc["methods"][4]
    assert (multi["outcome"], multi["error"]) == ("Error", "computing disruption decision, creating scheduler, "
                                                           "no nodepools found")
    assert single["candidates"] == ["ip-10-0-1-1.ec2.internal", "ip-10-0-2-1.ec2.internal"]
    assert single["outcome"] == "NoCommand" and "error" not in single
    assert doc["decision"] is None


def test_the_text_says_an_error_ended_reconcile(tmp_path):
    out = _run(tmp_path, [*node(1), *node(2), pod("web-0", 1, cpu="100m"),
                          pod("web-1", 2, cpu="1", annotations=COSTLY)], "table")
    assert "MultiNodeConsolidation's error ends Reconcile" in " ".join(out.split())
    assert "an earlier method acts" not in out


def test_why_a_node_stays_names_the_failing_simulation(tmp_path):
    """--node asks the node's own simulation again: its error is the answer, not a crash."""
    out = _run(tmp_path, [*node(1), *node(2), pod("web-0", 1, cpu="100m"),
                          pod("web-1", 2, cpu="1", annotations=COSTLY)], "json", "--node", "ip-10-0-1-1.ec2.internal",
               want=1)
    checks = json.loads(out)["node"]["checks"]
    assert checks[-1] == {"step": "SingleNodeConsolidation", "check": "error", "karpenter": False,
                          "message": "failed computing consolidation: creating scheduler, no nodepools found"}
