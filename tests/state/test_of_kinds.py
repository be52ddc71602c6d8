"""`of_kinds` of a dump (`columns.Dump`) asks its rows: by kind when each kind has one verdict at
every apiVersion, by (apiVersion, kind) when a custom resource shares a built-in kind's name;
either way the objects kept are those a plain list keeps, with their rows."""
from __future__ import annotations

from kexplain.apimachinery import columns
from kexplain.errors import Source
from kexplain.state.objects import CLUSTER_KINDS, admission_context, among_kinds, of_kinds

SRC = Source("cluster.json")


def _obj(api_version: str, kind: str, name: str) -> tuple[dict, Source]:
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": name, "resourceVersion": "1"}}, SRC


def _kept(objs: list) -> list[str]:
    return [o["metadata"]["name"] for o, _ in objs]


def test_by_kind_and_by_api_version_as_a_plain_list() -> None:
    uniform = [_obj("v1", "Pod", "p1"), _obj("v1", "ConfigMap", "c1"), _obj("v1", "Node", "n1"),
               _obj("example.com/v1", "Widget", "w1"), _obj("v1", "Pod", "p2")]
    mixed = uniform + [_obj("batch.volcano.sh/v1alpha1", "Job", "vj"), _obj("batch/v1", "Job", "j1")]
    for objs in (uniform, mixed):
        dump = columns.Dump(objs)
        assert columns.rows_of(dump) is not None
        got = of_kinds(dump, CLUSTER_KINDS)
        assert _kept(got) == _kept(of_kinds(list(objs), CLUSTER_KINDS))
        assert type(got) is columns.Dump and got.rows.names == _kept(got)
    assert "vj" not in _kept(of_kinds(columns.Dump(mixed), CLUSTER_KINDS | {"Job"}))
    assert "j1" in _kept(of_kinds(columns.Dump(mixed), CLUSTER_KINDS | {"Job"}))


def test_among_kinds_of_a_dump_as_of_a_plain_list() -> None:
    """`among_kinds` picks a dump's objects off its rows, and `admission_context` with it, as each
    object's own kind picks them from a plain list; a kind that is not a name falls back to asking."""
    labelled = ({"apiVersion": "v1", "kind": "Namespace", "metadata": {
        "name": "ns", "labels": {"pod-security.kubernetes.io/enforce": "baseline"}}}, SRC)
    objs = [_obj("v1", "Pod", "p1"), _obj("scheduling.k8s.io/v1", "PriorityClass", "pc"),
            _obj("v1", "Namespace", "plain"), labelled, _obj("v1", "LimitRange", "lr"),
            _obj("example.com/v1", "Widget", "w1"), _obj("v1", "Node", "n1")]
    for among in (True, False):
        want = [name for name, (o, _) in zip(_kept(objs), objs) if (o["kind"] in CLUSTER_KINDS) == among]
        assert _kept(among_kinds(columns.Dump(objs), CLUSTER_KINDS, among)) == want
    assert _kept(admission_context(columns.Dump(objs))) == _kept(admission_context(list(objs))) == ["pc", "ns", "lr"]
    odd = [*objs, ({"apiVersion": "v1", "kind": ["Pod"], "metadata": {"name": "odd"}}, SRC)]
    assert _kept(among_kinds(columns.Dump(odd), CLUSTER_KINDS)) == _kept(odd)      # (asked one by one)
