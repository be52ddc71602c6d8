"""A NodeClaim the scheduler is filling (provisioning/scheduling/nodeclaim.go)."""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

from kexplain.apimachinery.labels import LABEL_HOSTNAME as HOSTNAME_LABEL
from kexplain.apimachinery.quantity import DECIMAL_SI, Quantity
from kexplain.apimachinery.selectors import IN
from kexplain.karpenter.errors import GoError, KarpenterError, WrappedError
from kexplain.karpenter.provisioning.scheduling.nodeclaimtemplate import NodeClaimTemplate
from kexplain.karpenter.provisioning.scheduling.typeindex import TypeIndex
from kexplain.karpenter.scheduling.requirement import new_requirement
from kexplain.karpenter.scheduling.requirements import (
    ALLOW_UNDEFINED_WELL_KNOWN_LABELS, Requirements, new_requirements,
)
from kexplain.karpenter.scheduling.taints import Taints
from kexplain.karpenter.utils import resources
from kexplain.karpenter.utils.resources import ResourceList
from kexplain.karpenter.scheduling.hostportusage import get_host_ports

CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type"
RESERVED = "reserved"
_ONE_MILLION = Quantity(Fraction(10 ** 6), DECIMAL_SI)     # resource.MustParse("1M")


class ReservedOfferingError(GoError):
    """A pod that would take away every reserved offering the NodeClaim could use (strict mode)."""


# How lasting a refusal is, for the scheduler's caches (`NodeClaim.refusal`, `ExistingNode.refusal`):
# what refused a pod of one shape keeps refusing it for the whole pass (taints; room, host ports and
# volumes only fill up), or until a pod is added there (the requirements), or may not (topology).
REFUSED_FOR_GOOD = 1
REFUSED_AT_VERSION = 2
REFUSED_NOW = 3


def is_reserved_offering_error(err: BaseException | None) -> bool:
    while err is not None:
        if isinstance(err, ReservedOfferingError):
            return True
        err = getattr(err, "cause", None)
    return False


@dataclass
class InstanceTypeFilterError(KarpenterError):
    """Which criteria some instance type met; the text is made when printed."""

    requirements: Requirements
    pod_requests: ResourceList
    daemon_requests: ResourceList
    requirements_met: bool = False
    fits: bool = False
    has_offering: bool = False
    requirements_and_fits: bool = False
    requirements_and_offering: bool = False
    fits_and_offering: bool = False
    min_values_incompatible_err: BaseException | None = None

    def __post_init__(self) -> None:
        super().__init__()

    def __str__(self) -> str:
        tail = (f"requirements={self.requirements}, "
                f"resources={resources.to_string(resources.merge(self.daemon_requests, self.pod_requests))}")
        if self.min_values_incompatible_err is not None:
            return f"{self.min_values_incompatible_err}, {tail}"
        if not self.requirements_met and not self.fits and not self.has_offering:
            return ("no instance type met the scheduling requirements or had enough resources or had a required "
                    f"offering, {tail}")
        if not self.requirements_met and not self.fits:
            return f"no instance type met the scheduling requirements or had enough resources, {tail}"
        if not self.requirements_met and not self.has_offering:
            return f"no instance type met the scheduling requirements or had a required offering, {tail}"
        if not self.fits and not self.has_offering:
            return f"no instance type had enough resources or had a required offering, {tail}"
        if not self.requirements_met:
            return f"no instance type met all requirements, {tail}"
        if not self.fits:
            msg = f"no instance type has enough resources, {tail}"
            cpu = self.pod_requests.get(resources.CPU)
            if cpu is not None and cpu.value >= _ONE_MILLION.value:
                msg += " (CPU request >= 1 Million, m vs M typo?)"
            return msg
        if not self.has_offering:
            return f"no instance type has the required offering, {tail}"
        if self.requirements_and_fits:
            return ("no instance type which met the scheduling requirements and had enough resources, had a required "
                    f"offering, {tail}")
        if self.fits_and_offering:
            return ("no instance type which had enough resources and the required offering met the scheduling "
                    f"requirements, {tail}")
        if self.requirements_and_offering:
            return ("no instance type which met the scheduling requirements and the required offering had the "
                    f"required resources, {tail}")
        return f"no instance type met the requirements/resources/offering tuple, {tail}"


def filter_instance_types_by_requirements(instance_types: Sequence[Any], requirements: Requirements,
                                          pod_requests: ResourceList, daemon_requests: ResourceList,
                                          total_requests: ResourceList, relax_min_values: bool,
                                          satisfies_min_values: Any, index: TypeIndex
                                          ) -> tuple[list[Any] | None, dict[str, int], InstanceTypeFilterError | None]:
    """filterInstanceTypesByRequirements: (types left or None, minValues keys not met, error)."""
    err = InstanceTypeFilterError(requirements, pod_requests, daemon_requests)
    unsatisfiable: dict[str, int] = {}
    remaining: list[Any] = []
    total = resources.to_nanos(total_requests)
    # (asked alike by every NodeClaim started for pods of one shape: worked out once, `TypeIndex.filtered`;
    # which types the requirements allow, with an offering they allow, once per requirements: `compatibility`)
    key = None if requirements.has_min_values() else index.answer_key(requirements)
    if key is not None:
        key = (key, tuple(map(id, instance_types)), tuple(sorted(total.items())))
        known = index.filtered.get(key)
        if known is not None:
            kept, flags, _ = known
            (err.requirements_met, err.fits, err.has_offering, err.requirements_and_fits,
             err.requirements_and_offering, err.fits_and_offering) = flags
            if not kept:
                return None, unsatisfiable, err
            return list(kept), unsatisfiable, None
    requirements_met = fits_any = offering_any = req_fits = req_offering = fits_offering = False
    for it, compat, offering, allocatable in index.compatibility(requirements, instance_types):
        fit = resources.fits_nanos(total, allocatable)
        requirements_met = requirements_met or compat
        fits_any = fits_any or fit
        offering_any = offering_any or offering
        req_fits = req_fits or (compat and fit and not offering)
        req_offering = req_offering or (compat and offering and not fit)
        fits_offering = fits_offering or (fit and offering and not compat)
        if compat and fit and offering:
            remaining.append(it)
    err.requirements_met, err.fits, err.has_offering = requirements_met, fits_any, offering_any
    err.requirements_and_fits, err.requirements_and_offering, err.fits_and_offering = \
        req_fits, req_offering, fits_offering
    if key is not None and index.answers_kept():
        index.filtered[key] = (tuple(remaining), (requirements_met, fits_any, offering_any, req_fits, req_offering,
                                                  fits_offering), tuple(instance_types))
    if requirements.has_min_values():
        _, keys, min_err = satisfies_min_values(remaining, requirements)
        unsatisfiable = dict(keys or {})
        err.min_values_incompatible_err = min_err
        if min_err is not None:
            if not relax_min_values:
                remaining = []
            else:
                err.min_values_incompatible_err = None
    if not remaining:
        return None, unsatisfiable, err
    return remaining, unsatisfiable, None


class NodeClaim:
    """A NodeClaim being filled: its template's copy, the pods added, its hostname placeholder."""

    def __init__(self, template: NodeClaimTemplate, topology: Any, daemon_resources: ResourceList,
                 host_port_usage: Any, instance_types: list[Any], hostname: str, context: "SchedulingContext") -> None:
        own = template.copy()
        own.requirements = new_requirements(*template.requirements.values())
        own.requirements.add(new_requirement(HOSTNAME_LABEL, IN, hostname))
        own.instance_type_options = instance_types
        own.requests = daemon_resources
        self.template = own
        self.pods: list[Any] = []
        self.topology = topology
        self.host_port_usage = host_port_usage.deep_copy()
        self.daemon_resources = daemon_resources
        self.hostname = hostname
        self.reserved_offerings: list[Any] = []
        self.context = context
        self.annotations: dict[str, str] = {}
        self.version = 0                # pods added
        self.refusal = 0                # how lasting the last can_add's refusal is (REFUSED_*)

    # -- the template's fields, read through ----------------------------------------------------
    @property
    def node_pool_name(self) -> str:
        return self.template.node_pool_name

    @property
    def requirements(self) -> Requirements:
        return self.template.requirements

    @property
    def instance_type_options(self) -> list[Any]:
        return self.template.instance_type_options

    @instance_type_options.setter
    def instance_type_options(self, value: list[Any]) -> None:
        self.template.instance_type_options = value

    @property
    def taints(self) -> list[dict[str, Any]]:
        return self.template.taints

    def can_add(self, pod: Any, pod_data: Any, relax_min_values: bool
                ) -> tuple[Requirements | None, list[Any] | None, list[Any] | None, BaseException | None]:
        """CanAdd: (updated requirements, instance types, offerings to reserve, error); a refusal sets
        `refusal` (for good, at this version, or now)."""
        self.refusal = REFUSED_FOR_GOOD
        err = Taints(self.taints).tolerates_pod(pod)
        if err is not None:
            return None, None, None, err
        conflict = self.host_port_usage.conflicts(pod, get_host_ports(pod))
        if conflict is not None:
            return None, None, None, WrappedError("checking host port usage", conflict)
        self.refusal = REFUSED_AT_VERSION
        base = Requirements(self.requirements)          # NewRequirements(values...): the same requirements
        if not base.is_compatible(pod_data.requirements, ALLOW_UNDEFINED_WELL_KNOWN_LABELS):   # (the error only then)
            err = base.compatible(pod_data.requirements, ALLOW_UNDEFINED_WELL_KNOWN_LABELS)
            return None, None, None, WrappedError("incompatible requirements", err)
        base.add(*pod_data.requirements.values())
        alternatives = pod_data.volume_requirements or [None]
        if len(alternatives) > 1:
            self.refusal = REFUSED_NOW
        last: BaseException | None = None
        for volume_reqs in alternatives:
            reqs, its, ofs, err = self._try_volume_alternative(pod, pod_data, base, volume_reqs, relax_min_values,
                                                               len(alternatives) > 1)
            if err is not None:
                last = err
                continue
            return reqs, its, ofs, None
        return None, None, None, last

    def _try_volume_alternative(self, pod: Any, pod_data: Any, base: Requirements, volume_reqs: Requirements | None,
                                relax_min_values: bool, copy: bool = True):
        """One volume alternative on `base` (changed unless `copy`: another alternative needs it)."""
        requirements = Requirements(base) if copy else base
        if volume_reqs is not None:
            err = requirements.compatible(volume_reqs, ALLOW_UNDEFINED_WELL_KNOWN_LABELS)
            if err is not None:
                return None, None, None, WrappedError("incompatible volume requirements", err)
            requirements.add(*volume_reqs.values())
        topology_reqs, err = self.topology.add_requirements(pod, self.taints, pod_data.strict_requirements,
                                                            requirements, ALLOW_UNDEFINED_WELL_KNOWN_LABELS)
        if err is not None:
            self.refusal = REFUSED_NOW
            return None, None, None, err
        if topology_reqs != requirements:      # topology narrowed the domains: its counts may change
            self.refusal = REFUSED_NOW
        err = requirements.compatible(topology_reqs, ALLOW_UNDEFINED_WELL_KNOWN_LABELS)
        if err is not None:
            return None, None, None, err
        requirements.add(*topology_reqs.values())
        total = resources.merge(self.template.requests, pod_data.requests)
        remaining, unsatisfiable, err = filter_instance_types_by_requirements(
            self.instance_type_options, requirements, pod_data.requests, self.daemon_resources, total,
            relax_min_values, self.context.satisfies_min_values, self.context.type_index)
        if relax_min_values:
            for key, min_values in unsatisfiable.items():
                requirements.get(key).min_values = min_values
        if err is not None:
            return None, None, None, err
        offerings, err = self.offerings_to_reserve(remaining, requirements)
        if err is not None:
            self.refusal = REFUSED_NOW        # reservations are released by other NodeClaims
            return None, None, None, err
        return requirements, remaining, offerings, None

    def add(self, pod: Any, pod_data: Any, requirements: Requirements, instance_types: list[Any],
            offerings_to_reserve: list[Any]) -> None:
        """Add: the pod is on this NodeClaim now."""
        self.pods.append(pod)
        self.version += 1
        self.instance_type_options = instance_types
        self.template.requests = resources.merge(self.template.requests, pod_data.requests)
        self.template.requirements = requirements
        self.topology.register(HOSTNAME_LABEL, self.hostname)
        self.topology.record(pod, self.taints, requirements, ALLOW_UNDEFINED_WELL_KNOWN_LABELS)
        self.host_port_usage.add(pod, get_host_ports(pod))
        manager = self.context.reservation_manager
        manager.reserve(self.hostname, *offerings_to_reserve)
        updated = {o.reservation_id() for o in offerings_to_reserve}
        for o in self.reserved_offerings:
            if o.reservation_id() not in updated:
                manager.release(self.hostname, o)
        self.reserved_offerings = list(offerings_to_reserve)

    def offerings_to_reserve(self, instance_types: list[Any], requirements: Requirements
                             ) -> tuple[list[Any], BaseException | None]:
        """offeringsToReserve: the reserved offerings this NodeClaim could launch into (with the
        ReservedCapacity feature gate), or a ReservedOfferingError in strict mode."""
        if not self.context.reserved_capacity:
            return [], None
        compatible_found = False
        reserved: list[Any] = []
        manager = self.context.reservation_manager
        for _, offerings in self.context.type_index.reserved_among(instance_types, indexed=True):
            for o in offerings:             # a type's available offerings of capacity type reserved
                if not requirements.is_compatible(o.requirements, ALLOW_UNDEFINED_WELL_KNOWN_LABELS):
                    continue
                compatible_found = True
                if manager.can_reserve(self.hostname, o):
                    reserved.append(o)
        if self.context.strict_reserved_offerings:
            if compatible_found and not reserved:
                return [], ReservedOfferingError("one or more instance types with compatible reserved offerings are "
                                                 "available, but could not be reserved")
            if self.reserved_offerings and not reserved:
                return [], ReservedOfferingError("satisfying updated nodeclaim constraints would remove all compatible "
                                                 "reserved offering options")
        return reserved, None

    def finalize_scheduling(self, reservation_id_label: str) -> None:
        """FinalizeScheduling: the hostname placeholder dropped; reserved offerings pinned."""
        self.requirements.pop(HOSTNAME_LABEL, None)
        if self.reserved_offerings:
            self.requirements[CAPACITY_TYPE_LABEL] = new_requirement(CAPACITY_TYPE_LABEL, IN, RESERVED)
            self.requirements.add(new_requirement(reservation_id_label, IN,
                                                  *(o.reservation_id() for o in self.reserved_offerings)))


@dataclass
class SchedulingContext:
    """What every NodeClaim of one pass shares: the reservation manager, the ReservedCapacity
    gate and strictness, the cloud provider's minValues check."""

    reservation_manager: Any
    reserved_capacity: bool
    strict_reserved_offerings: bool
    satisfies_min_values: Any
    type_index: TypeIndex = field(default_factory=TypeIndex)
