"""The disruptions PodDisruptionBudgets still allow during one scale-down loop.

CA reads each PDB's `status.disruptionsAllowed` as stored (absent: 0) and spends it as the
simulation finds nodes removable, so a later node's pods see what the earlier ones left
(core/scaledown/pdb's basic tracker). The loop owns one tracker; nothing else changes it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from kexplain.model.labels import LabelSelector, SelectorError, parse_selector
from kexplain.model.pod import PodInfo


@dataclass
class _Budget:
    namespace: str
    name: str
    selector: LabelSelector
    allowed: int


@dataclass(frozen=True)
class PdbCheck:
    """CanRemovePods' answer: whether the pods may go, all at once, and the pod that limits it."""

    can_remove: bool
    in_parallel: bool
    blocking_pod: PodInfo | None = None


class PdbTracker:
    """The loop's budgets, in the order the lister gave the PDBs."""

    def __init__(self, pdbs: Iterable[Mapping[str, Any]]) -> None:
        self._budgets: list[_Budget] = []
        for pdb in pdbs:
            meta = pdb.get("metadata") or {}
            try:
                selector = parse_selector((pdb.get("spec") or {}).get("selector"))
            except SelectorError:
                continue        # CA fails the whole loop on such a PDB; the API server refuses it first
            allowed = (pdb.get("status") or {}).get("disruptionsAllowed") or 0
            self._budgets.append(_Budget(meta.get("namespace") or "default", meta.get("name") or "",
                                         selector, int(allowed)))

    def _matches(self, budget: _Budget, pod: PodInfo) -> bool:
        return pod.namespace == budget.namespace and budget.selector.matches(pod.labels)

    def matching(self, pod: PodInfo) -> list[int]:
        """The disruptions each PDB covering `pod` still allows."""
        return [b.allowed for b in self._budgets if self._matches(b, pod)]

    def can_remove(self, pods: Sequence[PodInfo]) -> PdbCheck:
        in_parallel, blocking = True, None
        for budget in self._budgets:
            count = 0
            for pod in pods:
                if self._matches(budget, pod):
                    count += 1
                    if budget.allowed < 1:
                        return PdbCheck(False, False, pod)
                    if budget.allowed < count:
                        in_parallel, blocking = False, pod
        return PdbCheck(True, in_parallel, blocking)

    def remove(self, pods: Sequence[PodInfo]) -> None:
        """Spend one disruption per pod of each PDB that covers it."""
        for budget in self._budgets:
            for pod in pods:
                if self._matches(budget, pod):
                    budget.allowed -= 1
