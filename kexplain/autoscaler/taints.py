"""The taints CA treats specially (utils/taints): its own, the node-condition taints, and the
startup and status taints of its flags (`TaintConfig`): dropped from templates (`sanitize_taints`),
a startup-tainted node listed unready (`as_listed`), CA's own cleaned up (`cleanup_events`)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from kexplain.apimachinery.labels import (TAINT_NODE_DISK_PRESSURE, TAINT_NODE_MEMORY_PRESSURE,
                                          TAINT_NODE_NETWORK_UNAVAILABLE, TAINT_NODE_NOT_READY, TAINT_NODE_PID_PRESSURE,
                                          TAINT_NODE_UNREACHABLE, TAINT_NODE_UNSCHEDULABLE)
from kexplain.autoscaler.readiness import STARTUP_NODES, is_ready_and_schedulable, unready_copy

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.autoscaler.params import Settings

TO_BE_DELETED = "ToBeDeletedByClusterAutoscaler"
DELETION_CANDIDATE = "DeletionCandidateOfClusterAutoscaler"
IGNORE_TAINT_PREFIX = "ignore-taint.cluster-autoscaler.kubernetes.io/"
STARTUP_TAINT_PREFIX = "startup-taint.cluster-autoscaler.kubernetes.io/"
STATUS_TAINT_PREFIX = "status-taint.cluster-autoscaler.kubernetes.io/"
NODE_CONDITION_TAINTS = frozenset({
    TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE, TAINT_NODE_UNSCHEDULABLE, TAINT_NODE_MEMORY_PRESSURE,
    TAINT_NODE_DISK_PRESSURE, TAINT_NODE_NETWORK_UNAVAILABLE, TAINT_NODE_PID_PRESSURE,
    "node.cloudprovider.kubernetes.io/uninitialized", "node.cloudprovider.kubernetes.io/shutdown",
    "cloud.google.com/impending-node-termination", "NodeWithImpairedVolumes"})
CLEANUP = "ClusterAutoscalerCleanup"        # the event reason of a removed taint
_GO_INT = re.compile(r"[+-]?[0-9]+")


@dataclass(frozen=True)
class TaintConfig:
    """NewTaintConfig: which taint keys are startup and status taints."""

    startup_taints: frozenset[str] = frozenset()
    status_taints: frozenset[str] = frozenset()
    startup_prefixes: tuple[str, ...] = (IGNORE_TAINT_PREFIX, STARTUP_TAINT_PREFIX)
    status_prefixes: tuple[str, ...] = (STATUS_TAINT_PREFIX,)
    scale_from_unschedulable: bool = False

    @classmethod
    def of(cls, settings: "Settings") -> "TaintConfig":
        return cls(frozenset(settings.flag("ignore-taint")) | frozenset(settings.flag("startup-taint")),
                   frozenset(settings.flag("status-taint")),
                   (IGNORE_TAINT_PREFIX, STARTUP_TAINT_PREFIX, *settings.flag("startup-taint-prefix")),
                   (STATUS_TAINT_PREFIX,), bool(settings.flag("scale-from-unschedulable")))

    def is_startup_taint(self, key: str) -> bool:
        return key in self.startup_taints or key.startswith(self.startup_prefixes)

    def is_status_taint(self, key: str) -> bool:
        return key in self.status_taints or key.startswith(self.status_prefixes)


def sanitize_taints(taints: Iterable[Mapping[str, Any]], config: TaintConfig) -> list[dict[str, Any]]:
    """SanitizeTaints: the taints a template keeps (not CA's own, not a node condition's, not a
    startup or status taint)."""
    out = []
    for t in taints:
        key = t.get("key", "")
        if key in (TO_BE_DELETED, DELETION_CANDIDATE) or key in NODE_CONDITION_TAINTS:
            continue
        if config.is_startup_taint(key) or config.is_status_taint(key):
            continue
        out.append(dict(t))
    return out


def startup_taint(node: Mapping[str, Any], config: TaintConfig) -> str | None:
    """The first startup taint of the node, None without one."""
    for t in (node.get("spec") or {}).get("taints") or ():
        if isinstance(t, dict) and config.is_startup_taint(str(t.get("key", ""))):
            return str(t.get("key", ""))
    return None


def as_listed(node: Mapping[str, Any], config: TaintConfig) -> Mapping[str, Any]:
    """FilterOutNodesWithStartupTaints for one node of CA's list: a node its ready lister keeps
    (ready and schedulable) that carries a startup taint becomes its unready copy."""
    if is_ready_and_schedulable(node) and startup_taint(node, config) is not None:
        return unready_copy(node, STARTUP_NODES)
    return node


def cleanup_events(nodes: Sequence[Mapping[str, Any]], in_groups: Iterable[str], settings: "Settings",
                   now: float) -> list[tuple[str, str]]:
    """cleanUpIfRequired, a CA's first loop's first step: (node, event message) for each group node
    left with ToBeDeleted and, with soft taints off, any node with a DeletionCandidate older than
    --node-deletion-candidate-ttl; `now` in Unix seconds (the loop's listers keep the taints)."""
    selected = set(in_groups)
    out = []
    for node in nodes:
        name = (node.get("metadata") or {}).get("name") or ""
        if name in selected and _has(node, TO_BE_DELETED):
            out.append((name, f"removed {TO_BE_DELETED} taint from node {name}"))
    if settings.flag("max-bulk-soft-taint-count") == 0:
        ttl = settings.flag("node-deletion-candidate-ttl")
        for node in nodes:
            name = (node.get("metadata") or {}).get("name") or ""
            if _has(node, DELETION_CANDIDATE) and _stale(node, ttl, now):
                out.append((name, f"removed {DELETION_CANDIDATE} taint from node {name}"))
    return out


def deletion_candidate_since(node: Mapping[str, Any]) -> int | None:
    """GetDeletionCandidateTime: when CA marked the node as a deletion candidate (the taint's
    value, Unix seconds); None without the taint or with a value that is no integer."""
    for t in (node.get("spec") or {}).get("taints") or ():
        if isinstance(t, dict) and t.get("key") == DELETION_CANDIDATE:
            value = str(t.get("value", ""))
            return int(value) if _GO_INT.fullmatch(value) else None
    return None


def _has(node: Mapping[str, Any], key: str) -> bool:
    return any(isinstance(t, dict) and t.get("key") == key for t in (node.get("spec") or {}).get("taints") or ())


def _stale(node: Mapping[str, Any], ttl: float, now: float) -> bool:
    """getDeletionCandidateTTLCondition: no TTL, a value that is no Unix time, or a mark at
    least `ttl` seconds before `now`."""
    if ttl == 0:
        return True
    for t in (node.get("spec") or {}).get("taints") or ():
        if isinstance(t, dict) and t.get("key") == DELETION_CANDIDATE:
            value = str(t.get("value", ""))
            if not _GO_INT.fullmatch(value):        # strconv.ParseInt fails: cleaned
                return True
            return now - int(value) >= ttl
    return True
