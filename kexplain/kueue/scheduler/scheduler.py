"""One scheduling cycle (scheduler.go, Scheduler.schedule): nominate the queues' heads against a
snapshot, then admit, preempt or skip each entry in order and requeue the rest."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable

from kexplain.kueue.apis.constants import ANY, CHECK_REJECTED, CHECK_RETRY, EVENT_NORMAL, EVENT_WARNING, REASON_PENDING
from kexplain.kueue.apis.workload import Admission, PodSetAssignment as APIAssignment
from kexplain.kueue.cache.cache import Cache
from kexplain.kueue.cache.snapshot import ClusterQueueSnapshot, Snapshot
from kexplain.kueue.queue import cluster_queue as requeue
from kexplain.kueue.queue.manager import Manager
from kexplain.kueue.resources import FlavorResource, resource_quantity
from kexplain.kueue.config import FairSharing
from kexplain.kueue.scheduler.fair_sharing_iterator import fair_order
from kexplain.kueue.scheduler.flavorassigner import attempts
from kexplain.kueue.scheduler.flavorassigner.flavorassigner import Assignment, FlavorAssigner
from kexplain.kueue.scheduler.flavorassigner.modes import FIT, NO_FIT, PREEMPT_MODE
from kexplain.kueue.scheduler.flavorassigner.podset_reducer import search
from kexplain.kueue.scheduler.tas import place_for_preemption, tas_fits, tas_reserve
from kexplain.kueue.scheduler.preemption import preemption
from kexplain.kueue.scheduler.preemption.preemption import Target
from kexplain.kueue.versions import KueueVersion
from kexplain.kueue.workload import admissionchecks
from kexplain.kueue.workload import workload as wlmod
from kexplain.kueue.workload.info import Info, new_info
from kexplain.kueue.workload.resources import validate_resources
from kexplain.kueue.workload.ordering import priority, queue_order_timestamp
from kexplain.kueue.workload.workload import has_quota_reservation, is_admitted, is_evicted
from kexplain.model.labels import LabelSelector

Recorder = Callable[[str, str, str, str], None]

# entryStatus
NOT_NOMINATED, NOMINATED, SKIPPED, PREEMPTION_GATED, EVICTED, ASSUMED = ("", "nominated", "skipped",
                                                                         "preemptionGated", "evicted", "assumed")
OVERLAPPING_TARGETS = "Workload has overlapping preemption targets with another workload"
NO_LONGER_FITS = "Workload no longer fits after processing another workload"
CQ_INACTIVE = "ClusterQueue {} is inactive"
FAILED_CHECKS = "The workload has failed admission checks"      # (a head with a check in Retry or Rejected)
CQ_NOT_FOUND = "ClusterQueue {} not found"
INVALID_RESOURCES = "resources validation failed"
# waitForPodsReadyIfBlocked (blockAdmission): the condition the next Workload to admit gets
WAITING = "Waiting"
WAITING_FOR_PODS_READY = "waiting for all admitted workloads to be in PodsReady condition"
PODS_READY = "PodsReady"


@dataclass
class Entry:
    """A head in the cycle: its assignment, what it would preempt, and what became of it."""

    info: Info
    cq: ClusterQueueSnapshot | None = None
    assignment: Assignment | None = None
    targets: list[Target] = field(default_factory=list)
    full_assignment: Assignment | None = None       # before partial admission reduced it
    status: str = NOT_NOMINATED
    message: str = ""
    requeue_reason: str = requeue.GENERIC
    preempted: int = 0

    def record(self, assignment: Assignment, targets: list[Target]) -> None:
        self.assignment = assignment
        self.targets = targets
        self.message = assignment.message()
        self.info.last_assignment = assignment.last_state

    def mark_skipped(self, message: str, keep_scan: bool = False) -> None:
        """markSkipped: the flavor scan starts over next cycle (kept with `keep_scan`, v0.19)."""
        self.status = SKIPPED
        self.message = message
        if not keep_scan:
            self.info.last_assignment = None

    def mark_preemption_outcome(self, preempted: int) -> None:
        self.info.last_assignment = None
        self.preempted = preempted
        if preempted:
            self.message += f". Pending the preemption of {preempted} workload(s)"
            self.requeue_reason = requeue.PENDING_PREEMPTION


@dataclass
class CycleRecord:
    """What one cycle did: its entries in order and the heads found inadmissible before assignment."""

    number: int
    entries: list[Entry]
    inadmissible: list[Entry]


class Scheduler:
    def __init__(self, cache: Cache, queues: Manager, namespace_labels: Callable[[str], dict[str, str]],
                 version: KueueVersion, now: datetime, record: Recorder,
                 fair_sharing: FairSharing | None = None, block_admission: bool = False,
                 flavor_fungibility: bool = True, pods_ready_eviction: bool = True) -> None:
        self.fair_sharing = fair_sharing     # the Configuration's (None: classical preemption and order)
        # its workloadOrdering (WithPodsReadyRequeuingTimestamp): the requeuing timestamp is Eviction
        self.pods_ready_eviction = pods_ready_eviction
        self.flavor_fungibility = flavor_fungibility     # the FlavorFungibility gate, for the flavor assigner
        # waitForPodsReady.blockAdmission: no admission while an admitted Workload is not PodsReady;
        # `blocked`: the Workload the scheduler waits with (it waits for ever in a snapshot)
        self.block_admission = block_admission
        self.blocked = ""
        self.cache = cache
        self.queues = queues
        self.namespace_labels = namespace_labels
        self.version = version
        self.now = now
        self.record = record
        self.cycles: list[CycleRecord] = []
        self.evictions = 0          # preemptions issued to Workloads not evicted before

    def schedule(self) -> bool:
        """Scheduler.schedule: False when no ClusterQueue has a head (nothing ran)."""
        heads = self.queues.heads(self.cache.active)
        if not heads or self.blocked:
            return False
        snapshot = self.cache.snapshot()
        entries, inadmissible = self.nominate(heads, snapshot)
        preempted: dict[str, Info] = {}
        if self.fair_sharing is None:
            ordered = []
            order = functools.partial(_entry_order, pods_ready_eviction=self.pods_ready_eviction)
            for entry in sorted(entries, key=functools.cmp_to_key(order)):
                ordered.append(entry)
                self.process(entry, snapshot, preempted)
                if self.blocked:
                    break
        else:               # the fair sharing iterator: each next entry by a tournament over the shares now
            ordered = []
            for entry in fair_order(entries, self.pods_ready_eviction):
                ordered.append(entry)
                self.process(entry, snapshot, preempted)
                if self.blocked:
                    break
        if self.blocked:    # it waits inside the cycle: nothing after it runs, nothing is requeued
            self.cycles.append(CycleRecord(len(self.cycles) + 1, ordered, inadmissible))
            return True
        for entry in ordered:
            if entry.status not in (ASSUMED, EVICTED):
                self.requeue_and_update(entry)
        for entry in inadmissible:
            self.requeue_and_update(entry)
        self.cycles.append(CycleRecord(len(self.cycles) + 1, ordered, inadmissible))
        return True

    def nominate(self, heads: list[Info], snapshot: Snapshot) -> tuple[list[Entry], list[Entry]]:
        entries, inadmissible = [], []
        for info in heads:
            entry = Entry(info, snapshot.cluster_queue(info.cluster_queue))
            if wlmod.checks_in_state(info.obj, CHECK_RETRY) or wlmod.checks_in_state(info.obj, CHECK_REJECTED):
                entry.message = FAILED_CHECKS
            elif info.cluster_queue in snapshot.inactive:
                entry.message = CQ_INACTIVE.format(info.cluster_queue)
            elif entry.cq is None:
                entry.message = CQ_NOT_FOUND.format(info.cluster_queue)
            elif not _selects(entry.cq.namespace_selector, self.namespace_labels(info.obj.meta.namespace)):
                entry.message = self.version.namespace_mismatch
                entry.requeue_reason = requeue.NAMESPACE_MISMATCH
            elif (invalid := validate_resources(info.obj)):
                entry.message = f"{INVALID_RESOURCES}: {invalid}"
            else:
                assignment, targets, full = self.assignments(info, snapshot)
                entry.record(assignment, targets)
                entry.full_assignment = full
                entries.append(entry)
                continue
            inadmissible.append(entry)
        return entries, inadmissible

    def oracle(self, snapshot: Snapshot):
        def simulate(cq: ClusterQueueSnapshot, info: Info, fr: FlavorResource, quantity: int):
            return preemption.simulate(snapshot, cq, info, fr, quantity, self.now, self.fair_sharing,
                                       self.pods_ready_eviction)
        return simulate

    def targets(self, info: Info, assignment: Assignment, snapshot: Snapshot) -> list[Target]:
        return preemption.get_targets(info, assignment.total_requests_for(info), assignment.needing_preemption(),
                                      snapshot, self.now, self.fair_sharing, self.pods_ready_eviction)

    def assignments(self, info: Info, snapshot: Snapshot) -> tuple[Assignment, list[Target], Assignment | None]:
        """getInitialAssignments: the full assignment, else under partial admission the largest counts
        that fit; the third value is the full one when a partial one was chosen."""
        cq = snapshot.cluster_queue(info.cluster_queue)
        assert cq is not None
        assigner = FlavorAssigner(info, cq, snapshot.flavors, self.oracle(snapshot), self.version,
                                  self.fair_sharing is not None, self.flavor_fungibility)
        full = assigner.assign()
        mode = full.representative_mode()
        if mode == FIT:
            return full, [], None
        if mode == PREEMPT_MODE:
            targets = self.targets(info, full, snapshot)
            place_for_preemption(snapshot, cq, info, full, [t.info for t in targets],
                                 self.version.tas_leader_prioritized)
            if targets:
                return full, targets, None
        if info.can_be_partially_admitted():
            def fits(counts: list[int]):
                reduced = assigner.assign(counts)
                reduced_mode = reduced.representative_mode()
                if reduced_mode == FIT:
                    return (reduced, []), True
                if reduced_mode == PREEMPT_MODE:
                    found = self.targets(info, reduced, snapshot)
                    if found:
                        return (reduced, found), True
                return None, False
            result, found = search(info.obj.spec.pod_sets, fits)
            if found and result is not None:
                return result[0], result[1], full
        return full, [], None

    def process(self, entry: Entry, snapshot: Snapshot, preempted: dict[str, Info]) -> None:
        """processEntry."""
        cq = entry.cq
        assert cq is not None and entry.assignment is not None
        usage = {} if has_quota_reservation(entry.info.obj) else dict(entry.assignment.usage)
        fits, placed = self._fits(entry, cq, usage, snapshot, preempted)
        if fits and not placed:       # TASRecomputeAssignmentWithinSchedulingCycle: placed again
            entry.info.last_assignment = None
            assignment, targets, full = self.assignments(entry.info, snapshot)
            entry.record(assignment, targets)
            entry.full_assignment = full
            usage = {} if has_quota_reservation(entry.info.obj) else dict(assignment.usage)
            fits, placed = self._fits(entry, cq, usage, snapshot, preempted)
        fits = fits and placed
        assert entry.assignment is not None
        mode = entry.assignment.representative_mode()
        if mode == NO_FIT:
            entry.requeue_reason = requeue.NO_FIT
            return
        if mode == PREEMPT_MODE and not entry.targets:
            entry.requeue_reason = requeue.PREEMPTION_NO_CANDIDATES
            if cq.preemption.reclaim_within_cohort != ANY:
                cq.add_usage(self.reserved(entry, cq))
                tas_reserve(cq, entry.info, entry.assignment)
            return
        if any(t.info.key in preempted for t in entry.targets):
            entry.mark_skipped(OVERLAPPING_TARGETS, self.version.preserve_scan_progress)
            return
        if not fits:
            entry.mark_skipped(NO_LONGER_FITS, self.version.preserve_scan_progress)
            return
        for t in entry.targets:
            preempted[t.info.key] = t.info
        cq.add_usage(usage)
        if mode == PREEMPT_MODE:
            tas_reserve(cq, entry.info, entry.assignment)
            evicted_before = sum(1 for t in entry.targets if is_evicted(t.info.obj))
            entry.mark_preemption_outcome(preemption.issue(entry.info, entry.targets, cq, self.record, self.now))
            self.evictions += sum(1 for t in entry.targets if is_evicted(t.info.obj)) - evicted_before
            return
        if self.block_admission and not self._second_pass(entry) and not self._all_pods_ready():
            self._wait_for_pods_ready(entry)
            return
        entry.status = NOMINATED
        self.admit(entry, cq)
        snapshot.update_tas(entry.info, 1)      # (the TAS part of the usage added above)

    def _second_pass(self, entry: Entry) -> bool:
        """NeedsSecondPass, as v0.19 asks it before blocking: a head already holding its quota."""
        wl = entry.info.obj
        return self.version.pods_ready_block_skips_second_pass and has_quota_reservation(wl) and not is_evicted(wl)

    def _all_pods_ready(self) -> bool:
        """PodsReadyForAllAdmittedWorkloads: every Workload the cache holds has PodsReady True."""
        return all(info.obj.is_true(PODS_READY) for cq in self.cache.cluster_queues.values()
                   for info in cq.workloads.values())

    def _wait_for_pods_ready(self, entry: Entry) -> None:
        """waitForPodsReadyIfBlocked: QuotaReserved=False (Waiting) on the Workload, and the scheduler
        waits until every admitted Workload is ready, which a snapshot never sees: the pass ends."""
        wlmod.unset_quota_reservation(entry.info.obj, WAITING, WAITING_FOR_PODS_READY, self.now)
        entry.message = WAITING_FOR_PODS_READY
        self.blocked = entry.info.key

    def _fits(self, entry: Entry, cq: ClusterQueueSnapshot, usage: dict[FlavorResource, int], snapshot: Snapshot,
              preempted: dict[str, Info]) -> tuple[bool, bool]:
        """fits: the quota (with what is preempted taken out), then the TAS domains it was placed on."""
        restore = snapshot.simulate_removal([*preempted.values(), *(t.info for t in entry.targets)])
        try:
            if not cq.fits(usage):
                return False, True
            return True, entry.assignment is None or tas_fits(cq, entry.info, entry.assignment)
        finally:
            restore()

    def reserved(self, entry: Entry, cq: ClusterQueueSnapshot) -> dict[FlavorResource, int]:
        """resourcesToReserve: a preempting Workload without candidates keeps what it could use, up to
        its nominal quota (or borrowing limit)."""
        assignment = entry.assignment
        assert assignment is not None
        if has_quota_reservation(entry.info.obj):
            return {}
        if assignment.representative_mode() != PREEMPT_MODE:
            return dict(assignment.usage)
        out = {}
        for fr, want in assignment.usage.items():
            quota = cq.quota_for(fr)
            used = cq.resource_node.usage.get(fr, 0)
            if assignment.borrowing > 0:
                out[fr] = want if quota.borrowing_limit is None else min(want, quota.nominal + quota.borrowing_limit
                                                                          - used)
            else:
                out[fr] = max(0, min(want, quota.nominal - used))
        return out

    def admit(self, entry: Entry, cq: ClusterQueueSnapshot) -> None:
        """admit: the admission written (QuotaReserved, and Admitted when the Workload holds the
        states of every check its admission needs and they are Ready: prepareWorkload),
        the Workload counted in the cache, the QuotaReserved and Admitted events."""
        assignment = entry.assignment
        assert assignment is not None
        wl = entry.info.obj
        admission = Admission(entry.info.cluster_queue, tuple(_to_api(ps) for ps in assignment.pod_sets))
        considered = attempts.format_for_events([(ps.name, ps.attempts) for ps in assignment.pod_sets])
        had_reservation = has_quota_reservation(wl)
        wlmod.set_quota_reservation(wl, admission, self.now,
                                    sync_admitted=admissionchecks.has_all_required(wl, cq.admission_checks, admission))
        self.cache.add_workload(new_info(wl))
        entry.status = ASSUMED
        self.queues.admitted(entry.info)
        if not had_reservation:         # (QueuedWaitTime: since the Requeued condition's last change, if any)
            requeued = wl.find(wlmod.REQUEUED)
            queued = (requeued.last_transition if requeued is not None else None) or wl.meta.created or self.now
            waited = (self.now - queued).total_seconds()
            message = f"Quota reserved in ClusterQueue {admission.cluster_queue}, wait time since queued was {waited:.0f}s"
            if considered:
                message += f"; Flavors considered: {considered}"
            self.record(wl.key, EVENT_NORMAL, "QuotaReserved", wlmod.event_message(message))
        if is_admitted(wl):
            self.record(wl.key, EVENT_NORMAL, "Admitted",
                        f"Admitted by ClusterQueue {admission.cluster_queue}, wait time since reservation was 0s")

    def requeue_and_update(self, entry: Entry) -> None:
        """requeueAndUpdate: back to the queue; a head not nominated or skipped gets
        QuotaReserved=False, reason Pending, with the message, and the Pending event."""
        reason = entry.requeue_reason
        if entry.status != NOT_NOMINATED and reason == requeue.GENERIC:
            reason = requeue.FAILED_AFTER_NOMINATION
        self.queues.requeue(entry.info, reason)
        if entry.status in (NOT_NOMINATED, SKIPPED, PREEMPTION_GATED):
            wlmod.unset_quota_reservation(entry.info.obj, REASON_PENDING, entry.message, self.now)
            self.record(entry.info.key, EVENT_WARNING, REASON_PENDING, wlmod.event_message(entry.message))


def _selects(selector: LabelSelector, labels: dict[str, str]) -> bool:
    return selector.matches(labels)


def _to_api(ps) -> APIAssignment:
    return APIAssignment(ps.name, {res: fa.name for res, fa in ps.flavors.items()},
                         {res: resource_quantity(res, ps.requests.get(res, 0)) for res in ps.flavors}, ps.count,
                         ps.topology_assignment, delayed_topology_request=ps.delayed_topology_request)


def _entry_order(a: Entry, b: Entry, pods_ready_eviction: bool = True) -> int:
    """classicalIterator's order: quota held first, then not borrowing (lower borrowing level),
    then higher priority, then older (the Ordering's timestamps)."""
    qa, qb = has_quota_reservation(a.info.obj), has_quota_reservation(b.info.obj)
    if qa != qb:
        return -1 if qa else 1
    ba = a.assignment.borrowing if a.assignment else 0
    bb = b.assignment.borrowing if b.assignment else 0
    if ba != bb:
        return -1 if ba < bb else 1
    pa, pb = priority(a.info.obj), priority(b.info.obj)
    if pa != pb:
        return -1 if pa > pb else 1
    ta = queue_order_timestamp(a.info.obj, pods_ready_eviction)
    tb = queue_order_timestamp(b.info.obj, pods_ready_eviction)
    if ta is not None and tb is not None and ta != tb:
        return -1 if ta < tb else 1
    return 0

