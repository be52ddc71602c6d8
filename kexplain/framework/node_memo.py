"""Node-local verdicts and scores kept across the cycles of a workload's copies (a bind changes one NodeInfo)."""
from __future__ import annotations

from operator import itemgetter
from typing import TYPE_CHECKING, Any, Callable, Hashable, Sequence

from kexplain.model.snapshot import unchanged_by_bind

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.nodeinfo import NodeInfo
    from kexplain.model.snapshot import Snapshot

MEMO_KEY = "framework/node-local"
MAX_KEYS = 64            # (plugin, profile, pod) keys kept; the least recently used goes first
T = Any
_ANSWER = itemgetter(1)         # of a table's (NodeInfo, answer)


class NodeMemo:
    """Per key, NodeInfo identity -> (that NodeInfo, the answer computed on it)."""

    def __init__(self) -> None:
        self._by_key: dict[Hashable, dict[int, tuple["NodeInfo", Any]]] = {}

    def table(self, key: Hashable) -> dict[int, tuple["NodeInfo", Any]]:
        tables = self._by_key
        table = tables.pop(key, None)       # put back last: the most recently used
        if table is None:
            table = {}
            while len(tables) >= MAX_KEYS:
                del tables[next(iter(tables))]
        tables[key] = table
        return table


def node_memo(snapshot: "Snapshot") -> NodeMemo:
    return snapshot.cached(MEMO_KEY, NodeMemo, unchanged_by_bind)


def share_node_memo(parent: "Snapshot", child: "Snapshot") -> "Snapshot":
    """`child`, made from `parent`'s NodeInfos with a few replaced or added (a suggestion's changed
    cluster), reading and adding to `parent`'s memo: a node-local answer depends on the pod, the
    plugin's args and that very NodeInfo, never on the snapshot holding it (the tables hold each
    NodeInfo they answer for, so its id names it)."""
    child.cached(MEMO_KEY, lambda: node_memo(parent), unchanged_by_bind)
    return child


def memoized(table: dict[int, tuple["NodeInfo", T]], snapshot: "Snapshot", nodes: Sequence["NodeInfo"],
             compute: Callable[[Sequence["NodeInfo"]], list[T]]) -> list[T]:
    """`compute(nodes)`, with the answers `table` holds for these very NodeInfos looked up by id."""
    found = list(map(table.get, map(id, nodes)))
    if all(found):                  # (every node answered before: the common case of a cycle)
        return list(map(_ANSWER, found))
    out: list[T] = [f[1] if f is not None else None for f in found]
    missing = [k for k, f in enumerate(found) if f is None]
    if missing:
        todo = nodes if len(missing) == len(nodes) else [nodes[k] for k in missing]
        if len(table) > 2 * len(snapshot.node_infos):      # mostly NodeInfos binds replaced since
            table.clear()
        by_name = snapshot.get
        for k, answer in zip(missing, compute(todo)):
            out[k] = answer
            ni = nodes[k]
            if by_name(ni.name) is ni:
                table[id(ni)] = (ni, answer)
    return out
