"""The files of one argument are one apply (issue 23, item 3; issue 32, item 5): an object given
twice alike is one object; given twice differently, it is applied twice as `kubectl apply -f DIR`
applies it, and the later manifest wins, at the place of the first (`kexplain.load.manifests.repeats`
and `applied`, used by `load_objects`: the POD argument and --nodes)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kexplain.cli.app import main
from kexplain.errors import Source
from kexplain.load.manifests import applied, identity, load_objects, one_apply, repeats
from tests.support.paths import DATA
from tests.support.copies import copy_names

BOOKINFO = DATA / "manifests" / "bookinfo"
CLUSTER = str(DATA / "as-written" / "cluster.yaml")


def node(name: str, cpu: str = "4") -> dict:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"capacity": {"cpu": cpu, "memory": "16Gi", "pods": "110"}}}


def pod(name: str = "web", cpu: str = "1") -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}]}}


def write(path: Path, *docs: dict) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump_all(list(docs), sort_keys=False))
    return str(path)


@pytest.mark.parametrize("a, b, same", [
    ({"kind": "Pod", "metadata": {"name": "p"}}, {"kind": "Pod", "metadata": {"name": "p", "namespace": "default"}},
     True),                                                                        # default namespace
    ({"kind": "Node", "metadata": {"name": "n"}}, {"kind": "Node", "metadata": {"name": "n", "namespace": "x"}},
     True),                                                                        # cluster-scoped
    ({"apiVersion": "resource.k8s.io/v1beta2", "kind": "DeviceClass", "metadata": {"name": "gpu"}},
     {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"}}, True),  # versions
    ({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e"}},
     {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "e"}}, False),  # groups
    ({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}},
     {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "default"}},
     False),                                                                       # a custom resource: as written
    ({"kind": "Pod", "metadata": {"name": "p"}}, {"kind": "Service", "metadata": {"name": "p"}}, False),
])
def test_identity(a, b, same):
    assert (identity(a) == identity(b)) is same


def test_identity_with_scopes_kept_across_objects_is_the_same():
    objs = [{"apiVersion": v, "kind": k, "metadata": {"name": "n", **({"namespace": ns} if ns is not None else {})}}
            for v in ("v1", "apps/v1", "example.com/v1", "x.k8s.io/v1", None, 3)
            for k in ("Pod", "Node", "Widget", "Namespace")
            for ns in (None, "", "default", "shop")]
    scopes: dict = {}
    for obj in objs + objs:
        assert identity(obj, scopes) == identity(obj)


def test_objects_without_a_name_are_never_repeats():
    objs = [({"kind": "Pod", "metadata": {"generateName": "p-"}}, Source("a.yaml", 1))] * 2
    assert identity(objs[0][0]) is None and repeats(objs) == []


def test_alike_means_the_same_values_of_the_same_types():
    a = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "labels": {"x": "1", "y": "2"}},
         "spec": {"replicas": 1}}
    reordered = {"kind": "Deployment", "apiVersion": "apps/v1", "spec": {"replicas": 1},
                 "metadata": {"labels": {"y": "2", "x": "1"}, "name": "d"}}
    as_string = {**a, "spec": {"replicas": "1"}}
    as_bool = {**a, "spec": {"replicas": True}}
    objs = [(a, Source("a.yaml", 1)), (reordered, Source("b.yaml", 1)), (as_string, Source("c.yaml", 1)),
            (as_bool, Source("d.yaml", 1))]
    assert [(r.index, r.first, r.same) for r in repeats(objs)] == [(1, 0, True), (2, 0, False), (3, 0, False)]
    assert one_apply(objs[:2]) == objs[:1]
    assert one_apply(objs) == [objs[3]]         # the last manifest applied wins
    assert applied(repeats(objs)).stands == {0: 3} and applied(repeats(objs), objs).stands == {0: 3}


def test_the_later_manifest_wins_at_the_place_of_the_first():
    """Created at the first manifest (a pod's place in the queue, a node's in the node order),
    with the contents of the last; alike repeats of a changed object change nothing more."""
    a = {"kind": "Node", "metadata": {"name": "a"}}
    b1, b2 = {"kind": "Node", "metadata": {"name": "b", "labels": {"v": "1"}}}, \
        {"kind": "Node", "metadata": {"name": "b", "labels": {"v": "2"}}}
    c = {"kind": "Node", "metadata": {"name": "c"}}
    objs = [(b1, Source("x.yaml", 1)), (a, Source("x.yaml", 2)), (b2, Source("y.yaml", 1)), (c, Source("y.yaml", 2)),
            (b1, Source("z.yaml", 1))]
    assert [(o["metadata"]["name"], str(s)) for o, s in one_apply(objs)] == [
        ("b", "z.yaml: document 1"), ("a", "x.yaml: document 2"), ("c", "y.yaml: document 2")]
    assert one_apply(objs[:4])[0] == (b2, Source("y.yaml", 1))


def test_items_of_a_list_and_documents_of_files_are_one_apply(tmp_path):
    dump = {"apiVersion": "v1", "kind": "List", "items": [node("n1"), node("n2")]}
    paths = [write(tmp_path / "dump.yaml", dump), write(tmp_path / "more" / "n2.yaml", node("n2"), node("n3"))]
    assert [o["metadata"]["name"] for o, _ in load_objects([str(tmp_path)])] == ["n1", "n2", "n3"]
    assert [o["metadata"]["name"] for o, _ in load_objects(paths)] == ["n1", "n2", "n3"]


# -- explain: the POD argument and --nodes -------------------------------------------------------
def explain(capsys, *args: str) -> tuple[int, dict | None, str]:
    code = main([*args, "-o", "json"])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out else None, err


def test_nodes_given_twice_alike_are_one_node(tmp_path, capsys):
    """A cluster dump beside a file of the same nodes (`kubectl get nodes -o yaml > nodes.yaml`)."""
    dump = write(tmp_path / "dump.yaml", {"apiVersion": "v1", "kind": "List", "items": [node("n1"), node("n2")]})
    nodes = write(tmp_path / "nodes.yaml", node("n2"))
    code, trace, err = explain(capsys, write(tmp_path / "pod.yaml", pod()), "--nodes", dump, "--nodes", nodes)
    assert code == 0, err
    assert trace["search"]["numAllNodes"] == 2


def test_nodes_given_twice_differently_the_later_wins(tmp_path, capsys):
    dump = write(tmp_path / "dump.yaml", {"apiVersion": "v1", "kind": "List", "items": [node("n1"), node("n2")]})
    nodes = write(tmp_path / "nodes.yaml", node("n2", cpu="8"))
    code, trace, err = explain(capsys, write(tmp_path / "pod.yaml", pod(cpu="6")), "--nodes", dump, "--nodes", nodes)
    assert (code, err) == (0, "")
    assert trace["search"]["numAllNodes"] == 2 and trace["result"]["selectedNodes"] == ["n2"]
    code, trace, err = explain(capsys, write(tmp_path / "pod.yaml", pod(cpu="6")), "--nodes", nodes, "--nodes", dump)
    assert code == 1 and trace["result"]["status"] == "Unschedulable"


def test_a_pod_in_two_files_of_the_pod_directory(tmp_path, capsys):
    app = tmp_path / "app"
    write(app / "a.yaml", pod())
    write(app / "b.yaml", pod())
    nodes = write(tmp_path / "nodes.yaml", node("n1"))
    code, trace, err = explain(capsys, str(app), "--nodes", nodes)
    assert code == 0, err
    assert trace["pod"]["name"] == "web" and trace["result"]["status"] == "Scheduled"
    write(app / "b.yaml", pod(cpu="6"))         # more than the node has: an update the API server refuses
    code, trace, err = explain(capsys, str(app), "--nodes", nodes)
    assert code == 2 and trace["pod"]["name"] == "web" and trace["result"]["status"] == "Scheduled"
    assert err.startswith(f'error: {app / "b.yaml"}: document 1: Pod default/web: Pod "web" is invalid: spec: Forbidden: '
                          "pod updates may not change fields other than `spec.containers[*].image`")


def test_bookinfo_objects_in_two_files(capsys):
    """istio's bookinfo.yaml and bookinfo-versions.yaml define the same Service, ServiceAccount and
    Deployment with other contents: one object each, at its place in the first file read
    (bookinfo-versions.yaml: name order), with the contents of the later one (bookinfo.yaml),
    whose Deployment asks for 3 CPUs (fits a 4-CPU node) where the other asks for 8 (fits none)."""
    objs = load_objects([str(BOOKINFO)])
    assert [(o["kind"], s.path.rsplit("/", 1)[1]) for o, s in objs] == [
        ("Service", "bookinfo.yaml"), ("ServiceAccount", "bookinfo.yaml"), ("Deployment", "bookinfo.yaml")]
    code, trace, err = explain(capsys, str(BOOKINFO), "--nodes", CLUSTER)
    assert (code, err) == (0, "")
    productpage = next(o for o, _ in objs if o["kind"] == "Deployment")     # (bookinfo.yaml's contents)
    assert trace["pod"]["name"] == copy_names(productpage, 1)[0] and trace["result"]["status"] == "Scheduled"


# -- one rule in explain and lint (issue 70, item 18) --------------------------------------------
def statefulset(name: str, replicas: int) -> dict:
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": name},
            "spec": {"replicas": replicas, "serviceName": name, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "memcached",
                                                           "resources": {"requests": {"cpu": "1"}}}]}}}}


def deployment(name: str, replicas: int) -> dict:
    return {**statefulset(name, replicas), "kind": "Deployment",
            "spec": {k: v for k, v in statefulset(name, replicas)["spec"].items() if k != "serviceName"}}


def test_an_object_given_twice_is_scheduled_at_the_first_place_in_explain_and_lint(tmp_path, capsys):
    """kubectl apply creates the cache where its first manifest is (its pods are created then, before
    web's) and patches it with the later one (2 replicas): on a 4-CPU node the cache's 2 pods go first
    and web gets 2 of its 3, in explain and in lint alike (lint, before, scheduled the cache at the
    later document, after web: 3 of 3 and 1 of 2)."""
    app = write(tmp_path / "app.yaml", statefulset("cache", 1), deployment("web", 3), statefulset("cache", 2))
    nodes = write(tmp_path / "nodes.yaml", node("n1"))
    code, doc, err = explain(capsys, app, "--nodes", nodes, "--no-suggestions")
    assert (code, err) == (1, "")
    assert [(p["object"]["name"], p["replicas"], p["fit"]) for p in doc["placements"]] == [
        ("cache", 2, 2), ("web", 3, 2)]
    from kexplain.lint.linter import LintOptions, lint
    report = lint(LintOptions((app,), (nodes,)))
    verdicts = {(f.location.doc, f.rule, f.details.get("replicas"), f.details.get("fit")) for f in report.findings}
    # (the cache's verdict at its standing document, the third)
    assert verdicts == {(2, "replicas", 3, 2), (3, "fits", 2, 2)}
