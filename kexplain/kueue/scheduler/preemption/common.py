"""What classical preemption shares (preemption/common): whether a policy lets a Workload
preempt another, the order candidates are tried in, and what a simulation found."""
from __future__ import annotations

from datetime import datetime

from kexplain.kueue.apis.constants import ANY, LOWER_OR_NEWER_EQUAL_PRIORITY, LOWER_PRIORITY, QUOTA_RESERVED
from kexplain.kueue.workload.info import Info
from kexplain.kueue.workload.ordering import priority, queue_order_timestamp
from kexplain.kueue.workload.workload import TRUE, Workload, is_evicted

# PreemptionPossibility
NO_CANDIDATES, PREEMPT, RECLAIM = 0, 1, 2
POSSIBILITY_NAMES = {NO_CANDIDATES: "NoCandidates", PREEMPT: "Preempt", RECLAIM: "Reclaim"}


def satisfies_policy(preemptor: Workload, candidate: Workload, policy: str) -> bool:
    """SatisfiesPreemptionPolicy: LowerPriority takes a lower priority; LowerOrNewerEqualPriority
    also an equal priority created later; Any takes anything; Never nothing."""
    p, c = priority(preemptor), priority(candidate)
    lower = p > c
    if policy == LOWER_PRIORITY:
        return lower
    if policy == LOWER_OR_NEWER_EQUAL_PRIORITY:
        tp, tc = queue_order_timestamp(preemptor), queue_order_timestamp(candidate)
        newer_equal = p == c and tp is not None and tc is not None and tp < tc
        return lower or newer_equal
    return policy == ANY


def quota_reservation_time(wl: Workload, now: datetime) -> datetime:
    cond = wl.find(QUOTA_RESERVED)
    if cond is None or cond.status != TRUE or cond.last_transition is None:
        return now
    return cond.last_transition


def candidates_order(a: Info, b: Info, cq: str, now: datetime) -> int:
    """CandidatesOrdering: evicted first, then those of other ClusterQueues, then lower
    priority, then the most recently admitted, then by uid."""
    ea, eb = is_evicted(a.obj), is_evicted(b.obj)
    if ea != eb:
        return -1 if ea else 1
    oa, ob = a.cluster_queue == cq, b.cluster_queue == cq
    if oa != ob:
        return -1 if ob else 1
    pa, pb = priority(a.obj), priority(b.obj)
    if pa != pb:
        return -1 if pa < pb else 1
    ta, tb = quota_reservation_time(a.obj, now), quota_reservation_time(b.obj, now)
    if ta != tb:
        return -1 if tb < ta else 1
    ua, ub = a.obj.meta.uid, b.obj.meta.uid
    return (ua > ub) - (ua < ub)
