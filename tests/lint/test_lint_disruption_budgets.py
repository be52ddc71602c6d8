"""Lint's PodDisruptionBudgets that block every drain (kexplain.lint.disruption_budgets): a budget
that never allows a disruption of the workload it selects, and a workload two budgets select, each
named, at the line of its field; budgets that allow one are left alone."""
from __future__ import annotations

from pathlib import Path

import pytest

from kexplain.lint.disruption_budgets import RULE, check_budgets
from kexplain.lint.documents import read_documents, unwrap
from kexplain.lint.linter import RULES, LintOptions, Severity, lint


def workload(name: str, replicas: int = 3, kind: str = "Deployment", labels: str = "{app: web}",
             namespace: str = "shop", extra_meta: str = "") -> str:
    return f"""apiVersion: apps/v1
kind: {kind}
metadata: {{name: {name}, namespace: {namespace}{extra_meta}}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {labels}}}
    spec:
      containers: [{{name: c, image: nginx}}]
"""


def budget(name: str, rule: str, selector: str = "{matchLabels: {app: web}}", namespace: str = "shop") -> str:
    return f"""apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {{name: {name}, namespace: {namespace}}}
spec:
  {rule}
  selector: {selector}
"""


def problems(*docs: str) -> list:
    parsed, error = read_documents("---\n".join(docs), "app.yaml")
    assert error is None
    return check_budgets([item for doc in parsed for item in unwrap(doc)])


@pytest.mark.parametrize(("rule", "why"), [
    ("minAvailable: 3", "minAvailable 3 of 3 replicas"),
    ("minAvailable: 5", "minAvailable 5 of 3 replicas"),
    ('minAvailable: "100%"', "minAvailable 100% of 3 replicas"),
    ("maxUnavailable: 0", "maxUnavailable 0"),
    ('maxUnavailable: "0%"', "maxUnavailable 0%"),
])
def test_a_budget_that_never_allows_a_disruption(rule: str, why: str) -> None:
    [p] = problems(workload("web"), budget("web-pdb", rule))
    assert p.rule == RULE and p.field == f"spec.{rule.split(':')[0]}"
    assert p.location.doc == 2 and p.location.line == 16      # the line of the budget's field
    assert p.message.startswith(f"never allows a disruption of Deployment shop/web ({why}): every eviction")


@pytest.mark.parametrize("rule", ["minAvailable: 2", "maxUnavailable: 1", 'minAvailable: "50%"',
                                  'maxUnavailable: "10%"'])
def test_a_budget_that_allows_one_is_fine(rule: str) -> None:
    assert problems(workload("web"), budget("web-pdb", rule)) == []


@pytest.mark.parametrize("other", [
    workload("web", replicas=0),                                         # nothing runs: nothing to drain
    workload("web", namespace="other"),                                  # another namespace
    workload("web", labels="{app: api}"),                                # not selected
    workload("web-5d8", kind="ReplicaSet", extra_meta=", ownerReferences: [{apiVersion: apps/v1, kind: Deployment, "
                                                      "name: web, uid: u, controller: true}]"),   # its Deployment's
])
def test_budgets_of_no_running_workload_are_left_alone(other: str) -> None:
    assert problems(other, budget("web-pdb", "maxUnavailable: 0")) == []


def test_replicas_of_every_selected_workload_count() -> None:
    two = [workload("web"), workload("web-canary", replicas=1)]
    [p] = problems(*two, budget("web-pdb", "minAvailable: 4"))
    assert "Deployment shop/web, Deployment shop/web-canary (minAvailable 4 of 4 replicas)" in p.message
    assert problems(*two, budget("web-pdb", "minAvailable: 3")) == []


def test_a_workload_two_budgets_select() -> None:
    [p] = problems(workload("web", labels="{app: web, tier: front}"), budget("a", "maxUnavailable: 1"),
                   budget("b", "maxUnavailable: 1", selector="{matchLabels: {tier: front}}"))
    assert p.location.doc == 1 and p.field == "spec.template.metadata.labels" and p.location.line == 8
    assert p.message.startswith("its pods are selected by 2 PodDisruptionBudgets (PodDisruptionBudget shop/a, "
                                "PodDisruptionBudget shop/b): the Eviction API refuses to evict them (500: This pod "
                                "has more than one PodDisruptionBudget, which the eviction subresource does not "
                                "support.)")


def test_the_rule_is_registered_as_a_warning() -> None:
    assert RULES[RULE].severity is Severity.WARNING


NODE = """apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {capacity: {cpu: "8", memory: 16Gi, pods: "110"}}
"""


def test_lint_reports_it_with_the_budget_in_the_pool(tmp_path: Path) -> None:
    (tmp_path / "pool.yaml").write_text(NODE + "---\n" + budget("web-pdb", "minAvailable: 3"))
    (tmp_path / "app.yaml").write_text(workload("web"))
    report = lint(LintOptions(paths=(str(tmp_path / "app.yaml"),), node_paths=(str(tmp_path / "pool.yaml"),)))
    [finding] = [f for f in report.findings if f.rule == RULE]
    assert finding.field == "spec.replicas" and finding.location.line == 5
    assert str(finding.obj) == "Deployment shop/web"
    assert finding.message.startswith("PodDisruptionBudget shop/web-pdb never allows a disruption of its pods "
                                      "(minAvailable 3 of 3 replicas)")


def test_lint_reports_it_without_a_pool(tmp_path: Path) -> None:
    (tmp_path / "app.yaml").write_text(workload("web") + "---\n" + budget("web-pdb", "maxUnavailable: 0"))
    report = lint(LintOptions(paths=(str(tmp_path / "app.yaml"),)))
    assert [(f.rule, str(f.obj)) for f in report.findings if f.level >= Severity.WARNING] == \
        [(RULE, "PodDisruptionBudget shop/web-pdb")]
