"""JSON text to Python values exactly as `json.loads` makes them, in about 60% of its time.

msgspec's untyped decoder builds the same values on every text it accepts (tests/load/test_json_parse.py
compares them); what it refuses goes to `json.loads`, so errors and the wider grammar stay its own.
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
