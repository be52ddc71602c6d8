"""dumps_indented writes exactly what json.dumps(indent=2) writes, faster."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kexplain.render.json_text import dumps_indented

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
