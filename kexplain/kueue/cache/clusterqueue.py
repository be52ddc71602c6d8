"""A ClusterQueue as the cache holds it (clusterqueue.go): its resource groups, quotas in
Kueue's integers, the cohort it is in, whether it is active (not stopped, every flavor it names
exists) and the Workloads holding its quota."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional

from kexplain.kueue.apis.admissioncheck import AdmissionCheck
from kexplain.kueue.apis.clusterqueue import ClusterQueue, FlavorFungibility, Preemption, ResourceGroup
from kexplain.kueue.apis.constants import MULTIKUEUE_CONTROLLER, PROVISIONING_REQUEST_CONTROLLER, STOP_NONE
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
    # updateWithAdmissionChecks: the checks it names that do not exist or are not Active, sorted;
    # its MultiKueue checks (one allowed, for every flavor) and ProvisioningRequest ones
    missing_checks: tuple[str, ...] = ()
    inactive_checks: tuple[str, ...] = ()
    multikueue_checks: tuple[str, ...] = ()
    per_flavor_multikueue_checks: tuple[str, ...] = ()
    provisioning_checks: tuple[str, ...] = ()
    missing_topologies: tuple[tuple[str, str], ...] = ()     # TAS flavors whose Topology is missing

    @classmethod
    def of(cls, api: ClusterQueue, flavors: set[str] | dict,
           checks: Mapping[str, AdmissionCheck] | None = None) -> "CachedClusterQueue":
        quotas = quotas_of(api.resource_groups)
        node = ResourceNode(quotas, {fr: q.nominal for fr, q in quotas.items()}, {})
        missing = tuple(f for f in api.flavor_names() if f not in flavors)
        return cls(api, groups_of(api.resource_groups), node, missing_flavors=missing,
                   **_check_sets(api, checks or {}))

    @property
    def admission_checks(self) -> dict[str, frozenset[str]]:
        """AdmissionChecks: each check the ClusterQueue names and the flavors it applies to."""
        return self.api.admission_check_flavors()

    @property
    def name(self) -> str:
        return self.api.name

    @property
    def stopped(self) -> bool:
        return self.api.stop_policy != STOP_NONE

    @property
    def status(self) -> str:
        """updateQueueStatus: pending when stopped, a flavor or an admission check is missing, a
        check is not Active, or the MultiKueue checks break their rules."""
        if (self.stopped or self.missing_flavors or self.missing_checks or self.inactive_checks
                or len(self.multikueue_checks) > 1 or self.per_flavor_multikueue_checks
                or (self.multikueue_checks and self.provisioning_checks) or self.missing_topologies):
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


def _check_sets(api: ClusterQueue, checks: Mapping[str, AdmissionCheck]) -> dict[str, tuple[str, ...]]:
    """updateWithAdmissionChecks over the checks the cache holds."""
    every = frozenset(api.flavor_names())
    missing, inactive, multikueue, per_flavor, provisioning = [], [], [], [], []
    for name, flavors in api.admission_check_flavors().items():
        check = checks.get(name)
        if check is None:
            missing.append(name)
            continue
        if not check.active:
            inactive.append(name)
        if check.controller_name == PROVISIONING_REQUEST_CONTROLLER:
            provisioning.append(name)
        if check.controller_name == MULTIKUEUE_CONTROLLER:
            multikueue.append(name)
            if flavors != every:
                per_flavor.append(name)
    return {"missing_checks": tuple(sorted(missing)), "inactive_checks": tuple(sorted(inactive)),
            "multikueue_checks": tuple(sorted(multikueue)), "per_flavor_multikueue_checks": tuple(sorted(per_flavor)),
            "provisioning_checks": tuple(sorted(provisioning))}
