"""JSON text to Python values exactly as `json.loads` makes them, in about 60% of its time.

Reading a cluster dump is the largest single cost of a run on a stored snapshot (150,000 pods:
130 MB of JSON). msgspec's untyped decoder builds the same values as the standard library on
every text it accepts: equal values of equal types (integers of any size stay integers, where
orjson turns those beyond 64 bits into floats), keys in the order written, a repeated key in its
first place with its last value (`tests/load/test_json_parse.py` compares the two, on chosen
texts and on mutated ones). It also shares equal short key strings, which a dump repeats
150,000 times. What it refuses goes to `json.loads`: every error stays the standard library's
own, and so does every value of its wider grammar (NaN and Infinity, an exponent past a double,
a lone surrogate escape, a byte-order mark before bytes).
"""
from __future__ import annotations

import json
from typing import Any

import msgspec

_decode = msgspec.json.Decoder().decode


def decode_bytes(data: bytes) -> Any:
    """msgspec's value of JSON bytes (what `loads` gives of their text when msgspec accepts it);
    raises whatever msgspec raises (the caller reads the text instead)."""
    return _decode(data)


def loads(text: str | bytes) -> Any:
    """`json.loads(text)`: the same value, or the same exception."""
    try:
        return _decode(text)
    except Exception:    # noqa: BLE001 - anything refused (or a str msgspec cannot encode) is json's to judge
        return json.loads(text)
