"""The snapshot a scheduling cycle takes of the cache (snapshot.go, clusterqueue_snapshot.go):
the active ClusterQueues and the cohorts not in a cycle, usage copied, so that the cycle can add
what it admits and preemption can simulate removing Workloads without touching the cache."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping, Optional

from kexplain.kueue.apis.clusterqueue import FlavorFungibility, Preemption
from kexplain.kueue.apis.resourceflavor import ResourceFlavor
from kexplain.kueue.cache import resource_node as rn
from kexplain.kueue.cache.clusterqueue import Group
from kexplain.kueue.cache.hierarchy import CohortNode
from kexplain.kueue.cache.resource_node import Quota, ResourceNode
from kexplain.kueue.cache.tas_cache import tas_usage
from kexplain.kueue.cache.tas_snapshot import TASFlavorSnapshot
from kexplain.kueue.resources import FlavorResource
from kexplain.kueue.workload.info import Info
from kexplain.model.labels import LabelSelector

Usage = dict[FlavorResource, int]
CohortSnapshot = CohortNode["ClusterQueueSnapshot"]


@dataclass(eq=False)
class ClusterQueueSnapshot:
    name: str
    groups: tuple[Group, ...]
    workloads: dict[str, Info]
    namespace_selector: LabelSelector
    preemption: Preemption
    flavor_fungibility: FlavorFungibility
    generation: int
    resource_node: ResourceNode
    parent: Optional[CohortSnapshot] = None
    admission_checks: Mapping[str, frozenset[str]] = field(default_factory=dict)   # check -> its flavors
    fair_weight: float = 1.0
    tas_flavors: dict[str, TASFlavorSnapshot] = field(default_factory=dict)   # its TAS flavors' snapshots
    tas_only: bool = False          # isTASOnly: every flavor it names is a TAS flavor
    # TAS waits for these checks (a Workload without quota is placed after them): the flavors its
    # ProvisioningRequest checks apply to, and whether it has a MultiKueue check
    prov_req_flavors: frozenset[str] = frozenset()
    multikueue: bool = False

    def rg_by_resource(self, resource: str) -> Group | None:
        for group in self.groups:
            if resource in group.covered:
                return group
        return None

    def quota_for(self, fr: FlavorResource) -> Quota:
        return self.resource_node.quotas.get(fr) or Quota()

    def available(self, fr: FlavorResource) -> int:
        return max(0, rn.available(self, fr))

    def potential_available(self, fr: FlavorResource) -> int:
        return rn.potential_available(self, fr)

    def borrowing_with(self, fr: FlavorResource, val: int) -> bool:
        return self.resource_node.usage.get(fr, 0) + val > self.quota_for(fr).nominal

    def borrowing(self, fr: FlavorResource) -> bool:
        return self.borrowing_with(fr, 0)

    def add_usage(self, usage: Usage) -> None:
        for fr, q in usage.items():
            rn.add_usage(self, fr, q)

    def remove_usage(self, usage: Usage) -> None:
        for fr, q in usage.items():
            rn.remove_usage(self, fr, q)

    def fits(self, usage: Usage) -> bool:
        return all(self.available(fr) >= q for fr, q in usage.items())

    def path_parent_to_root(self) -> Iterator[CohortSnapshot]:
        return self.parent.path_self_to_root() if self.parent is not None else iter(())

    def path(self) -> str:
        """buildCQPath: `/ROOT/.../COHORT/NAME`."""
        parts = [self.name, *(c.name for c in self.path_parent_to_root())]
        return "/" + "/".join(reversed(parts))


def cohort_borrowing_with(cohort: CohortSnapshot, fr: FlavorResource, val: int) -> bool:
    node = cohort.resource_node
    return node.usage.get(fr, 0) + val > node.subtree_quota.get(fr, 0)


@dataclass
class Snapshot:
    cluster_queues: dict[str, ClusterQueueSnapshot]
    cohorts: dict[str, CohortSnapshot]
    flavors: dict[str, ResourceFlavor]
    inactive: set[str] = field(default_factory=set)
    # per ClusterQueue, its Workloads as preemption reads them (`classical.held`), made once
    held: dict[str, Any] = field(default_factory=dict)
    candidates: dict[tuple, Any] = field(default_factory=dict)     # (`classical._from_cq`)
    tas: dict[str, TASFlavorSnapshot] = field(default_factory=dict)  # per TAS flavor, shared by its ClusterQueues

    def cluster_queue(self, name: str) -> ClusterQueueSnapshot | None:
        return self.cluster_queues.get(name)

    def add_workload(self, info: Info) -> None:
        cq = self.cluster_queues[info.cluster_queue]
        cq.workloads[info.key] = info
        cq.add_usage(info.usage())
        self.update_tas(info, 1)

    def remove_workload(self, info: Info) -> None:
        cq = self.cluster_queues[info.cluster_queue]
        cq.workloads.pop(info.key, None)
        cq.remove_usage(info.usage())
        self.update_tas(info, -1)

    def update_tas(self, info: Info, sign: int) -> None:
        """The TAS part of AddUsage / RemoveUsage: the domains its admission holds on each TAS flavor."""
        if not self.tas or info.obj.admission is None:
            return
        for flavor, snap in self.tas.items():
            for domain_id, usage in tas_usage(info, flavor):
                snap.update_tas_usage(domain_id, usage, sign)

    def simulate_removal(self, infos: Iterable[Info]) -> "Restore":
        """SimulateWorkloadRemoval: their usage taken out of their ClusterQueues until restored."""
        infos = [i for i in infos if i.cluster_queue in self.cluster_queues]
        removed = [(self.cluster_queues[i.cluster_queue], i.usage()) for i in infos]
        for cq, usage in removed:
            cq.remove_usage(usage)
        for info in infos:
            self.update_tas(info, -1)
        return Restore(removed, self, infos)


@dataclass
class Restore:
    removed: list[tuple[ClusterQueueSnapshot, Usage]]
    snapshot: Any = None
    infos: list[Info] = field(default_factory=list)

    def __call__(self) -> None:
        for cq, usage in self.removed:
            cq.add_usage(usage)
        for info in self.infos:
            self.snapshot.update_tas(info, 1)
