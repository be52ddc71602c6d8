"""Fair-sharing preemption (preemption/fairsharing and preemption.go's fairPreemptions): the
candidates of the preemptor's ClusterQueue and of the borrowing ClusterQueues of its cohort tree,
taken from the ClusterQueue (or cohort) whose dominant resource share is highest at each level,
each allowed or not by a strategy that compares the shares at the two queues' almost-least-common
ancestors: the preemptor's after admitting it, the target's before or after losing the candidate."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Iterator

from kexplain.kueue.apis.constants import NEVER
from kexplain.kueue.cache import fair_sharing as fs
from kexplain.kueue.cache.fair_sharing import DRS
from kexplain.kueue.cache.snapshot import ClusterQueueSnapshot, CohortSnapshot
from kexplain.kueue.config import LESS_THAN_INITIAL_SHARE, LESS_THAN_OR_EQUAL_TO_FINAL_SHARE
from kexplain.kueue.resources import FlavorResource
from kexplain.kueue.scheduler.preemption import classical
from kexplain.kueue.scheduler.preemption.common import quota_reservation_time, satisfies_policy
from kexplain.kueue.workload.info import Info
from kexplain.kueue.workload.ordering import priority
from kexplain.kueue.workload.workload import is_evicted

# (preemptor's new share, target's old share, target's new share) -> preempt?
Strategy = Callable[[DRS, DRS, DRS], bool]
STRATEGIES: dict[str, Strategy] = {
    LESS_THAN_OR_EQUAL_TO_FINAL_SHARE: lambda new, _old, target_new: fs.compare(new, target_new) <= 0,
    LESS_THAN_INITIAL_SHARE: lambda new, old, _target_new: fs.compare(new, old) < 0,
}


def candidate_key(preemptor_cq: str, now: datetime) -> Callable[[Info], tuple]:
    """CandidatesOrdering: evicted first, other ClusterQueues' before the preemptor's own, lower
    priority, the most recently reserved, then uid."""
    def key(info: Info) -> tuple:
        wl = info.obj
        return (not is_evicted(wl), info.cluster_queue == preemptor_cq, priority(wl),
                -quota_reservation_time(wl, now).timestamp(), wl.meta.uid)
    return key


def find_candidates(preemptor: Info, cq: ClusterQueueSnapshot, frs: frozenset[FlavorResource],
                    pods_ready_eviction: bool = True) -> list[Info]:
    """findCandidates: by withinClusterQueue in its own queue, by reclaimWithinCohort in every
    ClusterQueue of the cohort tree that borrows a pair the preemptor needs."""
    out: list[Info] = []

    def take(queue: ClusterQueueSnapshot, policy: str) -> None:
        out.extend(info for info in queue.workloads.values()
                   if satisfies_policy(preemptor.obj, info.obj, policy, pods_ready_eviction)
                   and classical.uses_resources(info, frs))

    if cq.preemption.within_cluster_queue != NEVER:
        take(cq, cq.preemption.within_cluster_queue)
    if cq.parent is not None and cq.preemption.reclaim_within_cohort != NEVER:
        for other in cq.parent.root().subtree_cluster_queues():
            if other is not cq and any(other.borrowing(fr) for fr in frs):
                take(other, cq.preemption.reclaim_within_cohort)
    return out


@dataclass
class Ordering:
    """TargetClusterQueueOrdering: the candidates per ClusterQueue, and the queues and cohorts
    pruned as the walk finds nothing more to take there."""

    preemptor_cq: ClusterQueueSnapshot
    candidates: list[Info]
    key: Callable[[Info], tuple]
    by_cq: dict[str, list[Info]] = field(default_factory=dict)
    pruned_cqs: set[int] = field(default_factory=set)
    pruned_cohorts: set[int] = field(default_factory=set)
    ancestors: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.ancestors = {id(a) for a in self.preemptor_cq.path_parent_to_root()}
        for info in self.candidates:
            self.by_cq.setdefault(info.cluster_queue, []).append(info)

    def has_workload(self, cq: ClusterQueueSnapshot) -> bool:
        return bool(self.by_cq.get(cq.name))

    def targets(self) -> Iterator["TargetQueue"]:
        """Iter: the preemptor's own queue while it has candidates when it has no cohort, else
        the next target of the cohort tree until the root is pruned."""
        if self.preemptor_cq.parent is None:
            own = TargetQueue(self, self.preemptor_cq)
            while own.has_workload():
                yield own
            return
        root = self.preemptor_cq.parent.root()
        while id(root) not in self.pruned_cohorts:
            target = self._next(root)
            if target is not None:
                yield target

    def drop(self, target: "TargetQueue") -> None:
        self.pruned_cqs.add(id(target.cq))

    def _next(self, cohort: CohortSnapshot) -> "TargetQueue | None":
        """nextTarget: the child with the highest share, a borrowing ClusterQueue with candidates
        (or the preemptor's) or a borrowing cohort (or one on the preemptor's path); a tie
        between queues goes to the better candidate at their heads."""
        best_cq, best_cq_drs = None, fs.NEGATIVE
        for cq in cohort.child_cqs:
            if id(cq) in self.pruned_cqs:
                continue
            drs = fs.dominant_resource_share(cq)
            if (not drs.borrowing and cq is not self.preemptor_cq) or not self.has_workload(cq):
                self.pruned_cqs.add(id(cq))
                continue
            order = fs.compare(drs, best_cq_drs)
            if order == 0 and best_cq is not None:
                if self.key(self.by_cq[cq.name][0]) < self.key(self.by_cq[best_cq.name][0]):
                    best_cq = cq
            elif order == 1:
                best_cq, best_cq_drs = cq, drs
        best_cohort, best_cohort_drs = None, fs.NEGATIVE
        for child in cohort.child_cohorts:
            if id(child) in self.pruned_cohorts:
                continue
            drs = fs.dominant_resource_share(child)
            if not drs.borrowing and id(child) not in self.ancestors:
                self.pruned_cohorts.add(id(child))
            elif fs.compare(drs, best_cohort_drs) >= 0:
                best_cohort, best_cohort_drs = child, drs
        if best_cohort is None and best_cq is None:
            self.pruned_cohorts.add(id(cohort))
            return None
        if best_cohort is not None and fs.compare(best_cohort_drs, best_cq_drs) >= 0:
            return self._next(best_cohort)
        return TargetQueue(self, best_cq) if best_cq is not None else None


@dataclass
class TargetQueue:
    """TargetClusterQueue: a queue the walk takes a candidate from."""

    ordering: Ordering
    cq: ClusterQueueSnapshot

    def own(self) -> bool:
        """InClusterQueuePreemption."""
        return self.cq is self.ordering.preemptor_cq

    def has_workload(self) -> bool:
        return self.ordering.has_workload(self.cq)

    def pop(self) -> Info:
        return self.ordering.by_cq[self.cq.name].pop(0)

    def shares(self) -> tuple[DRS, DRS]:
        """ComputeShares: the preemptor's and the target's at their almost-least-common ancestors."""
        preemptor_node, target_node = self._almost_lcas()
        return fs.dominant_resource_share(preemptor_node), fs.dominant_resource_share(target_node)

    def share_after_removal(self, info: Info) -> DRS:
        """ComputeTargetShareAfterRemoval."""
        usage = info.usage()
        self.cq.remove_usage(usage)
        try:
            return fs.dominant_resource_share(self._almost_lcas()[1])
        finally:
            self.cq.add_usage(usage)

    def nodes(self) -> tuple[Any, Any]:
        """The preemptor's and the target's almost-least-common ancestors (whose shares are compared)."""
        return self._almost_lcas()

    def _almost_lcas(self) -> tuple[fs.Node, fs.Node]:
        ancestors = self.ordering.ancestors
        lca = next(a for a in self.cq.path_parent_to_root() if id(a) in ancestors)
        return _almost_lca(self.ordering.preemptor_cq, lca), _almost_lca(self.cq, lca)


def _almost_lca(cq: ClusterQueueSnapshot, lca: CohortSnapshot) -> fs.Node:
    node: fs.Node = cq
    for ancestor in cq.path_parent_to_root():
        if ancestor is lca:
            return node
        node = ancestor
    raise AssertionError("no almost least common ancestor")

