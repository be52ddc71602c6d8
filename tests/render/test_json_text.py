"""dumps_indented writes exactly what json.dumps(indent=2) writes, faster."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kexplain.render.json_text import Carried, _Writer, dumps_indented

_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
_keys = st.text() | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False)
_docs = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                     | st.dictionaries(_keys, inner, max_size=4), max_leaves=30)


@settings(max_examples=400, deadline=None)
@given(_docs, st.sampled_from(["", "    "]))
def test_same_text_as_json_dumps(doc: object, margin: str) -> None:
    shared = [doc, {"again": doc, "twice": [doc, doc]}]       # containers met again, at other depths too
    assert dumps_indented(shared, margin=margin) == json.dumps(shared, indent=2).replace("\n", "\n" + margin)


class Opaque:
    pass


@pytest.mark.parametrize("doc", [[Opaque()], {Opaque(): 1}, {"a": {1j: 2}}])
def test_what_json_refuses_it_refuses_in_the_same_words(doc: object) -> None:
    with pytest.raises(TypeError) as ours:
        dumps_indented(doc)
    with pytest.raises(TypeError) as theirs:
        json.dumps(doc, indent=2)
    assert str(ours.value) == str(theirs.value)


def test_a_cycle_is_json_s_error() -> None:
    loop: list = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        dumps_indented(loop)


def _trace(name: str, filter_all: dict) -> dict:
    return {"pod": {"name": name}, "search": {"order": list(filter_all)}, "filterAll": filter_all}


def test_items_written_with_carried_texts_are_json_dumps_and_write_a_shared_container_once(monkeypatch) -> None:
    shared = {f"node-{i:04d}": {"NodeAffinity": {"code": "Unschedulable", "reasons": ["no"]}} for i in range(300)}
    other = {f"node-{i:04d}": {"TaintToleration": {"code": "Success"}} for i in range(300)}
    items = [_trace("a", shared), _trace("b", other), _trace("c", shared), _trace("d", shared)]
    written: list[int] = []
    real = _Writer._dict
    monkeypatch.setattr(_Writer, "_dict", lambda self, m, d: written.append(id(m)) or real(self, m, d))
    carried = Carried()
    texts = [dumps_indented(doc, margin="    ", carried=carried) for doc in items]
    assert texts == [json.dumps(doc, indent=2).replace("\n", "\n    ") for doc in items]
    assert written.count(id(shared)) == 1 and written.count(id(other)) == 1


def test_carried_texts_keep_the_most_recent_only(monkeypatch) -> None:
    monkeypatch.setattr(Carried, "KEPT", 3)
    monkeypatch.setattr(Carried, "MIN_CHARS", 1)
    carried = Carried()
    first, second, third = ({"k": [i] * 5} for i in range(3))
    for doc in ({"x": first}, {"x": second}, {"x": first}, {"x": third}):
        dumps_indented(doc, carried=carried)
    kept = [held for held, _ in carried.texts.values()]
    assert not any(h is second for h in kept) and any(h is first for h in kept)    # first met again: kept


@pytest.mark.parametrize("doc,in_c", [({"a": [1, 2.5, "é\u2028", None, True], "b": {}, "c": [[], {"d": -0.0}]}, True),
                                      ({"a": [1, float("nan")], "b": {"c": float("inf")}}, False)])
def test_a_document_is_written_by_the_c_encoder_and_indented_by_msgspec_unless_it_is_not_json(
        monkeypatch, doc: object, in_c: bool) -> None:
    written: list[int] = []
    real = _Writer.value
    monkeypatch.setattr(_Writer, "value", lambda self, v, d: written.append(d) or real(self, v, d))
    for margin in ("", "    "):
        assert dumps_indented(doc, margin=margin) == json.dumps(doc, indent=2).replace("\n", "\n" + margin)
    assert (written == []) == in_c
