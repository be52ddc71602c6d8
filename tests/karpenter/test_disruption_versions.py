"""Karpenter's releases as rows (`kexplain.karpenter.disruption.versions`): each rule v1.14.1 changed
in the disruption decision, shown by a small cluster where v1.13.0 (the default) and
`--karpenter-version 1.14` answer differently. Expected values follow the Go code of
kubernetes-sigs/karpenter at v1.13.0 and v1.14.1 (each test names the functions)."""
from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import yaml

from kexplain.cli.app import main
from kexplain.karpenter.cloudprovider.types import Offering
from kexplain.karpenter.disruption.balanced import estimated_savings, source_price
from kexplain.karpenter.disruption.candidate import CAPACITY_TYPE_LABEL, ZONE_LABEL, Candidate, Command
from kexplain.karpenter.disruption.versions import V1_13_0, V1_14_1, resolve
from kexplain.karpenter.scheduling.requirement import new_requirement
from kexplain.karpenter.scheduling.requirements import new_requirements
from tests.karpenter.test_disruption import node as zoneless_node
from tests.karpenter.test_disruption import pod
from tests.support.cli_helpers import TestEnvironment

NODEPOOLS = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      - {key: node.kubernetes.io/instance-type, operator: In, values: [TYPES]}
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      expireAfter: 720h
  disruption:
    consolidationPolicy: POLICY
    consolidateAfter: AFTER
    budgets: [{nodes: "BUDGET"}]
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  role: KarpenterNodeRole
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: test}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: test}}]
"""
NAME = "ip-10-0-{}-1.ec2.internal"
NEGATIVE_COST = {"controller.kubernetes.io/pod-deletion-cost": "-1000000000"}     # EvictionCost clamps below 0
DO_NOT_DISRUPT = {"karpenter.sh/do-not-disrupt": "true"}


def node(i: int, itype: str = "m5.large", cpu: str = "2", alloc_cpu: str = "1930m") -> list[dict]:
    """test_disruption's node in a zone of the AWS data kexplain ships (a price to score)."""
    objs = zoneless_node(i, itype, cpu, alloc_cpu)
    for obj in objs:
        obj["metadata"]["labels"]["topology.kubernetes.io/zone"] = "us-east-1a"
    return objs


def run(tmp_path: Path, objects: list[dict], version: str | None = None, policy: str = "WhenEmptyOrUnderutilized",
        after: str = "0s", budget: str = "10", types: str = "m5.large") -> tuple[int, str, str]:
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(objects))
    (tmp_path / "nodepools.yaml").write_text(NODEPOOLS.replace("POLICY", policy).replace("AFTER", after)
                                             .replace("BUDGET", budget).replace("TYPES", types))
    env = TestEnvironment()
    code = main(["karpenter", "--disruption", "--nodes", str(tmp_path / "cluster.yaml"), "--nodes",
                 str(tmp_path / "nodepools.yaml"), "--now", "2026-01-01T12:00:00Z", "-o", "json",
                 *(["--karpenter-version", version] if version else [])], env)
    return code, env.out, env.err


def document(tmp_path: Path, objects: list[dict], version: str | None = None, **kw) -> dict:
    code, out, err = run(tmp_path, objects, version, **kw)
    assert code == 0, err
    return json.loads(out)


def messages(doc: dict, reason: str, obj: str) -> list[str]:
    """What every method published (reached or not) of this reason on this object."""
    return sorted({e["message"] for m in doc["methods"] for e in m.get("events", ())
                   if e["reason"] == reason and e["object"] == obj})


def annotated_node(i: int, annotations: dict) -> list[dict]:
    objs = node(i)
    for obj in objs:
        obj["metadata"]["annotations"] = dict(annotations)
    return objs


# -- the option and the CRD -------------------------------------------------------------------------
def test_releases_resolve_by_minor_and_tag_and_an_unknown_one_exits_2(tmp_path):
    assert resolve(None) is V1_13_0 and resolve("1.14") is V1_14_1 and resolve("v1.14.1") is V1_14_1
    code, _, err = run(tmp_path, node(1), version="1.15")
    assert code == 2
    assert "--karpenter-version 1.15: not a Karpenter release kexplain follows (known: 1.13 (v1.13.0), " \
           "1.14 (v1.14.1))" in err


def test_v1_13s_crd_refuses_the_balanced_policy_and_v1_14s_admits_it(tmp_path):
    """The NodePool CRD's enum (apis/v1/nodepool.go, +kubebuilder:validation:Enum): Balanced is v1.14's."""
    code, out, err = run(tmp_path, node(1), policy="Balanced")
    assert code == 2
    assert "nodepools.yaml: document 1: NodePool default" in err
    assert ('spec.disruption.consolidationPolicy: Unsupported value: "Balanced": supported values: "WhenEmpty", '
            '"WhenEmptyOrUnderutilized"') in err
    assert json.loads(out)["karpenter"].startswith("sigs.k8s.io/karpenter v1.13.0")
    doc = document(tmp_path, node(1), "1.14", policy="Balanced")
    assert doc["karpenter"].startswith("sigs.k8s.io/karpenter v1.14.1")


def test_the_provisioning_pass_stays_v1_13(tmp_path):
    (tmp_path / "pods.yaml").write_text(yaml.safe_dump(pod("web-0", 1)))
    env = TestEnvironment()
    assert main(["karpenter", str(tmp_path / "pods.yaml"), "--karpenter-version", "1.14"], env) == 2
    assert "the provisioning pass follows v1.13.0 only" in env.err


# -- the rules ----------------------------------------------------------------------------------------
def test_a_when_empty_pool_says_its_policy_in_each_releases_words(tmp_path):
    """consolidation.ShouldDisrupt: v1.13 refuses every node of a pool not WhenEmptyOrUnderutilized
    ("non-empty consolidation disabled", the empty one too); v1.14 drops empty nodes first (no
    event) and says WhenEmpty for the others."""
    objects = [*node(1), *node(2), pod("web-0", 2)]
    old = document(tmp_path, objects, policy="WhenEmpty")
    new = document(tmp_path, objects, "1.14", policy="WhenEmpty")
    assert messages(old, "Unconsolidatable", f"Node {NAME.format(1)}") == [
        'NodePool "default" has non-empty consolidation disabled']
    assert messages(old, "Unconsolidatable", f"Node {NAME.format(2)}") == [
        'NodePool "default" has non-empty consolidation disabled']
    assert messages(new, "Unconsolidatable", f"Node {NAME.format(1)}") == []
    assert messages(new, "Unconsolidatable", f"Node {NAME.format(2)}") == [
        'NodePool "default" has consolidation policy WhenEmpty, but node is not empty']


def test_a_node_whose_pods_cost_nothing_to_evict_is_empty_in_v1_14(tmp_path):
    """Candidate.IsEmpty (types.go, v1.14): RescheduleDisruptionCost <= 1, a pod's EvictionCost
    clamped at 0; Emptiness.ShouldDisrupt reads it. v1.13: len(reschedulablePods) == 0."""
    objects = [*node(1), pod("cheap-0", 1, annotations=NEGATIVE_COST), *node(2), pod("web-0", 2)]
    old = document(tmp_path, objects)
    new = document(tmp_path, objects, "1.14")
    assert old["methods"][0]["candidates"] == []
    assert new["methods"][0]["candidates"] == [NAME.format(1)]
    assert new["decision"]["method"] == "Emptiness"
    assert new["decision"]["commands"][0]["text"] == f"delete: [{NAME.format(1)}]"
    # and consolidation no longer takes it (ShouldDisrupt's IsEmpty check)
    assert NAME.format(1) in old["methods"][4]["candidates"]
    assert new["methods"][4]["candidates"] == [NAME.format(2)]


def test_emptiness_takes_the_dearest_node_first_in_v1_14(tmp_path):
    """sortCandidates: v1.13 by DisruptionCost ascending (two empty nodes tie at 0: kept in order);
    v1.14 by SavingsRatio (Price / RescheduleDisruptionCost) descending: the m5.xlarge first."""
    objects = [*node(1, "m5.large"), *node(2, "m5.xlarge", cpu="4", alloc_cpu="3920m")]
    old = document(tmp_path, objects, budget="1", types="m5.large, m5.xlarge")
    new = document(tmp_path, objects, "1.14", budget="1", types="m5.large, m5.xlarge")
    assert old["decision"]["commands"][0]["text"] == f"delete: [{NAME.format(1)}]"
    assert new["decision"]["commands"][0]["text"] == f"delete: [{NAME.format(2)}]"


def test_a_node_under_consolidate_after_takes_no_candidates_pods_in_v1_14(tmp_path):
    """IsConsolidationSimulation (scheduler.go, v1.14): addToExistingNode skips a node under its
    NodePool's consolidateAfter (IsUnderConsolidateAfter: since lastPodEventTime) for pods that are
    not pending and not from a deleting node. v1.13 moves the pod there."""
    fresh = node(2)
    fresh[1]["status"]["lastPodEventTime"] = "2026-01-01T11:30:00Z"         # 30m ago, consolidateAfter 1h
    objects = [*node(1), pod("web-0", 1), *fresh, pod("pinned-0", 2, annotations=DO_NOT_DISRUPT)]
    old = document(tmp_path, objects, after="1h")
    new = document(tmp_path, objects, "1.14", after="1h")
    assert old["decision"]["commands"][0]["text"] == f"delete: [{NAME.format(1)}]"
    assert old["decision"]["commands"][0]["existingNodes"][0]["node"] == NAME.format(2)
    assert new["decision"] is None or not new["decision"].get("commands")
    assert messages(new, "Unconsolidatable", f"Node {NAME.format(1)}") == ["Can't replace with a cheaper node"]


def test_balanced_approves_a_move_whose_score_passes_and_says_it(tmp_path):
    """balancedEvaluator.ApproveCommand and ScoreMove (balanced.go): a one-node delete in a Balanced
    pool scores (savings / pool cost) / (disruption / pool disruption) against 1/k = 0.5 (k = 2);
    ConsolidationApproved on the Node and NodeClaim. Two equal nodes, one pod each: savings 50%,
    disruption (1 + 1) / 4 = 50%, score 1.00."""
    objects = [*node(1), pod("web-0", 1), *node(2), pod("web-1", 2, cpu="200m")]
    doc = document(tmp_path, objects, "1.14", policy="Balanced")
    assert doc["decision"]["method"] == "SingleNodeConsolidation"
    moved = doc["decision"]["commands"][0]["text"]
    gone = NAME.format(1) if NAME.format(1) in moved else NAME.format(2)
    assert messages(doc, "ConsolidationApproved", f"Node {gone}") == [
        "score 1.00 >= threshold 0.50 (k: 2, savings 50.0%, disruption 50.0%)"]


def test_balanced_refuses_a_move_that_disrupts_more_than_it_saves(tmp_path):
    """CanPassThreshold (balanced.go): the best a move of the node can score (a delete) is below
    0.5. Four equal nodes (pool cost 4p; ClusterCost counts every NodeClaim), the candidate holds
    six pods (disruption 7) and the three others (do-not-disrupt, not candidates) one each
    (StateNode.DisruptionCost 2): (1/4) / (7/13) = 0.46. WhenEmptyOrUnderutilized deletes it."""
    objects = [*node(1), *[pod(f"web-{i}", 1, cpu="100m") for i in range(6)]]
    for i in (2, 3, 4):
        objects += [*annotated_node(i, DO_NOT_DISRUPT), pod(f"other-{i}", i, cpu="100m")]
    plain = document(tmp_path, objects, "1.14")
    balanced = document(tmp_path, objects, "1.14", policy="Balanced")
    assert plain["decision"]["commands"][0]["text"] == f"delete: [{NAME.format(1)}]"
    assert balanced["methods"][4]["candidates"] == [NAME.format(1)]
    assert balanced["decision"] is None or not balanced["decision"].get("commands")
    assert not [e for e in balanced["events"] if e["reason"] == "ConsolidationApproved"]


# -- prices (no scenario of the shipped AWS data tells them apart: every zone and capacity type of a
# type is priced alike there) ---------------------------------------------------------------------------
def _offering(zone: str, capacity_type: str, price: float, available: bool = True) -> Offering:
    return Offering(new_requirements(new_requirement(ZONE_LABEL, "In", zone),
                                     new_requirement(CAPACITY_TYPE_LABEL, "In", capacity_type)), price, available)


def _candidate(name: str, offerings: list[Offering]) -> Candidate:
    labels = {ZONE_LABEL: "us-east-1a", CAPACITY_TYPE_LABEL: "on-demand"}
    state = SimpleNamespace(labels=lambda: labels, name=lambda: name)
    return Candidate(state, SimpleNamespace(offerings=offerings), None, "us-east-1a", "on-demand", 1.0, [], [])


def test_prices_follow_each_releases_functions():
    """getCandidatePrices (v1.13: 0 for all when one candidate has no compatible offering) against
    sumCandidatePrices of resolveNodePrice (v1.14: that one counts 0, the others their price); and
    EstimatedSavings' replacement price: the first type's cheapest offering (v1.13, the spot one
    here) against its cheapest available offering its requirements allow (v1.14, on-demand)."""
    priced = _candidate("a", [_offering("us-east-1a", "on-demand", 0.2)])
    unpriced = _candidate("b", [_offering("us-east-1b", "on-demand", 0.3)])
    assert source_price(V1_13_0, [priced, unpriced]) == 0.0
    assert source_price(V1_14_1, [priced, unpriced]) == 0.2
    replacement = SimpleNamespace(
        instance_type_options=[SimpleNamespace(offerings=[_offering("us-east-1a", "spot", 0.05),
                                                          _offering("us-east-1a", "on-demand", 0.12, False),
                                                          _offering("us-east-1a", "on-demand", 0.08)])],
        requirements=new_requirements(new_requirement(CAPACITY_TYPE_LABEL, "In", "on-demand")))
    cmd = Command([priced], [replacement])
    assert round(estimated_savings(V1_13_0, cmd), 6) == 0.15
    assert round(estimated_savings(V1_14_1, cmd), 6) == 0.12
