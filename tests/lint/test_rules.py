"""Lint's rules as modules (`kexplain/lint/rules/`), one registry (issue 79): every rule of the rules
table is declared by exactly one module, with what it needs and the upstream rule it follows; the
Linter keeps the walk, and no class of `kexplain/lint` grows past 400 lines again; docs/lint.md's
rule table and SARIF's rule descriptions are the registry's."""
from __future__ import annotations

import ast
import json
import re

from kexplain.lint import rules
from kexplain.lint.linter import RULES, Report
from kexplain.lint.rule import NEEDS, Severity, table_order
from kexplain.render.lint_formats import render_sarif
from tests.lint.test_lint_formats import sarif_schema, sarif_validator  # noqa: F401 - fixtures
from tests.support.paths import ROOT

CLASS_LIMIT = 400


def test_every_rule_is_declared_by_one_module_in_the_tables_order() -> None:
    declared = [r.id for family in rules.FAMILIES for r in family.RULES]
    assert sorted(declared) == sorted(set(declared)), "a rule declared twice"
    assert sorted(declared) == sorted(table_order())
    assert list(RULES) == table_order() and RULES is rules.RULES


def test_each_rule_says_what_it_needs_and_whose_rule_it_follows() -> None:
    for rule in RULES.values():
        assert rule.needs in NEEDS, rule
        assert rule.upstream and rule.summary and isinstance(rule.severity, Severity), rule
        assert rules.family_of(rule.id) in {f.__name__.rpartition(".")[2] for f in rules.FAMILIES}
    assert rules.family_of("pdb-blocks-drain") == "disruption_budgets"
    assert RULES["no-node-group"].needs == "node-groups" and RULES["no-nodepool"].needs == "nodepools"
    assert RULES["kueue-never-fits"].needs == "kueue" and RULES["unschedulable"].needs == "pool"
    assert RULES["schema"].needs == "schemas"


def test_no_class_in_lint_is_over_400_lines() -> None:
    long = []
    for path in (ROOT / "kexplain" / "lint").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > CLASS_LIMIT:  # type: ignore[operator]
                long.append((path.relative_to(ROOT).as_posix(), node.name, node.end_lineno - node.lineno + 1))
    assert not long, long


def docs_rule_rows() -> list[tuple[str, str, str, str]]:
    """docs/lint.md's rule table: (anchor, id, severity, needs) per row."""
    page = (ROOT / "docs" / "lint.md").read_text()
    table = page.split("\n## Rules\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r'^\| <a id="([^"]+)"></a>`([a-z-]+)` \| (\w+) \| ([a-z-]+) \|', table, re.M)


def test_the_docs_rule_table_is_the_registry() -> None:
    """docs/lint.md lists every rule, in the registry's order, with its severity and needs, each row
    with the anchor SARIF's helpUri points at: the two cannot drift."""
    rows = docs_rule_rows()
    assert [(a, i, s, n) for a, i, s, n in rows] == [(f"rule-{r.id}", r.id, r.severity.label, r.needs)
                                                     for r in RULES.values()]


def test_sarif_describes_each_rule_with_its_docs_anchor(sarif_validator) -> None:  # noqa: F811
    log = json.loads(render_sarif(Report()))
    sarif_validator.validate(log)
    described = log["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in described] == list(RULES)
    anchors = {a for a, *_ in docs_rule_rows()}
    for entry, rule in zip(described, RULES.values()):
        assert entry["shortDescription"]["text"] == rule.summary
        assert entry["fullDescription"]["text"].startswith(rule.summary) and rule.upstream in \
            entry["fullDescription"]["text"]
        page, anchor = entry["helpUri"].split("#")
        assert page.startswith("https://github.com/kexplain/kexplain/blob/v") and page.endswith("/docs/lint.md")
        assert anchor == f"rule-{rule.id}" and anchor in anchors
