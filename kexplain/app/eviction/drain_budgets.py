"""The PodDisruptionBudgets a drain reads, as `kexplain evict drain` and Karpenter's chain
(`app.karpenter_chain`) write them: each with its status (given, or as the disruption
controller's sync computes it), and their numbers. Apart from the drain itself so that the chain
reads them without the drain's fixes and autoscalers."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.app.eviction.drain_index import DrainIndex
from kexplain.controllers.disruption import Statuses, computed, generation, healthy_as_stored, known_status, needs_status
from kexplain.eviction.api import Budget, budget_of

__all__ = ["CONTROLLER", "GIVEN", "budget_json", "budgets_of", "numbers"]

GIVEN, CONTROLLER = "given", "disruption-controller"


def budgets_of(index: DrainIndex, known: Mapping[int, tuple[Budget, str]], statuses: Statuses
               ) -> list[tuple[int, tuple[Budget, str]]]:
    """Every PodDisruptionBudget (by its object's identity), by namespace/name, with its status: as
    given, or as the disruption controller's sync computes it from every pod and controller of its
    namespace (a failed sync: its fail-safe; `statuses`: those the cluster state computed, with the
    same rule); those in `known` as they were."""
    todo = [p for p in index.pdbs if id(p) not in known and needs_status(p) and known_status(statuses, p) is None]
    controllers = index.controllers if todo else None
    out = []
    for pdb in index.pdbs:
        found = known.get(id(pdb))
        if found is not None:
            out.append((id(pdb), found))
            continue
        gen = generation(pdb)
        if not needs_status(pdb):
            out.append((id(pdb), (budget_of(pdb, pdb["status"], gen), GIVEN)))
        else:
            namespace = (pdb.get("metadata") or {}).get("namespace") or "default"
            status = known_status(statuses, pdb) or computed(pdb, index.pods_in(namespace), controllers,
                                                             healthy_as_stored)
            written = {**status.to_status(), "observedGeneration": 0 if status.failed is not None else gen}
            out.append((id(pdb), (budget_of(pdb, written, gen), CONTROLLER)))
    return sorted(out, key=lambda pair: pair[1][0].key)


def budget_json(budget: Budget, source: str) -> dict:
    """A budget as the document writes it (the conditions' type, status, reason and message), as
    PodDisruptionBudgetStatus marshals: `conditions` and `disruptedPods` are omitempty, left out
    when empty (a status given without conditions stays without)."""
    status: dict[str, Any] = {
        "observedGeneration": budget.observed_generation, "currentHealthy": budget.current_healthy,
        "desiredHealthy": budget.desired_healthy, "expectedPods": budget.expected_pods,
        "disruptionsAllowed": budget.disruptions_allowed}
    if budget.conditions:
        status["conditions"] = [{k: c[k] for k in ("type", "status", "reason", "message") if c.get(k)}
                                for c in budget.conditions]
    if budget.disrupted_pods:
        status["disruptedPods"] = list(budget.disrupted_pods)
    return {"name": budget.key, "statusFrom": source, "status": status}


def numbers(budget: Budget | None) -> dict | None:
    """A budget's four numbers (healthy, desired, expected, allowed), for the explanation."""
    if budget is None:
        return None
    return {"name": budget.key, "currentHealthy": budget.current_healthy, "desiredHealthy": budget.desired_healthy,
            "expectedPods": budget.expected_pods, "disruptionsAllowed": budget.disruptions_allowed}
