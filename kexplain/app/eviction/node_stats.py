"""What `kexplain snapshot --node-stats NODE` / `--node-stats-pressured` keeps for eviction: the
chosen nodes' stats Summary and configz through the API server's node proxy (two GETs a node,
never every node's: `nodes/proxy` is a powerful permission and 5,000 nodes would be 10,000
requests), and each such node's pods as `kubectl drain` lists them (finished ones too, which the
Summary may still name). A refused or failed read is a note; the rest of the snapshot stands."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from kexplain.eviction.kubelet.thresholds import DISK_PRESSURE, MEMORY_PRESSURE, PID_PRESSURE
from kexplain.load.live import ClusterReader, LiveError
from kexplain.load.node_stats import FIELDS, node_stats_record

PRESSURE_CONDITIONS = (MEMORY_PRESSURE, DISK_PRESSURE, PID_PRESSURE)
INSTEAD = {"stats/summary": "--stats FILE", "configz": "--kubelet-config FILE"}

Obj = dict[str, Any]


@dataclass(frozen=True)
class NodeStatsRead:
    """The records to append to the snapshot, the finished pods of those nodes the scheduler's
    list left out, and a note per read that failed."""

    records: tuple[Obj, ...] = ()
    pods: tuple[Obj, ...] = ()
    notes: tuple[str, ...] = ()


def pressured(nodes: Iterable[Obj]) -> list[str]:
    """The nodes whose status reports MemoryPressure, DiskPressure or PIDPressure True."""
    out = []
    for node in nodes:
        conditions = (node.get("status") or {}).get("conditions") or ()
        if any(isinstance(c, dict) and c.get("type") in PRESSURE_CONDITIONS and c.get("status") == "True"
               for c in conditions):
            out.append(str((node.get("metadata") or {}).get("name") or ""))
    return out


def chosen(cluster: Sequence[Obj], named: Sequence[str], under_pressure: bool) -> tuple[list[str], list[str]]:
    """The nodes to read (named first, then those under pressure, once each), and the named ones
    the cluster does not hold."""
    nodes = [o for o in cluster if o.get("kind") == "Node"]
    known = {str((n.get("metadata") or {}).get("name")) for n in nodes}
    picked = [n for n in named if n in known] + (pressured(nodes) if under_pressure else [])
    return list(dict.fromkeys(picked)), [n for n in named if n not in known]


def read_node_stats(reader: ClusterReader, cluster: Sequence[Obj], named: Sequence[str],
                    under_pressure: bool) -> NodeStatsRead:
    """Each chosen node's Summary and configz, and its finished pods (see the module's docstring)."""
    nodes, unknown = chosen(cluster, named, under_pressure)
    notes = [f"node {n} is not in the cluster: no stats kept for it" for n in unknown]
    held = {((p.get("metadata") or {}).get("namespace"), (p.get("metadata") or {}).get("name"))
            for p in cluster if p.get("kind") == "Pod"}
    records: list[Obj] = []
    pods: list[Obj] = []
    for node in nodes:
        read: dict[str, Any] = {}
        for path in FIELDS:
            try:
                read[path] = reader.node_proxy(node, path, INSTEAD[path])
            except LiveError as err:
                notes.append(f"node {node}'s {path} not kept: {err.message}")
        if read:
            records.append(node_stats_record(node, read))
        try:
            pods += [p for p in reader.pods_on(node)
                     if ((p.get("metadata") or {}).get("namespace"), (p.get("metadata") or {}).get("name")) not in held]
        except LiveError as err:
            notes.append(f"node {node}'s finished pods not kept: {err.message}")
    return NodeStatsRead(tuple(records), tuple(pods), tuple(notes))
