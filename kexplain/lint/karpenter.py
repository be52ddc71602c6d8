"""Karpenter's lint rules over the set's NodePools and PodDisruptionBudgets, by file and in
document order: `rules.nodepool_budgets`, `rules.nodepool_consolidation`, `rules.karpenter_pdbs`
(Karpenter's provisioning, `no-nodepool`, runs with the set's scheduling: `rules.node_pools`)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from kexplain.lint.documents import Document
from kexplain.lint.findings import Finding
from kexplain.lint.rules.karpenter_pdbs import karpenter_budget_findings
from kexplain.lint.rules.nodepool_budgets import budget_findings, invalid_findings
from kexplain.lint.rules.nodepool_consolidation import consolidation_findings

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.state.cluster import ClusterState


def karpenter_findings(items: Sequence[Document], pool: "ClusterState | None") -> dict[str, list[Finding]]:
    """The findings of Karpenter's disruption rules, by file, each file's in document order."""
    found = [*budget_findings(items), *invalid_findings(items), *consolidation_findings(items), *karpenter_budget_findings(items, pool)]
    out: dict[str, list[Finding]] = {}
    for f in sorted(found, key=lambda f: (f.location.doc, f.location.item or 0)):
        out.setdefault(f.location.path, []).append(f)
    return out
