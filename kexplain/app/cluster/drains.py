"""Section "drains": every cordoned node (with `--drain-check`, every node) whose `kubectl drain`
would not finish, each with `kexplain evict drain NODE`'s document (`app.eviction.drain.document_of`,
over the one cluster state): the pods kubectl refuses and why, the evictions the budgets refuse
(429) with their numbers, the fixes checked by draining again. A drain that goes is counted, not listed."""
from __future__ import annotations

from typing import Any

from kexplain.app.cluster.inputs import ClusterInputs
from kexplain.app.eviction.drain import document_of, drain_index, shared_cordoned

NAME = "drains"
TITLE = "Drains that would block"


def nodes_to_drain(inputs: ClusterInputs) -> list[str]:
    """The cordoned nodes (spec.unschedulable), or with --drain-check every node, in the cluster's order."""
    every = inputs.request.drain_check
    return [ni.name for ni in inputs.state.snapshot.node_infos
            if every or (ni.node.obj.get("spec") or {}).get("unschedulable")]


def section(inputs: ClusterInputs) -> dict:
    """One row per blocked drain: the node and its drain's document."""
    names = nodes_to_drain(inputs)
    rows: list[dict[str, Any]] = []
    index = drain_index(inputs.state) if names else None     # (split once for every drain)
    cordoned = shared_cordoned(inputs.state) if names else None   # (the nodes cordoned already: one cluster)
    for name in names:
        doc = document_of(inputs.state, inputs.request.evict_request(name), index=index, cordoned_already=cordoned)
        if doc.get("blocked"):
            rows.append({"node": name, "drain": doc})
    scope = "every node" if inputs.request.drain_check else "the cordoned nodes"
    return {"name": NAME, "title": TITLE, "held": len(rows), "checked": len(names), "scope": scope, "rows": rows}
