"""A template node as the provider made it (`StandIn`, `node_as_made`): what the stand-ins for a
group's template (`standins`) and GCE's pool templates (`gce.pool_templates`) both build, below
both (CA's sanitized template node, simulator/node_info_utils)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kexplain.apimachinery.labels import LABEL_HOSTNAME


@dataclass(frozen=True)
class StandIn:
    """A template Node standing in for the provider's, the words saying what it stands for and
    from which node (`origin`), and a discovery note when one is due (a MIG without a node)."""

    node: dict[str, Any]
    origin: str
    note: str = ""


def node_as_made(node: Mapping[str, Any], labels: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A template Node from `node`: its labels (or `labels`) without the hostname, its taints,
    capacity and allocatable, Ready; not its cordon, conditions or pods."""
    meta = node.get("metadata") or {}
    labels = {k: v for k, v in (labels if labels is not None else meta.get("labels") or {}).items()
              if isinstance(v, str) and k != LABEL_HOSTNAME}
    status = node.get("status") or {}
    capacity = dict(status.get("capacity") or status.get("allocatable") or {})
    out: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": {"labels": labels},
                           "status": {"capacity": capacity, "allocatable": dict(status.get("allocatable") or capacity),
                                      "conditions": [{"type": "Ready", "status": "True"}]}}
    taints = [dict(t) for t in (node.get("spec") or {}).get("taints") or () if isinstance(t, dict)]
    if taints:
        out["spec"] = {"taints": taints}
    return out
