"""What Karpenter's pass is asked to read (`NodePoolsRequest`), and whether a cluster set holds
NodePools at all (`has_node_pools`): asked by every explanation before it knows whether
Karpenter runs, so this module imports nothing of the pass."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Iterable

from kexplain.apimachinery import columns
from kexplain.errors import Source
from kexplain.state.cluster import ClusterState

NODEPOOL = "NodePool"

Objects = list[tuple[dict[str, Any], Source]]


def has_node_pools(objects: Iterable[tuple[dict[str, Any], Any]]) -> bool:
    """Whether the cluster set holds a NodePool (karpenter.sh): Karpenter's section is shown. A
    dump's 150,000 objects: only its NodePools looked at (`columns.of_kind`)."""
    rows = columns.rows_of(objects)
    if rows is not None:
        objects = columns.of_kind(objects, rows, NODEPOOL)      # type: ignore[arg-type]
    return any(o.get("kind") == NODEPOOL and str(o.get("apiVersion") or "").startswith("karpenter.sh/")
               for o, _ in objects)


@dataclass(frozen=True)
class NodePoolsRequest:
    """Where the EC2 world, Karpenter's settings and the cluster come from (`--aws-data`,
    `--karpenter-config`, `--nodes`), or, live, the cluster read."""

    cluster_objects: Objects
    aws_data: str | None = None          # --aws-data DIR (None: the catalog kexplain ships)
    config: str | None = None            # --karpenter-config FILE
    max_bytes: int | None = None
    validate: str = "strict"
    state: ClusterState | None = None    # the cluster admitted already, read in place of `cluster_objects`
    now: datetime | None = None          # the clock the pass runs at (kexplain cluster's --now); None: the wall clock
