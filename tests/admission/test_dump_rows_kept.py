"""Admitting a dump keeps its rows (`pipeline._flatten_dump`, `_with_rows`): a stored dump with a few
manifests among its objects (budgets written without a status, an unstored pod or node) comes out of
admission a `columns.Dump` whose rows are its objects', so that every pass over the state's 150,000
objects asks their rows, not each object; and the answer is the one admitting the plain list gives."""
from __future__ import annotations

import json

import pytest

from kexplain.admission import admit
from kexplain.apimachinery import columns
from kexplain.apimachinery.pod_lists import dump_objects
from kexplain.errors import Source

SRC = Source("cluster.json", 1)


def _pod(name: str, *, stored: bool = True, namespace: str | None = "team") -> dict:
    meta: dict = {"name": name, "labels": {"app": "web"}}
    if namespace is not None:
        meta["namespace"] = namespace
    if stored:
        meta["resourceVersion"] = "4711"
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "nginx"}]}}


def _cluster(views: bool) -> list:
    """A stored dump's objects: a node, a namespace, stored pods (views when `views`), and manifests."""
    stored = [_pod(f"p{i}") for i in range(6)]
    pods = dump_objects([json.dumps(p).encode() for p in stored]) if views else stored
    out = [({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "resourceVersion": "1"},
             "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}, SRC),
           ({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team", "resourceVersion": "1"}}, SRC)]
    out += [(p, SRC) for p in pods[:3]]
    out.append(({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",          # (its namespace defaulted)
                 "metadata": {"name": "web"}, "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}},
                SRC))
    out += [(p, SRC) for p in pods[3:]]
    out.append((_pod("late", stored=False), SRC))
    return out


def _plain(objects: list) -> list:
    return [(o.obj if hasattr(o, "view") else o) for o, _ in objects]


def _columns(rows: columns.Rows) -> tuple:
    return rows.kinds, rows.api_versions, rows.names, rows.namespaces, rows.stored


@pytest.mark.parametrize("stored", [False, True])
@pytest.mark.parametrize("views", [False, True])
def test_a_mostly_stored_dump_comes_out_a_dump_with_its_objects_rows(stored: bool, views: bool) -> None:
    pairs = _cluster(views)
    admitted = admit(columns.Dump(pairs), None, stored=stored)
    assert type(admitted.objects) is columns.Dump
    assert columns.rows_of(admitted.objects) is not None
    assert _columns(admitted.objects.rows) == _columns(columns.Rows.of(list(admitted.objects)))
    if not stored:      # (the budget's namespace defaulted: its row says so)
        pdb = admitted.objects.rows.kinds.index("PodDisruptionBudget")
        assert admitted.objects.rows.namespaces[pdb] == "default"


@pytest.mark.parametrize("stored", [False, True])
def test_the_dump_admitted_is_the_plain_lists(stored: bool) -> None:
    as_dump = admit(columns.Dump(_cluster(True)), None, stored=stored)
    as_list = admit(_cluster(True), None, stored=stored)
    assert _plain(as_dump.objects) == _plain(as_list.objects)
    assert as_dump.warnings == as_list.warnings


def test_the_stored_objects_are_kept_as_they_are() -> None:
    pairs = _cluster(True)
    admitted = admit(columns.Dump(pairs), None)
    kept = [a is b for (a, _), (b, _) in zip(admitted.objects, pairs)]
    assert kept == [True, True, True, True, True, False, True, True, True, False]


def test_a_dump_of_mostly_manifests_or_with_a_list_is_taken_object_by_object() -> None:
    """(A List among the objects unwraps into several: the rows are those of the list as flattened.)"""
    pairs = _cluster(False)
    pairs.append(({"apiVersion": "v1", "kind": "List", "items": [_pod("a", stored=False), _pod("b", stored=False)]},
                  SRC))
    admitted = admit(columns.Dump(pairs), None)
    assert [o["metadata"]["name"] for o, _ in admitted.objects if o["kind"] == "Pod"][-2:] == ["a", "b"]
    rows = columns.rows_of(admitted.objects)
    assert rows is None or _columns(rows) == _columns(columns.Rows.of(list(admitted.objects)))


def test_kinds_answers_a_run_of_stored_pods_without_asking_each() -> None:
    views = dump_objects([json.dumps(_pod(f"p{i}")).encode() for i in range(4)])
    objs = [{"kind": "Node"}, *views[:2], {"kind": "Service"}, *views[2:]]
    assert columns.kinds(objs) == [o.get("kind") for o in objs]
    assert not any(v.decoded for v in views)
    with pytest.raises(columns.NotPlain):
        columns.kinds([{"kind": "Node"}, "not an object"])
