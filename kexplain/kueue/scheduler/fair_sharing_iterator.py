"""The scheduler's entry order under fair sharing (fair_sharing_iterator.go): each next entry is
the winner of a tournament over its cohort tree, at each cohort the entry whose ClusterQueue (or
child cohort) would have the lowest dominant resource share after admitting it (not borrowing
first, then higher priority, then older), computed again before each pick as admissions change
the usage."""
from __future__ import annotations

from typing import Iterator

from kexplain.kueue.cache import fair_sharing as fs
from kexplain.kueue.cache.fair_sharing import DRS
from kexplain.kueue.cache.snapshot import CohortSnapshot
from kexplain.kueue.resources import FlavorResource
from kexplain.kueue.workload.ordering import priority, queue_order_timestamp


Shares = dict[tuple[str, str], DRS]          # (parent cohort, workload key) -> the share it competes with there


def fair_order(entries: list, pods_ready_eviction: bool = True) -> Iterator:
    """makeFairSharingIterator's pops: an entry of a ClusterQueue without a cohort as it comes, else
    the tournament's winner of its cohort tree, until every entry is taken (`pods_ready_eviction`:
    the workloadOrdering's requeuing timestamp is Eviction)."""
    by_cq: dict[int, object] = {id(e.cq): e for e in entries if e.cq is not None}
    while by_cq:
        first = next(iter(by_cq.values()))
        cq = first.cq
        if cq.parent is None:
            del by_cq[id(cq)]
            yield first
            continue
        root = cq.parent.root()
        shares, requested = _shares(root, by_cq)
        winner = _tournament(root, by_cq, shares, requested, pods_ready_eviction)
        del by_cq[id(winner.cq)]
        yield winner


def _usage(entry) -> dict[FlavorResource, int]:
    return dict(entry.assignment.usage) if entry.assignment is not None else {}


def _shares(root: CohortSnapshot, by_cq: dict[int, object]) -> tuple[Shares, dict[str, dict]]:
    """computeDRS: each entry's ClusterQueue's share with the entry admitted, and each of its
    cohorts' above it, keyed by the cohort they compete under."""
    shares: Shares = {}
    requested: dict[str, dict] = {}
    for cq in root.subtree_cluster_queues():
        entry = by_cq.get(id(cq))
        if entry is None:
            continue
        usage = _usage(entry)
        cq.add_usage(usage)
        key = entry.info.key
        requested[key] = usage
        share = fs.dominant_resource_share(cq)
        for ancestor in cq.path_parent_to_root():
            shares[(ancestor.name, key)] = share
            share = fs.dominant_resource_share(ancestor)
        cq.remove_usage(usage)
    return shares, requested


def _tournament(cohort: CohortSnapshot, by_cq: dict[int, object], shares: Shares, requested: dict[str, dict],
                pods_ready_eviction: bool = True):
    """runTournament: the best of the child cohorts' winners and the child queues' entries."""
    candidates = [w for child in cohort.child_cohorts
                  if (w := _tournament(child, by_cq, shares, requested, pods_ready_eviction)) is not None]
    candidates += [by_cq[id(cq)] for cq in cohort.child_cqs if id(cq) in by_cq]
    if not candidates:
        return None
    best = candidates[0]
    for current in candidates[1:]:
        if _less(current, best, cohort.name, shares, requested, pods_ready_eviction):
            best = current
    return best


def _less(a, b, parent: str, shares: Shares, requested: dict[str, dict], pods_ready_eviction: bool = True) -> bool:
    """entryComparer.less: not borrowing on what it asks first (FairSharingPrioritizeNonBorrowing),
    then the lower share, then the higher priority (PrioritySortingWithinCohort), then older."""
    da, db = shares[(parent, a.info.key)], shares[(parent, b.info.key)]
    borrows_a, borrows_b = da.borrowing_on(requested[a.info.key]), db.borrowing_on(requested[b.info.key])
    if borrows_a != borrows_b:
        return not borrows_a
    order = fs.compare(da, db)
    if order != 0:
        return order == -1
    pa, pb = priority(a.info.obj), priority(b.info.obj)
    if pa != pb:
        return pa > pb
    ta = queue_order_timestamp(a.info.obj, pods_ready_eviction)
    tb = queue_order_timestamp(b.info.obj, pods_ready_eviction)
    return ta is not None and tb is not None and ta < tb
