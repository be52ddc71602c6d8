"""What orders Workloads (workload.Ordering, pkg/util/priority): the priority (spec.priority, 0
when unset; priority boosts are off) and the queue-order timestamp (GetQueueOrderTimestamp: the
creation time, or the eviction's for a Workload evicted by an admission check or, with
waitForPodsReady's requeuing timestamp `Eviction`, the default, by a PodsReady timeout; the
Preempted condition's is read only with PrioritySortingWithinCohort off, never here)."""
from __future__ import annotations

from datetime import datetime

from kexplain.kueue.apis.constants import (DEFAULT_PRIORITY, EVICTED, EVICTED_BY_ADMISSION_CHECK,
                                           EVICTED_BY_PODS_READY_TIMEOUT)
from kexplain.kueue.workload.workload import TRUE, Workload


def priority(wl: Workload) -> int:
    """EffectivePriority."""
    return wl.spec.priority if wl.spec.priority is not None else DEFAULT_PRIORITY


def queue_order_timestamp(wl: Workload, pods_ready_eviction: bool = True) -> datetime | None:
    """GetQueueOrderTimestamp (`pods_ready_eviction`: the requeuing timestamp is `Eviction`, as the
    Configuration sets it for every Ordering of the pass: `KueueConfig.pods_ready_eviction`)."""
    evicted = wl.find(EVICTED)
    if evicted is not None and evicted.status == TRUE and (
            evicted.reason == EVICTED_BY_ADMISSION_CHECK
            or pods_ready_eviction and evicted.reason == EVICTED_BY_PODS_READY_TIMEOUT):
        return evicted.last_transition
    return wl.meta.created
