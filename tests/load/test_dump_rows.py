"""A dump's rows (`columns.Rows`) read in the pass that checks its List's items (`plain_items`)
are the rows `Rows.of` reads of the objects loaded, whatever the files: one dump, two dumps, a
dump and a small YAML file, a dump whose item lacks metadata (rows not filled), and a large
JSON List read in parts (`json_list`)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kexplain.apimachinery import columns
from kexplain.load import json_list
from kexplain.load.manifests import DUMP_OBJECTS, load_objects

COLUMNS = ("kinds", "api_versions", "names", "namespaces", "stored", "plain")


def _items(count: int, stored: bool = True, prefix: str = "p") -> list[dict]:
    out = []
    for k in range(count):
        meta = {"name": f"{prefix}{k}", **({"namespace": f"ns{k % 3}"} if k % 4 else {}),
                **({"resourceVersion": str(k + 1)} if stored and k % 5 else {})}
        kind, version = ("Node", "v1") if k % 7 == 0 else ("Deployment", "apps/v1") if k % 11 == 0 else ("Pod", "v1")
        out.append({"apiVersion": version, "kind": kind, "metadata": meta})
    return out


def _write(path: Path, items: list[dict]) -> str:
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return str(path)


def _same_rows(objs: list) -> None:
    assert type(objs) is columns.Dump
    again = columns.Rows.of(list(objs))
    assert {c: getattr(objs.rows, c) for c in COLUMNS} == {c: getattr(again, c) for c in COLUMNS}


def test_one_dump(tmp_path: Path) -> None:
    _same_rows(load_objects([_write(tmp_path / "a.json", _items(DUMP_OBJECTS + 5))]))


def test_two_dumps_and_a_yaml_file(tmp_path: Path) -> None:
    small = tmp_path / "pod.yaml"
    small.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: team}\n---\n"
                     "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n")
    objs = load_objects([_write(tmp_path / "a.json", _items(DUMP_OBJECTS)), str(small),
                         _write(tmp_path / "b.json", _items(40, stored=False, prefix="q"))])
    assert len(objs) == DUMP_OBJECTS + 42
    _same_rows(objs)


def test_an_item_without_metadata_leaves_the_rows_unfilled(tmp_path: Path) -> None:
    items = _items(DUMP_OBJECTS)
    items[10] = {"apiVersion": "v1", "kind": "ConfigMap"}
    objs = load_objects([_write(tmp_path / "a.json", items)])
    _same_rows(objs)
    assert objs.rows.plain is False and columns.rows_of(objs) is None


def test_a_large_list_read_in_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(json_list, "MIN_CHARS", 1000)
    path = _write(tmp_path / "big.json", _items(DUMP_OBJECTS + 100))
    assert json_list.read_file(path) is not None
    _same_rows(load_objects([path]))
