"""`json.dumps(doc, indent=2)`, the same text, written faster: the standard library's indented
encoder is pure Python, and a container met again at the same depth is written once here
(traces share what repeats). What `json.dumps` refuses is handed to it: the error is its own."""
from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii
from typing import Any

_INFINITY = float("inf")


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == _INFINITY:
        return "Infinity"
    if value == -_INFINITY:
        return "-Infinity"
    return float.__repr__(value)


class _Refused(Exception):
    """A value this writer leaves to `json.dumps` (which then says what is wrong with it)."""


def _key(key: Any) -> str:
    if isinstance(key, str):
        return encode_basestring_ascii(key)
    if key is True:
        return '"true"'
    if key is False:
        return '"false"'
    if key is None:
        return '"null"'
    if isinstance(key, int):
        return encode_basestring_ascii(int.__repr__(key))
    if isinstance(key, float):
        return encode_basestring_ascii(_float(key))
    raise _Refused


def dumps_indented(doc: Any, indent: int = 2, margin: str = "") -> str:
    """`json.dumps(doc, indent=indent)` with `margin` after every newline (the text of an item
    nested in a document written piece by piece)."""
    try:
        return _Writer(" " * indent, margin).value(doc, 0)
    except (_Refused, RecursionError):
        return json.dumps(doc, indent=indent).replace("\n", "\n" + margin)


class _Writer:
    def __init__(self, step: str, margin: str) -> None:
        self.step = step
        self.newlines = ["\n" + margin]           # per depth: a newline and the indentation
        self.memo: dict[tuple[int, int], str] = {}
        self.held: list[Any] = []                 # containers whose id is in `memo`: kept alive

    def _newline(self, depth: int) -> str:
        lines = self.newlines
        while len(lines) <= depth:
            lines.append(lines[-1] + self.step)
        return lines[depth]

    def value(self, v: Any, depth: int) -> str:
        t = type(v)
        if t is dict or t is list:          # containers first: scalars mostly come through `_values`
            key = (id(v), depth)
            text = self.memo.get(key)
            if text is None:
                text = self._dict(v, depth) if t is dict else self._list(v, depth)
                self.memo[key] = text
                self.held.append(v)
            return text
        if isinstance(v, str):
            return encode_basestring_ascii(v)
        if v is None:
            return "null"
        if v is True:
            return "true"
        if v is False:
            return "false"
        if isinstance(v, int):
            return int.__repr__(v)
        if isinstance(v, float):
            return _float(v)
        if isinstance(v, (list, tuple, dict)):
            key = (id(v), depth)
            text = self.memo.get(key)
            if text is None:
                text = self._dict(v, depth) if isinstance(v, dict) else self._list(v, depth)
                self.memo[key] = text
                self.held.append(v)
            return text
        raise _Refused

    def _list(self, items: list | tuple, depth: int) -> str:
        if not items:
            return "[]"
        inner = self._newline(depth + 1)
        return "[" + inner + ("," + inner).join(self._values(items, depth + 1)) + self._newline(depth) + "]"

    def _dict(self, mapping: dict, depth: int) -> str:
        if not mapping:
            return "{}"
        inner = self._newline(depth + 1)
        parts: list[str] = []
        append, value, below = parts.append, self.value, depth + 1
        for k, v in mapping.items():        # the common scalars without a call each
            k = encode_basestring_ascii(k) if type(k) is str else _key(k)
            t = type(v)
            if t is str:
                append(k + ": " + encode_basestring_ascii(v))
            elif t is int:
                append(k + ": " + int.__repr__(v))
            else:
                append(k + ": " + value(v, below))
        return "{" + inner + ("," + inner).join(parts) + self._newline(depth) + "}"

    def _values(self, values: Any, depth: int) -> list[str]:
        """`value` of each, the common scalars without a call each (a trace holds tens of
        thousands of them)."""
        out = []
        value = self.value
        for v in values:
            t = type(v)
            if t is str:
                out.append(encode_basestring_ascii(v))
            elif t is int:
                out.append(int.__repr__(v))
            else:
                out.append(value(v, depth))
        return out
