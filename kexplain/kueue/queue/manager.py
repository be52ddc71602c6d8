"""The queue manager (cache/queue/manager.go): LocalQueues into ClusterQueues, a pending
Workload added to its LocalQueue's ClusterQueue, the heads of the active ClusterQueues each
cycle, and a head requeued after the cycle; with admission fair sharing, the LocalQueues' usage
each ClusterQueue in UsageBasedAdmissionFairSharing orders by (`queue.afs`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable

from kexplain.kueue.apis.clusterqueue import ClusterQueue
from kexplain.kueue.apis.localqueue import LocalQueue
from kexplain.kueue.config_afs import AdmissionFairSharing
from kexplain.kueue.queue.afs import USAGE_BASED, FairSharingState
from kexplain.kueue.queue.cluster_queue import QueuedClusterQueue, local_queue_key
from kexplain.kueue.versions import KueueVersion
from kexplain.kueue.workload.info import Info
from kexplain.kueue.workload.workload import is_admissible

LOCAL_QUEUE_MISSING = "localQueue doesn't exist or inactive"
CLUSTER_QUEUE_MISSING = "clusterQueue doesn't exist"


@dataclass
class QueuedLocalQueue:
    key: str
    cluster_queue: str
    items: dict[str, Info] = field(default_factory=dict)


@dataclass
class Manager:
    version: KueueVersion
    local_queues: dict[str, QueuedLocalQueue] = field(default_factory=dict)
    cluster_queues: dict[str, QueuedClusterQueue] = field(default_factory=dict)
    assigned: dict[str, str] = field(default_factory=dict)        # workload key -> LocalQueue key
    afs: FairSharingState | None = None         # admission fair sharing on (Configuration and gate)

    @classmethod
    def build(cls, version: KueueVersion, cluster_queues: list[ClusterQueue], local_queues: list[LocalQueue],
              now: datetime | None = None, afs: AdmissionFairSharing | None = None,
              pods_ready_eviction: bool = True) -> "Manager":
        """The ClusterQueues, and the LocalQueues not stopped (the LocalQueue controller adds no stopped one);
        `now`: the clock the requeue backoffs are read against; `afs`: admission fair sharing, when on;
        `pods_ready_eviction`: its workloadOrdering's requeuing timestamp is Eviction (WithPodsReadyRequeuingTimestamp)."""
        m = cls(version, afs=FairSharingState.build(afs, local_queues, version.afs_nonpositive_weight_last)
                if afs is not None else None)
        for cq in cluster_queues:
            m.cluster_queues[cq.name] = QueuedClusterQueue(cq.name, cq.queueing_strategy, version, now=now, afs=m.afs,
                                                           afs_ordering=cq.admission_mode == USAGE_BASED,
                                                           pods_ready_eviction=pods_ready_eviction)
        for lq in local_queues:
            if not lq.stopped:
                m.local_queues[lq.key] = QueuedLocalQueue(lq.key, lq.cluster_queue)
                if lq.cluster_queue in m.cluster_queues:
                    m.cluster_queues[lq.cluster_queue].local_queue_keys.add(lq.key)
        return m

    def admitted(self, info: Info) -> None:
        """An admission (assumeWorkload): its entry penalty added to its LocalQueue's usage."""
        if self.afs is None:
            return
        summed: dict[str, int] = {}
        for ps in info.total_requests:
            for name, amount in ps.requests.items():
                summed[name] = summed.get(name, 0) + amount
        self.afs.push_penalty(local_queue_key(info), summed)

    def add_workload(self, info: Info) -> str:
        """AddOrUpdateWorkload: "" when queued, else why not (the queue manager's error)."""
        if not is_admissible(info.obj):
            return "workload is inadmissible and can't be added to a LocalQueue"
        lq_key = f"{info.obj.meta.namespace}/{info.obj.spec.queue_name}"
        lq = self.local_queues.get(lq_key)
        if lq is None:
            return LOCAL_QUEUE_MISSING
        self.assigned[info.key] = lq_key
        lq.items[info.key] = info
        cq = self.cluster_queues.get(lq.cluster_queue)
        if cq is None:
            return CLUSTER_QUEUE_MISSING
        cq.push_or_update(info)
        return ""

    def cluster_queue_for(self, namespace: str, queue_name: str) -> tuple[str, bool]:
        """ClusterQueueForWorkload: the LocalQueue's ClusterQueue and whether it exists."""
        lq = self.local_queues.get(f"{namespace}/{queue_name}")
        if lq is None:
            return "", False
        return lq.cluster_queue, lq.cluster_queue in self.cluster_queues

    def heads(self, active: Callable[[str], bool]) -> list[Info]:
        """Heads: the head of each active ClusterQueue, popped, as a copy naming its ClusterQueue."""
        out = []
        for name in sorted(self.cluster_queues):
            if not active(name):
                continue
            cq = self.cluster_queues[name]
            info = cq.pop()
            if info is None:
                continue
            lq = self.local_queues.get(self.assigned.get(info.key, ""))
            if lq is not None:
                lq.items.pop(info.key, None)
            head = Info(info.obj, info.total_requests, name, info.last_assignment, info.scheduling_hash)
            out.append(head)
        return out

    def requeue(self, info: Info, reason: str) -> bool:
        """RequeueWorkload: back to its LocalQueue and ClusterQueue, when still admissible."""
        if not is_admissible(info.obj):
            return False
        lq = self.local_queues.get(self.assigned.get(info.key, ""))
        if lq is None:
            return False
        lq.items[info.key] = info
        cq = self.cluster_queues.get(lq.cluster_queue)
        if cq is None:
            return False
        return cq.requeue_if_not_present(info, reason)
