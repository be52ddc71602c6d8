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


def _owned(phase: str, policy: str, **annotations: str) -> dict[str, Any]:
    obj = _obj(annotations or None)
    obj["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs",
                                           "uid": "u", "controller": True}]
    obj["spec"]["restartPolicy"] = policy
    obj["spec"]["volumes"] = [{"name": "scratch", "emptyDir": {}}]
    obj["status"] = {"phase": phase}
    return obj


@pytest.mark.parametrize("obj", [_owned("Running", "Always"), _owned("Succeeded", "Never"), _owned("Failed", "Always"),
                                 _owned("Running", "Always", **{"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"}),
                                 _owned("Running", "Always", **{"cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes":
                                                                "scratch"})])
def test_scale_downs_drain_rules_read_a_running_stored_pod_off_its_view(obj: dict[str, Any]) -> None:
    from kexplain.autoscaler.scaledown.drainability import DrainContext, drainable
    from kexplain.autoscaler.scaledown.pdb import PdbTracker
    ctx = DrainContext(PdbTracker(()), None, 0)
    pod = _stored(obj)
    assert drainable(ctx, pod) == drainable(ctx, PodInfo(obj))
    assert pod.obj.decoded == (obj["status"]["phase"] != "Running")     # (an ended pod's restart policy read)
