"""CA's pod predicates (utils/pod): a DaemonSet's pod counts CA's own annotation too. A stored pod
(a dump's) is asked off its view: scale-down asks every pod of every node, and none of them is
decoded whole for two annotations."""
from __future__ import annotations

from typing import Any

from kexplain.apimachinery.labels import ANNOTATION_MIRROR_POD
from kexplain.apimachinery.stored_pods import whole
from kexplain.model.owners import controller_ref, daemonset_ref, is_mirror_pod as _decoded_is_mirror_pod
from kexplain.model.owners import is_owned_by_daemonset
from kexplain.model.pod import PodInfo, StoredPodInfo

DAEMONSET_POD_ANNOTATION = "cluster-autoscaler.kubernetes.io/daemonset-pod"

__all__ = ["controller_ref", "daemonset_ref", "is_daemonset_pod", "is_mirror_pod", "DAEMONSET_POD_ANNOTATION"]


def is_daemonset_pod(pod: PodInfo) -> bool:
    """A DaemonSet's pod: its controller is a DaemonSet, or CA's annotation says it counts as one."""
    return is_owned_by_daemonset(pod) or pod.annotation(DAEMONSET_POD_ANNOTATION) == "true"


def is_mirror_pod(pod: PodInfo) -> bool:
    """A static pod's mirror: the kubelet's config.mirror annotation, whatever its value (null too);
    a stored pod's annotations decoded off its view's text, not the whole object."""
    if type(pod) is StoredPodInfo and not pod.obj.decoded:
        metadata = pod.view.metadata
        text = metadata.annotations if metadata is not None else None
        if not text:
            return False
        found: Any = whole(text)
        return type(found) is dict and ANNOTATION_MIRROR_POD in found
    return _decoded_is_mirror_pod(pod)
