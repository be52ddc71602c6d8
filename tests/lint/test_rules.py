"""Lint's rules as modules (`kexplain/lint/rules/`), one registry (issue 79): every rule is declared
by exactly one module, with its default severity, what it needs, its summary and the upstream rule it
follows, and nowhere else (tables.json holds no rule); the Linter keeps the walk, and no class of
`kexplain/lint` grows past 400 lines again; docs/lint.md's rule table and SARIF's rule descriptions
are the registry's."""
from __future__ import annotations

import ast
import json
import re

from kexplain.lint import rules
from kexplain.lint.linter import RULES, Report
from kexplain.lint.rule import NEEDS, Severity
from kexplain.lint.tables import _all as lint_tables
from kexplain.render.lint_formats import render_sarif
from tests.lint.test_lint_formats import sarif_schema, sarif_validator  # noqa: F401 - fixtures
from tests.support.paths import ROOT

CLASS_LIMIT = 400


def test_every_rule_is_declared_by_one_module_in_the_families_order() -> None:
    declared = [r for family in rules.FAMILIES for r in family.RULES]
    assert len({r.id for r in declared}) == len(declared), "a rule declared twice"
    assert list(RULES.values()) == declared and RULES is rules.RULES


def test_a_rule_is_read_in_one_place_its_module() -> None:
    """Its severity and summary are its declaration's: tables.json keeps no rules table, and no
    module but the rule's own says them."""
    assert "rules" not in lint_tables()
    sources = {path.stem: path.read_text() for path in (ROOT / "kexplain" / "lint" / "rules").glob("*.py")}
    for rule in RULES.values():
        own = sources[rules.family_of(rule.id)]
        assert f"Severity.{rule.severity.name}" in own, rule.id
        first_words = rule.summary.split(" ")[:3]
        assert " ".join(first_words) in own, rule.id
    assert RULES["unreadable"].severity is Severity.ERROR and RULES["unknown-kind"].severity is Severity.INFO
    assert RULES["pdb-blocks-drain"].summary.startswith("A PodDisruptionBudget can never allow a disruption")


def test_a_finding_without_its_own_severity_is_given_its_rules() -> None:
    """`with_severity` (every report passes through it) gives each finding its rule's declared
    severity; one that says its own keeps it."""
    from kexplain.lint.findings import Finding
    from kexplain.lint.documents import Location
    at = Location("a.yaml", 1, line=1)
    plain, own = Finding("unknown-kind", at, None, "x"), Finding("unknown-field", at, None, "y",
                                                                  severity=Severity.WARNING)
    assert [f.level for f in rules.with_severity([plain, own])] == [Severity.INFO, Severity.WARNING]


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
