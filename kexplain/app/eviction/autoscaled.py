"""What the Cluster Autoscaler or Karpenter would add for the evicted pods' replacements left pending
(issue 71, "where the evicted pods go"): the app layer's own autoscaler pass (`app.autoscalers`, as
`kexplain POD --nodes` runs it: the pending pass gathered from the replacements' batch, then each
autoscaler's one pass), over the cluster as the evictions leave it (the node(s) changed, the evicted
pods gone). CA runs when the cluster reports its node groups (its status ConfigMap, Cluster API's
objects), Karpenter when it holds NodePools, found as `kexplain pod --nodes` finds them; without
either nothing is said. Never prints."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Optional, Sequence

from kexplain.app.autoscalers import MAY_REPORT, NODEPOOL, adapter, kinds_of, node_pools, run_all
from kexplain.app.eviction.request import EvictRequest, LiveCluster
from kexplain.autoscaler.cloudprovider.live import STATUS_PATH, read_group_objects
from kexplain.errors import Source
from kexplain.load.live import ClusterReader
from kexplain.eviction.tainteviction import pod_key
from kexplain.explain.pending_pass import PassBuilder
from kexplain.model.pod import PodInfo
from kexplain.state.cluster import ClusterState

KEY = "autoscalers"     # the document's key: each autoscaler's document by its key, as `kexplain pod -o json` has them


def live_reads(reader: ClusterReader) -> LiveCluster:
    """What tells, live, where evicted pods' replacements go on new nodes, read as `kexplain pod`
    reads it: Karpenter's NodePools, NodeClaims and EC2NodeClasses (`ClusterReader.read_karpenter`)
    and what reports CA's node groups (its status ConfigMap, Cluster API's objects:
    `read_group_objects`); a read RBAC refuses (403) is kept with its words, not raised."""
    server = reader.conn.server
    karpenter_objects, karpenter = reader.read_karpenter()
    groups = read_group_objects(reader)
    objects = [*karpenter_objects, *((o, Source(f"{server}{STATUS_PATH}" if o.get("kind") == "ConfigMap" else server))
                                     for o in groups.objects)]
    return LiveCluster(objects, refused=karpenter.refusals, notes=(*karpenter.notes, *groups.unread))


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
    """The autoscalers' answer for the replacements `gathered` left pending: each autoscaler's
    document under its key (`autoscaler`: CA's, `karpenter`: Karpenter's), with `replacements`:
    each pending replacement's answers; None: none is pending, or the cluster reports no node groups
    and holds no NodePool."""
    pp = gathered.build()
    if not pp.pending:
        return None
    kinds = kinds_of(left.read if left.read is not None else [*left.objects, *left.other_kinds])
    if not kinds & {*MAY_REPORT, NODEPOOL}:
        return None
    read = cluster_left(left, nodes, gone)
    state = replace(left, read=read)
    said: list[str] = []
    found = [adapter("cluster-autoscaler").groups_request(None, None, req.max_bytes, req.validate, read, said.append,
                                                          state=state) if kinds & MAY_REPORT else None,
             node_pools(read, None, None, max_bytes=req.max_bytes, validate=req.validate, state=state)]
    autoscalers = [a for a in found if a is not None]
    run = run_all(autoscalers, pp, req.kube)
    if run is None:
        return None
    return {**run.documents, "replacements": {p.key: run.pod(p.key) for p in pp.pending},
            **({"notes": said} if said else {})}
