"""The page's data, packed: every value that repeats written once (`{"t": table, "r": root}`,
references `REF` + base-36 index), so a large cluster's page stays a small multiple of its
trace; page.js's `unpack` rebuilds the document. Format: docs/internals/render.md."""
from __future__ import annotations

import json
from typing import Any

REF = "\u00a7"          # the section sign: a string starting with it is a reference
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_REF_COST = 7           # the size of a reference as written, roughly: "§" and up to 3 digits, quoted


def _base36(n: int) -> str:
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = _DIGITS[r] + out
        if not n:
            return out


class _Interner:
    """Numbers every distinct string, list and mapping of a document, children first, and
    counts how often each is written in the packed document: once per distinct parent that
    holds it (a shared parent is written once, so its children are counted once)."""

    def __init__(self) -> None:
        self.ids: dict[Any, int] = {}
        self.values: list[Any] = []       # per id: the value, with children as ids (or scalars)
        self.sizes: list[int] = []        # per id: its size written out in full, roughly
        self.kinds: list[str] = []

    def key(self, value: Any) -> tuple:
        """A hashable key of the value: ("#", id), or for a scalar ("=", its type, itself) (1,
        1.0 and True are equal in Python, and must stay apart)."""
        if isinstance(value, str):
            return ("#", self._add(("s", value), value, "s", len(value) + 2))
        if isinstance(value, dict):
            items = tuple((k, self.key(v)) for k, v in value.items())
            size = 2 + sum(len(k) + 4 + self._size(v) for k, v in items)
            return ("#", self._add(("d", items), items, "d", size))
        if isinstance(value, (list, tuple)):
            items_l = tuple(self.key(v) for v in value)
            size = 2 + sum(self._size(v) + 1 for v in items_l)
            return ("#", self._add(("l", items_l), items_l, "l", size))
        if value is None or isinstance(value, (bool, int, float)):
            return ("=", type(value).__name__, value)
        raise TypeError(f"cannot pack a {type(value).__name__}")

    def _size(self, key: tuple) -> int:
        if key[0] == "#":
            return self.sizes[key[1]]
        return len(json.dumps(key[2]))

    def _add(self, key: Any, value: Any, kind: str, size: int) -> int:
        found = self.ids.get(key)
        if found is not None:
            return found
        n = self.ids[key] = len(self.values)
        self.values.append(value)
        self.sizes.append(size)
        self.kinds.append(kind)
        return n

    def uses(self, root: Any) -> list[int]:
        """How many times each value is written: its occurrences in the distinct values."""
        counts = [0] * len(self.values)
        for kind, value in zip(self.kinds, self.values):
            if kind == "l":
                for k in value:
                    if k[0] == "#":
                        counts[k[1]] += 1
            elif kind == "d":
                for _, k in value:
                    if k[0] == "#":
                        counts[k[1]] += 1
        if root[0] == "#":
            counts[root[1]] += 1
        return counts


def pack(doc: Any) -> dict[str, Any]:
    """`doc` (JSON data) as `{"t": table, "r": root}`, each repeated value written once."""
    interner = _Interner()
    root = interner.key(doc)
    uses = interner.uses(root)
    shared: dict[int, int] = {}         # id -> table index
    for n, (count, size) in enumerate(zip(uses, interner.sizes)):
        if count > 1 and size > _REF_COST + 1:
            shared[n] = len(shared)
    refs = [REF + _base36(i) for i in range(len(shared))]

    def written(key: tuple) -> Any:
        if key[0] == "=":
            return key[2]
        n = key[1]
        if n in shared:
            return refs[shared[n]]
        return build(n)

    def build(n: int) -> Any:
        kind, value = interner.kinds[n], interner.values[n]
        if kind == "s":
            return REF + value if value.startswith(REF) else value
        if kind == "l":
            return [written(k) for k in value]
        return {k: written(v) for k, v in value}

    table = [build(n) for n in shared]     # ids ascend: children before parents
    return {"t": table, "r": written(root)}


def unpack(packed: dict[str, Any]) -> Any:
    """The document `pack` was given (what page.js does in the browser; for the tests)."""
    table: list[Any] = []

    def resolve(value: Any) -> Any:
        if isinstance(value, str):
            if value.startswith(REF):
                rest = value[1:]
                return rest if rest.startswith(REF) else table[int(rest, 36)]
            return value
        if isinstance(value, list):
            return [resolve(v) for v in value]
        if isinstance(value, dict):
            return {k: resolve(v) for k, v in value.items()}
        return value

    for entry in packed["t"]:
        table.append(resolve(entry))
    return resolve(packed["r"])
