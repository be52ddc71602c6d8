"""Section "karpenter": the nodes Karpenter will not remove, from ONE disruption pass
(`app.karpenter_disruption.disruption_pass`, as `kexplain karpenter --disruption` runs it) over
the cluster's one state (`state=`: its inputs read from it, never decoded again): what it will do now, every node it may not disrupt with Karpenter's own
reason (NewCandidate's), every NodePool whose budgets allow no disruption now for a reason, and
when each such budget's window closes."""
from __future__ import annotations

from typing import Any

from kexplain.app.cluster.inputs import ClusterInputs
from kexplain.app.karpenter_disruption import disruption_pass

NAME = "karpenter"
TITLE = "Nodes Karpenter will not remove"
NODE_KEYS = ("node", "nodeClaim", "nodePool", "instanceType", "pods", "blocked")


def section(inputs: ClusterInputs) -> dict:
    """The pass's answer summarised: its decision, the nodes it may not disrupt, the NodePools whose
    budgets allow nothing now (the pass's document under `disruption`, as `-o json` writes it)."""
    req = inputs.request
    _, doc = disruption_pass(None, (), None, None, req.kube, req.now, max_bytes=req.max_bytes,
                             max_objects=req.max_objects, validate=req.validate, state=inputs.state)
    rows = [{k: n[k] for k in NODE_KEYS if k in n} for n in doc.get("nodes") or () if n.get("blocked")]
    pools = [closed for b in doc.get("budgets") or () for closed in _closed(b)]
    decision = doc.get("decision") or {}
    return {"name": NAME, "title": TITLE, "held": len(rows) + len(pools), "nodes": len(doc.get("nodes") or ()),
            "decision": [c.get("text") for c in decision.get("commands") or ()],
            **({"method": decision.get("method")} if decision else {}), "rows": rows, "nodePools": pools}


def _closed(budget: dict) -> list[dict[str, Any]]:
    """A NodePool's reasons its budgets allow no disruption for now, with the budgets that say 0
    (none for a NodePool without nodes: there is nothing to keep)."""
    if not budget.get("nodes"):
        return []
    reasons = {}
    for reason, allowed in (budget.get("allowed") or {}).items():
        if allowed:
            continue
        said = ((budget.get("reasons") or {}).get(reason) or {}).get("budgets") or ()
        reasons[reason] = [b for b in said if b.get("applies") and b.get("active") and not b.get("allowed")]
    return [{"nodePool": budget.get("nodePool"), "nodes": budget["nodes"], "reasons": reasons}] if reasons else []
