"""The PodDisruptionBudgets the pdb plugin's lister lists (the policy/v1 informer Volcano's cache starts):
each as written, one without a status given the disruption controller's (`controllers.disruption`)."""
from __future__ import annotations

from typing import Any, Iterable

from kexplain.controllers.disruption import with_status
from kexplain.framework.preemption import DisruptionBudget
from kexplain.model.pod import PodInfo

KIND = "PodDisruptionBudget"


def budgets_of(objects: Iterable[dict[str, Any]]) -> list[DisruptionBudget]:
    """The cluster's PodDisruptionBudgets, with the status the plugin reads."""
    objects = list(objects)
    pdbs = [o for o in objects if o.get("kind") == KIND]
    if not pdbs:
        return []
    pdbs = with_status(pdbs, [PodInfo(o) for o in objects if o.get("kind") == "Pod"])
    return [DisruptionBudget.from_obj(o) for o in pdbs]
