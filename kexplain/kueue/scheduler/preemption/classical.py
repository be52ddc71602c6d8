"""Classical (non fair-sharing) preemption's candidates (preemption/classical): who may be
preempted and why, and the borrowing level a request needs."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from operator import attrgetter
from typing import Iterable

from kexplain.kueue.apis.constants import (IN_CLUSTER_QUEUE, IN_COHORT_RECLAIM_WHILE_BORROWING,
                                           IN_COHORT_RECLAMATION, NEVER)
from kexplain.kueue.cache import resource_node as rn
from kexplain.kueue.cache.snapshot import ClusterQueueSnapshot, CohortSnapshot, Snapshot, cohort_borrowing_with
from kexplain.kueue.resources import FlavorResource
from kexplain.kueue.apis.constants import ANY, LOWER_OR_NEWER_EQUAL_PRIORITY, LOWER_PRIORITY
from kexplain.kueue.scheduler.preemption.common import quota_reservation_time
from kexplain.kueue.workload.info import Info
from kexplain.kueue.workload.ordering import priority, queue_order_timestamp
from kexplain.kueue.workload.workload import Workload, is_evicted

# preemptionVariant
NEVER_VARIANT, WITHIN_CQ, HIERARCHICAL_RECLAIM, RECLAIM_WITHOUT_BORROWING, RECLAIM_WHILE_BORROWING = range(5)
REASONS = {WITHIN_CQ: IN_CLUSTER_QUEUE, HIERARCHICAL_RECLAIM: IN_COHORT_RECLAMATION,
           RECLAIM_WITHOUT_BORROWING: IN_COHORT_RECLAMATION, RECLAIM_WHILE_BORROWING: IN_COHORT_RECLAIM_WHILE_BORROWING}


def uses_resources(info: Info, frs: Iterable[FlavorResource]) -> bool:
    """WorkloadUsesResources: it holds quota of a (flavor, resource) that needs preemption."""
    return not info.flavor_resources().isdisjoint(frs)


def borrowing_within_cohort_forbidden(cq: ClusterQueueSnapshot) -> tuple[bool, int | None]:
    if cq.preemption.borrow_within_cohort == NEVER:
        return True, None
    return False, cq.preemption.max_priority_threshold


@dataclass
class Context:
    """HierarchicalPreemptionCtx, with the snapshot whose per-cycle index of admitted Workloads
    (`held`) the candidates are read from, and the clock reservation times default to."""

    wl: Workload
    cq: ClusterQueueSnapshot
    frs_need_preemption: frozenset[FlavorResource]
    requests: dict[FlavorResource, int]
    snapshot: Snapshot
    now: datetime
    pods_ready_eviction: bool = True        # the Ordering's requeuing timestamp is Eviction


@dataclass(frozen=True, slots=True)
class Held:
    """An admitted Workload as preemption reads it, with its place in CandidatesOrdering (evicted,
    lower priority, most recently reserved, uid)."""

    info: Info
    frs: frozenset[FlavorResource]
    priority: int
    created: datetime | None
    order: tuple
    evicted: bool


ORDER = attrgetter("order")


def held(ctx: Context, cq: ClusterQueueSnapshot) -> list[Held]:
    """`cq`'s admitted Workloads in candidate order, once per snapshot (they stand still within a
    cycle; preemptions are issued after)."""
    memo = ctx.snapshot.held
    out = memo.get(cq.name)
    if out is None:
        out = memo[cq.name] = sorted((_held(info, ctx.now, ctx.pods_ready_eviction) for info in cq.workloads.values()),
                                     key=ORDER)
    return out


def _held(info: Info, now: datetime, pods_ready_eviction: bool = True) -> Held:
    """The Workload as preemption reads it, remembered on its Info across cycles for as long as
    its conditions (eviction, reservation time) and the Ordering are the same."""
    wl = info.obj
    conditions = tuple(wl.conditions)
    cached = info.__dict__.get("_held")
    if cached is not None and cached[0] == conditions and cached[1] == (now, pods_ready_eviction):
        return cached[2]
    evicted = is_evicted(wl)
    prio = priority(wl)
    reserved = quota_reservation_time(wl, now)
    out = Held(info, info.flavor_resources(), prio, queue_order_timestamp(wl, pods_ready_eviction),
               (not evicted, prio, -reserved.timestamp(), wl.meta.uid), evicted)
    info.__dict__["_held"] = (conditions, (now, pods_ready_eviction), out)
    return out


def _variant(ctx: Context, h: Held, own: bool, policy: str, preemptor: int, advantage: bool) -> int:
    """classifyPreemptionVariant: how `h` could be preempted, or NEVER_VARIANT."""
    if h.frs.isdisjoint(ctx.frs_need_preemption):
        return NEVER_VARIANT
    if policy == LOWER_PRIORITY:
        allowed = preemptor > h.priority
    elif policy == LOWER_OR_NEWER_EQUAL_PRIORITY:
        tp = queue_order_timestamp(ctx.wl, ctx.pods_ready_eviction)
        allowed = preemptor > h.priority or (preemptor == h.priority and tp is not None and h.created is not None
                                             and tp < h.created)
    else:
        allowed = policy == ANY
    if not allowed:
        return NEVER_VARIANT
    if own:
        return WITHIN_CQ
    if advantage:
        return HIERARCHICAL_RECLAIM
    forbidden, threshold = borrowing_within_cohort_forbidden(ctx.cq)
    if forbidden or _above_threshold(h.priority, preemptor, threshold):
        return RECLAIM_WITHOUT_BORROWING
    return RECLAIM_WHILE_BORROWING


def _above_threshold(candidate: int, incoming: int, threshold: int | None) -> bool:
    if candidate >= incoming:
        return True
    if threshold is None:
        return False
    return candidate > threshold


@dataclass(slots=True)
class Candidate:
    info: Info
    lca: CohortSnapshot | None
    variant: int
    order: tuple
    evicted: bool


def _from_cq(cq: ClusterQueueSnapshot, lca: CohortSnapshot | None, ctx: Context, advantage: bool
             ) -> list[Candidate]:
    """`cq`'s candidates for the preemptor in candidate order, worked out once per snapshot for what
    they depend on (the heads of a cycle ask the same questions)."""
    own = cq.name == ctx.cq.name
    policy = ctx.cq.preemption.within_cluster_queue if own else ctx.cq.preemption.reclaim_within_cohort
    preemptor = priority(ctx.wl)
    created = queue_order_timestamp(ctx.wl, ctx.pods_ready_eviction) if policy == LOWER_OR_NEWER_EQUAL_PRIORITY \
        else None
    key = (cq.name, own, policy, borrowing_within_cohort_forbidden(ctx.cq), lca.name if lca is not None else None,
           ctx.frs_need_preemption, preemptor, created, advantage)
    memo = ctx.snapshot.candidates
    out = memo.get(key)
    if out is None:
        out = memo[key] = [Candidate(h.info, lca, variant, h.order, h.evicted) for h in held(ctx, cq)
                           if (variant := _variant(ctx, h, own, policy, preemptor, advantage)) != NEVER_VARIANT]
    return out


def _same_queue(ctx: Context) -> list[Candidate]:
    if ctx.cq.preemption.within_cluster_queue == NEVER:
        return []
    return _from_cq(ctx.cq, None, ctx, False)


def _hierarchical(ctx: Context) -> tuple[list[Candidate], list[Candidate]]:
    """collectCandidatesForHierarchicalReclaim: (with hierarchical advantage, by priority)."""
    hierarchy: list[Candidate] = []
    by_priority: list[Candidate] = []
    if ctx.cq.parent is None or ctx.cq.preemption.reclaim_within_cohort == NEVER:
        return hierarchy, by_priority
    previous: CohortSnapshot | None = None
    advantage, remaining = rn.fits_in_quota(ctx.cq, ctx.requests)
    for root in ctx.cq.path_parent_to_root():
        target = hierarchy if advantage else by_priority
        _in_subtree(ctx, root, root, previous, advantage, target)
        fits, remaining = rn.fits_in_quota(root, remaining)
        advantage = advantage or fits
        previous = root
    return hierarchy, by_priority


def _in_subtree(ctx: Context, current: CohortSnapshot, subtree_root: CohortSnapshot, skip: CohortSnapshot | None,
                advantage: bool, out: list[Candidate]) -> None:
    for child in current.child_cohorts:
        if child is skip or rn.within_nominal(child, ctx.frs_need_preemption):
            continue
        _in_subtree(ctx, child, subtree_root, skip, advantage, out)
    for cq in current.child_cqs:
        if cq is ctx.cq:
            continue
        if not rn.within_nominal(cq, ctx.frs_need_preemption):
            out.extend(_from_cq(cq, subtree_root, ctx, advantage))


class CandidateIterator:
    """candidateIterator: evicted candidates first (hierarchical, by priority, same queue), then
    the others in the same groups, each group in CandidatesOrdering."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.snapshot = ctx.snapshot
        same = _same_queue(ctx)
        hierarchy, by_priority = _hierarchical(ctx)
        groups = [sorted(g, key=ORDER) for g in (hierarchy, by_priority, same)]
        evicted = [c for g in groups for c in g if c.evicted]
        self.candidates = evicted + [c for g in groups for c in g if not c.evicted] if evicted else \
            [c for g in groups for c in g]
        self.no_candidate_from_other_queues = not hierarchy and not by_priority
        self.no_candidate_for_hierarchical_reclaim = not hierarchy
        self.index = 0

    def reset(self) -> None:
        self.index = 0

    def next(self, borrow: bool) -> tuple[Info, str] | None:
        while self.index < len(self.candidates):
            candidate = self.candidates[self.index]
            self.index += 1
            if self._valid(candidate, borrow):
                return candidate.info, REASONS[candidate.variant]
        return None

    def _valid(self, candidate: Candidate, borrow: bool) -> bool:
        if candidate.info.cluster_queue == self.ctx.cq.name:
            return True
        if borrow and candidate.variant == RECLAIM_WITHOUT_BORROWING:
            return False
        cq = self.snapshot.cluster_queue(candidate.info.cluster_queue)
        if cq is None or rn.within_nominal(cq, self.ctx.frs_need_preemption):
            return False
        for node in cq.path_parent_to_root():
            if node is candidate.lca:
                break
            if rn.within_nominal(node, self.ctx.frs_need_preemption):
                return False
        return True


def height_of_lowest_subtree_that_fits(cq: ClusterQueueSnapshot, fr: FlavorResource, val: int) -> tuple[int, bool]:
    """FindHeightOfLowestSubtreeThatFits: the height of the lowest node whose quota holds `val`, and
    whether reclaiming within it may help."""
    if not cq.borrowing_with(fr, val) or cq.parent is None:
        return 0, cq.parent is not None
    remaining = val - rn.local_available(cq, fr)
    for node in cq.path_parent_to_root():
        if not cohort_borrowing_with(node, fr, remaining):
            return node.height(), node.parent is not None
        remaining -= rn.local_available(node, fr)
    return cq.parent.root().height(), False
