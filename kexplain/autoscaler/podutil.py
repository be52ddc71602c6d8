"""CA's pod predicates (utils/pod): a DaemonSet's pod counts CA's own annotation too."""
from __future__ import annotations

from kexplain.model.owners import controller_ref, daemonset_ref, is_mirror_pod, is_owned_by_daemonset
from kexplain.model.pod import PodInfo

DAEMONSET_POD_ANNOTATION = "cluster-autoscaler.kubernetes.io/daemonset-pod"

__all__ = ["controller_ref", "daemonset_ref", "is_daemonset_pod", "is_mirror_pod", "DAEMONSET_POD_ANNOTATION"]


def is_daemonset_pod(pod: PodInfo) -> bool:
    """A DaemonSet's pod: its controller is a DaemonSet, or CA's annotation says it counts as one."""
    return is_owned_by_daemonset(pod) or \
        (pod.metadata.get("annotations") or {}).get(DAEMONSET_POD_ANNOTATION) == "true"
