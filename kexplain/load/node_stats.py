"""A node's kubelet documents recorded in a snapshot (`kexplain snapshot --node-stats`): its stats
Summary and its /configz answer, as one List item per node, so that `kexplain evict pressure NODE
--nodes SNAPSHOT` (and a pod the kubelet evicted there) reads them back as live mode reads them
through the node proxy. Like the server's version, not an object of the cluster: nothing that
schedules reads this kind."""
from __future__ import annotations

from typing import Any, Iterable, Optional

from kexplain.errors import KexplainError, Source

NODE_STATS_API_VERSION, NODE_STATS_KIND = "kexplain/v1", "NodeStats"
# the record's fields, keyed by the path under the node proxy they were read from
FIELDS = {"stats/summary": "summary", "configz": "configz"}

Obj = dict[str, Any]


def node_stats_record(node: str, read: dict[str, Any]) -> Obj:
    """The List item keeping what was read of `node` (path under the node proxy -> its answer)."""
    record: Obj = {"apiVersion": NODE_STATS_API_VERSION, "kind": NODE_STATS_KIND, "metadata": {"name": node}}
    record.update({FIELDS[path]: doc for path, doc in read.items()})
    return record


def recorded_node_stats(objects: Iterable[tuple[Obj, Source]], node: str) -> dict[str, tuple[Any, Source]]:
    """What a snapshot among `objects` kept of `node` (path under the node proxy -> (its answer,
    where)); nothing when none did. Two records of one node are refused: which to read is the
    user's choice (one file, or --stats)."""
    found: dict[str, tuple[Any, Source]] = {}
    seen: Optional[Source] = None
    for obj, src in objects:
        if obj.get("kind") != NODE_STATS_KIND or obj.get("apiVersion") != NODE_STATS_API_VERSION:
            continue
        if ((obj.get("metadata") or {}).get("name")) != node:
            continue
        if seen is not None:
            raise KexplainError(f"{seen} and {src} both record node {node}'s stats: give one, or --stats FILE")
        seen = src
        for path, field in FIELDS.items():
            if obj.get(field) is not None:
                found[path] = (obj[field], Source(f"{src} ({NODE_STATS_KIND} {node} {field})"))
    return found


def recorded_nodes(objects: Iterable[tuple[Obj, Source]]) -> list[str]:
    """The nodes whose stats a snapshot among `objects` kept, in its order."""
    return [str((o.get("metadata") or {}).get("name") or "") for o, _ in objects
            if o.get("kind") == NODE_STATS_KIND and o.get("apiVersion") == NODE_STATS_API_VERSION]


def node_of_pod(objects: Iterable[tuple[Obj, Source]], uid: Optional[str]) -> Optional[str]:
    """For a pod that names no node (a snapshot's pod is written unbound): the node whose kept
    Summary names its uid, else the one node the snapshot kept stats of; None otherwise."""
    kept = [(o, s) for o, s in objects if o.get("kind") == NODE_STATS_KIND
            and o.get("apiVersion") == NODE_STATS_API_VERSION]
    for obj, _ in kept:
        pods = (obj.get("summary") or {}).get("pods") if isinstance(obj.get("summary"), dict) else None
        if uid and any(isinstance(p, dict) and (p.get("podRef") or {}).get("uid") == uid for p in pods or ()):
            return str((obj.get("metadata") or {}).get("name") or "") or None
    names = recorded_nodes(kept)
    return names[0] if len(names) == 1 else None
