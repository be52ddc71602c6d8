"""Who made a pod, asked in one place (kexplain.model.owners): its controller reference, a
DaemonSet's pod, a static pod's mirror; the mirror annotation's name spelled once
(apimachinery/labels), and no package that asks these facts of a pod asking them inline."""
from __future__ import annotations

import re

import pytest

from kexplain.apimachinery.labels import ANNOTATION_MIRROR_POD
from kexplain.model.owners import controller_ref, daemonset_ref, is_mirror_pod, is_owned_by_daemonset
from kexplain.model.pod import PodInfo
from kexplain.suggest.free_room import evictable
from tests.support.paths import ROOT


def pod(refs=(), annotations=None) -> PodInfo:
    return PodInfo({"metadata": {"name": "p", "namespace": "default", "ownerReferences": list(refs),
                                 "annotations": annotations or {}}, "spec": {}})


DS = {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent", "uid": "u1", "controller": True}
RS = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "u2", "controller": True}


@pytest.mark.parametrize(("refs", "daemon"), [
    ([DS], True), ([RS], False), ([{**DS, "controller": False}], False), ([{**DS, "controller": False}, RS], False),
    ([], False),
])
def test_a_daemonsets_pod_is_the_one_its_controller_is_a_daemonset(refs, daemon):
    p = pod(refs)
    assert is_owned_by_daemonset(p) == daemon and (daemonset_ref(p) is not None) == daemon
    assert evictable(p) == (not daemon)
    if daemon:
        assert daemonset_ref(p) is controller_ref(p)


def test_a_mirror_pod_is_the_annotations_whatever_its_value():
    mirror = pod(annotations={ANNOTATION_MIRROR_POD: ""})
    assert ANNOTATION_MIRROR_POD == "kubernetes.io/config.mirror"
    assert is_mirror_pod(mirror) and not evictable(mirror)
    assert not is_mirror_pod(pod()) and evictable(pod([RS]))


def _sources(*packages: str):
    for package in packages:
        for path in sorted((ROOT / "kexplain" / package).rglob("*.py")):
            yield path, path.read_text()


def test_the_mirror_annotation_is_spelled_once():
    where = [str(p.relative_to(ROOT)) for p, text in _sources("") if ANNOTATION_MIRROR_POD in text]
    assert where == ["kexplain/apimachinery/labels.py"]


def test_the_autoscaler_and_suggestions_ask_a_pods_owner_through_the_shared_helpers():
    # an owner reference's kind compared with DaemonSet (an object's own kind is another matter)
    inline = re.compile(r"""\.get\(["']kind["']\)\s*==\s*["']DaemonSet["']""")
    found = [f"{p.relative_to(ROOT)}:{n}" for p, text in _sources("autoscaler", "suggest")
             for n, line in enumerate(text.splitlines(), 1)
             if inline.search(line) and ("ref" in line or "ownerReferences" in line)]
    assert not found, f"DaemonSet ownership checked inline (use kexplain.model.owners): {found}"
