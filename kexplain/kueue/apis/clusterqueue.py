"""ClusterQueue (clusterqueue_types.go) and the resource groups a Cohort shares with it, with the
defaults the CRD writes and the checks of Kueue's webhook (clusterqueue_webhook.go)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from kexplain.apimachinery import quantity
from kexplain.apimachinery.fielderrors import FieldError, child, duplicate, index, invalid
from kexplain.apimachinery.quantity import Quantity
from kexplain.errors import InputError, Source
from kexplain.kueue.apis import schema
from kexplain.kueue.apis.constants import (BEST_EFFORT_FIFO, CLUSTER_QUEUE, MAY_STOP_SEARCH, NEVER, STOP_NONE,
                                           TRY_NEXT_FLAVOR)
from kexplain.kueue.apis.meta import ObjectMeta, object_meta
from kexplain.model.labels import LabelSelector, SelectorError, parse_selector

LIMIT_IS_EMPTY = "must be nil when {} is empty"
LENDING_LIMIT_ERROR = "must be less than or equal to the nominalQuota"
IS_NEGATIVE = "must be greater than or equal to 0"


@dataclass(frozen=True)
class ResourceQuota:
    name: str
    nominal: Quantity
    borrowing_limit: Quantity | None = None
    lending_limit: Quantity | None = None


@dataclass(frozen=True)
class FlavorQuotas:
    name: str
    resources: tuple[ResourceQuota, ...]


@dataclass(frozen=True)
class ResourceGroup:
    covered_resources: tuple[str, ...]
    flavors: tuple[FlavorQuotas, ...]


@dataclass(frozen=True)
class FlavorFungibility:
    when_can_borrow: str = MAY_STOP_SEARCH
    when_can_preempt: str = TRY_NEXT_FLAVOR
    preference: str = ""


@dataclass(frozen=True)
class Preemption:
    reclaim_within_cohort: str = NEVER
    within_cluster_queue: str = NEVER
    borrow_within_cohort: str = NEVER
    max_priority_threshold: int | None = None


@dataclass(frozen=True)
class AdmissionCheckRule:
    """admissionChecksStrategy.admissionChecks[]: a check, and the flavors it applies to (none
    named: every flavor of the ClusterQueue)."""

    name: str
    on_flavors: tuple[str, ...] = ()


@dataclass(frozen=True)
class ClusterQueue:
    meta: ObjectMeta
    resource_groups: tuple[ResourceGroup, ...] = ()
    cohort: str = ""
    queueing_strategy: str = BEST_EFFORT_FIFO
    namespace_selector: LabelSelector = field(default_factory=lambda: parse_selector(None))
    namespace_selector_raw: Any = None
    flavor_fungibility: FlavorFungibility = FlavorFungibility()
    preemption: Preemption = Preemption()
    stop_policy: str = STOP_NONE
    admission_checks: tuple[AdmissionCheckRule, ...] = ()
    fair_weight: float = 1.0            # spec.fairSharing.weight
    admission_mode: str = ""            # spec.admissionScope.admissionMode (UsageBasedAdmissionFairSharing: AFS)

    @property
    def name(self) -> str:
        return self.meta.name

    def flavor_names(self) -> list[str]:
        return [f.name for rg in self.resource_groups for f in rg.flavors]

    def admission_check_flavors(self) -> dict[str, frozenset[str]]:
        """NewAdmissionChecks: each check and the flavors it applies to (all the ClusterQueue's
        when the rule names none)."""
        every = frozenset(self.flavor_names())
        return {rule.name: frozenset(rule.on_flavors) if rule.on_flavors else every for rule in self.admission_checks}


def fair_weight(spec: Mapping[str, Any], source: Source | None, obj: Any) -> float:
    """parseFairWeight: spec.fairSharing.weight as a float (AsFloat64Slow), 1 when not set."""
    raw = (spec.get("fairSharing") or {}).get("weight")
    if raw is None:
        return 1.0
    return float(_quantity(raw, source, obj, "spec.fairSharing.weight").value)


def _quantity(raw: Any, source: Source | None, obj: Any, path: str) -> Quantity:
    try:
        return quantity.parse(raw)
    except quantity.QuantityError as e:
        raise InputError(str(e), source=source, obj=obj, field=path) from None


def parse_resource_groups(raw: Any, source: Source | None, obj: Any, path: str) -> tuple[ResourceGroup, ...]:
    groups = []
    for i, rg in enumerate(raw or ()):
        flavors = []
        for j, fq in enumerate(rg["flavors"]):
            quotas = []
            for k, rq in enumerate(fq["resources"]):
                at = f"{path}[{i}].flavors[{j}].resources[{k}]"
                quotas.append(ResourceQuota(
                    name=str(rq["name"]), nominal=_quantity(rq["nominalQuota"], source, obj, at + ".nominalQuota"),
                    borrowing_limit=(_quantity(rq["borrowingLimit"], source, obj, at + ".borrowingLimit")
                                     if "borrowingLimit" in rq else None),
                    lending_limit=(_quantity(rq["lendingLimit"], source, obj, at + ".lendingLimit")
                                   if "lendingLimit" in rq else None)))
            flavors.append(FlavorQuotas(str(fq["name"]), tuple(quotas)))
        groups.append(ResourceGroup(tuple(str(r) for r in rg["coveredResources"]), tuple(flavors)))
    return tuple(groups)


def resource_group_errors(raw: Any, path: str, *, has_parent: bool, is_cohort: bool,
                          enforce_lending: bool) -> list[FieldError]:
    """validateResourceGroups: unique covered resources and flavors, resources in coveredResources'
    order, no negative quantity, limits only with a cohort (or parent), lendingLimit <= nominal."""
    errs: list[FieldError] = []
    seen_resources: set[str] = set()
    seen_flavors: set[str] = set()
    for i, rg in enumerate(raw or ()):
        at = index(path, i)
        covered = [str(r) for r in rg.get("coveredResources") or ()]
        for j, name in enumerate(covered):
            if name in seen_resources:
                errs.append(duplicate(index(child(at, "coveredResources"), j), name))
            seen_resources.add(name)
        for j, fq in enumerate(rg.get("flavors") or ()):
            fpath = index(child(at, "flavors"), j)
            errs += _flavor_quota_errors(fq, covered, fpath, has_parent=has_parent, is_cohort=is_cohort,
                                         enforce_lending=enforce_lending)
            name = str(fq.get("name"))
            if name in seen_flavors:
                errs.append(duplicate(child(fpath, "name"), name))
            seen_flavors.add(name)
    return errs


def _flavor_quota_errors(fq: Mapping[str, Any], covered: list[str], path: str, *, has_parent: bool,
                         is_cohort: bool, enforce_lending: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    empty = LIMIT_IS_EMPTY.format("parent" if is_cohort else "cohort")
    for i, rq in enumerate(fq.get("resources") or ()):
        if i >= len(covered):
            break
        at = index(child(path, "resources"), i)
        if str(rq.get("name")) != covered[i]:
            errs.append(invalid(child(at, "name"), str(rq.get("name")), "must match the name in coveredResources"))
        nominal = _parsed(rq.get("nominalQuota"))
        if nominal is not None and nominal.value < 0:
            errs.append(invalid(child(at, "nominalQuota"), str(nominal), IS_NEGATIVE))
        for key in ("borrowingLimit", "lendingLimit"):
            limit = _parsed(rq.get(key)) if key in rq else None
            if limit is None:
                continue
            lpath = child(at, key)
            if key == "borrowingLimit" and not has_parent:
                errs.append(invalid(lpath, str(limit), empty))
            if limit.value < 0:
                errs.append(invalid(lpath, str(limit), IS_NEGATIVE))
            if key == "lendingLimit":
                if not has_parent:
                    errs.append(invalid(lpath, str(limit), empty))
                if enforce_lending and nominal is not None and limit.value > nominal.value:
                    errs.append(invalid(lpath, str(limit), LENDING_LIMIT_ERROR))
    return errs


def _parsed(raw: Any) -> Quantity | None:
    try:
        return quantity.parse(raw)
    except quantity.QuantityError:
        return None


def _webhook(stored: dict[str, Any]) -> list[FieldError]:
    spec = stored.get("spec") or {}
    errs = resource_group_errors(spec.get("resourceGroups"), "spec.resourceGroups",
                                 has_parent=bool(spec.get("cohortName")), is_cohort=False, enforce_lending=True)
    try:
        parse_selector(spec.get("namespaceSelector") if "namespaceSelector" in spec else None)
    except SelectorError as e:
        errs.append(invalid("spec.namespaceSelector", "", str(e)))
    return errs


def parse_cluster_queue(obj: dict[str, Any], source: Source | None = None, *, validate: str = "strict",
                        warnings: list[str] | None = None) -> ClusterQueue:
    stored = schema.store(obj, schema.CLUSTER_QUEUE, CLUSTER_QUEUE, source, validate, warnings, _webhook)
    spec = stored.get("spec") or {}
    fung = spec.get("flavorFungibility") or {}
    pre = spec.get("preemption") or {}
    bwc = pre.get("borrowWithinCohort") or {}
    checks = (spec.get("admissionChecksStrategy") or {}).get("admissionChecks") or ()
    raw_selector = spec.get("namespaceSelector") if "namespaceSelector" in spec else None
    return ClusterQueue(
        meta=object_meta(stored, source, namespaced=False),
        resource_groups=parse_resource_groups(spec.get("resourceGroups"), source, obj, "spec.resourceGroups"),
        cohort=str(spec.get("cohortName") or ""), fair_weight=fair_weight(spec, source, obj),
        queueing_strategy=str(spec.get("queueingStrategy") or BEST_EFFORT_FIFO),
        namespace_selector=parse_selector(raw_selector), namespace_selector_raw=raw_selector,
        flavor_fungibility=FlavorFungibility(str(fung.get("whenCanBorrow") or MAY_STOP_SEARCH),
                                             str(fung.get("whenCanPreempt") or TRY_NEXT_FLAVOR),
                                             str(fung.get("preference") or "")),
        preemption=Preemption(str(pre.get("reclaimWithinCohort") or NEVER),
                              str(pre.get("withinClusterQueue") or NEVER),
                              str(bwc.get("policy") or NEVER),
                              bwc.get("maxPriorityThreshold") if "maxPriorityThreshold" in bwc else None),
        stop_policy=str(spec.get("stopPolicy") or STOP_NONE),
        admission_mode=str((spec.get("admissionScope") or {}).get("admissionMode") or ""),
        admission_checks=tuple(AdmissionCheckRule(str(c.get("name")), tuple(str(f) for f in c.get("onFlavors") or ()))
                               for c in checks if isinstance(c, Mapping)))
