"""The page's data packing: what goes in comes out, value for value and type for type, and a
repetitive trace shrinks."""
from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kexplain.render.html.pack import REF, pack, unpack

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12),
                    st.floats(allow_nan=False, allow_infinity=False),
                    st.text(max_size=12), st.sampled_from([REF, REF + "1", REF + REF + "x", "node-1", "Success"]))
DOCS = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=6),
                                                     st.dictionaries(st.text(max_size=6), inner, max_size=6)),
                    max_leaves=40)


def _typed(value):
    """The value with every scalar tagged by its type: 1, 1.0 and True stay apart."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, value)


@settings(max_examples=300, deadline=None)
@given(DOCS)
def test_round_trip_through_json(doc):
    packed = json.loads(json.dumps(pack(doc), ensure_ascii=False))
    assert _typed(unpack(packed)) == _typed(doc)


def test_equal_scalars_of_other_types_stay_apart():
    doc = {"a": [1, True, 1.0], "b": [1, True, 1.0], "c": [True, 1, 1.0], "d": [True, 1, 1.0]}
    assert _typed(unpack(pack(doc))) == _typed(doc)


def test_strings_that_look_like_references_are_kept():
    doc = [REF + "0", REF + "0", REF, REF + REF, "x" * 20, "x" * 20]
    assert unpack(pack(doc)) == doc


def test_repeated_values_are_written_once():
    verdict = {"code": "UnschedulableAndUnresolvable", "reasons": ["node(s) had untolerated taint(s)"]}
    doc = {"filter": {f"node-{i:04d}": dict(verdict) for i in range(1000)}}
    plain = len(json.dumps(doc))
    packed = pack(doc)
    assert len(packed["t"]) >= 1
    assert len(json.dumps(packed)) < plain / 2
    assert unpack(json.loads(json.dumps(packed))) == doc


def test_a_value_seen_once_is_not_in_the_table():
    doc = {"only": ["once and never again"], "n": 1}
    packed = pack(doc)
    assert packed["t"] == [] and packed["r"] == doc
