"""What Kueue counts of a pending Workload's ResourceClaimTemplates (the DynamicResourceAllocation
gate, v0.17: pkg/dra/claims.go and the workload controller's DRA step): each device request of a
template a pod set names, by its deviceClassName, as `resources.deviceClassMappings`' logical
resource of that class (`count` devices per pod; ExactCount only), added to the pod set's requests.
What Kueue cannot count makes the Workload inadmissible in its words (`DraRefusal`): a claim named
directly, a constraint, a config, a request by firstAvailable, a CEL selector, admin access,
allocationMode All, a template not found, a class not mapped."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any, Iterable, Mapping

from kexplain.admission import dra_convert
from kexplain.apimachinery.fielderrors import FieldError, GoString, Raw, invalid_typed, not_found
from kexplain.kueue.apis.constants import REASON_INADMISSIBLE
from kexplain.kueue.apis.workload import Condition
from kexplain.kueue.workload.workload import FALSE, REQUEUED, condition_message, unset_quota_reservation
from kexplain.model.dra import ExactRequest, ResourceClaim

Key = tuple[str, str]       # (namespace, name)
RESOURCE_CLAIMS_UNSUPPORTED = "DynamicResourceAllocation feature does not support use of resource claims"
RESOURCE_CLAIMS_REQUEUED = "DRA resource claims not supported"
NULL = Raw("null")      # field.Invalid's nil value, as ErrorBody prints it


@dataclass(frozen=True)
class DraRefusal:
    """Why the workload controller leaves the Workload inadmissible: QuotaReserved=False and
    Requeued=False, reason Inadmissible, with these messages."""

    quota_message: str
    requeued_message: str


def claim_templates(objects: Iterable[Mapping[str, Any]]) -> dict[Key, Mapping[str, Any]]:
    """ResourceClaimTemplates by (namespace, name), as the API server stores them (v1's fields)."""
    out: dict[Key, Mapping[str, Any]] = {}
    for obj in objects:
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
        stored = dra_convert.decode(dict(obj), defaults=True) \
            if dra_convert.reads(obj.get("apiVersion"), obj.get("kind")) else obj
        out.setdefault((str(meta.get("namespace") or "default"), str(meta.get("name") or "")), stored)
    return out


def uses_claims(pod_sets: Iterable[Any]) -> bool:
    """HasDRA: a pod set names a ResourceClaimTemplate or a ResourceClaim."""
    return any(isinstance(c, Mapping) and (c.get("resourceClaimTemplateName") or c.get("resourceClaimName"))
               for ps in pod_sets for c in ps.spec.get("resourceClaims") or ())


def _request_error(i: int, exact: ExactRequest | None) -> FieldError | None:
    base = f"devices.requests[{i}]"
    if exact is None:
        return invalid_typed(base, NULL, "FirstAvailable device selection is not supported")
    if exact.selectors:
        return invalid_typed(f"{base}.exactly.selectors", NULL, "CEL selectors are not supported")
    if exact.uses_admin_access:
        return invalid_typed(f"{base}.exactly.adminAccess", NULL, "AdminAccess is not supported")
    if exact.allocation_mode == "All":
        return invalid_typed(f"{base}.exactly.allocationMode", "All", "AllocationMode 'All' is not supported")
    if exact.allocation_mode != "ExactCount":
        return invalid_typed(f"{base}.exactly.allocationMode", exact.allocation_mode,
                             f"unsupported allocation mode: {exact.allocation_mode}")
    return None


def count_devices_per_class(template: Mapping[str, Any]) -> tuple[dict[str, int], FieldError | None]:
    """countDevicesPerClass over a template's claim spec: devices per device class, or the first
    thing Kueue does not count."""
    spec = template.get("spec") if isinstance(template.get("spec"), Mapping) else {}
    claim_spec = spec.get("spec") if isinstance(spec.get("spec"), Mapping) else {}
    devices = claim_spec.get("devices") if isinstance(claim_spec.get("devices"), Mapping) else {}
    if devices.get("constraints"):
        return {}, invalid_typed("devices.constraints", NULL, "device constraints (MatchAttribute) are not supported")
    if devices.get("config"):
        return {}, invalid_typed("devices.config", NULL, "device config is not supported")
    claim = ResourceClaim.from_obj({"spec": claim_spec})
    out: dict[str, int] = {}
    for i, request in enumerate(claim.requests):
        exact = request.exactly if not request.first_available else None
        if (error := _request_error(i, exact)) is not None:
            return {}, error
        assert exact is not None
        if exact.device_class_name:
            out[exact.device_class_name] = out.get(exact.device_class_name, 0) + exact.count
    return out, None


def _claim_requests(ps: Any, i: int, namespace: str, templates: Mapping[Key, Mapping[str, Any]],
                    mappings: Mapping[str, str]) -> tuple[dict[str, Fraction], FieldError | None]:
    """One pod set's devices as its logical resources (per pod), or the first error."""
    aggregated: dict[str, Fraction] = {}
    for j, claim in enumerate(ps.spec.get("resourceClaims") or ()):
        name = claim.get("resourceClaimTemplateName") if isinstance(claim, Mapping) else None
        if not name:
            continue
        path = f"spec.podSets[{i}].template.spec.resourceClaims[{j}]"
        template = templates.get((namespace, str(name)))
        if template is None:
            return {}, FieldError("Internal error", path, None,
                                  f"failed to get claim spec for ResourceClaimTemplate {name} in podset {ps.name}: "
                                  f'resourceclaimtemplates.resource.k8s.io "{name}" not found')
        counts, error = count_devices_per_class(template)
        if error is not None:
            return {}, FieldError(error.kind, f"{path}.{error.path}", error.value,
                                  f"ResourceClaimTemplate {name}: {error.detail}")
        for device_class, qty in counts.items():
            logical = mappings.get(device_class)
            if logical is None:
                return {}, not_found(f"{path}.resourceClaimTemplateName", GoString(
                    f"DeviceClass {device_class} is not mapped in DRA configuration for podset {ps.name}"))
            aggregated[logical] = aggregated.get(logical, Fraction(0)) + qty
    return aggregated, None


def dra_requests(namespace: str, pod_sets: Iterable[Any], templates: Mapping[Key, Mapping[str, Any]],
                 mappings: Mapping[str, str]) -> tuple[dict[str, dict[str, Fraction]], DraRefusal | None]:
    """The workload controller's DRA step for a pending Workload: each pod set's logical resources
    per pod (GetResourceRequestsForResourceClaimTemplates), or why it is inadmissible."""
    pod_sets = list(pod_sets)
    if any(isinstance(c, Mapping) and c.get("resourceClaimName")
           for ps in pod_sets for c in ps.spec.get("resourceClaims") or ()):
        return {}, DraRefusal(RESOURCE_CLAIMS_UNSUPPORTED, RESOURCE_CLAIMS_REQUEUED)
    out: dict[str, dict[str, Fraction]] = {}
    for i, ps in enumerate(pod_sets):
        got, error = _claim_requests(ps, i, namespace, templates, mappings)
        if error is not None:
            return {}, DraRefusal(str(error), str(error))
        if got:
            out[ps.name] = got
    return out, None


def reconcile_dra(wl: Any, templates: Mapping[Key, Mapping[str, Any]], mappings: Mapping[str, str],
                  now: datetime) -> dict[str, dict[str, Fraction]] | None:
    """The workload controller's DRA step on a pending Workload whose pod sets use claims: their
    logical resources per pod set, or None when it is left inadmissible (QuotaReserved=False and
    Requeued=False, reason Inadmissible: never queued)."""
    counted, refusal = dra_requests(wl.meta.namespace, wl.spec.pod_sets, templates, mappings)
    if refusal is None:
        return counted
    if unset_quota_reservation(wl, REASON_INADMISSIBLE, refusal.quota_message, now):
        wl.set_condition(Condition(REQUEUED, FALSE, REASON_INADMISSIBLE, condition_message(refusal.requeued_message),
                                   now))
    return None
