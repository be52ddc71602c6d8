"""`json.dumps(doc, indent=2)`, the same text, written faster: the standard library's indented
encoder is pure Python, and a container met again at the same depth is written once here
(traces share what repeats). What `json.dumps` refuses is handed to it: the error is its own."""
from __future__ import annotations

import itertools
import json
from collections import OrderedDict
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


class Carried:
    """The texts of the largest containers of the items written before (a list's items written
    one by one with one indent and margin: `ListWriter`), kept with the containers so that their
    ids name them: the traces of pods that share a cycle share their filterAll, and it is written
    once. The `KEPT` most recently written or met again (at an item's first two levels); the
    items' containers are not changed once written."""

    KEPT = 256
    MIN_CHARS = 4096        # smaller containers are quicker written again than kept

    def __init__(self) -> None:
        self.texts: OrderedDict[tuple[int, int], tuple[Any, str]] = OrderedDict()

    def seed(self) -> dict[tuple[int, int], str]:
        return {key: text for key, (_, text) in self.texts.items()}

    def take(self, doc: Any, writer: "_Writer", seeded: int) -> None:
        """Keep the large containers `writer` wrote itself (its memo after the `seeded` ones),
        and count the kept ones `doc` met again as recent."""
        texts = self.texts
        for v in _children(doc):
            if (id(v), 1) in texts:
                texts.move_to_end((id(v), 1))
                continue
            for w in _children(v):
                if (id(w), 2) in texts:
                    texts.move_to_end((id(w), 2))
        for (key, text), held in zip(itertools.islice(writer.memo.items(), seeded, None), writer.held):
            if key[1] and len(text) >= self.MIN_CHARS:      # (the item itself is new each time)
                texts[key] = (held, text)
        while len(texts) > self.KEPT:
            texts.popitem(last=False)


def _children(v: Any) -> Any:
    t = type(v)
    return [c for c in (v.values() if t is dict else v if t is list else ()) if type(c) is dict or type(c) is list]


def dumps_indented(doc: Any, margin: str = "", carried: Carried | None = None) -> str:
    """`json.dumps(doc, indent=2)` with `margin` after every newline (the text of an item
    nested in a document written piece by piece); with `carried`, the large containers written
    in its earlier items reused (see `Carried`)."""
    try:
        if carried is None:
            return _Writer(margin).value(doc, 0)
        writer = _Writer(margin, carried.seed())
        seeded = len(writer.memo)
        text = writer.value(doc, 0)
        carried.take(doc, writer, seeded)
        return text
    except (_Refused, RecursionError):
        return json.dumps(doc, indent=2).replace("\n", "\n" + margin)


class _Writer:
    def __init__(self, margin: str, memo: dict[tuple[int, int], str] | None = None) -> None:
        self.newlines = ["\n" + margin]           # per depth: a newline and the indentation
        self.memo: dict[tuple[int, int], str] = memo if memo is not None else {}
        self.held: list[Any] = []                 # containers whose id this writer put in `memo`: kept alive

    def _newline(self, depth: int) -> str:
        lines = self.newlines
        while len(lines) <= depth:
            lines.append(lines[-1] + "  ")
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
