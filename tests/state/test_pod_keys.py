"""`_pod_keys`: a dump's pods read of its rows name the same (namespace, name) as object by object."""
from __future__ import annotations

from kexplain.apimachinery import columns
from kexplain.errors import Source
from kexplain.state.cluster import _pod_keys

SRC = Source("cluster.json")


def _pod(namespace: object, name: object, kind: str = "Pod") -> tuple[dict, Source]:
    meta = {"name": name, "resourceVersion": "1"}
    if namespace is not None:
        meta["namespace"] = namespace
    return {"apiVersion": "v1", "kind": kind, "metadata": meta}, SRC


def test_a_dumps_rows_give_the_keys_of_a_plain_list() -> None:
    pairs = [_pod("team", "a"), _pod(None, "b"), _pod("", "c"), _pod("team", ""), _pod("team", None),
             _pod("team", "d", kind="Node"), _pod("other", "a"), _pod(None, "b")]
    dump = columns.Dump(pairs)
    assert columns.rows_of(dump) is not None
    expected = {("team", "a"), ("default", "b"), ("default", "c"), ("team", ""), ("other", "a")}
    assert _pod_keys(list(pairs)) == expected
    assert _pod_keys(dump) == expected


def test_a_name_no_key_is_asked_object_by_object() -> None:
    pairs = [_pod("team", "a"), _pod("team", [])]       # (an empty list: no name, as written)
    assert _pod_keys(columns.Dump(pairs)) == {("team", "a"), ("team", "")}
