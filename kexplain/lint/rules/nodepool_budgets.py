"""The rule `nodepool-budget-blocks-disruption`: a Karpenter NodePool of the set whose disruption
budgets never allow a disruption for a reason. A budget of `nodes: "0"` (or `"0%"`) without a
`schedule` is active at every moment (Budget.IsActive: no schedule, always) and allows 0 nodes, and
the most restrictive active budget wins (GetAllowedDisruptionsByReason): for each reason it applies
to (its `reasons`; none: all of them), Karpenter disrupts none of the NodePool's nodes, ever. A
budget with a schedule blocks only inside its window: not this rule. A reason Karpenter would not
act on anyway is not said (Underutilized under `consolidationPolicy: WhenEmpty`; Empty and
Underutilized with `consolidateAfter: Never`, or of a static NodePool, `spec.replicas`)."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from kexplain.karpenter.disruption.budgets import REASONS
from kexplain.lint.documents import Document
from kexplain.lint.findings import Finding, ObjectRef
from kexplain.lint.rule import SCHEMAS, Severity, declare
from kexplain.lint.rules.nodepool_consolidation import at_field, consolidation_of, node_pools_of

RULE = "nodepool-budget-blocks-disruption"
RULES = (
    declare(RULE, Severity.WARNING, SCHEMAS,
            "A Karpenter NodePool's disruption budget of nodes \"0\" (or \"0%\") without a schedule applies to a "
            "reason (none given: Empty, Drifted and Underutilized): Karpenter never disrupts one of its nodes for it.",
            "Karpenter: the NodePool's budgets (pkg/apis/v1/nodepool.go GetAllowedDisruptionsByReason, "
            "Budget.IsActive) as its disruption controller reads them (BuildDisruptionBudgetMapping; the "
            "DisruptionBlocked event)"),
)
# what Karpenter never does for each reason (its methods: emptiness, drift, consolidation)
BLOCKS = {"Drifted": "a drifted node is never replaced, whatever changed in its NodePool, EC2NodeClass or AMI",
          "Empty": "an empty node is never removed",
          "Underutilized": "an underutilized node is never deleted or replaced by a cheaper one"}
EVENT = "No allowed disruptions for disruption reason {} due to blocking budget"


def _zero(nodes: Any) -> bool:
    """Whether `nodes` allows no node at any size: 0, or 0% (roundup(0% of n) is 0)."""
    text = str(nodes)
    number = text[:-1] if text.endswith("%") else text
    return number.isdigit() and int(number) == 0


def blocked_forever(spec: Mapping[str, Any]) -> dict[str, int]:
    """The reasons no budget-free moment ever comes for: reason -> the index of the first budget
    that blocks it (`nodes` 0 without a schedule, applying to the reason)."""
    disruption = spec.get("disruption") if isinstance(spec.get("disruption"), Mapping) else {}
    budgets = disruption.get("budgets")
    out: dict[str, int] = {}
    for i, budget in enumerate(budgets if isinstance(budgets, list) else ()):
        if not isinstance(budget, Mapping) or budget.get("schedule") is not None or not _zero(budget.get("nodes")):
            continue
        reasons = budget.get("reasons")
        for reason in (reasons if isinstance(reasons, list) else REASONS):
            if reason in REASONS:
                out.setdefault(str(reason), i)
    return out


def _acted_on(spec: Mapping[str, Any]) -> tuple[str, ...]:
    """The reasons Karpenter would disrupt this NodePool's nodes for, budgets aside (a static
    NodePool, `spec.replicas`, is never consolidated: drift only)."""
    policy, never = consolidation_of(spec)
    consolidates = not never and spec.get("replicas") is None
    return tuple(r for r in REASONS if r == "Drifted" or
                 (consolidates and (r == "Empty" or policy == "WhenEmptyOrUnderutilized")))


def budget_findings(items: Sequence[Document]) -> list[Finding]:
    """Each NodePool of the set with a reason its budgets block forever."""
    out = []
    for doc, spec in node_pools_of(items):
        blocked = {r: i for r, i in blocked_forever(spec).items() if r in _acted_on(spec)}
        if not blocked:
            continue
        reasons = [r for r in REASONS if r in blocked]
        budgets = sorted(set(blocked.values()))
        first = budgets[0]
        field = f"spec.disruption.budgets[{first}].nodes"
        which = " and ".join(f'budgets[{i}] (nodes "{_nodes(spec, i)}", no schedule)' for i in budgets)
        message = (f"{which} {'are' if len(budgets) > 1 else 'is'} always active: Karpenter disrupts no node of "
                   f"this NodePool for {', '.join(reasons)}, ever ({'; '.join(BLOCKS[r] for r in reasons)}); "
                   f"its event: {EVENT.format(reasons[0])}")
        out.append(Finding(RULE, at_field(doc, field), ObjectRef.of(doc.obj), message, field=field,
                           details={"reasons": reasons, "budgets": budgets}))
    return out


def _nodes(spec: Mapping[str, Any], i: int) -> str:
    return str(spec["disruption"]["budgets"][i].get("nodes"))
