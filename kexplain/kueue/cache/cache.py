"""The scheduler's cache (cache.go): ResourceFlavors, ClusterQueues and cohorts with their quota,
and the usage of the Workloads holding quota, kept up to date as the scheduler admits; its
`snapshot` is what each cycle reads."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from kexplain.kueue.apis.admissioncheck import AdmissionCheck
from kexplain.kueue.apis.clusterqueue import ClusterQueue
from kexplain.kueue.apis.cohort import Cohort
from kexplain.kueue.apis.resourceflavor import ResourceFlavor
from kexplain.kueue.cache import resource_node as rn
from kexplain.kueue.cache.clusterqueue import CachedClusterQueue, quotas_of
from kexplain.kueue.cache.hierarchy import CohortNode, add_child_sorted, has_cycle
from kexplain.kueue.cache.resource_node import ResourceNode
from kexplain.kueue.cache.snapshot import ClusterQueueSnapshot, Snapshot
from kexplain.kueue.cache.tas_cache import TASCache
from kexplain.kueue.workload.info import Info

CachedCohort = CohortNode[CachedClusterQueue]


@dataclass
class Cache:
    flavors: dict[str, ResourceFlavor] = field(default_factory=dict)
    cluster_queues: dict[str, CachedClusterQueue] = field(default_factory=dict)
    cohorts: dict[str, CachedCohort] = field(default_factory=dict)
    tas: TASCache | None = None

    @classmethod
    def build(cls, flavors: dict[str, ResourceFlavor], cluster_queues: list[ClusterQueue],
              cohorts: list[Cohort], admission_checks: Mapping[str, AdmissionCheck] | None = None,
              tas: TASCache | None = None) -> "Cache":
        cache = cls(dict(flavors), tas=tas)
        for api in cohorts:
            node = cache._cohort(api.name)
            node.explicit = True
            node.fair_weight = api.fair_weight
            node.resource_node = ResourceNode(quotas_of(api.resource_groups), {}, {})
        for api in cohorts:
            if api.parent:
                parent = cache._cohort(api.parent)
                cache.cohorts[api.name].parent = parent
                add_child_sorted(parent.child_cohorts, cache.cohorts[api.name])
        for api in cluster_queues:
            cq = CachedClusterQueue.of(api, cache.flavors, admission_checks)
            cq.missing_topologies = tuple(sorted(
                (f, str(cache.flavors[f].topology_name)) for f in set(api.flavor_names())
                if f in cache.flavors and cache.flavors[f].topology_name is not None
                and (tas is None or tas.topology_of(f) is None)))
            cache.cluster_queues[api.name] = cq
            if api.cohort:
                parent = cache._cohort(api.cohort)
                cq.parent = parent
                add_child_sorted(parent.child_cqs, cq)
        for cohort in cache.cohorts.values():
            if cohort.parent is None:
                _update_subtree(cohort)
        return cache

    def _cohort(self, name: str) -> CachedCohort:
        node = self.cohorts.get(name)
        if node is None:
            node = self.cohorts[name] = CohortNode(name)
        return node

    def active(self, name: str) -> bool:
        """ClusterQueueActive: exists, is active, and is not under a cohort cycle."""
        cq = self.cluster_queues.get(name)
        return cq is not None and cq.active and not (cq.parent is not None and has_cycle(cq.parent))

    def add_workload(self, info: Info) -> bool:
        """AddOrUpdateWorkload: its usage counted in the ClusterQueue of its admission."""
        cq = self.cluster_queues.get(info.cluster_queue)
        if cq is None:
            return False
        old = cq.workloads.pop(info.key, None)
        if old is not None and not (cq.parent is not None and has_cycle(cq.parent)):
            for fr, q in old.usage().items():
                rn.remove_usage(cq, fr, q)
        cq.workloads[info.key] = info
        if cq.parent is not None and has_cycle(cq.parent):     # its cohort tree is not one: its own usage only
            for fr, q in info.usage().items():
                cq.resource_node.usage[fr] = cq.resource_node.usage.get(fr, 0) + q
            return True
        for fr, q in info.usage().items():
            rn.add_usage(cq, fr, q)
        return True

    def snapshot(self) -> Snapshot:
        """Snapshot: the cohorts not in a cycle and the active ClusterQueues, usage copied."""
        snap = Snapshot({}, {}, self.flavors)
        if self.tas is not None and self.tas.flavors:
            snap.tas = self.tas.snapshots(i for cq in self.cluster_queues.values() for i in cq.workloads.values())
        for name, cohort in self.cohorts.items():
            if has_cycle(cohort):
                continue
            snap.cohorts[name] = CohortNode(name, cohort.resource_node.clone(), explicit=cohort.explicit,
                                            fair_weight=cohort.fair_weight)
        for name, cohort in self.cohorts.items():
            if name in snap.cohorts and cohort.parent is not None and cohort.parent.name in snap.cohorts:
                child, parent = snap.cohorts[name], snap.cohorts[cohort.parent.name]
                child.parent = parent
                add_child_sorted(parent.child_cohorts, child)
        for name, cq in self.cluster_queues.items():
            if not self.active(name):
                snap.inactive.add(name)
                continue
            copy = ClusterQueueSnapshot(name, cq.groups, dict(cq.workloads), cq.namespace_selector, cq.preemption,
                                        cq.flavor_fungibility, cq.generation, cq.resource_node.clone(),
                                        admission_checks=cq.admission_checks, fair_weight=cq.api.fair_weight)
            names = cq.api.flavor_names()
            copy.tas_flavors = {f: snap.tas[f] for f in names if f in snap.tas}
            copy.tas_only = bool(names) and all(f in snap.tas for f in names)
            checks = cq.admission_checks
            copy.prov_req_flavors = frozenset(f for name in cq.provisioning_checks for f in checks.get(name, ()))
            copy.multikueue = bool(cq.multikueue_checks)
            if cq.parent is not None and cq.parent.name in snap.cohorts:
                parent = snap.cohorts[cq.parent.name]
                copy.parent = parent
                add_child_sorted(parent.child_cqs, copy)
            snap.cluster_queues[name] = copy
        return snap


def _update_subtree(cohort: CachedCohort) -> None:
    """updateCohortResourceNode: a cohort's subtree quota is its own nominal quota plus what each
    child does not keep; its usage what each child uses above what it keeps."""
    if has_cycle(cohort):
        return
    node = cohort.resource_node
    node.subtree_quota = {fr: q.nominal for fr, q in node.quotas.items()}
    node.usage = {}
    for child in cohort.child_cohorts:
        _update_subtree(child)
        _accumulate(node, child.resource_node)
    for cq in cohort.child_cqs:
        cq.resource_node.subtree_quota = {fr: q.nominal for fr, q in cq.resource_node.quotas.items()}
        _accumulate(node, cq.resource_node)


def _accumulate(parent: ResourceNode, child: ResourceNode) -> None:
    for fr, quota in child.subtree_quota.items():
        parent.subtree_quota[fr] = parent.subtree_quota.get(fr, 0) + quota - child.local_quota(fr)
    for fr, used in child.usage.items():
        parent.usage[fr] = parent.usage.get(fr, 0) + max(0, used - child.local_quota(fr))

