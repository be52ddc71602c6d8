"""The statuses the disruption controller's sync gives the budgets a drain's fixes change, kept by
what the sync reads: a budget's namespace, name, generation and spec, and the very pods of its
namespace and controllers the fix's index holds. A node's fixes ask the same again (the budget
changes together are the objects each fix made; `drain_fixes.settled`), and so do the drains of
other nodes (the same budget relaxed to the same number, over the cluster's pods as they are),
each a sync over every pod of the namespace otherwise. One per cluster index (`DrainIndex.synced`:
its fixes' indexes read their root's), bounded."""
from __future__ import annotations

from typing import Any, Hashable, Mapping, Optional

from kexplain.controllers.disruption import Statuses, generation, known_status, needs_status
from kexplain.eviction.api import Budget
from kexplain.model.shapes import shape_key

KEPT = 4096         # statuses kept (a cluster's drains change a few hundred budgets)
Known = Mapping[int, tuple[Budget, str]]      # budgets worked out already, by their object's id


class Synced:
    """(namespace, name, generation, spec, pods, controllers) -> the budget as its sync leaves it."""

    def __init__(self) -> None:
        self._kept: dict[Hashable, tuple[Any, Any, tuple[Budget, str]]] = {}

    def known(self, index: Any, known: Known, statuses: Statuses) -> Known:
        """`known` with the budgets of `index` whose status was computed before over what it holds
        (those neither in `known` nor in `statuses`, which `budgets_of` reads first)."""
        out: Optional[dict[int, tuple[Budget, str]]] = None
        for pdb, key, pods, controllers in self._asked(index, known, statuses):
            found = self._kept.get(key)
            if found is not None and found[0] is pods and found[1] is controllers:
                out = out if out is not None else dict(known)
                out[id(pdb)] = found[2]
        return out if out is not None else known

    def keep(self, index: Any, known: Known, statuses: Statuses, budgets: list[tuple[int, tuple[Budget, str]]]) -> None:
        """The statuses `budgets_of` computed (for the budgets `known` did not hold) kept, those over
        the cluster's own pods and finders (`index.root`'s): a fix that adds pods or workloads (a
        scale fix's) makes its own, which no other fix holds."""
        by_id = dict(budgets)
        root = index.root
        for pdb, key, pods, controllers in self._asked(index, known, statuses):
            if pods is not root.pods_in(pdb_namespace(pdb)) or controllers is not root.controllers:
                continue
            if len(self._kept) >= KEPT:
                self._kept.clear()
            self._kept[key] = (pods, controllers, by_id[id(pdb)])

    @staticmethod
    def _asked(index: Any, known: Known, statuses: Statuses) -> list[tuple[Any, Hashable, Any, Any]]:
        """The budgets of `index` whose status the sync computes (not in `known`, not given, not in
        `statuses`), each with its key and what the sync reads of the index; one whose spec has no
        shape is left to the sync."""
        todo = [p for p in index.pdbs if id(p) not in known and needs_status(p) and known_status(statuses, p) is None]
        if not todo:
            return []
        controllers = index.controllers
        out = []
        for pdb in todo:
            namespace = pdb_namespace(pdb)
            pods = index.pods_in(namespace)
            shape = shape_key((namespace, (pdb.get("metadata") or {}).get("name"), generation(pdb), pdb.get("spec")))
            if shape is not None:
                out.append((pdb, (shape, id(pods), id(controllers)), pods, controllers))
        return out


def pdb_namespace(pdb: Mapping[str, Any]) -> str:
    """The budget's namespace, as `budgets_of` reads it."""
    return (pdb.get("metadata") or {}).get("namespace") or "default"
