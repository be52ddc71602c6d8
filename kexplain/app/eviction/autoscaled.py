"""What the Cluster Autoscaler would add for the evicted pods' replacements left pending (issue 71,
"where the evicted pods go"): the app layer's own autoscaler pass (`app.autoscalers`, as `kexplain
POD --nodes` runs it: the pending pass gathered from the replacements' batch, then CA's one loop),
over the cluster as the evictions leave it (the node(s) changed, the evicted pods gone). CA runs when
the cluster reports its node groups (its status ConfigMap, Cluster API's objects), found as `kexplain
pod --nodes` finds them; without them nothing is said. Never prints."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Optional, Sequence

from kexplain.app.autoscalers import MAY_REPORT, adapter, kinds_of
from kexplain.app.eviction import EvictRequest
from kexplain.eviction.tainteviction import pod_key
from kexplain.explain.pending_pass import PassBuilder
from kexplain.model.pod import PodInfo
from kexplain.state.cluster import ClusterState

KEY = "autoscaler"      # the document's key: CA's document, as `kexplain pod -o json` has it


def cluster_left(state: ClusterState, nodes: Mapping[str, Mapping[str, Any]], gone: Sequence[PodInfo]) -> list:
    """The cluster's objects as read, as the evictions leave them: each node of `nodes` as changed,
    the `gone` pods deleted (what CA's loop admits, once)."""
    keys = {(p.namespace, p.name) for p in gone}
    read = state.read if state.read is not None else [*state.objects, *state.other_kinds]
    out = []
    for obj, src in read:
        kind = obj.get("kind")
        if kind == "Pod" and keys and pod_key(obj) in keys:
            continue
        if kind == "Node" and str((obj.get("metadata") or {}).get("name")) in nodes:
            obj = dict(nodes[str((obj.get("metadata") or {}).get("name"))])
        out.append((obj, src))
    return out


def autoscaled(req: EvictRequest, left: ClusterState, nodes: Mapping[str, Mapping[str, Any]],
               gone: Sequence[PodInfo], gathered: PassBuilder) -> Optional[dict[str, Any]]:
    """CA's answer for the replacements `gathered` left pending (its document, with each pending
    replacement's answers under `pods`), or None: none is pending, or the cluster reports no node
    groups."""
    pp = gathered.build()
    if not pp.pending:
        return None
    if not kinds_of(left.read if left.read is not None else [*left.objects, *left.other_kinds]) & MAY_REPORT:
        return None
    read = cluster_left(left, nodes, gone)
    ca = adapter("cluster-autoscaler")
    said: list[str] = []
    groups = ca.groups_request(None, None, req.max_bytes, req.validate, read, said.append,
                               state=replace(left, read=read))
    if groups is None:
        return None
    run = groups.run(pp, req.kube)
    return {**run.document, "replacements": {p.key: run.pod(p.key) for p in pp.pending},
            **({"notes": said} if said else {})}
