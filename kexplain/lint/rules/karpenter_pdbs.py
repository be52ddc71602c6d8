"""The rule `pdb-blocks-karpenter-disruption`: with Karpenter's NodePools in the cluster (the set or
--nodes), a PodDisruptionBudget that allows no disruption of the workloads it selects. Karpenter
makes no disruption candidate of a node holding one of their pods (NewCandidate ->
ValidatePodsDisruptable: a budget of the pod with `disruptionsAllowed` 0, "pdb prevents pod
evictions"), so it never consolidates that node, empty or underutilized; it replaces it for drift
only when its NodePool sets `terminationGracePeriod` (drift is eventual disruption: the pods are
forced out when the grace period ends). The budget allows none when its spec never can, all pods
healthy (as `pdb-blocks-drain` decides: maxUnavailable 0, minAvailable as many as the replicas), or
when its status says so now (`status.disruptionsAllowed: 0`, as Karpenter reads it), or when it
sets neither `minAvailable` nor `maxUnavailable` (the disruption controller's status then allows 0).
A workload whose pods tolerate Karpenter's `karpenter.sh/disrupted:NoSchedule` taint (an `Exists`
toleration without a key tolerates every taint) is not one it blocks: Karpenter never evicts such a
pod (IsEvictable) and skips its budget (pdb.Limits), the pass's own rule (`tolerates_disrupted`).

Both this rule and `pdb-blocks-drain` are said of a budget whose spec never allows a disruption:
each names what it blocks (Karpenter's consolidation and drift here, `kubectl drain` there), so
a team can accept one (disable or suppress it) and keep the other. A budget only its status
blocks is this rule's alone. Pods two budgets select are `pdb-blocks-drain`'s."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from kexplain.karpenter.disruption.pods import tolerates_disrupted
from kexplain.lint.disruption_budgets import (Held, budgets_and_workloads, names, never_allows, pool_objects, problem,
                                              replicas, selected_by)
from kexplain.lint.documents import Document
from kexplain.lint.findings import Finding, ObjectRef
from kexplain.lint.rule import NODEPOOLS, Severity, declare
from kexplain.lint.rules.nodepool_consolidation import GROUP, NODEPOOL

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.state.cluster import ClusterState

RULE = "pdb-blocks-karpenter-disruption"
RULES = (
    declare(RULE, Severity.WARNING, NODEPOOLS,
            "With Karpenter NodePools, a PodDisruptionBudget allows no disruption of a workload's pods "
            "(maxUnavailable 0, minAvailable equal to its replicas, neither field, or status.disruptionsAllowed 0) "
            "and the pods do not tolerate karpenter.sh/disrupted: Karpenter never consolidates a node holding one, "
            "nor replaces it for drift without a terminationGracePeriod.",
            "Karpenter: NewCandidate's ValidatePodsDisruptable (pkg/controllers/state/statenode.go, "
            "pkg/utils/pdb: pdb prevents pod evictions), graceful and eventual disruption "
            "(pkg/controllers/disruption/types.go)"),
)
PREVENTS = "pdb prevents pod evictions (PodDisruptionBudget=[{}])"


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _spec_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return _map(obj.get("spec"))


def _node_pools(items: Sequence[Document], held: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [o for o in [d.obj for d in items] + list(held) if isinstance(o, Mapping) and o.get("kind") == NODEPOOL
            and str(o.get("apiVersion") or "").startswith(GROUP)]


def _grace(node_pools: Sequence[Mapping[str, Any]]) -> list[str]:
    """The NodePools that set a terminationGracePeriod (drift replaces their nodes regardless)."""
    out = []
    for pool in node_pools:
        template = _spec_of(_map(_spec_of(pool).get("template")))
        if template.get("terminationGracePeriod") is not None:
            out.append(str(_map(pool.get("metadata")).get("name") or ""))
    return out


def _allows_none(budget: Held, total: int) -> tuple[str, str] | None:
    """(the field, why) when the budget allows no eviction: by its spec, or its status now."""
    found = never_allows(budget, total)
    if found is not None:
        return found
    status = budget.obj.get("status")
    allowed = status.get("disruptionsAllowed") if isinstance(status, Mapping) else None
    if isinstance(allowed, int) and not isinstance(allowed, bool) and allowed <= 0:
        return "status.disruptionsAllowed", f"status.disruptionsAllowed {allowed}"
    return None


def _tolerating(workload: Held) -> bool:
    """Whether the workload's pods tolerate Karpenter's `karpenter.sh/disrupted:NoSchedule` taint (the
    pass's rule, `tolerates_disrupted`): not IsEvictable, their budget is skipped by pdb.Limits and
    their node is disrupted whatever it allows."""
    template = _spec_of(_map(_spec_of(workload.obj).get("template")))
    tolerations = template.get("tolerations")
    return isinstance(tolerations, list) and tolerates_disrupted([t for t in tolerations if isinstance(t, Mapping)])


def _blocks(grace: Sequence[str]) -> str:
    drift = ("nor replaces it when it drifts (no NodePool sets terminationGracePeriod)" if not grace else
             "and replaces it when it drifts only on a NodePool that sets terminationGracePeriod "
             f"({', '.join(grace)}: the pods forced out when it ends)")
    return f"Karpenter never consolidates a node holding one of their pods, empty or underutilized, {drift}"


def karpenter_budget_findings(items: Sequence[Document], pool: "ClusterState | None") -> list[Finding]:
    """Each budget that allows no disruption of the workloads it selects, with NodePools in the cluster."""
    held = pool_objects(pool)
    node_pools = _node_pools(items, held)
    if not node_pools:
        return []
    budgets, workloads = budgets_and_workloads(items, held)
    blocks = _blocks(_grace(node_pools))
    out = []
    for budget in budgets:
        selected = selected_by(budget, workloads)
        chosen = [w for w in selected if not _tolerating(w)]     # (the others' budgets Karpenter skips)
        found = _allows_none(budget, sum(replicas(w.obj) for w in selected)) if chosen else None
        at = budget if budget.doc is not None else next((w for w in chosen if w.doc is not None), None)
        if found is None or at is None:
            continue
        field, why = found
        key = f"{budget.namespace}/{budget.name}"
        subject = f"allows no disruption of {names(chosen)}" if at is budget \
            else f"{budget} allows no disruption of its pods"
        p = problem(at, field if at is budget else "spec.replicas",
                    f"{subject} ({why}): {blocks}; in Karpenter's words: {PREVENTS.format(key)}", RULE)
        out.append(Finding(RULE, p.location, ObjectRef.of(p.obj), p.message, field=p.field,
                           details={"podDisruptionBudget": key, "workloads": [str(w) for w in chosen]}))
    return out
