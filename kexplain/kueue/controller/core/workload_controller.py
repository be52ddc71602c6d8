"""The workload controller's inadmissible checks (workload_controller.go, Reconcile), in its order;
a pending Workload meeting one gets QuotaReserved=False, reason Inadmissible."""
from __future__ import annotations

from datetime import datetime
from typing import Callable, Mapping

from kexplain.kueue.apis.constants import REASON_INADMISSIBLE
from kexplain.kueue.apis.localqueue import LocalQueue
from kexplain.kueue.workload import workload as wlmod
from kexplain.kueue.workload.workload import Workload

LQ_MISSING = "LocalQueue {} doesn't exist"
LQ_INACTIVE = "LocalQueue {} is inactive"
CQ_MISSING = "ClusterQueue {} doesn't exist"
CQ_INACTIVE = "ClusterQueue {} is inactive"

# What each check found, as values: (the check, the queue it names)
LOCAL_QUEUE_MISSING, LOCAL_QUEUE_STOPPED, CLUSTER_QUEUE_MISSING, CLUSTER_QUEUE_INACTIVE = (
    "LocalQueueMissing", "LocalQueueStopped", "ClusterQueueMissing", "ClusterQueueInactive")
TEXTS = {LOCAL_QUEUE_MISSING: LQ_MISSING, LOCAL_QUEUE_STOPPED: LQ_INACTIVE,
         CLUSTER_QUEUE_MISSING: CQ_MISSING, CLUSTER_QUEUE_INACTIVE: CQ_INACTIVE}


def inadmissible(wl: Workload, local_queues: Mapping[str, LocalQueue],
                 cluster_queue_for: Callable[[str, str], tuple[str, bool]],
                 cluster_queue_active: Callable[[str], bool]) -> tuple[str, str] | None:
    """The first check a pending Workload fails, as (check, queue name), or None."""
    lq = local_queues.get(f"{wl.meta.namespace}/{wl.spec.queue_name}")
    if lq is None:
        return LOCAL_QUEUE_MISSING, wl.spec.queue_name
    if lq.stopped:
        return LOCAL_QUEUE_STOPPED, wl.spec.queue_name
    cq_name, cq_ok = cluster_queue_for(wl.meta.namespace, wl.spec.queue_name)
    if not cq_ok:
        return CLUSTER_QUEUE_MISSING, cq_name or lq.cluster_queue
    if not cluster_queue_active(cq_name):
        return CLUSTER_QUEUE_INACTIVE, cq_name
    return None


def reconcile(wl: Workload, found: tuple[str, str], now: datetime) -> bool:
    """Write the check's condition; whether it changed the Workload."""
    check, name = found
    return wlmod.unset_quota_reservation(wl, REASON_INADMISSIBLE, TEXTS[check].format(name), now)
