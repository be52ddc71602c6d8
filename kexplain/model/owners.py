"""Who made a pod: its controller ownerReference, a DaemonSet's pod, a static pod's mirror. One home
for the scheduler's spread defaults, the Cluster Autoscaler and Karpenter (CA's twist:
`kexplain.autoscaler.podutil`).
"""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.apimachinery.labels import ANNOTATION_MIRROR_POD
from kexplain.model.pod import PodInfo


def controller_ref(pod: PodInfo) -> Mapping[str, Any] | None:
    """The first owner reference marked controller (metav1.GetControllerOf), or None."""
    for ref in pod.owner_references or ():
        if isinstance(ref, dict) and ref.get("controller") is True:
            return ref
    return None


def daemonset_ref(pod: PodInfo) -> Mapping[str, Any] | None:
    """The controller reference of a DaemonSet's pod (its controller is a DaemonSet), else None."""
    ref = controller_ref(pod)
    return ref if ref is not None and ref.get("kind") == "DaemonSet" else None


def is_owned_by_daemonset(pod: PodInfo) -> bool:
    """Its controller is a DaemonSet."""
    return daemonset_ref(pod) is not None


def is_mirror_pod(pod: PodInfo) -> bool:
    """A static pod's mirror: the kubelet's config.mirror annotation, whatever its value."""
    return ANNOTATION_MIRROR_POD in (pod.metadata.get("annotations") or {})
