"""A node's readiness as CA reads it (utils/kubernetes/ready.go).

Ready unless its Ready condition is False or Unknown, its DiskPressure or NetworkUnavailable
condition is True, or it carries a not-ready taint; the last transition is the latest of those
conditions' transition times and those taints' `timeAdded`. CA treats some nodes the API calls
Ready as unready (a startup taint, a GPU not yet allocatable): it lists a copy whose Ready
condition is False since the node's creation (`unready_copy`, GetUnreadyNodeCopy).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Mapping

from kexplain.apimachinery.labels import TAINT_NODE_DISK_PRESSURE, TAINT_NODE_NETWORK_UNAVAILABLE, TAINT_NODE_NOT_READY
from kexplain.explain.pod_events import parse_time

# NodeNotReadyReason values CA makes up for nodes the API calls Ready
STARTUP_NODES = "cluster-autoscaler.kubernetes.io/startup-taint"
RESOURCE_UNREADY = "cluster-autoscaler.kubernetes.io/resource-not-ready"
NOT_READY_TAINTS = frozenset({TAINT_NODE_NOT_READY, TAINT_NODE_DISK_PRESSURE, TAINT_NODE_NETWORK_UNAVAILABLE})


@dataclass(frozen=True)
class NodeReadiness:
    ready: bool
    last_transition: datetime | None      # None: Go's zero time
    reason: str = ""                      # the Ready condition's reason, when not ready


def _later(a: datetime | None, b: datetime | None) -> datetime | None:
    return b if a is None or (b is not None and b > a) else a


def node_readiness(node: Mapping[str, Any], no_condition_since: datetime | None = None) -> NodeReadiness:
    """GetNodeReadiness; a node without a Ready condition is Ready since `no_condition_since` (the input left
    out the Ready=True CA saw), and a Ready condition without a transition time changed then too."""
    ready, found, since, reason = True, False, None, ""
    for cond in (node.get("status") or {}).get("conditions") or ():
        if not isinstance(cond, dict):
            continue
        kind, status = cond.get("type"), cond.get("status")
        if kind == "Ready":
            found = True
            if status in ("False", "Unknown"):
                ready, reason = False, str(cond.get("reason") or "")
            since = _later(since, parse_time(cond.get("lastTransitionTime")) or no_condition_since)
        elif kind in ("DiskPressure", "NetworkUnavailable"):
            if status == "True":
                ready = False
            since = _later(since, parse_time(cond.get("lastTransitionTime")))
    for taint in (node.get("spec") or {}).get("taints") or ():
        if isinstance(taint, dict) and taint.get("key") in NOT_READY_TAINTS:
            ready = False
            since = _later(since, parse_time(taint.get("timeAdded")))
    if not found:
        since = _later(since, no_condition_since)
    return NodeReadiness(ready, since, reason)


def is_ready_and_schedulable(node: Mapping[str, Any]) -> bool:
    """IsNodeReadyAndSchedulable: what CA's ready-node lister keeps."""
    return node_readiness(node).ready and not (node.get("spec") or {}).get("unschedulable")


def unready_copy(node: Mapping[str, Any], reason: str) -> dict[str, Any]:
    """GetUnreadyNodeCopy: the node with its Ready condition replaced by Ready=False (`reason`)
    since its creation, listed first among its conditions."""
    status = dict(node.get("status") or {})
    meta = node.get("metadata") or {}
    cond: dict[str, Any] = {"type": "Ready", "status": "False", "reason": reason}
    if meta.get("creationTimestamp"):
        cond["lastTransitionTime"] = meta["creationTimestamp"]
    status["conditions"] = [cond, *(c for c in status.get("conditions") or ()
                                    if not (isinstance(c, dict) and c.get("type") == "Ready"))]
    return {**node, "status": status}
