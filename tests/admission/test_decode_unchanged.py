"""`check_decodes` asks a compiled yes/no walk first (`decode._unchanged`) and walks with `_check`
only what it says no to: its yes must mean that `_check` finds nothing wrong and changes
nothing. Asked of every object of the fixtures, and of each with one value replaced, at every
place, by values `_check` refuses, converts or takes as they are."""
from __future__ import annotations

import copy
import datetime
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from kexplain.admission import decode
from kexplain.admission.decode import SCHEMAS, check_decodes
from kexplain.errors import InputError, Source

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


class _Text(str):
    """A string of another type (what `_check` takes and the yes/no walk does not)."""


VARIANTS: list[Any] = [
    None, 0, 3, -1, 1.0, 2.5, True, "", "x", "2Gi", "1.5", "12e", "-1", _Text("x"),
    "2026-01-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-01-01", datetime.datetime(2026, 1, 1),
    datetime.date(2026, 1, 1), [], ["a"], [None], [1.0], [{"a": None}], {}, {"a": "b"}, {"a": None},
    {"a": 1.0}, {1: "b"},
]


def _objects() -> list[dict]:
    found = []
    for path in sorted(FIXTURES.rglob("*.yaml")):
        try:
            docs = list(yaml.safe_load_all(path.read_text()))
        except yaml.YAMLError:
            continue
        for doc in docs:
            items = doc.get("items") if isinstance(doc, dict) and isinstance(doc.get("items"), list) else [doc]
            found += [o for o in items if isinstance(o, dict) and o.get("kind") in SCHEMAS
                      and o["kind"] not in decode.DRA_KINDS]
    return found


def _places(value: Any, at: tuple = ()) -> Iterator[tuple]:
    """Every place in `value` (a key of a mapping, an index of a list), as a path."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield at + (key,)
            yield from _places(item, at + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield at + (i,)
            yield from _places(item, at + (i,))


def _with(obj: dict, path: tuple, value: Any) -> dict:
    obj = copy.deepcopy(obj)
    here: Any = obj
    for part in path[:-1]:
        here = here[part]
    here[path[-1]] = copy.deepcopy(value)
    return obj


def _typed(value: Any) -> Any:
    """`value` with the type of each part: equal only when `_check` changed nothing."""
    if isinstance(value, dict):
        return ("dict", sorted(((type(k).__name__, str(k)), _typed(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("list", [_typed(v) for v in value])
    return (type(value).__name__, repr(value))


def _says(obj: dict) -> tuple[bool, bool]:
    """(what the yes/no walk says of `obj`, whether `_check` takes it unchanged)."""
    unchanged = decode._unchanged(SCHEMAS[obj["kind"]])(obj)
    checked = copy.deepcopy(obj)
    try:
        decode._check(checked, SCHEMAS[obj["kind"]], "", checked, Source("t"))
    except InputError:
        return unchanged, False
    return unchanged, _typed(checked) == _typed(obj)


OBJECTS = _objects()
PER_KIND = 12           # objects of each kind mutated (the fixtures repeat their shapes)


def test_the_fixtures_hold_objects_of_many_kinds():
    assert {"Node", "Pod", "PersistentVolumeClaim", "StorageClass", "PriorityClass"} <= {o["kind"] for o in OBJECTS}


def test_written_objects_are_taken_at_a_glance():
    """The yes/no walk says yes to the fixtures' objects (not a walk that says no to all)."""
    said = [_says(o) for o in OBJECTS]
    assert all(taken for unchanged, taken in said if unchanged)
    assert sum(unchanged for unchanged, _ in said) >= 0.9 * len(said)


@pytest.mark.parametrize("kind", sorted({o["kind"] for o in OBJECTS}))
def test_yes_means_check_finds_nothing_and_changes_nothing(kind):
    """At every place of every object of `kind`, each variant: when the yes/no walk says yes,
    `_check` neither refuses the object nor changes it; and it says no as well as yes."""
    said: list[bool] = []
    for obj in [o for o in OBJECTS if o["kind"] == kind][:PER_KIND]:
        for path in _places(obj):
            if path[0] in ("apiVersion", "kind"):
                continue
            for value in VARIANTS:
                changed = _with(obj, path, value)
                unchanged, taken = _says(changed)
                assert taken or not unchanged, (path, value)
                said.append(unchanged)
    assert any(said) and not all(said)


def test_check_decodes_still_converts_and_refuses():
    """What the yes/no walk says no to is walked by `_check` as before: a YAML float made an
    int, a time that does not parse refused."""
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "generation": 2.0},
            "status": {"capacity": {"cpu": "2"}}}
    check_decodes(node, Source("t"))
    assert type(node["metadata"]["generation"]) is int
    bad = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "creationTimestamp": "2026-02-30T00:00:00Z"}}
    with pytest.raises(InputError):
        check_decodes(bad, Source("t"))
