"""One ClusterQueue's pending Workloads (cache/queue/cluster_queue.go): a heap by priority then
creation time (under admission fair sharing, by its LocalQueue's usage first: `queue.afs`), the
inadmissible set aside, and how a head not admitted goes back."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from datetime import datetime, timezone

from kexplain.kueue.apis.constants import BEST_EFFORT_FIFO, STRICT_FIFO
from kexplain.kueue.queue.afs import FairSharingState, go_compare
from kexplain.kueue.queue.heap import Heap
from kexplain.kueue.versions import KueueVersion
from kexplain.kueue.workload.info import Info
from kexplain.kueue.workload.ordering import priority, queue_order_timestamp
from kexplain.kueue.workload.workload import backoff_expired

EPOCH = datetime(1, 1, 1, tzinfo=timezone.utc)

# RequeueReason
FAILED_AFTER_NOMINATION = "FailedAfterNomination"
NAMESPACE_MISMATCH = "NamespaceMismatch"
GENERIC = ""
PENDING_PREEMPTION = "PendingPreemption"
PREEMPTION_FAILED = "PreemptionFailed"
# v0.19's names for a head that found no fit, or no preemption candidates: the reasons that set
# equivalent Workloads aside (in v0.17 they requeue as GENERIC does).
NO_FIT = "NoFit"
PREEMPTION_NO_CANDIDATES = "PreemptionNoCandidates"


@dataclass(eq=False)
class QueuedClusterQueue:
    name: str
    strategy: str
    version: KueueVersion
    inadmissible: dict[str, Info] = field(default_factory=dict)
    no_fit_hashes: set[str] = field(default_factory=set)
    pop_cycle: int = 0
    queue_inadmissible_cycle: int = -1
    inflight: Info | None = None
    sticky: str | None = None
    now: datetime | None = None         # the pass's clock: a Workload's requeue backoff (`backoff_expired`)
    afs: FairSharingState | None = None     # admission fair sharing on (its penalties rebuild the heap)
    afs_ordering: bool = False          # this ClusterQueue's admissionMode orders by LocalQueue usage
    local_queue_keys: set[str] = field(default_factory=set)
    pods_ready_eviction: bool = True    # the Ordering's requeuing timestamp is Eviction (not Creation)

    def __post_init__(self) -> None:
        self.heap: Heap[Info] = Heap(lambda i: i.key, lambda a, b: self.compare(a, b) < 0)

    def compare(self, a: Info, b: Info) -> int:
        """queueOrderingFunc: with admission fair sharing, the lower usage of the Workloads' LocalQueues;
        then baseCompareFunc."""
        if self.afs is not None and self.afs_ordering:
            found = go_compare(self.afs.usage(local_queue_key(a)), self.afs.usage(local_queue_key(b)))
            if found:
                return found
        return self.base_compare(a, b)

    def base_compare(self, a: Info, b: Info) -> int:
        """baseCompareFunc: the sticky Workload, then higher priority, then older, then uid."""
        a_sticky, b_sticky = self.sticky == a.key, self.sticky == b.key
        if a_sticky != b_sticky:
            return -1 if a_sticky else 1
        pa, pb = priority(a.obj), priority(b.obj)
        if pa != pb:
            return -1 if pa > pb else 1
        ta = queue_order_timestamp(a.obj, self.pods_ready_eviction) or EPOCH
        tb = queue_order_timestamp(b.obj, self.pods_ready_eviction) or EPOCH
        if ta != tb:
            return -1 if ta < tb else 1
        ua, ub = a.obj.meta.uid, b.obj.meta.uid
        return (ua > ub) - (ua < ub)

    def push_or_update(self, info: Info) -> None:
        """PushOrUpdate of a Workload the queue manager is given (not a requeue)."""
        key = info.key
        if self.inflight is not None and self.inflight.key == key:
            return
        if key in self.inadmissible:
            del self.inadmissible[key]
        if self.heap.get(key) is None and not backoff_expired(info.obj, self.now):
            self.inadmissible[key] = info
            return
        if (self.version.equivalence_hashing and self.strategy == BEST_EFFORT_FIFO and self.heap.get(key) is None
                and info.scheduling_hash and info.scheduling_hash in self.no_fit_hashes):
            self.inadmissible[key] = info
            return
        self.heap.push_or_update(info)

    def pop(self) -> Info | None:
        if self.afs is not None and self.afs.has_pending(self.local_queue_keys):
            self.heap.rebuild()         # rebuildAll: the penalties changed the usages the heap was built on
        self.pop_cycle += 1
        if not len(self.heap):
            self.inflight = None
            return None
        self.inflight = self.heap.pop()
        return self.inflight

    def requeue_if_not_present(self, info: Info, reason: str) -> bool:
        """RequeueIfNotPresent: whether it goes back to the heap at once (`immediate`) follows
        the queueing strategy and the reason the scheduler gives."""
        if reason == PENDING_PREEMPTION and self.strategy == BEST_EFFORT_FIFO:
            self.sticky = info.key
        if self.strategy == STRICT_FIFO:
            immediate = reason != NAMESPACE_MISMATCH
        else:
            immediate = reason in (FAILED_AFTER_NOMINATION, PENDING_PREEMPTION, PREEMPTION_FAILED)
        return self._requeue(info, immediate, reason)

    def _requeue(self, info: Info, immediate: bool, reason: str) -> bool:
        key = info.key
        if self.inflight is not None and self.inflight.key == key:
            self.inflight = None
        held = self.inadmissible.get(key)
        pending = info.last_assignment is not None and info.last_assignment.pending_flavors()
        if backoff_expired(info.obj, self.now) and (immediate or self.queue_inadmissible_cycle >= self.pop_cycle
                                                    or pending):
            if held is not None:
                info = held
                del self.inadmissible[key]
            return self.heap.push_if_not_present(info)
        if held is not None or self.heap.get(key) is not None:
            return False
        self.inadmissible[key] = info
        if self.version.equivalence_hashing and info.scheduling_hash and reason in (NO_FIT, PREEMPTION_NO_CANDIDATES):
            self._set_aside_equivalent(info.scheduling_hash)
        return True

    def _set_aside_equivalent(self, scheduling_hash: str) -> int:
        """handleInadmissibleHash (BestEffortFIFO): the Workloads of the same shape waiting in
        the heap go to the inadmissible list without being tried."""
        if self.strategy != BEST_EFFORT_FIFO:
            return 0
        self.no_fit_hashes.add(scheduling_hash)
        moved = 0
        for info in self.heap.items():
            if info.scheduling_hash == scheduling_hash:
                self.heap.delete(info.key)
                self.inadmissible[info.key] = info
                moved += 1
        return moved

    def pending(self) -> list[Info]:
        """The Workloads in the heap in the order they would pop (Snapshot's sort)."""
        return sorted(self.heap.items(), key=functools.cmp_to_key(self.compare))


def local_queue_key(info: Info) -> str:
    """KeyFromWorkload: `NAMESPACE/QUEUE`."""
    return f"{info.obj.meta.namespace}/{info.obj.spec.queue_name}"
