"""`json.dumps(doc, indent=2)`, the same text, written faster: the standard library's indented
encoder is pure Python; a document is written by its C encoder without indent, then indented by
msgspec's formatter (`_formatted`), else (NaN, which is not JSON to msgspec) here, where a container
met again at the same depth is written once (traces share what repeats; items written one by one
keep the texts of the large ones: `Carried`). What `json.dumps` refuses is handed to it: the error
is its own."""
from __future__ import annotations

import json
from collections import OrderedDict
from json.encoder import encode_basestring_ascii
from typing import Any

import msgspec

_INFINITY = float("inf")
_LARGE = 16384         # a piece written as it is, not joined to its neighbours


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
        self.by_key: dict[tuple[int, int], str] = {}      # the same texts, for the writer to read

    def take(self, doc: Any, writer: "_Writer") -> None:
        """Keep the large containers `writer` wrote itself (its memo), and count the kept ones
        `doc` met again as recent."""
        texts, by_key = self.texts, self.by_key
        for v in _children(doc):
            if (id(v), 1) in texts:
                texts.move_to_end((id(v), 1))
                continue
            for w in _children(v):
                if (id(w), 2) in texts:
                    texts.move_to_end((id(w), 2))
        for (key, text), held in zip(writer.memo.items(), writer.held):
            if key[1] and len(text) >= self.MIN_CHARS:      # (the item itself is new each time)
                texts[key] = (held, text)
                by_key[key] = text
        while len(texts) > self.KEPT:
            del by_key[texts.popitem(last=False)[0]]


def _children(v: Any) -> Any:
    t = type(v)
    return [c for c in (v.values() if t is dict else v if t is list else ()) if type(c) is dict or type(c) is list]


def dumps_indented(doc: Any, margin: str = "", carried: Carried | None = None) -> str:
    """`json.dumps(doc, indent=2)` with `margin` after every newline (the text of an item
    nested in a document written piece by piece); with `carried`, the large containers written
    in its earlier items reused (see `Carried`)."""
    try:
        if carried is None:
            text = _formatted(doc)
            if text is not None:
                return text.replace("\n", "\n" + margin) if margin else text
            return _Writer(margin).value(doc, 0)
        writer = _Writer(margin, carried.by_key)
        text = writer.value(doc, 0)
        carried.take(doc, writer)
        return text
    except (_Refused, RecursionError):
        return json.dumps(doc, indent=2).replace("\n", "\n" + margin)


def _formatted(doc: Any) -> str | None:
    """`json.dumps(doc, indent=2)` in C: `json.dumps(doc)` (the one-shot C encoder; its strings
    ASCII, escaped as `json.dumps` escapes them), indented by `msgspec.json.format`, which keeps
    every string and number as written and puts each item on its own line as `indent=2` does
    (3x quicker than `_Writer` on a 15 MB report). None where it cannot: a value `json.dumps`
    refuses (its error then comes from the writer below, as before), NaN or Infinity (not JSON
    to msgspec), nesting too deep."""
    try:
        return msgspec.json.format(json.dumps(doc), indent=2)
    except (TypeError, ValueError, RecursionError, msgspec.MsgspecError):
        return None


def pieces_indented(doc: Any, margin: str = "", carried: Carried | None = None) -> list[str]:
    """`dumps_indented`'s text as pieces to write one after the other: the large texts of
    `doc`'s own keys or elements (a shared trace's filterAll, from `carried`) are not copied
    into one string again (a 2 MB item was five fresh 2 MB copies, and their page faults)."""
    try:
        writer = _Writer(margin, carried.by_key if carried is not None else None)
        pieces = writer.pieces(doc)
        if carried is not None:
            carried.take(doc, writer)
        return pieces
    except (_Refused, RecursionError):
        return [json.dumps(doc, indent=2).replace("\n", "\n" + margin)]


def _coalesced(pieces: list[str]) -> list[str]:
    """`pieces` with each run of small ones joined (fewer writes), the large ones as they are."""
    out: list[str] = []
    run: list[str] = []
    for piece in pieces:
        if len(piece) < _LARGE:
            run.append(piece)
            continue
        if run:
            out.append("".join(run))
            run = []
        out.append(piece)
    if run:
        out.append("".join(run))
    return out


class _Writer:
    def __init__(self, margin: str, carried: dict[tuple[int, int], str] | None = None) -> None:
        self.newlines = ["\n" + margin]           # per depth: a newline and the indentation
        self.memo: dict[tuple[int, int], str] = {}
        self.held: list[Any] = []                 # containers whose id this writer put in `memo`: kept alive
        self.carried = carried if carried is not None else {}     # texts of earlier items (read only)

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
                text = self.carried.get(key)
                if text is not None:
                    return text
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
            text = self.memo.get(key) or self.carried.get(key)
            if text is None:
                text = self._dict(v, depth) if isinstance(v, dict) else self._list(v, depth)
                self.memo[key] = text
                self.held.append(v)
            return text
        raise _Refused

    def pieces(self, v: Any) -> list[str]:
        """`value(v, 0)` as pieces (`pieces_indented`): a non-empty dict's or list's own level
        is not joined, nor memoized (written once, as `value` keeps only what is met again)."""
        t = type(v)
        if t is dict and v:
            return _coalesced(self._dict_pieces(v, 0))
        if t is list and v:
            return _coalesced(self._list_pieces(v, 0))
        return [self.value(v, 0)]

    def _list(self, items: list | tuple, depth: int) -> str:
        if not items:
            return "[]"
        return "".join(self._list_pieces(items, depth))

    def _list_pieces(self, items: list | tuple, depth: int) -> list[str]:
        inner = self._newline(depth + 1)
        return ["[", inner, ("," + inner).join(self._values(items, depth + 1)), self._newline(depth), "]"]

    def _dict(self, mapping: dict, depth: int) -> str:
        if not mapping:
            return "{}"
        return "".join(self._dict_pieces(mapping, depth))

    def _dict_pieces(self, mapping: dict, depth: int) -> list[str]:
        """"{", then each key and its value, then "}": a container's text a piece of its own, so
        that it is copied once, by the join of its parent (or not at all: `pieces`)."""
        inner = self._newline(depth + 1)
        sep = "," + inner
        parts: list[str] = ["{" + inner]
        append, value, below = parts.append, self.value, depth + 1
        for k, v in mapping.items():        # the common scalars without a call each
            k = encode_basestring_ascii(k) if type(k) is str else _key(k)
            t = type(v)
            if t is str:
                append(k + ": " + encode_basestring_ascii(v))
            elif t is int:
                append(k + ": " + int.__repr__(v))
            else:
                append(k + ": ")
                append(value(v, below))
            append(sep)
        parts[-1] = self._newline(depth) + "}"
        return parts

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
