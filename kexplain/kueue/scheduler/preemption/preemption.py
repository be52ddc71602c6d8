"""The preemptor (preemption.go, preemption_oracle.go): the targets a pending Workload would evict,
the oracle the flavor assigner asks, and issuing the preemptions."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Callable

from kexplain.kueue.apis.constants import (EVENT_NORMAL, EVICTED_BY_PREEMPTION, IN_CLUSTER_QUEUE,
                                           IN_COHORT_FAIR_SHARING, IN_COHORT_RECLAIM_WHILE_BORROWING,
                                           IN_COHORT_RECLAMATION, JOB_UID_LABEL)
from kexplain.kueue.cache.fair_sharing import DRS
from kexplain.kueue.cache.snapshot import ClusterQueueSnapshot, Snapshot
from kexplain.kueue.resources import FlavorResource
from kexplain.kueue.config import FairSharing
from kexplain.kueue.scheduler.preemption import classical, fairsharing
from kexplain.kueue.scheduler.preemption.common import NO_CANDIDATES, PREEMPT, RECLAIM
from kexplain.kueue.workload import workload as wlmod
from kexplain.kueue.workload.info import Info
from kexplain.kueue.workload.ordering import priority
from kexplain.kueue.workload.workload import is_evicted

HUMAN_REASONS = {IN_CLUSTER_QUEUE: "prioritization in the ClusterQueue",
                 IN_COHORT_RECLAMATION: "reclamation within the cohort",
                 IN_COHORT_FAIR_SHARING: "Fair Sharing within the cohort",
                 IN_COHORT_RECLAIM_WHILE_BORROWING: "reclamation within the cohort while borrowing",
                 "": "UNKNOWN"}

Recorder = Callable[[str, str, str, str], None]      # (object key, type, reason, message)


@dataclass
class Target:
    info: Info
    reason: str
    cq: ClusterQueueSnapshot | None


@dataclass(frozen=True)
class FairDecision:
    """One candidate a fair-sharing strategy weighed (what the explanation says of the walk): the
    strategy, whether it let the candidate go, and the shares it compared, at the two queues'
    almost-least-common ancestors (`preemptor_node`, `target_node`: a ClusterQueue or a Cohort)."""

    info: Info
    strategy: str
    allowed: bool
    preemptor_node: str
    target_node: str
    preemptor_after: DRS        # with the pending Workload admitted
    target_before: DRS
    target_after: DRS           # without the candidate


FairTrace = list[FairDecision]


@dataclass
class Context:
    """preemptionCtx: the preemptor, its ClusterQueue, the snapshot, usage, the pairs to preempt for."""

    preemptor: Info
    cq: ClusterQueueSnapshot
    snapshot: Snapshot
    usage: dict[FlavorResource, int]
    frs: frozenset[FlavorResource]
    fair_sharing: FairSharing | None = None     # the Configuration's: fair preemptions, else classical
    trace: FairTrace | None = None              # the explanation's: each candidate a strategy weighed
    pods_ready_eviction: bool = True            # the Ordering's requeuing timestamp is Eviction


def _fits(ctx: Context, allow_borrowing: bool) -> bool:
    """workloadFits."""
    for fr, v in ctx.usage.items():
        if not allow_borrowing and ctx.cq.borrowing_with(fr, v):
            return False
        if v > ctx.cq.available(fr):
            return False
    return True


def _under_nominal(ctx: Context) -> bool:
    """queueUnderNominalInResourcesNeedingPreemption."""
    return all(ctx.cq.resource_node.usage.get(fr, 0) < ctx.cq.quota_for(fr).nominal for fr in ctx.frs)


def classical_targets(ctx: Context, now: datetime) -> list[Target]:
    """classicalPreemptions: try the candidates in order until the preemptor fits, then give
    back every target (newest first) it fits without."""
    hctx = classical.Context(ctx.preemptor.obj, ctx.cq, ctx.frs, ctx.usage, ctx.snapshot, now, ctx.pods_ready_eviction)
    candidates = classical.CandidateIterator(hctx)
    forbidden, _ = classical.borrowing_within_cohort_forbidden(ctx.cq)
    if candidates.no_candidate_from_other_queues or (forbidden and not _under_nominal(ctx)):
        attempts = [True]
    elif forbidden and candidates.no_candidate_for_hierarchical_reclaim:
        attempts = [False, True]
    else:
        attempts = [True, False]
    for borrowing in attempts:
        targets: list[Target] = []
        candidates.reset()
        while (found := candidates.next(borrowing)) is not None:
            info, reason = found
            ctx.snapshot.remove_workload(info)
            targets.append(Target(info, reason, ctx.snapshot.cluster_queue(info.cluster_queue)))
            if _fits(ctx, borrowing):
                targets = _fill_back(ctx, targets, borrowing)
                _restore(ctx.snapshot, targets)
                return targets
        _restore(ctx.snapshot, targets)
    return []


def _targets(ctx: Context, now: datetime) -> list[Target]:
    """getTargets: fair preemptions when fair sharing is on, else classical ones."""
    if ctx.fair_sharing is not None:
        return fair_targets(ctx, ctx.fair_sharing.preemption_strategies, now)
    return classical_targets(ctx, now)


def fair_targets(ctx: Context, strategies: tuple[str, ...], now: datetime) -> list[Target]:
    """fairPreemptions: the candidates in CandidatesOrdering, the preemptor's usage added for the
    shares, the first strategy, then (rule S2-b) the second over the candidates it refused."""
    key = fairsharing.candidate_key(ctx.cq.name, now)
    candidates = sorted(fairsharing.find_candidates(ctx.preemptor, ctx.cq, ctx.frs, ctx.pods_ready_eviction), key=key)
    if not candidates:
        return []
    ctx.cq.add_usage(ctx.usage)
    try:
        fits, targets, retry = _first_strategy(ctx, candidates, strategies[0], key)
        if not fits and len(strategies) > 1:
            fits, targets = _second_strategy(ctx, retry, targets, key)
    finally:
        ctx.cq.remove_usage(ctx.usage)
    if not fits:
        _restore(ctx.snapshot, targets)
        return []
    targets = _fill_back(ctx, targets, True)
    _restore(ctx.snapshot, targets)
    return targets


def _fits_fair(ctx: Context) -> bool:
    """workloadFitsForFairSharing: workloadFits with the preemptor's own usage taken out again."""
    ctx.cq.remove_usage(ctx.usage)
    try:
        return _fits(ctx, True)
    finally:
        ctx.cq.add_usage(ctx.usage)


def _take(ctx: Context, target: "fairsharing.TargetQueue", info: Info, reason: str, targets: list[Target]) -> bool:
    ctx.snapshot.remove_workload(info)
    targets.append(Target(info, reason, target.cq))
    return _fits_fair(ctx)


def _first_strategy(ctx: Context, candidates: list[Info], name: str, key
                    ) -> tuple[bool, list[Target], list[Info]]:
    """runFirstFsStrategy: the preemptor's own queue's candidates freely; while it stays within
    its nominal quota (FairSharingPreemptWithinNominal), every other's too; else the strategy
    decides per candidate, the refused kept for rule S2-b."""
    ordering = fairsharing.Ordering(ctx.cq, candidates, key)
    strategy = fairsharing.STRATEGIES[name]
    targets: list[Target] = []
    retry: list[Info] = []
    within_nominal = not any(ctx.cq.borrowing(fr) for fr in ctx.frs)
    for target in ordering.targets():
        if target.own() or within_nominal:
            reason = IN_CLUSTER_QUEUE if target.own() else IN_COHORT_RECLAMATION
            if _take(ctx, target, target.pop(), reason, targets):
                return True, targets, []
            continue
        new, old = target.shares()
        while target.has_workload():
            info = target.pop()
            after = target.share_after_removal(info)
            allowed = strategy(new, old, after)
            _weighed(ctx, target, info, name, allowed, (new, old, after))
            if allowed:
                if _take(ctx, target, info, IN_COHORT_FAIR_SHARING, targets):
                    return True, targets, []
                break
            retry.append(info)
    return False, targets, retry


def _weighed(ctx: Context, target: "fairsharing.TargetQueue", info: Info, strategy: str, allowed: bool,
             shares: tuple[DRS, DRS, DRS]) -> None:
    """The candidate a strategy weighed, for the explanation (nothing when no one asks)."""
    if ctx.trace is None:
        return
    preemptor_node, target_node = target.nodes()
    ctx.trace.append(FairDecision(info, strategy, allowed, preemptor_node.name, target_node.name, *shares))


def fair_trace(info: Info, usage: dict[FlavorResource, int], snapshot: Snapshot, now: datetime,
               fair_sharing: FairSharing, pods_ready_eviction: bool = True) -> tuple[list[Target], FairTrace]:
    """The fair preemption the oracle simulates for `usage` of `info` (its targets, none when the
    strategies refuse), with each candidate the strategies weighed on the way."""
    cq = snapshot.cluster_queue(info.cluster_queue)
    trace: FairTrace = []
    if cq is None:
        return [], trace
    ctx = Context(info, cq, snapshot, dict(usage), frozenset(usage), fair_sharing, trace, pods_ready_eviction)
    return fair_targets(ctx, fair_sharing.preemption_strategies, now), trace


def _second_strategy(ctx: Context, retry: list[Info], targets: list[Target], key) -> tuple[bool, list[Target]]:
    """runSecondFsStrategy (rule S2-b): LessThanInitialShare, the first refused candidate of each queue."""
    ordering = fairsharing.Ordering(ctx.cq, retry, key)
    rule = fairsharing.STRATEGIES[fairsharing.LESS_THAN_INITIAL_SHARE]
    for target in ordering.targets():
        new, old = target.shares()
        info = target.pop()
        allowed = rule(new, old, old)
        if ctx.trace is not None:
            _weighed(ctx, target, info, fairsharing.LESS_THAN_INITIAL_SHARE, allowed,
                     (new, old, target.share_after_removal(info)))
        if allowed and _take(ctx, target, info, IN_COHORT_FAIR_SHARING, targets):
            return True, targets
        ordering.drop(target)
    return False, targets


def _fill_back(ctx: Context, targets: list[Target], borrowing: bool) -> list[Target]:
    for i in range(len(targets) - 2, -1, -1):
        ctx.snapshot.add_workload(targets[i].info)
        if _fits(ctx, borrowing):
            targets[i] = targets[-1]
            targets.pop()
        else:
            ctx.snapshot.remove_workload(targets[i].info)
    return targets


def _restore(snapshot: Snapshot, targets: list[Target]) -> None:
    for t in targets:
        snapshot.add_workload(t.info)


def simulate(snapshot: Snapshot, cq: ClusterQueueSnapshot, info: Info, fr: FlavorResource, quantity: int,
             now: datetime, fair_sharing: FairSharing | None = None,
             pods_ready_eviction: bool = True) -> tuple[int, int, list[Target]]:
    """PreemptionOracle.SimulatePreemption: whether preempting could make room for `quantity` of
    `fr`, the borrowing level after it, and the targets."""
    preemptor_cq = snapshot.cluster_queue(info.cluster_queue) or cq
    ctx = Context(info, preemptor_cq, snapshot, {fr: quantity}, frozenset({fr}), fair_sharing,
                  pods_ready_eviction=pods_ready_eviction)
    targets = _targets(ctx, now)
    if not targets:
        borrow, _ = classical.height_of_lowest_subtree_that_fits(cq, fr, quantity)
        return NO_CANDIDATES, borrow, []
    restore = snapshot.simulate_removal(t.info for t in targets)
    borrow, _ = classical.height_of_lowest_subtree_that_fits(cq, fr, quantity)
    restore()
    if any(t.info.cluster_queue == cq.name for t in targets):
        return PREEMPT, borrow, targets
    return RECLAIM, borrow, targets


def get_targets(info: Info, usage: dict[FlavorResource, int], frs: frozenset[FlavorResource], snapshot: Snapshot,
                now: datetime, fair_sharing: FairSharing | None = None, pods_ready_eviction: bool = True) -> list[Target]:
    """GetTargets: the Workloads `info` would preempt for `usage`, or none."""
    cq = snapshot.cluster_queue(info.cluster_queue)
    if cq is None:
        return []
    return _targets(Context(info, cq, snapshot, usage, frs, fair_sharing, pods_ready_eviction=pods_ready_eviction), now)


def preemption_message(preemptor: Info, reason: str, preemptor_path: str, preemptee_path: str) -> str:
    uid = preemptor.obj.meta.uid or "UNKNOWN"
    job_uid = preemptor.obj.meta.labels.get(JOB_UID_LABEL) or "UNKNOWN"
    return (f"Preempted to accommodate a workload (UID: {uid}, JobUID: {job_uid}) due to "
            f"{HUMAN_REASONS.get(reason, HUMAN_REASONS[''])}; preemptor path: {preemptor_path or 'UNKNOWN'}; "
            f"preemptee path: {preemptee_path or 'UNKNOWN'}")


def _priority_text(preemptor: Info, target: Info) -> str:
    p, t = priority(preemptor.obj), priority(target.obj)
    return (f"preemptor effective priority: {p} (base: {p}, boost: 0); "
            f"preemptee effective priority: {t} (base: {t}, boost: 0)")


def issue(preemptor: Info, targets: list[Target], cq: ClusterQueueSnapshot, record: Recorder,
          now: datetime) -> int:
    """IssuePreemptions: each target not evicted yet gets Preempted (its reason) and, through
    workload.Evict, Evicted (Preempted) conditions with its admission checks reset to Pending, and the events; the count of targets preempted or being preempted."""
    preempted = 0
    for target in targets:
        wl = target.info.obj
        if is_evicted(wl):
            preempted += 1
            continue
        preemptee_path = target.cq.path() if target.cq is not None else f"/{target.info.cluster_queue}"
        message = preemption_message(preemptor, target.reason, cq.path(), preemptee_path)
        wlmod.set_preempted(wl, target.reason, message, now)       # (Evict's CustomPrepare)
        wlmod.prepare_for_eviction(wl, EVICTED_BY_PREEMPTION, message, now)     # its checks back to Pending
        record(wl.key, EVENT_NORMAL, wlmod.reason_with_cause(wlmod.EVICTED, EVICTED_BY_PREEMPTION),
               wlmod.event_message(message))
        record(wl.key, EVENT_NORMAL, "Preempted", f"{message}; {_priority_text(preemptor, target.info)}")
        record(preemptor.key, EVENT_NORMAL, "PreemptedWorkload",
               f"Preempted workload {wl.key} (UID: {wl.meta.uid}) in ClusterQueue {target.info.cluster_queue}; "
               f"{_priority_text(preemptor, target.info)}")
        preempted += 1
    return preempted
