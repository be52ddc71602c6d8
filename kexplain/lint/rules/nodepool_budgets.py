"""The rules `nodepool-budget-blocks-disruption`: a Karpenter NodePool of the set whose disruption
budgets never allow a disruption for a reason. A budget of `nodes: "0"` (or `"0%"`) without a
`schedule` is active at every moment (Budget.IsActive: no schedule, always) and allows 0 nodes, and
the most restrictive active budget wins (GetAllowedDisruptionsByReason): for each reason it applies
to (its `reasons`; none: all of them), Karpenter disrupts none of the NodePool's nodes, ever. So does
one whose schedule's windows each reach the next firing (`0 0 * * *` for 24h); any other scheduled
budget blocks only inside its window: not this rule. A reason Karpenter would not act on anyway is
not said (Underutilized under `consolidationPolicy: WhenEmpty`; Empty and Underutilized with
`consolidateAfter: Never`, or of a static NodePool, `spec.replicas`).
And `nodepool-budget-invalid-schedule`: a budget whose schedule robfig/cron's ParseStandard refuses
(`monday-friday`): IsActive fails, and MustGetAllowedDisruptions allows 0 for every reason of the
NodePool, whatever the budget's `reasons` (Karpenter logs it, nothing more)."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Mapping, Sequence

from kexplain.karpenter.apis.nodepool import Budget
from kexplain.karpenter.disruption.budgets import LOG, REASONS, allowed_of, window
from kexplain.karpenter.utils.cron import corrected
from kexplain.lint.documents import Document
from kexplain.lint.findings import Finding, ObjectRef
from kexplain.lint.rule import SCHEMAS, Severity, declare
from kexplain.lint.rules.nodepool_consolidation import at_field, consolidation_of, node_pools_of

RULE = "nodepool-budget-blocks-disruption"
INVALID = "nodepool-budget-invalid-schedule"
RULES = (
    declare(RULE, Severity.WARNING, SCHEMAS,
            "A Karpenter NodePool's disruption budget of nodes \"0\" (or \"0%\") without a schedule applies to a "
            "reason (none given: Empty, Drifted and Underutilized): Karpenter never disrupts one of its nodes for it.",
            "Karpenter: the NodePool's budgets (pkg/apis/v1/nodepool.go GetAllowedDisruptionsByReason, "
            "Budget.IsActive) as its disruption controller reads them (BuildDisruptionBudgetMapping; the "
            "DisruptionBlocked event)"),
    declare(INVALID, Severity.ERROR, SCHEMAS,
            "A Karpenter NodePool's disruption budget has a schedule Karpenter's cron parser refuses: Karpenter "
            "then disrupts no node of the NodePool for any reason.",
            "Karpenter: Budget.IsActive (pkg/apis/v1/nodepool.go) parses the schedule with robfig/cron's "
            "ParseStandard; its error fails every reason closed (MustGetAllowedDisruptions) and is logged "
            "(Controller.logInvalidBudgets)"),
)
EPOCH = datetime(2026, 1, 1, tzinfo=timezone.utc)   # (a parse error does not depend on the time; a window's
#                                                     end does not either for one that never ends)
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


def _budget(budget: Mapping[str, Any]) -> Budget:
    """The budget as Karpenter's model holds it (the values as written, as strings)."""
    reasons = budget.get("reasons")
    return Budget(str(budget.get("nodes")), *(None if budget.get(k) is None else str(budget[k])
                                              for k in ("schedule", "duration")),
                  tuple(str(r) for r in reasons) if isinstance(reasons, list) else None)


def _budgets(spec: Mapping[str, Any]) -> list[tuple[int, Mapping[str, Any]]]:
    disruption = spec.get("disruption") if isinstance(spec.get("disruption"), Mapping) else {}
    budgets = disruption.get("budgets")
    return [(i, b) for i, b in enumerate(budgets if isinstance(budgets, list) else ()) if isinstance(b, Mapping)]


def _always(budget: Mapping[str, Any]) -> bool:
    """Active at every moment: no schedule, or windows that each reach the next firing."""
    if budget.get("schedule") is None:
        return True
    return window(_budget(budget), EPOCH)[0] == "always"


def blocked_forever(spec: Mapping[str, Any]) -> dict[str, int]:
    """The reasons no budget-free moment ever comes for: reason -> the index of the first budget
    that blocks it (`nodes` 0, always active, applying to the reason)."""
    out: dict[str, int] = {}
    for i, budget in _budgets(spec):
        if not _zero(budget.get("nodes")) or not _always(budget):
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
        which = " and ".join(f'budgets[{i}] (nodes "{_nodes(spec, i)}", {_when(spec, i)})' for i in budgets)
        message = (f"{which} {'are' if len(budgets) > 1 else 'is'} always active: Karpenter disrupts no node of "
                   f"this NodePool for {', '.join(reasons)}, ever ({'; '.join(BLOCKS[r] for r in reasons)}); "
                   f"its event: {EVENT.format(reasons[0])}")
        out.append(Finding(RULE, at_field(doc, field), ObjectRef.of(doc.obj), message, field=field,
                           details={"reasons": reasons, "budgets": budgets}))
    return out


def _nodes(spec: Mapping[str, Any], i: int) -> str:
    return str(spec["disruption"]["budgets"][i].get("nodes"))


def _when(spec: Mapping[str, Any], i: int) -> str:
    b = spec["disruption"]["budgets"][i]
    if b.get("schedule") is None:
        return "no schedule"
    return f"'{b['schedule']}' for {b.get('duration')}: each window reaches the next firing"


def invalid_findings(items: Sequence[Document]) -> list[Finding]:
    """Each budget of the set whose schedule Karpenter cannot parse: its error in Karpenter's words,
    what it blocks (every reason Karpenter would act on), the log line, the schedule corrected."""
    out = []
    for doc, spec in node_pools_of(items):
        for i, budget in _budgets(spec):
            err = allowed_of(_budget(budget), EPOCH, 0)[2] if budget.get("schedule") is not None else ""
            if "invalid cron" not in err:
                continue
            reasons = _acted_on(spec)
            name = str((doc.obj.get("metadata") or {}).get("name") or "")
            field = f"spec.disruption.budgets[{i}].schedule"
            message = (f"Karpenter cannot parse \"{budget['schedule']}\": {err}; it fails closed: no node of this "
                       f"NodePool is disrupted for any reason ({', '.join(reasons)}) while this budget stands, whatever "
                       f"its reasons and the other budgets allow ({'; '.join(BLOCKS[r] for r in reasons)}); its log: "
                       f"{LOG}: invalid disruption budgets in nodepool {name}, {err}")
            fix = corrected(str(budget["schedule"]))
            out.append(Finding(INVALID, at_field(doc, field), ObjectRef.of(doc.obj), message, field=field,
                               details={"budget": i, "error": err, "reasons": list(reasons),
                                        **({"schedule": fix} if fix else {})},
                               suggestions=(f'schedule: "{fix}" (as robfig/cron reads it)',) if fix else ()))
    return out
