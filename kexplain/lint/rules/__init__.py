"""The lint rules' registry: every module of this package declares its rules (`RULES`, each a
`lint.rule.Rule`: id, default severity, what it needs, summary, the upstream rule it follows) beside
the checks that make their findings; `RULES` here gathers them, module by module in `FAMILIES`'
order and each module's in its own, for the Linter, `--list-rules`, the config file, SARIF and the
docs' table: the one source of what a rule is. As yamllint's `rules/` and kube-linter's check
registry."""
from __future__ import annotations

from dataclasses import replace
from typing import Iterable

from kexplain.lint.findings import Finding
from kexplain.lint.rule import Rule
from kexplain.lint.rules import (admission, apply, controllers, devices, disruption_budgets, documents, karpenter_pdbs,
                                 kubelet, kueue, last_applied, node_groups, node_pools, nodepool_budgets,
                                 nodepool_consolidation, scheduling, schemas, suppression, versions, volcano)

# module by module: a rule family each, in the order --list-rules, SARIF and the docs list them
FAMILIES = (documents, schemas, apply, last_applied, admission, scheduling, kubelet, controllers, kueue, volcano, versions,
            node_groups, node_pools, devices, disruption_budgets, nodepool_budgets, nodepool_consolidation,
            karpenter_pdbs, suppression)


def _registry() -> dict[str, Rule]:
    declared = [r for family in FAMILIES for r in family.RULES]
    registry = {r.id: r for r in declared}
    assert len(registry) == len(declared), "a rule declared twice"     # (tests/lint/test_rules.py)
    return registry


RULES: dict[str, Rule] = _registry()


def family_of(rule_id: str) -> str:
    """The module that declares the rule (`schemas`, `scheduling`, ...)."""
    return next(f.__name__.rpartition(".")[2] for f in FAMILIES if any(r.id == rule_id for r in f.RULES))


def with_severity(findings: Iterable[Finding]) -> list[Finding]:
    """The findings, each that says no severity of its own given its rule's (as declared): every
    report passes through here (`choice.choose`) before a renderer or the exit code reads it."""
    return [f if f.severity is not None else replace(f, severity=RULES[f.rule].severity) for f in findings]
