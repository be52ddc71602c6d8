"""The report: the cluster read once for every section, the sections chosen, a section whose inputs
are missing skipped with why (never an empty "all clear"), budgets and drains as evict drain has them."""
from __future__ import annotations

import pytest

from kexplain.app.cluster import inputs as cluster_inputs
from kexplain.app.cluster.report import NAMES, report
from kexplain.app.eviction import request as eviction_request
from kexplain.app.eviction.drain_index import DrainIndex
from kexplain.errors import KexplainError
from tests.app.cluster.helpers import SHOP, request, with_items
from tests.support.paths import FIXTURES


def _sections(doc: dict) -> dict[str, dict]:
    return {s["name"]: s for s in doc["sections"]}


def test_the_cluster_is_read_once_for_every_section(monkeypatch):
    reads, states = [], []
    read, state_of = cluster_inputs.read_cluster, eviction_request.state_of
    monkeypatch.setattr(cluster_inputs, "read_cluster", lambda *a, **k: reads.append(1) or read(*a, **k))
    monkeypatch.setattr(eviction_request, "state_of", lambda *a, **k: states.append(1) or state_of(*a, **k))
    doc = report(request(SHOP))
    assert [s["name"] for s in doc["sections"]] == list(NAMES)
    assert (len(reads), len(states)) == (1, 1)


def test_a_section_without_its_inputs_is_skipped_with_why():
    doc = report(request(FIXTURES / "karpenter" / "nodepools.yaml"))
    sections = _sections(doc)
    assert sections["pending"] == {"name": "pending", "title": "Pending pods",
                                   "skipped": "no Pod among the inputs: nothing tells which pods are pending"}
    assert sections["budgets"]["skipped"] == "no PodDisruptionBudget among the inputs"
    assert sections["drains"]["skipped"] == "no Node among the inputs: no drain to check"
    assert doc["held"] is False


def test_karpenter_is_skipped_without_nodepools():
    assert _sections(report(request(SHOP)))["karpenter"]["skipped"] == \
        "no Karpenter NodePool (karpenter.sh/v1) among the inputs"


def test_sections_are_chosen_and_kept_in_the_reports_order():
    doc = report(request(SHOP, sections=("drains", "budgets")))
    assert [s["name"] for s in doc["sections"]] == ["budgets", "drains"]


def test_an_unknown_section_is_bad_usage():
    with pytest.raises(KexplainError, match="--section nodes: not a section"):
        report(request(SHOP, sections=("nodes",)))


def test_the_budget_allowing_none_names_what_it_blocks():
    budgets = _sections(report(request(SHOP, sections=("budgets",))))["budgets"]
    (row,) = budgets["rows"]
    assert (row["name"], row["statusFrom"], row["status"]["disruptionsAllowed"]) == \
        ("shop/web-pdb", "disruption-controller", 0)
    assert (row["pods"], row["nodes"]) == (2, ["node-b"])


def test_a_budget_that_allows_a_disruption_is_not_a_row(tmp_path):
    relaxed = with_items(tmp_path, "apiVersion: policy/v1\nkind: PodDisruptionBudget\n"
                                   "metadata: {name: web-relaxed, namespace: shop}\n"
                                   "spec: {maxUnavailable: 1, selector: {matchLabels: {app: web}}}\n")
    budgets = _sections(report(request(SHOP, relaxed, sections=("budgets",))))["budgets"]
    assert (budgets["budgets"], [r["name"] for r in budgets["rows"]]) == (2, ["shop/web-pdb"])


def test_only_cordoned_nodes_are_drained_unless_every_node_is_asked():
    drains = _sections(report(request(SHOP, sections=("drains",))))["drains"]
    assert (drains["checked"], [r["node"] for r in drains["rows"]]) == (1, ["node-b"])
    every = _sections(report(request(SHOP, sections=("drains",), drain_check=True)))["drains"]
    assert (every["checked"], every["scope"], [r["node"] for r in every["rows"]]) == (2, "every node", ["node-b"])


def test_the_drain_flags_reach_every_drain():
    drains = _sections(report(request(FIXTURES / "eviction" / "drain.yaml", sections=("drains",), drain_check=True,
                                      drain_flags=("ignore_daemonsets",))))["drains"]
    assert [r["drain"]["flags"] for r in drains["rows"]] == [["--ignore-daemonsets"]]


def test_every_drain_reads_one_index(monkeypatch):
    made = []
    of = DrainIndex.of.__func__

    def counted(cls, *args, **kwargs):
        made.append(1)
        return of(cls, *args, **kwargs)

    monkeypatch.setattr(DrainIndex, "of", classmethod(counted))
    drains = _sections(report(request(SHOP, sections=("drains",), drain_check=True)))["drains"]
    assert drains["checked"] == 2 and len(made) == 1


def test_the_cluster_autoscalers_scale_down_is_skipped_without_node_groups():
    assert _sections(report(request(SHOP)))["scaledown"]["skipped"] == \
        ("no Cluster Autoscaler node group among the inputs (--node-groups FILE, CA's status ConfigMap "
         "kube-system/cluster-autoscaler-status or Cluster API's objects)")


def test_the_nodes_the_cluster_autoscaler_keeps_are_rows_and_its_unneeded_nodes_are_not():
    case = FIXTURES.parent / "tests" / "autoscaler" / "cases" / "scaledown-0009"
    section = _sections(report(request(case / "cluster.yaml", node_groups=str(case / "nodegroups.yaml"),
                                       sections=("scaledown",))))["scaledown"]
    assert [(r["name"], r["reason"]) for r in section["rows"]] == \
        [("ip-10-0-64-10.ec2.internal", "BlockedByPod"), ("ip-10-0-66-12.ec2.internal", "ScaleDownDisabledAnnotation")]
    assert section["rows"][0]["blockingPod"] == {"pod": "default/scratch-v225nbgbhx-hqn42",
                                                 "reason": "LocalStorageRequested"}
    assert (section["held"], section["unneeded"]) == (2, ["ip-10-0-0-13.ec2.internal", "ip-10-0-64-17.ec2.internal"])


def test_a_namespace_keeps_its_own_budgets_and_pending_pods():
    shop = _sections(report(request(SHOP, sections=("budgets", "pending"), namespace="shop")))
    jobs = _sections(report(request(SHOP, sections=("budgets", "pending"), namespace="jobs")))
    assert [r["name"] for r in shop["budgets"]["rows"]] == ["shop/web-pdb"] and jobs["budgets"]["rows"] == []
    assert {r["owner"]["namespace"] for r in shop["pending"]["rows"]} == {"shop"}
    assert [r["owner"]["name"] for r in jobs["pending"]["rows"]] == ["batch-1"]


def test_karpenters_section_reads_the_one_state_and_decodes_nothing_again(monkeypatch):
    from kexplain.app import karpenter_disruption
    from kexplain.karpenter import inputs as karpenter_inputs
    states = []
    of_state = karpenter_inputs.pass_of_state
    monkeypatch.setattr(karpenter_disruption, "load_pods_pass", lambda *a, **k: pytest.fail("decoded again"))
    monkeypatch.setattr(karpenter_disruption, "pass_of_state", lambda st, *a, **k: states.append(st) or
                        of_state(st, *a, **k))
    inputs = cluster_inputs.read(request(FIXTURES / "karpenter-disruption" / "cluster.yaml",
                                         FIXTURES / "karpenter-disruption" / "nodepools.yaml"))
    from kexplain.app.cluster.report import SECTIONS, report_of
    section = _sections(report_of(inputs, [s for s in SECTIONS if s.name == "karpenter"]))["karpenter"]
    assert section["held"] == 3 and states == [inputs.state]
