"""Snapshots of the very same bound pods (other objects, an empty node added, pod-less nodes changed) share what
the pod index works out of the pods alone (label indexes, per-node counts), made once; a bind's snapshot, a
snapshot whose pods changed, and `fresh` make their own, and every answer is the one made from nothing."""
from __future__ import annotations

from collections import Counter

import pytest

from kexplain.model.labels import parse_selector
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.pod_index import PodIndex, pod_index
from kexplain.model.snapshot import Snapshot

from tests.model.test_snapshot_build import cluster_pods, node, pod, container

WEB = parse_selector({"matchLabels": {"app": "web"}})
APP = parse_selector({"matchExpressions": [{"key": "app", "operator": "In", "values": ["app", "web"]}]})


@pytest.fixture
def made(monkeypatch) -> Counter:
    """How many times each is worked out from the pods."""
    counts: Counter = Counter()
    for name in ("_new_label_index", "count_per_node"):
        original = getattr(PodIndex, name, None)
        if original is None:
            continue

        def counted(self, *args, _original=original, _name=name):
            counts[_name] += 1
            return _original(self, *args)
        monkeypatch.setattr(PodIndex, name, counted)
    return counts


def built() -> Snapshot:
    return Snapshot.build([(node(n), None) for n in ("n1", "n2", "n3")], cluster_pods())


def answers(snapshot: Snapshot) -> list[dict[str, int]]:
    index = pod_index(snapshot)
    return [dict(index.node_counts(ns, sel).counts) for ns in ("team", "other") for sel in (WEB, APP)]


def derived(snap: Snapshot) -> list[Snapshot]:
    n3 = snap.get("n3")
    relabelled = NodeInfo(Node.from_obj({**node("n3"), "metadata": {"name": "n3", "labels": {"a": "b"}}}))
    return [snap.with_objects({"team": {"x": "y"}}, {}),
            snap.with_empty_node(Node.from_obj(node("n4"))),
            snap.with_node_infos([relabelled if ni is n3 else ni for ni in snap.node_infos])]


def test_snapshots_of_the_same_pods_count_once(made):
    snap = built()
    want = answers(snap)
    assert made["count_per_node"] == 4
    for other in derived(snap):
        assert other._by_namespace is snap._by_namespace
        assert answers(other) == want
    assert made == {"_new_label_index": 2, "count_per_node": 4}     # (a label index per namespace)


def test_fresh_and_changed_pods_count_again_and_alike(made):
    snap = built()
    want = answers(snap)
    assert answers(snap.fresh()) == want
    assert made == {"_new_label_index": 4, "count_per_node": 8}
    bound = snap.with_pod_bound(PodInfo(pod("web-9", "n3", [container()])))
    assert answers(bound) == [{**want[0], "n3": 1}, {**want[1], "n3": 1}, *want[2:]]
    # the bound snapshot's index counts its own pods: the shared counts stay those of the pods before
    sibling = snap.with_objects({}, {})
    assert answers(sibling) == want
    n1 = snap.get("n1")
    emptied = snap.with_node_infos([NodeInfo(n1.node) if ni is n1 else ni for ni in snap.node_infos])
    assert answers(emptied) == answers(Snapshot(emptied.node_infos))
