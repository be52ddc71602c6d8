"""Karpenter's disruption rules (issue 78 item 6), each said with what it blocks:
`nodepool-budget-blocks-disruption` (a budget of nodes 0 without a schedule: the reasons it blocks
forever), `nodepool-never-consolidates` (consolidateAfter: Never beside a consolidation policy), and
`pdb-blocks-karpenter-disruption` (with NodePools in the cluster, a PodDisruptionBudget that allows no
disruption: no node holding one of its pods is ever a candidate, in Karpenter's words). Each fires,
does not fire where Karpenter would act, is suppressed by the object's annotation and is listed by
--list-rules. On fixtures/lint/karpenter-disruption.yaml and variants of it."""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from kexplain.cli.app import main
from kexplain.lint.rule import Severity
from kexplain.lint.rules import RULES, family_of
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

CASE = FIXTURES / "lint" / "karpenter-disruption.yaml"
KARPENTER = FIXTURES / "karpenter"
BUDGETS, NEVER, PDB = "nodepool-budget-blocks-disruption", "nodepool-never-consolidates", \
    "pdb-blocks-karpenter-disruption"
IGNORE = "lint.kexplain.io/ignore"


def lint(*args: str) -> tuple[int, list[dict]]:
    env = TestEnvironment(width=200)
    code = main(["lint", *args, "-o", "json"], env=env)
    assert code in (0, 1), env.err
    return code, json.loads(env.out)["findings"]


def of(findings: list[dict], rule: str) -> list[dict]:
    return [f for f in findings if f["rule"] == rule]


def docs() -> list[dict]:
    return list(yaml.safe_load_all(CASE.read_text()))


def written(tmp_path: Path, objs: list[dict], name: str = "set.yaml") -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(objs, sort_keys=False))
    return str(path)


def node_pool(name: str, disruption: dict, **spec: object) -> dict:
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
            "spec": {"template": {"spec": {
                "requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]}],
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                **spec}}, "disruption": disruption}}


def test_the_fixture_says_each_rule_once_with_what_it_blocks() -> None:
    code, findings = lint(str(CASE))
    [budget] = of(findings, BUDGETS)
    assert budget["object"]["name"] == "batch" and budget["field"] == "spec.disruption.budgets[0].nodes"
    assert budget["line"] == 19 and budget["details"] == {"reasons": ["Drifted"], "budgets": [0]}
    assert budget["message"] == (
        'budgets[0] (nodes "0", no schedule) is always active: Karpenter disrupts no node of this NodePool for '
        "Drifted, ever (a drifted node is never replaced, whatever changed in its NodePool, EC2NodeClass or AMI); "
        "its event: No allowed disruptions for disruption reason Drifted due to blocking budget")
    [never] = of(findings, NEVER)
    assert never["object"]["name"] == "steady" and never["field"] == "spec.disruption.consolidateAfter"
    assert "consolidation never happens" in never["message"]
    assert 'its event on each node: NodePool "steady" has consolidation disabled' in never["message"]
    assert never["suggestions"][0].startswith("set consolidateAfter to a duration")
    [pdb] = of(findings, PDB)
    assert pdb["object"]["kind"] == "PodDisruptionBudget" and pdb["field"] == "spec.maxUnavailable"
    assert pdb["message"] == (
        "allows no disruption of Deployment default/api (maxUnavailable 0): Karpenter never consolidates a node "
        "holding one of their pods, empty or underutilized, nor replaces it when it drifts (no NodePool sets "
        "terminationGracePeriod); in Karpenter's words: pdb prevents pod evictions "
        "(PodDisruptionBudget=[default/api])")
    # the same budget blocks kubectl drain: both are said, each naming what it blocks (docs/lint.md)
    assert [f["field"] for f in of(findings, "pdb-blocks-drain")] == ["spec.maxUnavailable"]
    assert code == 0 and all(f["severity"] == "warning" for f in findings)


def test_a_budget_without_reasons_blocks_every_reason_karpenter_would_act_on(tmp_path: Path) -> None:
    every = node_pool("all", {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "1m",
                              "budgets": [{"nodes": "10%"}, {"nodes": "0%"}]})
    empty_only = node_pool("empty", {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "1m",
                                     "budgets": [{"nodes": "0", "reasons": ["Underutilized"]},
                                                 {"nodes": "0", "reasons": ["Empty"]}]})
    _, findings = lint(written(tmp_path, [every, empty_only]))
    found = {f["object"]["name"]: f for f in of(findings, BUDGETS)}
    assert found["all"]["details"] == {"reasons": ["Drifted", "Empty", "Underutilized"], "budgets": [1]}
    assert "for Drifted, Empty, Underutilized, ever" in found["all"]["message"]
    assert "an empty node is never removed; an underutilized node is never deleted" in found["all"]["message"]
    # under WhenEmpty Karpenter never consolidates underutilized nodes: only Empty is blocked by it
    assert found["empty"]["details"] == {"reasons": ["Empty"], "budgets": [1]}
    assert found["empty"]["field"] == "spec.disruption.budgets[1].nodes"
    static = node_pool("static", {"consolidateAfter": "1m", "budgets": [{"nodes": "0"}]})
    static["spec"]["replicas"] = 3          # never consolidated: its budget blocks drift only
    _, findings = lint(written(tmp_path, [static]))
    assert [f["details"]["reasons"] for f in of(findings, BUDGETS)] == [["Drifted"]]


def test_a_budget_that_allows_some_or_has_a_schedule_does_not_fire(tmp_path: Path) -> None:
    windowed = node_pool("windowed", {"consolidateAfter": "1m", "budgets": [
        {"nodes": "0", "schedule": "@daily", "duration": "10m"}, {"nodes": "1"}, {"nodes": "5%"}]})
    off = node_pool("off", {"consolidateAfter": "Never", "budgets": [{"nodes": "0", "reasons": ["Empty"]}]})
    _, findings = lint(written(tmp_path, [windowed, off]))
    assert of(findings, BUDGETS) == []      # (off: consolidation is off anyway, the budget blocks nothing more)
    assert of(findings, NEVER) == []        # consolidateAfter: Never alone: Karpenter's way to turn it off


def test_never_fires_beside_a_written_policy_only(tmp_path: Path) -> None:
    when_empty = node_pool("when-empty", {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "Never"})
    timed = node_pool("timed", {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "30s"})
    _, findings = lint(written(tmp_path, [when_empty, timed]))
    [found] = of(findings, NEVER)
    assert found["object"]["name"] == "when-empty" and "no empty node of it is ever removed" in found["message"]
    assert found["details"] == {"consolidationPolicy": "WhenEmpty"}


def test_no_nodepool_no_karpenter_finding_and_the_status_counts(tmp_path: Path) -> None:
    deployment, budget = docs()[2:]
    _, findings = lint(written(tmp_path, [deployment, budget]))
    assert of(findings, PDB) == [] and len(of(findings, "pdb-blocks-drain")) == 1
    # a budget whose spec allows one but whose status says none now: Karpenter's alone
    loose = {**budget, "spec": {**budget["spec"], "maxUnavailable": 1}, "status": {"disruptionsAllowed": 0}}
    _, findings = lint(written(tmp_path, [docs()[0], deployment, loose]))
    [found] = of(findings, PDB)
    assert found["field"] == "status.disruptionsAllowed" and "(status.disruptionsAllowed 0)" in found["message"]
    assert of(findings, "pdb-blocks-drain") == []
    healthy = {**loose, "status": {"disruptionsAllowed": 1}}
    _, findings = lint(written(tmp_path, [docs()[0], deployment, healthy]))
    assert of(findings, PDB) == []


def test_nodepools_of_the_cluster_and_a_grace_period(tmp_path: Path) -> None:
    deployment, budget = docs()[2:]
    _, findings = lint(written(tmp_path, [deployment, budget]), "--nodes", str(KARPENTER / "cluster.yaml"),
                       "--nodes", str(KARPENTER / "nodepools.yaml"))
    [found] = of(findings, PDB)
    assert "nor replaces it when it drifts (no NodePool sets terminationGracePeriod)" in found["message"]
    graced = node_pool("graced", {"consolidateAfter": "1m"}, terminationGracePeriod="24h")
    _, findings = lint(written(tmp_path, [graced, deployment, budget]))
    [found] = of(findings, PDB)
    assert ("replaces it when it drifts only on a NodePool that sets terminationGracePeriod (graced: the pods "
            "forced out when it ends)") in found["message"]


def test_the_annotation_suppresses_each(tmp_path: Path) -> None:
    batch, steady, deployment, budget = docs()
    batch["metadata"]["annotations"] = {IGNORE: f"{BUDGETS}: drift is rolled by hand"}
    steady["metadata"]["annotations"] = {IGNORE: f"{NEVER}: kept until the migration"}
    budget["metadata"]["annotations"] = {IGNORE: f"{PDB}, pdb-blocks-drain: a singleton by design"}
    _, findings = lint(written(tmp_path, [batch, steady, deployment, budget]))
    said = {f["rule"]: f.get("suppressed", {}).get("justification") for f in findings}
    assert said == {BUDGETS: "drift is rolled by hand", NEVER: "kept until the migration",
                    PDB: "a singleton by design", "pdb-blocks-drain": "a singleton by design"}
    batch["metadata"]["annotations"] = {IGNORE: f"{NEVER}: wrong rule"}
    _, findings = lint(written(tmp_path, [batch]))
    assert [f["rule"] for f in findings] == [BUDGETS, "unused-suppression"]


def test_the_rules_are_registered_and_listed() -> None:
    assert [family_of(r) for r in (BUDGETS, NEVER, PDB)] == ["nodepool_budgets", "nodepool_consolidation",
                                                             "karpenter_pdbs"]
    assert [(RULES[r].severity, RULES[r].needs) for r in (BUDGETS, NEVER, PDB)] == [
        (Severity.WARNING, "schemas"), (Severity.WARNING, "schemas"), (Severity.WARNING, "nodepools")]
    assert all("Karpenter" in RULES[r].upstream for r in (BUDGETS, NEVER, PDB))
    env = TestEnvironment(width=300)
    assert main(["lint", "--list-rules"], env=env) == 0
    rows = {line.split()[0]: line.split()[1:3] for line in env.out.splitlines()[1:]}
    assert rows[BUDGETS] == ["warning", "schemas"] and rows[NEVER] == ["warning", "schemas"]
    assert rows[PDB] == ["warning", "nodepools"]
