"""The disruption pass builds each node's candidate once per disruption class and hands it to every
method (`Context.candidate`): what each method asks must stay what NewCandidate would answer it,
with the events NewCandidate publishes counted in each method that asks, and each method's own
filter applied after."""
from __future__ import annotations

import copy

from tests.karpenter.test_disruption import NODEPOOLS, document, node, pdb, pod

METHODS = ["Emptiness", "StaticDrift", "Drift", "MultiNodeConsolidation", "SingleNodeConsolidation"]


def test_every_method_counts_the_events_newcandidate_publishes(tmp_path):
    """A node a PDB blocks publishes DisruptionBlocked in each method's GetCandidates (Go's
    recorder counts it before the dedupe), not only in the first method that built its candidate."""
    doc = document(tmp_path, [*node(1), pod("web-0", 1), pdb(0), *node(2)])
    assert [m["method"] for m in doc["methods"]] == METHODS
    for m in doc["methods"]:
        assert m["published"].get("DisruptionBlocked") == 2, m["method"]


def test_the_disruption_class_is_part_of_a_candidates_identity(tmp_path):
    """A do-not-disrupt pod refuses the graceful candidate; the eventual one (a NodeClaim with a
    terminationGracePeriod) is made anyway: the graceful methods, asked first, must not hand their
    refusal to Drift."""
    drifted = node(1)
    drifted[1]["spec"]["terminationGracePeriod"] = "30m"
    drifted[1]["status"]["conditions"].append({"type": "Drifted", "status": "True", "reason": "Drifted",
                                               "lastTransitionTime": "2026-01-01T11:00:00Z"})
    doc = document(tmp_path, [*drifted, *node(2), pod("web-0", 1, annotations={"karpenter.sh/do-not-disrupt": "true"}),
                              pod("web-1", 2)])
    runs = {m["method"]: m for m in doc["methods"]}
    assert runs["Emptiness"]["candidates"] == []
    assert runs["Drift"]["candidates"] == ["ip-10-0-1-1.ec2.internal"]
    assert doc["decision"]["method"] == "Drift"


def test_one_candidate_through_two_methods_filters(tmp_path):
    """An empty node under a WhenEmpty NodePool: Emptiness takes it, the consolidation methods (same
    candidate, their own filter) refuse it with their event, each time they ask."""
    objects = [*node(1), *node(2), pod("web-0", 2)]
    nodepools = NODEPOOLS.replace("WhenEmptyOrUnderutilized", "WhenEmpty")
    doc = _document_with_pools(tmp_path, objects, nodepools)
    runs = {m["method"]: m for m in doc["methods"]}
    assert runs["Emptiness"]["candidates"] == ["ip-10-0-1-1.ec2.internal"]
    for name in ("MultiNodeConsolidation", "SingleNodeConsolidation"):
        assert runs[name]["candidates"] == [], name
        assert runs[name]["published"].get("Unconsolidatable") == 4, name       # two nodes, Node and NodeClaim


def _document_with_pools(tmp_path, objects, nodepools):
    import json

    import yaml

    from kexplain.cli.app import main
    from tests.support.cli_helpers import TestEnvironment

    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(copy.deepcopy(objects)))
    (tmp_path / "nodepools.yaml").write_text(nodepools.replace("BUDGET", "10").replace("TYPES", "m5.large"))
    env = TestEnvironment()
    assert main(["karpenter", "--disruption", "--nodes", str(tmp_path / "cluster.yaml"), "--nodes",
                 str(tmp_path / "nodepools.yaml"), "--now", "2026-01-01T12:00:00Z", "-o", "json"], env) == 0
    return json.loads(env.out)
