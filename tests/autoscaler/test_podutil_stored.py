"""CA's pod predicates asked of a dump's stored pods (`autoscaler.podutil`): the same answers as of the
pod's object, read off its view, the object never decoded whole (scale-down asks them of every pod)."""
from __future__ import annotations

from typing import Any

import msgspec
import pytest

from kexplain.apimachinery.stored_pods import StoredPod, decode_view
from kexplain.autoscaler.podutil import is_daemonset_pod, is_mirror_pod
from kexplain.model.pod import PodInfo, StoredPodInfo

MIRROR = "kubernetes.io/config.mirror"
DS_ANNOTATION = "cluster-autoscaler.kubernetes.io/daemonset-pod"


def _obj(annotations: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "p", "namespace": "ns"}
    if annotations is not None:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "x"}]}}


def _stored(obj: dict[str, Any]) -> StoredPodInfo:
    raw = msgspec.json.encode(obj)
    pod = PodInfo(StoredPod(msgspec.Raw(raw), decode_view(raw)))
    assert type(pod) is StoredPodInfo
    return pod


@pytest.mark.parametrize("annotations", [None, {}, {MIRROR: "x"}, {MIRROR: ""}, {MIRROR: None},
                                         {"other": "y"}, {DS_ANNOTATION: "true"}, {DS_ANNOTATION: "false"}])
def test_a_stored_pod_answers_as_its_object_without_decoding_it(annotations: Any) -> None:
    obj = _obj(annotations)
    pod = _stored(obj)
    assert (is_mirror_pod(pod), is_daemonset_pod(pod)) == (is_mirror_pod(PodInfo(obj)), is_daemonset_pod(PodInfo(obj)))
    assert not pod.obj.decoded          # (asking decoded nothing but the annotations' text)
