"""The lint rules' registry: every module of this package declares its rules (`RULES`, each a
`lint.rule.Rule`: id, default severity, what it needs, summary, the upstream rule it follows) and
the checks that make their findings; `RULES` here gathers them, in the rules table's order
(tables.json), for the Linter, `--list-rules`, the config file, SARIF and the docs' table. As
yamllint's `rules/` and kube-linter's check registry."""
from __future__ import annotations

from kexplain.lint.rule import Rule, table_order
from kexplain.lint.rules import (admission, apply, controllers, devices, disruption_budgets, documents, kubelet, kueue,
                                 node_groups, node_pools, scheduling, schemas, suppression, versions)

# module by module: a rule family each
FAMILIES = (documents, schemas, apply, admission, scheduling, kubelet, controllers, kueue, versions, node_groups,
            node_pools, devices, disruption_budgets, suppression)


def _registry() -> dict[str, Rule]:
    declared = {r.id: r for family in FAMILIES for r in family.RULES}
    order = table_order()
    assert sorted(declared) == sorted(order), set(declared) ^ set(order)     # (tests/lint/test_rules.py)
    return {rule_id: declared[rule_id] for rule_id in order}


RULES: dict[str, Rule] = _registry()


def family_of(rule_id: str) -> str:
    """The module that declares the rule (`schemas`, `scheduling`, ...)."""
    return next(f.__name__.rpartition(".")[2] for f in FAMILIES if any(r.id == rule_id for r in f.RULES))
