"""A PodDisruptionBudget written as a manifest (no `status`) in Karpenter's disruption pass: the
disruption controller writes its status within seconds, so the pass, `--node` and the chain read
the status it computes (`controllers.disruption.statuses_of`, the rule preemption and `evict drain`
read), and the output says so; a budget with neither `minAvailable` nor `maxUnavailable` gets
disruptionsAllowed 0 and blocks, as Karpenter reads it (issue 92, items 3 and 4)."""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from kexplain.cli.app import main
from tests.karpenter.test_disruption import NODEPOOLS, node, pod
from tests.support.cli_helpers import TestEnvironment

N1 = "ip-10-0-1-1.ec2.internal"


def written(**spec) -> dict:
    """The budget over the web pods as a manifest writes it: no status."""
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, **spec}}


def run(tmp_path: Path, objects: list[dict], *extra: str) -> tuple[int, dict, str]:
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(objects))
    (tmp_path / "nodepools.yaml").write_text(NODEPOOLS.replace("BUDGET", "10").replace("TYPES", "m5.large"))
    env = TestEnvironment()
    code = main(["karpenter", "--disruption", "--nodes", str(tmp_path / "cluster.yaml"), "--nodes",
                 str(tmp_path / "nodepools.yaml"), "--now", "2026-01-01T12:00:00Z", "-o", "json", *extra], env)
    return code, json.loads(env.out), env.err


def cluster(budget: dict) -> list[dict]:
    """Node 1 holds one web pod, node 2 the other (with room for both)."""
    return [*node(1), *node(2), pod("web-0", 1, "200m"), pod("web-1", 2, "200m"), budget]


def test_a_budget_without_status_gets_the_controllers_and_its_node_is_a_candidate(tmp_path):
    code, doc, err = run(tmp_path, cluster(written(minAvailable=1)))
    assert code == 0
    verdicts = {n["node"]: n for n in doc["nodes"]}
    assert verdicts[N1]["candidate"] is True, verdicts[N1]
    assert not any(e["reason"] == "DisruptionBlocked" and "Pdb" in e["message"] for e in doc["events"])
    assert ("warning: PodDisruptionBudget default/web has no status (as a manifest writes it): the disruption "
            "controller's is disruptionsAllowed 1 (currentHealthy 2, desiredHealthy 1, expectedPods 2), which "
            "Karpenter's disruption") in err


def test_the_chain_reads_the_status_the_pass_read(tmp_path):
    code, doc, _ = run(tmp_path, cluster(written(minAvailable=1)))
    chain = doc["decision"]["chain"]
    (budget,) = chain["pdbs"]
    assert budget["statusFrom"] == "disruption-controller"
    assert (budget["status"]["currentHealthy"], budget["status"]["disruptionsAllowed"]) == (2, 1)
    assert [p["outcome"] for n in chain["nodes"] for p in n["pods"]] == ["evicted"]


def test_node_reads_the_computed_status(tmp_path):
    code, doc, _ = run(tmp_path, cluster(written(minAvailable=1)), "--node", N1)
    assert (code, doc["node"]["verdict"], doc["node"]["checks"]) == (0, "disrupted", [])


def test_a_budget_with_neither_field_blocks_as_karpenter_reads_it(tmp_path):
    code, doc, err = run(tmp_path, cluster(written()))
    verdicts = {n["node"]: n for n in doc["nodes"]}
    assert verdicts[N1]["candidate"] is False
    assert verdicts[N1]["error"] == "pdb prevents pod evictions (PodDisruptionBudget=[default/web])"
    assert "disruptionsAllowed 0 (currentHealthy 2, desiredHealthy 0, expectedPods 0)" in err


def test_a_budget_given_a_status_is_read_as_it_is(tmp_path):
    budget = written(minAvailable=1)
    budget["status"] = {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 2}
    code, doc, err = run(tmp_path, cluster(budget))
    assert {n["node"]: n for n in doc["nodes"]}[N1]["candidate"] is False
    assert "has no status" not in err
