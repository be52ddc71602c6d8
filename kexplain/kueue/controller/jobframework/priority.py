"""A Workload's priority (ExtractPriority, pkg/util/priority): the WorkloadPriorityClass its
job's `kueue.x-k8s.io/priority-class` label names, else the PriorityClass its pod template
names, else the global-default PriorityClass (the lowest if several), else 0."""
from __future__ import annotations

from typing import Mapping

from kexplain.kueue.apis.constants import DEFAULT_PRIORITY, PRIORITY_CLASS_LABEL
from kexplain.kueue.apis.priorityclass import (POD_PRIORITY_CLASS_REF, WORKLOAD_PRIORITY_CLASS_REF, PriorityClass,
                                               PriorityClassRef)


class PriorityNotFound(LookupError):
    """The priority class a job names does not exist: the reconciler creates no Workload."""


def extract_priority(labels: Mapping[str, str], pod_priority_class: str,
                     workload_classes: Mapping[str, PriorityClass],
                     pod_classes: Mapping[str, PriorityClass]) -> tuple[PriorityClassRef | None, int]:
    """(the class reference, the priority); PriorityNotFound with the API's NotFound text."""
    wpc = labels.get(PRIORITY_CLASS_LABEL, "")
    if wpc:
        found = workload_classes.get(wpc)
        if found is None:
            raise PriorityNotFound(f'workloadpriorityclasses.kueue.x-k8s.io "{wpc}" not found')
        return PriorityClassRef(WORKLOAD_PRIORITY_CLASS_REF, found.name), found.value
    if pod_priority_class:
        found = pod_classes.get(pod_priority_class)
        if found is None:
            raise PriorityNotFound(f'priorityclasses.scheduling.k8s.io "{pod_priority_class}" not found')
        return PriorityClassRef(POD_PRIORITY_CLASS_REF, found.name), found.value
    default = global_default(pod_classes)
    if default is not None:
        return PriorityClassRef(POD_PRIORITY_CLASS_REF, default.name), default.value
    return None, DEFAULT_PRIORITY


def global_default(pod_classes: Mapping[str, PriorityClass]) -> PriorityClass | None:
    """getDefaultPriorityClass: of the global defaults, the one with the lowest value."""
    best = None
    for pc in pod_classes.values():
        if pc.global_default and (best is None or best.value > pc.value):
            best = pc
    return best
