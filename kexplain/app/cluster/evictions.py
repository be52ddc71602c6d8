"""Section "evictions": the evictions coming, over the cluster state read once. Under node
pressure: each node whose stats Summary the inputs hold (a snapshot's `NodeStats` record, or
`--node-stats NODE=FILE`) run through the kubelet's eviction manager as `kexplain evict pressure
NODE` runs it (`app.eviction.pressure.document_of`): a node under memory, disk or PID pressure is a
row, with the pod the kubelet evicts now and the ranking behind it. Under NoExecute taints: each
node a NoExecute taint is on, through the taint eviction controller as `kexplain evict taints NODE`
(`app.eviction.taints.document_of`): a node where it deletes a pod (now, or after its
tolerationSeconds) is a row. A node reporting pressure without stats is said not checked, never "no
pressure"; when no node reports pressure (MemoryPressure, DiskPressure, PIDPressure True), that is said.
Live, the nodes reporting pressure are read through the node proxy as `kexplain snapshot
--node-stats-pressured` reads them (`cli.cluster.live_report`); a refused proxy is said in one line."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from kexplain.app.cluster.access import proxy_refused
from kexplain.app.cluster.inputs import ClusterInputs
from kexplain.app.eviction import pressure, taints
from kexplain.app.eviction.node_stats import pressured
from kexplain.errors import KexplainError
from kexplain.eviction.tainteviction.taint_eviction import KEEP
from kexplain.load.node_stats import NODE_STATS_API_VERSION, NODE_STATS_KIND, recorded_nodes
from kexplain.model.taints import NO_EXECUTE

NAME = "evictions"
TITLE = "Evictions coming"
NO_STATS = ("no node's stats Summary among the inputs (`kexplain snapshot --node-stats`, or --node-stats "
            "NODE=FILE): the kubelet's evictions under pressure are not foreseen")


def section(inputs: ClusterInputs) -> dict:
    """The nodes under pressure and those a NoExecute taint empties, each with its single-object
    command's document; the soonest eviction first, then the most pods (pressure's among equals)."""
    stats = nodes_with_stats(inputs)
    rows = [row for node, path in stats.items() for row in pressure_row(inputs, node, path)]
    tainted = noexecute_nodes(inputs)
    rows += [row for node in tainted for row in taints_row(inputs, node)]
    now = inputs.request.now.isoformat().replace("+00:00", "Z")
    rows.sort(key=lambda r: (_first(r, now), -len(r["evicts"]), r["family"] != "pressure", r["node"]))
    out: dict[str, Any] = {"name": NAME, "title": TITLE, "held": sum(len(r["evicts"]) for r in rows),
                           "pressureChecked": len(stats), "taintsChecked": len(tainted), "rows": rows}
    reported = reported_pressure(inputs)
    out["pressureReported"] = len(reported)     # (none: nothing to check, said so; never "not checked")
    unread = [n for n in reported if n not in stats]
    refused = proxy_refused(inputs.refused)     # (live: a refused node proxy)
    if not stats and (unread or refused):
        out["pressureSkipped"] = refused or NO_STATS
    if unread:
        out["pressureUnread"] = unread      # (their conditions say pressure; no stats: not explained)
    return out


def _first(row: Mapping[str, Any], now: str) -> str:
    """When the row's first pod goes: now under pressure or a taint not tolerated, else its evictAt."""
    return min((w.get("at") or now for w in row.get("when") or ()), default=now)


def nodes_with_stats(inputs: ClusterInputs) -> dict[str, str]:
    """The nodes whose stats Summary is given, in the cluster's order: by --node-stats NODE=FILE (its
    file) or a snapshot's record ("": read from it, as `kexplain evict pressure NODE --nodes` reads it)."""
    given = dict(inputs.request.node_stats)
    known = {ni.name for ni in inputs.state.snapshot.node_infos}
    for node, path in given.items():
        if node not in known:
            raise KexplainError(f"--node-stats {node}={path}: node {node} is not in the cluster")
    recorded = set(recorded_nodes(_summaries(inputs))) if _has_records(inputs) else set()
    return {ni.name: given.get(ni.name, "") for ni in inputs.state.snapshot.node_infos
            if ni.name in given or ni.name in recorded}


def _summaries(inputs: ClusterInputs) -> list:
    """The records that kept a Summary: one whose node did not answer it (configz only) is not explained."""
    return [(o, src) for o, src in inputs.state.other_kinds if isinstance(o.get("summary"), Mapping)]


def _has_records(inputs: ClusterInputs) -> bool:
    return any(o.get("kind") == NODE_STATS_KIND and o.get("apiVersion") == NODE_STATS_API_VERSION
               for o, _ in inputs.state.other_kinds)


def pressure_row(inputs: ClusterInputs, node: str, path: str) -> list[dict]:
    """The node's row when the kubelet reports a pressure condition or evicts a pod (`evict pressure`'s
    document under `pressure`), else none."""
    req = inputs.request
    options = {"stats": path or None, "kubelet_config": req.kubelet_config, "filesystems": None,
               "earlier_stats": None, "earlier_at": None, "admit": None}
    doc = pressure.document_of(inputs.state, replace(req.evict_request(node), options=options))
    evicted = [e["pod"] for e in doc.get("evicted") or ()]
    if not doc.get("nodeConditions") and not evicted:
        return []
    return [{"family": "pressure", "node": node, "conditions": list(doc.get("nodeConditions") or ()),
             "evicts": evicted, "pressure": doc}]


def noexecute_nodes(inputs: ClusterInputs) -> list[str]:
    """The nodes a NoExecute taint is on, in the cluster's order."""
    return [ni.name for ni in inputs.state.snapshot.node_infos
            if any(isinstance(t, Mapping) and t.get("effect") == NO_EXECUTE
                   for t in (ni.node.obj.get("spec") or {}).get("taints") or ())]


def taints_row(inputs: ClusterInputs, node: str) -> list[dict]:
    """The node's row when the taint eviction controller deletes a pod of it (`evict taints`'s
    document under `taints`, each pod with when: now, or at `evictAt`), else none."""
    doc = taints.document_of(inputs.state, replace(inputs.request.evict_request(node), options={"taints": ()}))
    if not taints.evicts(doc):
        return []
    at = {m["pod"]: m.get("evictAt") for m in doc.get("matches") or ()}
    evicts = [{"pod": p["pod"], "decision": p["decision"],
               **{k: p[k] for k in ("afterSeconds",) if k in p}, **({"at": at[p["pod"]]} if at.get(p["pod"]) else {})}
              for p in doc.get("pods") or () if p.get("decision") != KEEP]
    evicts.sort(key=lambda e: (e.get("at") or "", e["pod"]))
    return [{"family": "taints", "node": node, "evicts": [e["pod"] for e in evicts], "when": evicts, "taints": doc}]


def reported_pressure(inputs: ClusterInputs) -> list[str]:
    """The nodes whose status reports MemoryPressure, DiskPressure or PIDPressure True."""
    return pressured(ni.node.obj for ni in inputs.state.snapshot.node_infos)
