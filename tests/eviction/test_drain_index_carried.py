"""A fix's index carries what the drain's index worked out already: a namespace's pods keep their
label index when a scale fix adds pods to them, and the finders' controllers are made once for
every fix that changes no workload (kexplain cluster's drains: about a hundred fixes each)."""
from __future__ import annotations

from kexplain.app.eviction.drain_index import DrainIndex
from kexplain.controllers.disruption import NamespacePods
from kexplain.model.labels import parse_selector
from kexplain.model.pod import PodInfo
from tests.eviction.drain_cluster import pod
from tests.eviction.test_drain_index import objects

WEB = parse_selector({"matchLabels": {"app": "web"}})
TWO = parse_selector({"matchExpressions": [{"key": "app", "operator": "In", "values": ["web", "db"]}]})


def test_pods_added_keep_the_label_index_and_select_as_a_fresh_one():
    old = NamespacePods(PodInfo(pod(f"p{i}", None, app=("web", "db", "api")[i % 3])) for i in range(9))
    assert [p.name for p in old.selected(WEB)] == ["p0", "p3", "p6"]         # (the index of "app" made)
    added = [PodInfo(pod("n0", None, app="db")), PodInfo(pod("n1", None, app="web")), PodInfo(pod("n2", None, app="x"))]
    new = old.with_added(added)
    assert "app" in new.__dict__["_index"]                     # carried, not made again over every pod
    fresh = NamespacePods((*old, *added))
    for selector in (WEB, TWO):
        assert new.selected(selector) == fresh.selected(selector)
    assert [p.name for p in old.selected(WEB)] == ["p0", "p3", "p6"]         # the old one as it was


def test_a_fix_that_changes_no_workload_keeps_the_controllers():
    index = DrainIndex.of(objects())
    finders = index.controllers
    scaled = index.replaced({}, [pod("web-9", ("apps/v1", "ReplicaSet", "web"))])
    assert scaled.controllers is finders
    assert [p.name for p in scaled.pods_in("default")] == ["web-1", "web-9"]
