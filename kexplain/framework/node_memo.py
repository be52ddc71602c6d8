"""Node-local verdicts and scores kept across the cycles of a workload's copies (a bind changes one NodeInfo)."""
from __future__ import annotations

from itertools import compress, repeat
from operator import is_, is_not, itemgetter
from typing import TYPE_CHECKING, Any, Callable, Hashable, Sequence

from kexplain.model.snapshot import unchanged_by_bind

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.nodeinfo import NodeInfo
    from kexplain.model.snapshot import Snapshot

MEMO_KEY = "framework/node-local"
MEMBERS_KEY = "framework/node-ids"     # the ids of a snapshot's own NodeInfos (it holds them)
MAX_KEYS = 256           # (plugin, profile, pod) keys kept; the least recently used goes first
T = Any
_ANSWER = itemgetter(1)         # of a table's (NodeInfo, answer)
FEW = 8                 # nodes whose membership is checked one by one


class NodeMemo:
    """Per key, NodeInfo identity -> (that NodeInfo, the answer computed on it)."""

    def __init__(self) -> None:
        self._by_key: dict[Hashable, dict[int, tuple["NodeInfo", Any]]] = {}
        self._configured: dict[tuple[int, ...], tuple[Any, str]] = {}
        # Filter statuses made one object per (code, reasons, plugin) for every framework over this
        # snapshot and those its binds make (`runtime._interned`): the verdicts a search column
        # holds are then a few objects, however many copies' cycles computed them
        self.statuses: dict[tuple[int, tuple[str, ...], str], Any] = {}

    def configured(self, plugin: Any, *also: Any) -> str:
        """The text naming a plugin as configured (its args, and `also`: a Kubernetes version), made
        once for the frameworks of a workload's copies (each builds its plugins anew, on the same args)."""
        held = (plugin.args, *also)
        key = (id(type(plugin)), *map(id, held))
        found = self._configured.get(key)
        if found is None or any(map(is_not, found[0], held)):
            if len(self._configured) >= MAX_KEYS:
                self._configured.clear()
            found = self._configured[key] = (held, repr(held))
        return found[1]

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
    ids = list(map(id, nodes))
    if not any(found):              # (none: a pod's first cycle)
        answers = list(compute(nodes))
        _keep(table, snapshot, ids, nodes, answers)
        return answers
    # (some: a bind replaced a few NodeInfos since; the rest read in C)
    missing = list(compress(range(len(found)), map(is_, found, repeat(None))))
    todo = [nodes[k] for k in missing]
    answers = compute(todo)
    for k, ni, answer in zip(missing, todo, answers):
        found[k] = (ni, answer)
    _keep(table, snapshot, [ids[k] for k in missing], todo, answers)
    return list(map(_ANSWER, found))


def keep(table: dict[int, tuple["NodeInfo", T]], snapshot: "Snapshot", nodes: Sequence["NodeInfo"],
         answers: Sequence[T]) -> None:
    """Answers worked out another way (filterAll's columns give a run's verdicts) put in `table`."""
    _keep(table, snapshot, list(map(id, nodes)), nodes, answers)


def _keep(table: dict[int, tuple["NodeInfo", T]], snapshot: "Snapshot", ids: list[int],
          nodes: Sequence["NodeInfo"], answers: Sequence[T]) -> None:
    """The answers of the nodes that are the snapshot's own (not a copy a plugin changes, as
    preemption's dry run does), put in `table`; in one step when all are."""
    if len(table) > 2 * len(snapshot.node_infos):      # mostly NodeInfos binds replaced since
        table.clear()
    if len(nodes) <= FEW:       # (a bind's one new NodeInfo: looked up by name, not by a set of all)
        for key, ni, answer in zip(ids, nodes, answers):
            if snapshot.get(ni.name) is ni:
                table[key] = (ni, answer)
        return
    members = snapshot.cached(MEMBERS_KEY, lambda: frozenset(map(id, snapshot.node_infos)))
    if members.issuperset(ids):
        table.update(zip(ids, zip(nodes, answers)))
        return
    for key, ni, answer in zip(ids, nodes, answers):
        if key in members:
            table[key] = (ni, answer)
