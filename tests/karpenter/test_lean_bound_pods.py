"""A dump's bound pod lacking a uid, a creation time or a phase (a plain List written without
them) gets the README's defaults in its view, and in its object when that is decoded: the
same as a copy defaulted at once, and as the pod read as a plain object."""
from __future__ import annotations

import json
from datetime import datetime, timezone

import msgspec
import pytest

from kexplain.apimachinery.stored_pods import StoredPod, decode_view
from kexplain.karpenter.inputs import _bound_pod_now, stored_bound
from kexplain.model.pod import PodInfo

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


def lean(**extra) -> dict:
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "web-1", "namespace": "ns-1", "labels": {"app": "web"}},
           "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "x",
                                                      "resources": {"requests": {"cpu": "100m"}}}]}}
    for path, value in extra.items():
        where, key = path.split("__")
        pod.setdefault(where, {})[key] = value
    return pod


def stored(obj: dict) -> StoredPod:
    raw = msgspec.json.encode(obj)
    return StoredPod(msgspec.Raw(raw), decode_view(raw))


CASES = [lean(), lean(status__startTime="2026-01-01T00:00:00Z"), lean(status__phase="Succeeded"),
         lean(metadata__uid="u-1"), lean(metadata__creationTimestamp="2025-12-31T00:00:00Z"),
         lean(metadata__namespace=""),
         lean(metadata__ownerReferences=[{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
                                          "uid": "rs"}])]


@pytest.mark.parametrize("obj", CASES)
def test_a_lean_dump_pod_is_defaulted_as_its_copy_would_be(obj):
    eager = _bound_pod_now(obj, NOW, {})
    lazy = stored_bound(stored(obj), NOW, {})
    assert type(lazy) is StoredPod and lazy._obj is None         # (not decoded by the defaults)
    info, plain = PodInfo(lazy), PodInfo(eager)
    assert (info.uid, info.phase, info.namespace, info.name) == (plain.uid, plain.phase, plain.namespace, plain.name)
    view = lazy.view
    assert (view.metadata.uid, view.metadata.creationTimestamp, view.status.phase) == \
        (eager["metadata"]["uid"], eager["metadata"]["creationTimestamp"], eager["status"]["phase"])
    assert dict(lazy) == eager                                 # its object, decoded when asked for
    assert json.dumps(lazy.obj) == json.dumps(eager)           # (its keys in the same order)


def test_a_daemonset_reference_without_uid_is_filled_in_at_once():
    obj = lean(metadata__ownerReferences=[{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "ds"}])
    got = stored_bound(stored(obj), NOW, {("ns-1", "ds"): "ds-uid"})
    assert type(got) is dict and got["metadata"]["ownerReferences"][0]["uid"] == "ds-uid"
