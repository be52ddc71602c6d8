"""The signals the kubelet observes in its stats Summary (`makeSignalObservations`,
`makeMemoryAvailableSignalObservation`): available and capacity per signal, with the sample's time,
and the pods' own stats by UID (`cachedStatsFunc`). The Summary is read as
`/api/v1/nodes/NODE/proxy/stats/summary` writes it (stats.k8s.io/v1alpha1)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Mapping, Optional

from kexplain.apimachinery.quantity import BINARY_SI, DECIMAL_SI, Quantity, new_quantity
from kexplain.eviction.kubelet import thresholds as th

SYSTEM_CONTAINER_PODS = "pods"


class StatsError(ValueError):
    """A Summary the kubelet could not have written; `field` is where."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Observation:
    """signalObservation: what is available, out of what capacity, sampled when."""

    available: Quantity
    capacity: Quantity
    time: Optional[datetime]

    def describe(self) -> dict:
        return {"available": str(self.available), "capacity": str(self.capacity)}


def parse_time(raw: Any, field: str) -> Optional[datetime]:
    """A metav1.Time (RFC 3339), None when absent (Go's zero time)."""
    if raw in (None, ""):
        return None
    if not isinstance(raw, str):
        raise StatsError("not an RFC 3339 time", field)
    try:
        return datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise StatsError(f"{raw!r}: not an RFC 3339 time", field) from None


def number(section: Any, key: str, field: str) -> Optional[int]:
    """An unsigned counter of the Summary (uint64), None when absent."""
    if not isinstance(section, Mapping):
        return None
    raw = section.get(key)
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
        raise StatsError(f"{raw!r}: not an unsigned integer", f"{field}.{key}")
    return raw


def _section(parent: Any, key: str, field: str) -> Optional[Mapping]:
    if not isinstance(parent, Mapping) or parent.get(key) is None:
        return None
    value = parent[key]
    if not isinstance(value, Mapping):
        raise StatsError("not an object", f"{field}.{key}")
    return value


def _pair(section: Optional[Mapping], field: str, available: str, capacity: str, fmt: str,
          added: bool = False) -> Optional[Observation]:
    """An observation of two counters of a section; `added`: the capacity is their sum (memory)."""
    if section is None:
        return None
    a, c = number(section, available, field), number(section, capacity, field)
    if a is None or c is None:
        return None
    return Observation(new_quantity(a, fmt), new_quantity(a + c if added else c, fmt),
                       parse_time(section.get("time"), f"{field}.time"))


def _fs(out: dict, section: Optional[Mapping], field: str, available: str, inodes: str) -> None:
    for signal, keys, fmt in ((available, ("availableBytes", "capacityBytes"), BINARY_SI),
                              (inodes, ("inodesFree", "inodes"), DECIMAL_SI)):
        seen = _pair(section, field, *keys, fmt)
        if seen is not None:
            out[signal] = seen


def _pods_memory(node: Mapping) -> Optional[Mapping]:
    containers = node.get("systemContainers") or []
    if not isinstance(containers, list):
        raise StatsError("not a list", "node.systemContainers")
    for i, c in enumerate(containers):
        if isinstance(c, Mapping) and c.get("name") == SYSTEM_CONTAINER_PODS:
            return _section(c, "memory", f"node.systemContainers[{i}]")
    return None


def _pid(node: Mapping) -> Optional[Observation]:
    rlimit = _section(node, "rlimit", "node")
    running, max_pid = number(rlimit, "curproc", "node.rlimit"), number(rlimit, "maxpid", "node.rlimit")
    if rlimit is None or running is None or max_pid is None:
        return None
    return Observation(new_quantity(max_pid - running), new_quantity(max_pid),
                       parse_time(rlimit.get("time"), "node.rlimit.time"))


def observations(summary: Mapping) -> dict[str, Observation]:
    """makeSignalObservations: every signal the Summary lets the kubelet observe."""
    node = _section(summary, "node", "")
    if node is None:
        raise StatsError("missing: the Summary has no node section", "node")
    out: dict[str, Observation] = {}
    for signal, section, field in ((th.MEMORY_AVAILABLE, _section(node, "memory", "node"), "node.memory"),
                                   (th.ALLOCATABLE_MEMORY_AVAILABLE, _pods_memory(node), "node.systemContainers")):
        seen = _pair(section, field, "availableBytes", "workingSetBytes", BINARY_SI, added=True)
        if seen is not None:
            out[signal] = seen
    _fs(out, _section(node, "fs", "node"), "node.fs", th.NODEFS_AVAILABLE, th.NODEFS_INODES_FREE)
    runtime = _section(node, "runtime", "node")
    _fs(out, _section(runtime, "imageFs", "node.runtime"), "node.runtime.imageFs", th.IMAGEFS_AVAILABLE,
        th.IMAGEFS_INODES_FREE)
    _fs(out, _section(runtime, "containerFs", "node.runtime"), "node.runtime.containerFs",
        th.CONTAINERFS_AVAILABLE, th.CONTAINERFS_INODES_FREE)
    pid = _pid(node)
    if pid is not None:
        out[th.PID_AVAILABLE] = pid
    return out


def pod_stats(summary: Mapping) -> dict[str, Mapping]:
    """cachedStatsFunc's table: each pod's stats by its UID."""
    pods = summary.get("pods") or []
    if not isinstance(pods, list):
        raise StatsError("not a list", "pods")
    out: dict[str, Mapping] = {}
    for i, p in enumerate(pods):
        ref = p.get("podRef") if isinstance(p, Mapping) else None
        if not isinstance(ref, Mapping) or not ref.get("uid"):
            raise StatsError("missing: a pod's stats name it by podRef.uid", f"pods[{i}].podRef.uid")
        out[str(ref["uid"])] = p
    return out


def summary_pod_refs(summary: Mapping) -> list[tuple[int, Mapping]]:
    """(index, podRef) of every pod the Summary names."""
    return [(i, p["podRef"]) for i, p in enumerate(summary.get("pods") or []) if isinstance(p, Mapping)]


# -- a pod's usage, as the rank functions and the message read it ----------------------------------
def working_set(stats: Optional[Mapping]) -> int:
    """memoryUsage: the working set bytes (0 when not reported)."""
    return number(stats, "workingSetBytes", "memory") or 0 if isinstance(stats, Mapping) else 0


def used_bytes(stats: Optional[Mapping]) -> int:
    """diskUsage."""
    return number(stats, "usedBytes", "fs") or 0 if isinstance(stats, Mapping) else 0


def inodes_used(stats: Optional[Mapping]) -> int:
    """inodeUsage."""
    return number(stats, "inodesUsed", "fs") or 0 if isinstance(stats, Mapping) else 0


def process_count(pod: Mapping) -> int:
    """processUsage."""
    return number(pod.get("process_stats"), "process_count", "process_stats") or 0
