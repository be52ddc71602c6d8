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


def _finders(index: DrainIndex) -> dict:
    return {k: id(v) for k, v in index.controllers.by_key.items()}


def test_a_fix_keeps_its_parents_controllers_even_when_made_after_it():
    index = DrainIndex.of(objects())
    relaxed = index.replaced({id(index.pdbs[0]): {**index.pdbs[0], "spec": {"maxUnavailable": 2}}})
    again = relaxed.replaced({id(relaxed.pdbs[1]): None})
    assert "controllers" not in index.__dict__        # nobody asked the cluster's index yet
    assert again.controllers is relaxed.controllers is index.controllers    # made once, for all three


def test_a_scaled_workload_is_put_in_place_in_the_finders_and_they_answer_as_made_afresh():
    objs = objects()
    index = DrainIndex.of(objs)
    finders = index.controllers
    scaled = {**objs[6], "spec": {"replicas": 5}}
    changed = index.replaced({id(objs[6]): scaled})
    assert changed.workloads == {**index.workloads, ("Deployment", "default", "api"): scaled}
    assert list(changed.workloads) == list(index.workloads)          # in place: the order kept
    assert changed.controllers is not finders and finders.by_key[("Deployment", "default", "api")] is objs[6]
    assert _finders(changed) == _finders(DrainIndex.of([scaled if o is objs[6] else o for o in objs]))
    # a removed workload, or one whose key changes, makes the table again, as before (a cluster
    # without a second workload of one key: the table is made again of those it held)
    objs = objs[:7]
    index = DrainIndex.of(objs)
    renamed = {**objs[0], "metadata": {"name": "web2", "namespace": "default"}}
    for change, expected in (({id(objs[0]): None}, [o for o in objs if o is not objs[0]]),
                             ({id(objs[0]): renamed}, [renamed if o is objs[0] else o for o in objs])):
        made = index.replaced(change)
        fresh = DrainIndex.of(expected)
        assert made.workloads == fresh.workloads and list(made.workloads) == list(fresh.workloads)
        assert _finders(made) == _finders(fresh)


def test_the_budgets_by_key_are_made_once_per_index():
    index = DrainIndex.of(objects())
    assert index.pdbs_by_key is index.pdbs_by_key and set(index.pdbs_by_key) == {"default/web", "team/db"}
