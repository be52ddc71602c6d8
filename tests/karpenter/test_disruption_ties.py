"""Ties Karpenter breaks at random (`karpenter.disruption.ties`): GetCandidates lists the nodes in
a Go map's order and sort.Slice orders them by disruption cost, so candidates of equal cost come
out in an order that changes from run to run. Where that changes the command, the pass says which
candidates tie, that Karpenter takes one of them, the commands it may give and the savings' range
(text, JSON, the page); kexplain itself takes name order."""
from __future__ import annotations

import html
import json
import re

from kexplain.cli.app import main
from tests.karpenter.test_disruption import document, node, pod, run
from tests.karpenter.test_disruption_chain import write_inputs
from tests.support.cli_helpers import TestEnvironment

N1, N2, N3 = "ip-10-0-1-1.ec2.internal", "ip-10-0-2-1.ec2.internal", "ip-10-0-3-1.ec2.internal"


def priced(i: int, itype: str = "m5.large", cpu: str = "2", alloc: str = "1930m") -> list[dict]:
    """A node of `node` in a zone the AWS data prices."""
    objs = node(i, itype, cpu, alloc)
    for o in objs:
        o["metadata"]["labels"]["topology.kubernetes.io/zone"] = "us-east-1a"
    return objs


def two_alike_one_pod_each() -> list[dict]:
    """An m5.xlarge and an m5.large, one pod each, the same age: the same disruption cost. A
    budget of one keeps multi-node consolidation out; single-node consolidation deletes the first
    of them it tries, either one (the other holds its pod), and a third, busier node stays."""
    return [*priced(1, "m5.xlarge", "4", "3920m"), *priced(2), *priced(3, "m5.xlarge", "4", "3920m"),
            pod("a", 1), pod("b", 2), *[pod(f"c{i}", 3, "100m") for i in range(4)]]


def test_single_node_consolidation_between_two_of_equal_cost(tmp_path):
    doc = document(tmp_path, two_alike_one_pod_each(), budget="1")
    decision = doc["decision"]
    assert (decision["method"], decision["commands"][0]["text"]) == ("SingleNodeConsolidation", f"delete: [{N1}]")
    costs = {n["node"]: n["disruptionCost"] for n in doc["nodes"]}
    assert costs[N1] == costs[N2] != costs[N3]
    assert decision["ties"] == {
        "orderedBy": "disruptionCost",
        "tied": [{"candidates": [N1, N2], "disruptionCost": costs[N1]}],
        "commands": [{"text": f"delete: [{N1}]", "estimatedSavings": "0.1920"},
                     {"text": f"delete: [{N2}]", "estimatedSavings": "0.0960"}],
        "savings": {"min": "0.0960", "max": "0.1920"}}
    single = next(m for m in doc["methods"] if m["method"] == "SingleNodeConsolidation")
    assert single["ties"] == decision["ties"]


def test_the_text_and_the_page_say_the_tie(tmp_path):
    code, out = run(tmp_path, two_alike_one_pod_each(), budget="1", output="table")
    assert code == 0
    text = " ".join(out.split())
    tie = (f"tie: {N1}, {N2} (disruption cost 0.995833): Karpenter orders candidates of equal disruption cost in "
           f"Go's map order, which changes from run to run, and takes one of them; delete: [{N1}] is one possibility "
           "(kexplain takes name order)")
    assert tie in text
    assert f"or: delete: [{N2}] (savings $0.0960/h)" in text
    assert "savings from $0.0960/h to $0.1920/h, by Karpenter's choice" in text
    page = tmp_path / "page.html"
    env = TestEnvironment()
    files = write_inputs(tmp_path, two_alike_one_pod_each())
    (tmp_path / "nodepools.yaml").write_text((tmp_path / "nodepools.yaml").read_text().replace('nodes: "10"',
                                                                                               'nodes: "1"'))
    assert main(["karpenter", "--disruption", *files, "--now", "2026-01-01T12:00:00Z", "--html", str(page)], env) == 0
    verdict = page.read_text().split('id="budgets"')[0]
    words = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", verdict)).split())
    assert tie in words and "savings from $0.0960/h to $0.1920/h" in words


def test_emptiness_with_a_budget_of_one_takes_one_of_the_empty_nodes(tmp_path):
    """Every empty node costs 0: with a budget of one, which goes is Go's map order."""
    doc = document(tmp_path, [*priced(1, "m5.xlarge", "4", "3920m"), *priced(2), *priced(3, "m5.2xlarge", "8", "7910m"),
                              pod("busy", 3)], budget="1")
    decision = doc["decision"]
    assert (decision["method"], decision["commands"][0]["text"]) == ("Emptiness", f"delete: [{N1}]")
    ties = decision["ties"]
    assert ties["tied"] == [{"candidates": [N1, N2], "disruptionCost": 0.0}]
    assert [c["text"] for c in ties["commands"]] == [f"delete: [{N1}]", f"delete: [{N2}]"]
    assert ties["savings"] == {"min": "0.0960", "max": "0.1920"}


def test_no_tie_is_said_where_the_order_changes_nothing(tmp_path):
    """Both empty nodes go (a budget of ten): their tie changes no command."""
    doc = document(tmp_path, [*priced(1), *priced(2), *priced(3), pod("busy", 3)])
    assert doc["decision"]["commands"][0]["text"] == f"delete: [{N1}, {N2}]"
    assert "ties" not in doc["decision"]
    assert all("ties" not in m for m in doc["methods"])


def test_kexplain_takes_name_order_within_a_tie(tmp_path):
    """Fourteen candidates (beyond sort.Slice's insertion sort): of the seven cheapest to disrupt,
    single-node consolidation takes the first by name, as the docs say."""
    objects = []
    for i in range(1, 15):
        objects += priced(i)
        objects += [pod(f"p{i}-{k}", i, "100m") for k in range(1 if i % 2 else 2)]
    doc = document(tmp_path, objects, budget="1")
    assert doc["decision"]["commands"][0]["text"] == f"delete: [{N1}]"
    (tied,) = doc["decision"]["ties"]["tied"]
    assert tied["candidates"] == sorted(f"ip-10-0-{i}-1.ec2.internal" for i in range(1, 15, 2))


def test_single_node_consolidation_takes_the_node_pools_in_map_order(tmp_path):
    """Two NodePools, one candidate each (of different costs) that single-node consolidation can
    delete, not both at once: it interleaves the NodePools in lo.Keys' order, so either candidate
    is tried first."""
    objects = [*priced(1, "m5.xlarge", "4", "3920m"), *priced(2), *priced(3),
               pod("a", 1, "1200m"), pod("b", 2), pod("b2", 2, "100m"), *[pod(f"c{i}", 3, "100m") for i in range(4)]]
    for o in objects[2:4]:                       # node 2 and its NodeClaim: the NodePool other
        o["metadata"]["labels"]["karpenter.sh/nodepool"] = "other"
    code, out = run(tmp_path, objects, budget="1", output="json", types="m5.large, m5.xlarge")
    assert code == 0, out
    (tmp_path / "nodepools.yaml").write_text((tmp_path / "nodepools.yaml").read_text()
                                             + "---\n" + _other_pool(tmp_path))
    doc = _document(tmp_path)
    decision = doc["decision"]
    assert (decision["method"], decision["commands"][0]["text"]) == ("SingleNodeConsolidation", f"delete: [{N1}]")
    ties = decision["ties"]
    assert ties["nodePools"] == ["default", "other"] and "tied" not in ties
    assert [c["text"] for c in ties["commands"]] == [f"delete: [{N1}]", f"delete: [{N2}]"]
    assert ties["savings"] == {"min": "0.0960", "max": "0.1920"}
    text = " ".join(_cli(tmp_path, "table").split())
    assert ("NodePools default, other: single-node consolidation interleaves their candidates in Go's map order, "
            f"which changes from run to run; delete: [{N1}] is one possibility") in text


def _other_pool(tmp_path) -> str:
    first = (tmp_path / "nodepools.yaml").read_text().split("---")[0]
    return first.replace("name: default}", "name: other}", 1)


def _cli(tmp_path, output: str) -> str:
    env = TestEnvironment()
    code = main(["karpenter", "--disruption", "--nodes", str(tmp_path / "cluster.yaml"), "--nodes",
                 str(tmp_path / "nodepools.yaml"), "--now", "2026-01-01T12:00:00Z", "-o", output], env)
    assert code == 0, env.out + env.err
    return env.out


def _document(tmp_path) -> dict:
    return json.loads(_cli(tmp_path, "json"))


def test_the_savings_range_spans_the_dearest_and_the_cheapest_choice(tmp_path):
    """Three empty nodes (0 disruption cost each) and a budget of two: Karpenter deletes two of
    them, the two dearest at most, the two cheapest at least."""
    doc = document(tmp_path, [*priced(1), *priced(2, "m5.xlarge", "4", "3920m"), *priced(3, "m5.2xlarge", "8", "7910m"),
                              *priced(4), pod("busy", 4)], budget="2")
    decision = doc["decision"]
    assert (decision["method"], decision["commands"][0]["text"]) == ("Emptiness", f"delete: [{N1}, {N2}]")
    ties = decision["ties"]
    assert ties["tied"] == [{"candidates": [N1, N2, N3], "disruptionCost": 0.0}]
    assert ties["savings"] == {"min": "0.2880", "max": "0.5760"}          # m5.large+m5.xlarge .. m5.xlarge+m5.2xlarge
    assert f"delete: [{N2}, {N3}]" in [c["text"] for c in ties["commands"]]


def test_drift_between_two_nodes_drifted_at_the_same_time(tmp_path):
    """Drift takes the node that drifted first; two that drifted in the same second tie, and
    Karpenter replaces either."""
    objects = [*priced(1, "m5.xlarge", "4", "3920m"), *priced(2), *priced(3, "m5.xlarge", "4", "3920m"),
               pod("a", 1), pod("b", 2), *[pod(f"c{i}", 3, "100m") for i in range(4)]]
    for claim in (objects[1], objects[3]):
        claim["status"]["conditions"].append({"type": "Drifted", "status": "True", "reason": "Drifted",
                                              "lastTransitionTime": "2026-01-01T11:00:00Z"})
    doc = document(tmp_path, objects, budget="1")
    decision = doc["decision"]
    assert (decision["method"], decision["commands"][0]["text"]) == ("Drift", f"delete: [{N1}]")
    ties = decision["ties"]
    assert ties["orderedBy"] == "driftedAt"
    assert ties["tied"] == [{"candidates": [N1, N2], "driftedAt": "2026-01-01T11:00:00Z"}]
    assert [c["text"] for c in ties["commands"]] == [f"delete: [{N1}]", f"delete: [{N2}]"]
    code, out = run(tmp_path, objects, budget="1", output="table")
    assert (f"tie: {N1}, {N2} (Drifted time 2026-01-01T11:00:00Z): Karpenter orders candidates of equal Drifted "
            "time in Go's map order") in " ".join(out.split())
