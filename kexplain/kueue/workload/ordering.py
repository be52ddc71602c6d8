"""What orders Workloads (workload.Ordering, pkg/util/priority): the priority (spec.priority, 0
when unset; priority boosts are off) and the queue-order timestamp (the creation time: no
Workload here was evicted by a PodsReady timeout or an admission check)."""
from __future__ import annotations

from datetime import datetime

from kexplain.kueue.apis.constants import DEFAULT_PRIORITY
from kexplain.kueue.workload.workload import Workload


def priority(wl: Workload) -> int:
    """EffectivePriority."""
    return wl.spec.priority if wl.spec.priority is not None else DEFAULT_PRIORITY


def queue_order_timestamp(wl: Workload) -> datetime | None:
    """GetQueueOrderTimestamp."""
    return wl.meta.created
