"""A warm search read by node position. A workload's copies each search thousands of nodes whose verdicts
the node memo already holds (`framework.node_memo`); when every Filter plugin that runs is node-local,
the verdicts of one pod are kept as a column in the snapshot's node order, which a bind changes at one
position, and a cycle's search becomes slices of it: the nodes it visits end at its `need`-th fit."""
from __future__ import annotations

from bisect import bisect_left, insort
from collections import Counter
from itertools import chain, compress, repeat
from operator import attrgetter, is_
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Sequence

from kexplain.framework.status import Code, Status
from kexplain.model.snapshot import unchanged_by_bind

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.nodeinfo import NodeInfo
    from kexplain.model.pod import PodInfo
    from kexplain.model.snapshot import Snapshot

COLUMNS_KEY = "framework/search-columns"
NAMES_KEY = "framework/node-names"
COLUMNS_KEPT = 8        # pods whose columns a snapshot carries through its binds
MIN_BATCH = 32          # node-local fits the later plugins judge at a time, at least
Compute = Callable[[list["NodeInfo"]], list[Status]]


class Column:
    """Per position of a snapshot's nodes, one pod's Filter verdict (None: not known yet, `unknown`), and
    each distinct verdict (they are shared objects) with its positions in order. Never changed in place:
    the snapshots a bind makes share it until one of them fills a position."""

    __slots__ = ("verdicts", "unknown", "spots")

    def __init__(self, verdicts: list[Status | None], unknown: set[int]) -> None:
        self.verdicts = verdicts
        self.unknown = unknown
        self.spots: dict[int, tuple[Status, list[int]]] = {}
        for p, v in enumerate(verdicts):
            if v is not None:
                self.spots.setdefault(id(v), (v, []))[1].append(p)

    @classmethod
    def of(cls, table: dict[int, tuple["NodeInfo", Any]], infos: Sequence["NodeInfo"]) -> "Column":
        """What the node memo's table holds for these very NodeInfos."""
        found = list(map(table.get, map(id, infos)))
        return cls([None if f is None else f[1] for f in found],
                   set(compress(range(len(found)), map(is_, found, repeat(None)))))

    def without(self, position: int) -> "Column":
        """This column with the verdict at `position` unknown (a bind replaced its NodeInfo)."""
        out = Column.__new__(Column)
        out.verdicts, out.spots = self.verdicts, self.spots
        out.unknown = self.unknown | {position}
        return out

    def filled(self, answers: dict[int, Status]) -> "Column":
        """A copy with these positions' verdicts known."""
        out = Column.__new__(Column)
        out.verdicts = list(self.verdicts)
        out.unknown = self.unknown - answers.keys()
        spots: dict[int, tuple[Status, list[int]]] = dict(self.spots)
        copied: set[int] = set()

        def where(verdict: Status) -> list[int]:      # its positions, this column's own list
            if id(verdict) not in copied:
                copied.add(id(verdict))
                spots[id(verdict)] = (verdict, list(spots[id(verdict)][1]) if id(verdict) in spots else [])
            return spots[id(verdict)][1]

        for p, verdict in answers.items():
            old = out.verdicts[p]
            if old is not None:
                _drop(where(old), p)
            insort(where(verdict), p)
            out.verdicts[p] = verdict
        out.spots = {key: spot for key, spot in spots.items() if spot[1]}
        return out

    @property
    def fits(self) -> list[int]:
        """The positions whose verdict is Success, in order (one shared Success, as a rule)."""
        found = [where for verdict, where in self.spots.values() if verdict.code is Code.SUCCESS]
        return found[0] if len(found) == 1 else sorted(chain.from_iterable(found))

    def counts(self, start: int, visited: int) -> list[tuple[Status, int]]:
        """Each distinct verdict of the `visited` positions from `start` (wrapping), and how many have it."""
        end, n = start + visited, len(self.verdicts)
        out = []
        for verdict, where in self.spots.values():
            k = bisect_left(where, end) - bisect_left(where, start) if end <= n else \
                len(where) - bisect_left(where, start) + bisect_left(where, end - n)
            if k:
                out.append((verdict, k))
        return out

    def window(self, start: int, n: int, need: int) -> tuple[int, list[int]]:
        """(how many nodes the round-robin from `start` visits, the positions that fit among them in
        visiting order): up to its `need`-th fit; all `n` when fewer fit."""
        fits = self.fits
        k = bisect_left(fits, start)
        order = fits[k:k + need]
        if len(order) < need:
            order += fits[:min(k, need - len(order))]
        if len(order) < need:
            return n, order
        return (order[-1] - start) % n + 1, order


class Found(NamedTuple):
    """A search read from a column: the nodes it visits from its start, those that fit (positions, in
    visiting order), and the verdicts of the plugins after the node-local ones where they differ."""

    column: Column
    visited: int
    fits: list[int]
    later: dict[int, Status]

    def verdicts(self, start: int) -> list[Status]:
        """The visited nodes' verdicts, in visiting order."""
        out = rotated(self.column.verdicts, start, self.visited)
        n = len(self.column.verdicts)
        for p, verdict in self.later.items():
            out[(p - start) % n] = verdict
        return out

    def counts(self, start: int) -> list[tuple[Status, int]]:
        """Each distinct verdict of the visited nodes and how many have it."""
        counts = self.column.counts(start, self.visited)
        if not self.later:
            return counts
        replaced = Counter(id(self.column.verdicts[p]) for p in self.later)
        out = [(v, k - replaced[id(v)]) for v, k in counts if k > replaced[id(v)]]
        added = Counter(map(id, self.later.values()))
        return out + [(v, added[key]) for key, v in {id(v): v for v in self.later.values()}.items()]


def searched(snapshot: "Snapshot", table: dict[int, tuple["NodeInfo", Any]], start: int, need: int,
             compute: Compute, later: Compute | None = None) -> Found | None:
    """The column of `table`'s pod on `snapshot`, with every verdict the search from `start` reads known
    (`compute`: the node-local Filter verdicts of NodeInfos; `later`: the other plugins', run on the
    node-local fits), the nodes it visits and its fits; None when the memo has not answered for half
    the nodes yet (a pod's first cycle searches as usual)."""
    infos, n = snapshot.node_infos, len(snapshot.node_infos)
    columns = snapshot.cached(COLUMNS_KEY, dict, _carried)
    held = columns.get(id(table))
    if held is not None and held[0] is table:
        col = held[1]
    elif 2 * len(table) < n:
        return None
    else:
        col = Column.of(table, infos)
        if len(columns) >= COLUMNS_KEPT:
            del columns[next(iter(columns))]
    while True:
        visited, fits = col.window(start, n, need if later is None else n)
        pending = [p for p in col.unknown if (p - start) % n < visited]
        if not pending:
            break
        col = col.filled(dict(zip(pending, compute([infos[p] for p in pending]))))
    columns[id(table)] = (table, col)
    return Found(col, visited, fits, {}) if later is None else _judged(col, start, need, later, infos)


def _judged(col: Column, start: int, need: int, later: Compute, infos: Sequence["NodeInfo"]) -> Found:
    """The search when plugins after the node-local ones judge the node-local fits: they run on those,
    in visiting order, a batch at a time, until `need` pass them all (all `n` nodes when fewer do)."""
    n = len(infos)
    _, candidates = col.window(start, n, n)
    fits: list[int] = []
    judged: dict[int, Status] = {}
    done = 0
    while len(fits) < need and done < len(candidates):
        # as many as the pass rate so far says hold the fits still needed, a quarter more
        rate = (len(fits) + 1) / (done + 1)
        batch = candidates[done:done + max(MIN_BATCH, int((need - len(fits)) * 5 / 4 / rate))]
        done += len(batch)
        for p, verdict in zip(batch, later([infos[p] for p in batch])):
            if verdict.code is not Code.SUCCESS:
                judged[p] = verdict
            elif len(fits) < need:
                fits.append(p)
    visited = n if len(fits) < need else (fits[-1] - start) % n + 1
    return Found(col, visited, fits, {p: v for p, v in judged.items() if (p - start) % n < visited})


def _drop(positions: list[int], p: int) -> None:
    k = bisect_left(positions, p)
    if k < len(positions) and positions[k] == p:
        del positions[k]


def names(snapshot: "Snapshot") -> list[str]:
    """The snapshot's node names in its order (a bind changes none)."""
    return snapshot.cached(NAMES_KEY, lambda: list(map(_NAME, snapshot.node_infos)), unchanged_by_bind)


def rotated(column: list[Any], start: int, count: int) -> list[Any]:
    """`count` entries of `column` from `start`, wrapping around."""
    end = start + count
    return column[start:end] if end <= len(column) else column[start:] + column[:end - len(column)]


def _carried(columns: dict[int, tuple[Any, Column]], out: "Snapshot", pod: "PodInfo",
             before: "NodeInfo", after: "NodeInfo") -> dict[int, tuple[Any, Column]]:
    position = out.position(after.name)
    return {key: (table, col.without(position)) for key, (table, col) in columns.items()}


_NAME = attrgetter("name")
