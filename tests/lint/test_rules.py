"""Lint's rules as modules (`kexplain/lint/rules/`), one registry (issue 79): every rule of the rules
table is declared by exactly one module, with what it needs and the upstream rule it follows; the
Linter keeps the walk, and no class of `kexplain/lint` grows past 400 lines again."""
from __future__ import annotations

import ast

from kexplain.lint import rules
from kexplain.lint.linter import RULES
from kexplain.lint.rule import NEEDS, Severity, table_order
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
