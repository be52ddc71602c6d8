"""Lint's two budget rules on what Karpenter and the Eviction API read (issue 92, items 4 and 14): a
PodDisruptionBudget with neither `minAvailable` nor `maxUnavailable` allows no eviction (the
disruption controller's status: expectedPods 0, disruptionsAllowed 0), which both rules say; a budget
over pods that tolerate Karpenter's `karpenter.sh/disrupted:NoSchedule` taint blocks no Karpenter
disruption, by the predicate the disruption pass reads (`tolerates_disrupted`), and the pass agrees."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kexplain.cli.app import main
from kexplain.karpenter.disruption.pods import tolerates_disrupted
from kexplain.lint.disruption_budgets import NEITHER
from tests.karpenter.test_disruption import NODEPOOLS, node, pod
from tests.lint.test_lint_karpenter_disruption import PDB, docs, lint, of, written
from tests.support.cli_helpers import TestEnvironment

DRAIN = "pdb-blocks-drain"


def test_a_budget_with_neither_field_blocks_drain_and_karpenter(tmp_path: Path) -> None:
    pool, _, deployment, budget = docs()
    neither = {**budget, "spec": {"selector": budget["spec"]["selector"]}}
    _, findings = lint(written(tmp_path, [pool, deployment, neither]))
    [drain], [karpenter] = of(findings, DRAIN), of(findings, PDB)
    assert drain["field"] == karpenter["field"] == "spec"
    assert f"never allows a disruption of Deployment default/api ({NEITHER}): every eviction" in drain["message"]
    assert f"allows no disruption of Deployment default/api ({NEITHER}): Karpenter never" in karpenter["message"]


@pytest.mark.parametrize(("tolerations", "tolerates"), [
    ([{"operator": "Exists"}], True),                                               # every taint
    ([{"key": "karpenter.sh/disrupted", "operator": "Exists", "effect": "NoSchedule"}], True),
    ([{"key": "karpenter.sh/disrupted", "operator": "Exists"}], True),              # every effect
    ([{"operator": "Exists", "effect": "NoExecute"}], False),
    ([{"key": "node.kubernetes.io/not-ready", "operator": "Exists"}], False),
    (None, False),
])
def test_the_predicate(tolerations, tolerates) -> None:
    assert tolerates_disrupted(tolerations) is tolerates


def tolerating(deployment: dict) -> dict:
    template = deployment["spec"]["template"]
    return {**deployment, "spec": {**deployment["spec"], "template": {
        **template, "spec": {**template["spec"], "tolerations": [{"operator": "Exists"}]}}}}


def test_a_budget_over_pods_tolerating_every_taint_blocks_no_karpenter_disruption(tmp_path: Path) -> None:
    pool, _, deployment, budget = docs()
    _, findings = lint(written(tmp_path, [pool, tolerating(deployment), budget]))
    assert of(findings, PDB) == []
    assert len(of(findings, DRAIN)) == 1        # kubectl drain evicts them still: its rule stays
    # a second workload the budget selects that does not tolerate it: blocked, named alone
    other = {**deployment, "metadata": {**deployment["metadata"], "name": "api-canary"}}
    _, findings = lint(written(tmp_path, [pool, tolerating(deployment), other, budget]))
    [found] = of(findings, PDB)
    assert found["details"]["workloads"] == ["Deployment default/api-canary"]


def test_the_pass_deletes_the_node_lint_says_is_not_blocked(tmp_path: Path) -> None:
    """The same objects through the disruption pass: the tolerating pod's budget is skipped."""
    web = pod("web-0", 1)
    web["spec"]["tolerations"] = [{"operator": "Exists"}]
    budget = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
              "metadata": {"name": "web", "namespace": "default"},
              "spec": {"selector": {"matchLabels": {"app": "web"}}, "maxUnavailable": 0},
              "status": {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}}
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all([*node(1), web, budget]))
    (tmp_path / "nodepools.yaml").write_text(NODEPOOLS.replace("BUDGET", "10").replace("TYPES", "m5.large"))
    env = TestEnvironment()
    main(["karpenter", "--disruption", "--nodes", str(tmp_path / "cluster.yaml"), "--nodes",
          str(tmp_path / "nodepools.yaml"), "--now", "2026-01-01T12:00:00Z", "-o", "json"], env)
    assert json.loads(env.out)["nodes"][0]["candidate"] is True
