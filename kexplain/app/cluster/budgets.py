"""Section "budgets": the PodDisruptionBudgets that allow no disruption now, each with its status
(given, or the disruption controller's, as `kexplain evict drain` writes it:
`app.eviction.drain_budgets`) and what it blocks: every voluntary eviction of the pods it selects
(a drain's, Karpenter's, the Cluster Autoscaler's scale-down), on the nodes they run on."""
from __future__ import annotations

from typing import Any

from kexplain.app.cluster.inputs import ClusterInputs
from kexplain.app.eviction.drain_budgets import budget_json, budgets_of
from kexplain.app.eviction.drain import drain_index

NAME = "budgets"
TITLE = "Budgets that block everything"


def section(inputs: ClusterInputs) -> dict:
    """Each budget allowing no disruption, by namespace/name, with the pods it selects and their nodes."""
    index = drain_index(inputs.state)         # (as `kexplain evict drain` splits the objects)
    rows = []
    for _, (budget, source) in budgets_of(index, {}, inputs.state.budgets):
        if budget.disruptions_allowed > 0 or inputs.request.namespace not in (None, budget.namespace):
            continue
        selected = index.pods_in(budget.namespace).selected(budget.selector) if budget.selector is not None else []
        nodes = sorted({p.node_name for p in selected if p.node_name})
        row: dict[str, Any] = {**budget_json(budget, source), "pods": len(selected), "nodes": nodes,
                               "blocks": blocks(len(selected), nodes)}
        rows.append(row)
    return {"name": NAME, "title": TITLE, "held": len(rows), "budgets": len(index.pdbs), "rows": rows}


def blocks(pods: int, nodes: list[str]) -> str:
    """What a budget allowing no disruption blocks, in one line."""
    if not pods:
        return "selects no pod: it blocks nothing now, and refuses the first pod it selects"
    where = f" on {len(nodes)} node{'s' if len(nodes) != 1 else ''}" if nodes else ""
    return (f"every eviction of its {pods} pod{'s' if pods != 1 else ''}{where} (kubectl drain, Karpenter's "
            "disruption, the Cluster Autoscaler's scale-down) is refused with 429")
