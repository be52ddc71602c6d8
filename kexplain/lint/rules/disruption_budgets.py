"""The rule `pdb-blocks-drain`: a PodDisruptionBudget that can never allow a disruption of the
workloads it selects, which blocks every drain (`kexplain.lint.disruption_budgets`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from kexplain.lint.disruption_budgets import RULE, check_budgets
from kexplain.lint.documents import Document
from kexplain.lint.findings import Finding, ObjectRef
from kexplain.lint.rule import SCHEMAS, Severity, declare

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.state.cluster import ClusterState

RULES = (
    declare(RULE, Severity.WARNING, SCHEMAS,
            "A PodDisruptionBudget can never allow a disruption of a workload's pods (maxUnavailable 0, "
            "minAvailable equal to its replicas, neither field, or pods two budgets select): the Eviction API "
            "refuses every eviction, so `kubectl drain` of a node holding one never finishes.",
            "the Eviction API (pkg/registry/core/pod/storage/eviction.go) and the disruption "
            "controller's allowed disruptions; kubectl drain"),
)


def budget_findings(items: list[Document], pool: "ClusterState | None") -> dict[str, list[Finding]]:
    """Budgets that block drains, of the set and the pool; by file."""
    out: dict[str, list[Finding]] = {}
    for p in check_budgets(items, pool):
        out.setdefault(p.location.path, []).append(Finding(p.rule, p.location, ObjectRef.of(p.obj), p.message,
                                                           field=p.field))
    return out
