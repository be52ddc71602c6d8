"""What classical preemption shares (preemption/common): whether a policy lets a Workload
preempt another, when a candidate's quota was reserved, and what a simulation found."""
from __future__ import annotations

from datetime import datetime

from kexplain.kueue.apis.constants import ANY, LOWER_OR_NEWER_EQUAL_PRIORITY, LOWER_PRIORITY, QUOTA_RESERVED
from kexplain.kueue.workload.ordering import priority, queue_order_timestamp
from kexplain.kueue.workload.workload import TRUE, Workload

# PreemptionPossibility
NO_CANDIDATES, PREEMPT, RECLAIM = 0, 1, 2
POSSIBILITY_NAMES = {NO_CANDIDATES: "NoCandidates", PREEMPT: "Preempt", RECLAIM: "Reclaim"}


def satisfies_policy(preemptor: Workload, candidate: Workload, policy: str, pods_ready_eviction: bool = True) -> bool:
    """SatisfiesPreemptionPolicy: LowerPriority takes a lower priority; LowerOrNewerEqualPriority
    also an equal priority queued later (the Ordering's timestamps); Any takes anything; Never nothing."""
    p, c = priority(preemptor), priority(candidate)
    lower = p > c
    if policy == LOWER_PRIORITY:
        return lower
    if policy == LOWER_OR_NEWER_EQUAL_PRIORITY:
        tp = queue_order_timestamp(preemptor, pods_ready_eviction)
        tc = queue_order_timestamp(candidate, pods_ready_eviction)
        newer_equal = p == c and tp is not None and tc is not None and tp < tc
        return lower or newer_equal
    return policy == ANY


def quota_reservation_time(wl: Workload, now: datetime) -> datetime:
    cond = wl.find(QUOTA_RESERVED)
    if cond is None or cond.status != TRUE or cond.last_transition is None:
        return now
    return cond.last_transition
