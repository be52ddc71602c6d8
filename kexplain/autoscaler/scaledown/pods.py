"""What CA's scale-down reads of a pod: its controller, DaemonSet and mirror pods, age, deletion.

CA's own predicates (utils/pod, utils/drain), shared by the utilization and the drainability
rules. Times are nanoseconds since the epoch, as `parse_timestamp` reads RFC 3339 texts.
"""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.framework.preemption import parse_timestamp
from kexplain.model.pod import PodInfo
from kexplain.autoscaler.podutil import controller_ref, is_daemonset_pod, is_mirror_pod
from kexplain.plugins.helper.spread import parse_group_version

SAFE_TO_EVICT = "cluster-autoscaler.kubernetes.io/safe-to-evict"
SAFE_TO_EVICT_LOCAL_VOLUMES = "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes"
DEFAULT_GRACE_SECONDS = 30                  # apiv1.DefaultTerminationGracePeriodSeconds
LONG_TERMINATING_EXTRA_NS = 30 * 10**9      # drain.PodLongTerminatingExtraThreshold
SECOND_NS = 10**9

__all__ = ["controller_ref", "parse_group_version", "annotations", "is_daemonset_pod", "is_mirror_pod",
           "creation_ns", "is_long_terminating", "is_terminal", "SECOND_NS"]


def annotations(pod: PodInfo) -> Mapping[str, Any]:
    return pod.metadata.get("annotations") or {}


def creation_ns(pod: PodInfo) -> int | None:
    """metadata.creationTimestamp, None when it is not set (Go's zero time)."""
    text = pod.metadata.get("creationTimestamp")
    return parse_timestamp(text) if isinstance(text, str) else None


def is_long_terminating(pod: PodInfo, now_ns: int) -> bool:
    """Deleted longer ago than its grace period plus 30s: CA treats the pod as gone."""
    deleted = pod.deletion_timestamp
    if not isinstance(deleted, str):
        return False
    at = parse_timestamp(deleted)
    if at is None:
        return False
    grace = pod.spec.get("terminationGracePeriodSeconds")
    grace = DEFAULT_GRACE_SECONDS if not isinstance(grace, int) or isinstance(grace, bool) else grace
    return at + grace * SECOND_NS + LONG_TERMINATING_EXTRA_NS < now_ns


def is_terminal(pod: PodInfo) -> bool:
    """drain.IsPodTerminal: the pod will never run again (the restart policy read only of a pod that
    ended: a stored pod's spec is not decoded for a running one)."""
    phase = pod.phase
    if phase not in ("Succeeded", "Failed"):
        return False
    policy = pod.spec.get("restartPolicy")
    if policy == "Never" and phase in ("Succeeded", "Failed"):
        return True
    if policy == "OnFailure" and phase == "Succeeded":
        return True
    return phase == "Failed"
