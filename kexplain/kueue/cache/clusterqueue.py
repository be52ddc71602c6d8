"""A ClusterQueue as the cache holds it (clusterqueue.go): its resource groups, quotas in
Kueue's integers, the cohort it is in, whether it is active (not stopped, every flavor it names
exists) and the Workloads holding its quota."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from kexplain.kueue.apis.clusterqueue import ClusterQueue, FlavorFungibility, Preemption, ResourceGroup
from kexplain.kueue.apis.constants import STOP_NONE
from kexplain.kueue.cache.hierarchy import CohortNode
from kexplain.kueue.cache.resource_node import Quota, ResourceNode
from kexplain.kueue.resources import FlavorResource, resource_value
from kexplain.kueue.workload.info import Info
from kexplain.model.labels import LabelSelector

ACTIVE = "active"
PENDING = "pending"


@dataclass(frozen=True)
class Group:
    """ResourceGroup as the scheduler reads it: the resources it covers, its flavors in order."""

    covered: frozenset[str]
    flavors: tuple[str, ...]


def groups_of(groups: tuple[ResourceGroup, ...]) -> tuple[Group, ...]:
    return tuple(Group(frozenset(rg.covered_resources), tuple(f.name for f in rg.flavors)) for rg in groups)


def quotas_of(groups: tuple[ResourceGroup, ...]) -> dict[FlavorResource, Quota]:
    """createResourceQuotas: each (flavor, resource)'s nominal quota and limits as integers."""
    out = {}
    for rg in groups:
        for fq in rg.flavors:
            for rq in fq.resources:
                out[FlavorResource(fq.name, rq.name)] = Quota(
                    resource_value(rq.name, rq.nominal.value),
                    None if rq.borrowing_limit is None else resource_value(rq.name, rq.borrowing_limit.value),
                    None if rq.lending_limit is None else resource_value(rq.name, rq.lending_limit.value))
    return out


@dataclass(eq=False)
class CachedClusterQueue:
    api: ClusterQueue
    groups: tuple[Group, ...]
    resource_node: ResourceNode
    parent: Optional[CohortNode["CachedClusterQueue"]] = None
    workloads: dict[str, Info] = field(default_factory=dict)
    missing_flavors: tuple[str, ...] = ()
    generation: int = 1

    @classmethod
    def of(cls, api: ClusterQueue, flavors: set[str] | dict) -> "CachedClusterQueue":
        quotas = quotas_of(api.resource_groups)
        node = ResourceNode(quotas, {fr: q.nominal for fr, q in quotas.items()}, {})
        missing = tuple(f for f in api.flavor_names() if f not in flavors)
        return cls(api, groups_of(api.resource_groups), node, missing_flavors=missing)

    @property
    def name(self) -> str:
        return self.api.name

    @property
    def stopped(self) -> bool:
        return self.api.stop_policy != STOP_NONE

    @property
    def status(self) -> str:
        """updateQueueStatus: pending when stopped, a flavor is missing, or admission checks are
        named (kexplain reads none; Kueue's would have to exist and be active)."""
        if self.stopped or self.missing_flavors or self.api.admission_checks:
            return PENDING
        return ACTIVE

    @property
    def active(self) -> bool:
        return self.status == ACTIVE

    @property
    def namespace_selector(self) -> LabelSelector:
        return self.api.namespace_selector

    @property
    def preemption(self) -> Preemption:
        return self.api.preemption

    @property
    def flavor_fungibility(self) -> FlavorFungibility:
        return self.api.flavor_fungibility
