"""Fields of many objects at once, read in C (`map` over `operator` callables, a tenth of a Python
loop's cost): the fast paths of the passes over a dump. A column is read only from mappings; anything
else raises NotPlain and the caller takes its exact path, which says what is wrong.
"""
from __future__ import annotations

from itertools import compress, groupby, repeat
from operator import attrgetter, eq, itemgetter, methodcaller
from typing import Any, Iterable

from kexplain.apimachinery.stored_pods import StoredPod

_FIRST = itemgetter(0)
_KIND = methodcaller("get", "kind")


class NotPlain(Exception):
    """A value of the column is not a mapping (or an object not a pair): ask object by object."""


def _column(getter: Any, values: Iterable[Any]) -> list[Any]:
    try:
        return list(map(getter, values))
    except (AttributeError, TypeError, KeyError, IndexError):
        raise NotPlain from None


def objects(pairs: Iterable[tuple[Any, Any]]) -> list[Any]:
    """The objects of (object, source) pairs."""
    return _column(_FIRST, pairs)


def kinds(objs: Iterable[Any]) -> list[Any]:
    """The objects' kinds; a run of a dump's `StoredPod`s answered without asking each (every one a Pod:
    `Rows.read`), as a list of them that is no `Dump` (a reader's own) holds them by the 100,000."""
    out: list[Any] = []
    for of_type, run in groupby(objs, type):
        if of_type is StoredPod:
            out += repeat("Pod", sum(1 for _ in run))
        else:
            out += _column(_KIND, run)
    return out


class Rows:
    """Each object's kind, apiVersion, name, namespace and whether it is stored, read in one pass (each
    object's memory touched once); `plain` False: not filled, ask object by object. What the passes
    ask of the kinds is indexed once (`held_kinds`, `positions`): a kind the dump does not hold is
    answered without a pass over its 150,000 rows, and one it holds with one pass, however often asked."""

    __slots__ = ("kinds", "api_versions", "names", "namespaces", "stored", "plain", "_pairs", "_kinds", "_at")

    def __init__(self, kinds: list[Any], api_versions: list[Any], names: list[Any], namespaces: list[Any],
                 stored: list[bool], plain: bool) -> None:
        self.kinds, self.api_versions, self.names, self.namespaces = kinds, api_versions, names, namespaces
        self.stored, self.plain = stored, plain
        self._pairs: set[tuple[Any, Any]] | None = None
        self._kinds: frozenset[Any] | None = None
        self._at: dict[Any, list[int]] = {}

    def pairs(self) -> set[tuple[Any, Any]]:
        """The distinct (apiVersion, kind) of the objects (worked out once); TypeError when one
        is no key."""
        if self._pairs is None:
            self._pairs = set(zip(self.api_versions, self.kinds))
        return self._pairs

    def held_kinds(self) -> frozenset[Any]:
        """The distinct kinds of the objects (of `pairs`, worked out once); TypeError when one is no key."""
        if self._kinds is None:
            self._kinds = frozenset(kind for _, kind in self.pairs())
        return self._kinds

    def positions(self, kind: Any) -> list[int]:
        """The positions of the objects of `kind`, in order (one pass per kind held, none for another)."""
        found = self._at.get(kind)
        if found is None:
            try:
                held = kind in self.held_kinds()
            except TypeError:       # (a kind that is no key: every row compared)
                held = True
            found = self._at[kind] = list(compress(range(len(self.kinds)), map(eq, self.kinds, repeat(kind)))) \
                if held else []
        return found

    @classmethod
    def of(cls, pairs: Iterable[tuple[Any, Any]]) -> "Rows":
        """The rows of (object, source) pairs (any kind as it is); not plain unless each is an object (`read`)."""
        rows = cls.read(map(_FIRST, pairs), checked=False)
        return rows if rows is not None else cls([], [], [], [], [], False)

    @classmethod
    def read(cls, items: Iterable[Any], checked: bool = True) -> "Rows | None":
        """The rows of objects (mappings with mappings as metadata, or a dump's `StoredPod`s) in one pass, else None.
        `checked`: also None when one names no kind or is a list; not plain (and read on) for other metadata."""
        kinds: list[Any] = []
        api_versions: list[Any] = []
        names: list[Any] = []
        namespaces: list[Any] = []
        stored: list[bool] = []
        plain = True            # (every item's metadata a mapping: else the rows are not filled)
        for of_type, run in groupby(items, type):      # (runs of one type: a dump's views read at once, in C)
            if of_type is StoredPod:
                if plain:           # (pods read as views: their metadata objects)
                    metas = list(map(attrgetter("view.metadata"), run))
                    kinds += repeat("Pod", len(metas))
                    api_versions += repeat("v1", len(metas))
                    names += map(attrgetter("name"), metas)
                    namespaces += map(attrgetter("namespace"), metas)
                    stored += map(bool, map(attrgetter("resourceVersion"), metas))     # (`StoredPod.stored`)
                continue
            if of_type is not dict:
                return None
            for item in run:
                kind = item.get("kind")
                if checked and (type(kind) is not str or not kind or (kind.endswith("List") and (
                        kind == "List" or isinstance(item.get("items"), list)))):
                    return None
                if plain:
                    meta = item.get("metadata")
                    if type(meta) is not dict:
                        if not checked:
                            return None
                        plain = False
                        continue
                    kinds.append(kind)
                    api_versions.append(item.get("apiVersion"))
                    names.append(meta.get("name"))
                    namespaces.append(meta.get("namespace"))
                    stored.append(bool(meta.get("resourceVersion")))
        return cls(kinds, api_versions, names, namespaces, stored, True) if plain else cls([], [], [], [], [], False)

    def __len__(self) -> int:
        return len(self.kinds)

    def taken(self, keep: list[bool]) -> "Rows":
        """The rows of the objects `keep` says, in order."""
        return Rows(*(list(compress(column, keep)) for column in self._columns()), self.plain)

    def replaced(self, at: list[int], items: list[Any]) -> "Rows | None":
        """These rows with those at positions `at` read of `items` instead (one for each, in order: objects
        put in place of a dump's); None when one is not read as an object (`read`)."""
        if not at:
            return self
        fresh = Rows.read(items, checked=False)
        if fresh is None or not fresh.plain or not self.plain:
            return None
        columns = [list(column) for column in self._columns()]
        for column, values in zip(columns, fresh._columns()):
            for i, value in zip(at, values):
                column[i] = value
        return Rows(*columns, True)

    def __add__(self, other: "Rows") -> "Rows":
        return Rows(*(a + b for a, b in zip(self._columns(), other._columns())), self.plain and other.plain)

    def _columns(self) -> tuple[list[Any], ...]:
        return self.kinds, self.api_versions, self.names, self.namespaces, self.stored


class Dump(list):  # type: ignore[type-arg]
    """A dump's (object, source) pairs with their `Rows`, so each pass over 150,000 objects asks the rows;
    never changed in place (its rows would no longer be its objects')."""

    __slots__ = ("rows",)

    def __init__(self, pairs: Iterable[tuple[Any, Any]], rows: Rows | None = None) -> None:
        super().__init__(pairs)
        self.rows = rows if rows is not None else Rows.of(self)

    def same(self) -> "Dump":
        """A new list of the same objects, with the same rows."""
        return Dump(self, self.rows)

    def taken(self, keep: list[bool]) -> "Dump":
        """The objects `keep` says, in order, with their rows."""
        return Dump(compress(self, keep), self.rows.taken(keep))


def of_kind(pairs: list[Any], rows: Rows, kind: str) -> list[Any]:
    """The pairs whose row is of `kind`, in order (chosen in C: no Python code per object; `Rows.positions`)."""
    return list(map(pairs.__getitem__, rows.positions(kind)))


def holds(rows: Rows, kinds: frozenset[str]) -> bool:
    """Whether an object of `rows` is of one of `kinds` (`Rows.held_kinds`: no pass once indexed)."""
    try:
        return not rows.held_kinds().isdisjoint(kinds)
    except TypeError:       # (a kind that is no key: each asked)
        return any(type(kind) is str and kind in kinds for kind in rows.kinds)


def rows_of(pairs: Any) -> Rows | None:
    """The rows of a `Dump` (plain ones), None for any other list."""
    if type(pairs) is Dump and pairs.rows.plain and len(pairs.rows) == len(pairs):
        return pairs.rows
    return None


class DumpItems(list):  # type: ignore[type-arg]
    """A dump List's items with their `Rows`, read in the pass that decoded them."""

    __slots__ = ("rows",)

    def __init__(self, items: list[Any], rows: Rows) -> None:
        super().__init__(items)
        self.rows = rows
