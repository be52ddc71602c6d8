"""CA's equivalence groups: controller, labels and the spec as PodSpecSemanticallyEqual sees it."""
from __future__ import annotations

import copy

from kexplain.autoscaler.equivalence import build_pod_groups
from kexplain.model.pod import PodInfo


def pod(name, uid="rs-1", labels=None, cpu="1", env=None, kind="ReplicaSet", hostname=None):
    meta = {"name": name, "namespace": "default", "labels": labels or {"app": "a"}}
    if uid:
        meta["ownerReferences"] = [{"kind": kind, "name": "owner", "uid": uid, "controller": True}]
    c = {"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}
    if env:
        c["env"] = env
    spec = {"containers": [c]}
    if hostname:
        spec["hostname"] = hostname
    return PodInfo({"kind": "Pod", "metadata": meta, "spec": spec})


def classes(pods):
    return [next(g.index for g in groups if p in g.pods) for groups in [build_pod_groups(pods)] for p in pods]


def test_same_controller_labels_and_spec_share_a_group():
    assert classes([pod("a"), pod("b", env=[{"name": "X", "value": "1"}], hostname="h"), pod("c", cpu="1000m")]) \
        == [0, 0, 0]


def test_what_tells_groups_apart():
    assert classes([pod("a"), pod("b", cpu="2"), pod("c", labels={"app": "b"}), pod("d", uid="rs-2"),
                    pod("e", uid=None), pod("f", uid=None), pod("g", kind="DaemonSet"), pod("h", kind="DaemonSet")]) \
        == [0, 1, 2, 3, 4, 5, 6, 7]


def test_at_most_ten_groups_per_controller_are_matched():
    pods = [pod(f"p{i}", cpu=f"{i + 1}") for i in range(11)] + [pod("again", cpu="11")]
    got = classes(pods)
    assert got[:11] == list(range(11))
    assert got[11] == 11           # like p10, but p10's group was never registered


def test_groups_come_in_order_of_their_first_pod():
    groups = build_pod_groups([pod("a", cpu="2"), pod("b"), pod("c", cpu="2")])
    assert [[p.name for p in g.pods] for g in groups] == [["a", "c"], ["b"]]
    assert copy.copy(groups[0]).index == 0
