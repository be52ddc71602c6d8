"""Node-local verdicts and scores kept across the cycles of a sequence of pods.

Placing a workload's copies runs a cycle per copy, and each cycle filters and scores up to
thousands of nodes. A plugin that declares itself `node_local` (its Filter status and raw
Score on a node depend only on the pod, its own configuration and that node's NodeInfo, and on
nothing a bind changes elsewhere) gives the same answer for the same pod on the same NodeInfo:
a bind replaces only the NodeInfo of the node it binds to (`Snapshot.with_pod_bound`), so for
every other node the answer of an earlier cycle is looked up instead of computed again.

The memo lives on the snapshot (`Snapshot.cached`) and is handed on by binds, so it is
dropped with the snapshot's other caches whenever anything but a bind changes the cluster
(`with_objects`, `with_pods_replaced`). It is keyed by the plugin as configured (its args) and
the pod as the plugins read it (`kexplain.model.shapes.plugin_key`: the copies of a workload
are one key); each answer is kept with the NodeInfo it was computed for, and only for NodeInfos of
the snapshot (never for a what-if's clone). Normalization, and every plugin that is not node
local, runs each cycle as before.
"""
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


def memoized(table: dict[int, tuple["NodeInfo", T]], snapshot: "Snapshot", nodes: Sequence["NodeInfo"],
             compute: Callable[[Sequence["NodeInfo"]], list[T]]) -> list[T]:
    """`compute(nodes)`, with the answers `table` holds for these very NodeInfos looked up and
    only the others computed (in their order), then kept when they are the snapshot's.

    A NodeInfo's id names it alone while the table holds it (its entry keeps it alive, so no
    other object has that id): the look-ups are made in C, by id, with no identity check."""
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
