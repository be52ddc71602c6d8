"""What kube-apiserver does to a DRA object before validating it: the written version's defaulters
(`default_claim_spec`, at decoding: `dra_convert`), then PrepareForCreate's dropping of fields of
gates off in the version followed (`prepare`). Both reach the scheduler: the allocator reads the
stored values. The gates per minor: docs/internals/admission.md.
"""
from __future__ import annotations

from typing import Callable, Iterator

from kexplain.features import KubeVersion
from kexplain.apimachinery.identity import as_dict, dicts as _dicts

EXACT_COUNT = "ExactCount"
ALL = "All"
TOLERATION_EQUAL = "Equal"


def claim_spec_of(obj: dict) -> dict:
    """The ResourceClaimSpec of a claim (`spec`) or of a template (`spec.spec`); {} when absent."""
    spec = as_dict(obj.get("spec"))
    return as_dict(spec.get("spec")) if obj.get("kind") == "ResourceClaimTemplate" else spec


def device_requests(claim_spec: dict) -> Iterator[tuple[dict, dict | None]]:
    """(request, None) for each `exactly` request's body, (subrequest, request) for each
    `firstAvailable` subrequest: the parts that carry a class, selectors and a count."""
    for request in _dicts(as_dict(claim_spec.get("devices")).get("requests")):
        if isinstance(request.get("exactly"), dict):
            yield request["exactly"], None
        for sub in _dicts(request.get("firstAvailable")):
            yield sub, request


# -- defaulting ---------------------------------------------------------------------------------
def default_count(body: dict) -> None:
    """SetDefaults_ExactDeviceRequest / SetDefaults_DeviceSubRequest: ExactCount of one device."""
    if not body.get("allocationMode"):
        body["allocationMode"] = EXACT_COUNT
    if body.get("allocationMode") == EXACT_COUNT and not body.get("count"):
        body["count"] = 1


def default_tolerations(body: dict) -> None:
    """The declarative default of a DeviceToleration's operator."""
    for toleration in _dicts(body.get("tolerations")):
        if not toleration.get("operator"):
            toleration["operator"] = TOLERATION_EQUAL


def default_claim_spec(claim_spec: dict) -> None:
    """The v1 (and v1beta2) defaults of every request of a ResourceClaimSpec, in place."""
    for body, _ in device_requests(claim_spec):
        default_count(body)
        default_tolerations(body)


def default_object(obj: dict) -> None:
    """The v1 (and v1beta2) defaults of one DRA object written at that version, in place."""
    if obj.get("kind") in ("ResourceClaim", "ResourceClaimTemplate"):
        default_claim_spec(claim_spec_of(obj))


# -- fields of disabled gates -------------------------------------------------------------------
def _pop(items: Iterator[dict], *keys: str) -> None:
    for item in items:
        for key in keys:
            item.pop(key, None)


def _slice_spec(obj: dict) -> dict:
    return as_dict(obj.get("spec")) if obj.get("kind") == "ResourceSlice" else {}


def _devices(obj: dict) -> Iterator[dict]:
    return _dicts(_slice_spec(obj).get("devices"))


def _claim_spec(obj: dict) -> dict:
    return claim_spec_of(obj) if obj.get("kind") in ("ResourceClaim", "ResourceClaimTemplate") else {}


def _bodies(obj: dict) -> Iterator[dict]:
    return (body for body, _ in device_requests(_claim_spec(obj)))


def _results(obj: dict) -> Iterator[dict]:
    if obj.get("kind") != "ResourceClaim":
        return iter(())
    return _dicts(as_dict(as_dict(as_dict(obj.get("status")).get("allocation")).get("devices")).get("results"))


def _device_taints(obj: dict) -> None:
    _pop(_devices(obj), "taints")
    _pop(_bodies(obj), "tolerations")


def _partitionable_devices(obj: dict) -> None:
    _slice_spec(obj).pop("perDeviceNodeSelection", None)
    _slice_spec(obj).pop("sharedCounters", None)
    _pop(_devices(obj), "consumesCounters", "nodeName", "nodeSelector", "allNodes")


def _binding_conditions(obj: dict) -> None:
    _pop(_devices(obj), "bindsToNode", "bindingConditions", "bindingFailureConditions")
    _pop(_results(obj), "bindingConditions", "bindingFailureConditions")


def _consumable_capacity(obj: dict) -> None:
    for device in _devices(obj):
        device.pop("allowMultipleAllocations", None)
        _pop((c for c in as_dict(device.get("capacity")).values() if isinstance(c, dict)), "requestPolicy")
    _pop(_bodies(obj), "capacity")
    _pop(_dicts(as_dict(_claim_spec(obj).get("devices")).get("constraints")), "distinctAttribute")
    _pop(_results(obj), "shareID", "consumedCapacity")
    if obj.get("kind") == "ResourceClaim":
        _pop(_dicts(as_dict(obj.get("status")).get("devices")), "shareID")


def _extended_resource(obj: dict) -> None:
    if obj.get("kind") == "DeviceClass":
        as_dict(obj.get("spec")).pop("extendedResourceName", None)


def _admin_access(obj: dict) -> None:
    _pop((as_dict(r.get("exactly")) for r in _dicts(as_dict(_claim_spec(obj).get("devices")).get("requests"))),
         "adminAccess")
    _pop(_results(obj), "adminAccess")


def _prioritized_list(obj: dict) -> None:
    _pop(_dicts(as_dict(_claim_spec(obj).get("devices")).get("requests")), "firstAvailable")


def _node_allocatable_resources(obj: dict) -> None:
    _pop(_devices(obj), "nodeAllocatableResourceMappings")


def _list_type_attributes(obj: dict) -> None:
    for device in _devices(obj):
        _pop((a for a in as_dict(device.get("attributes")).values() if isinstance(a, dict)),
             "boolValues", "intValues", "stringValues", "versionValues")


def _device_status(obj: dict) -> None:
    if obj.get("kind") == "ResourceClaim":
        as_dict(obj.get("status")).pop("devices", None)


# The registry strategies' dropping (resourceslice, resourceclaim(template), deviceclass and
# resourceclaimspec): (gates, what goes). It goes when the version has the first gate and not
# all of them are on; a gate the version does not have guards nothing there (the field is
# unknown to its schema).
DROPPED: tuple[tuple[tuple[str, ...], Callable[[dict], None]], ...] = (
    (("DRAPrioritizedList",), _prioritized_list),
    (("DRAAdminAccess",), _admin_access),
    (("DRADeviceTaints",), _device_taints),
    (("DRAPartitionableDevices",), _partitionable_devices),
    (("DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus"), _binding_conditions),
    (("DRAConsumableCapacity",), _consumable_capacity),
    (("DRAExtendedResource",), _extended_resource),
    (("DRANodeAllocatableResources",), _node_allocatable_resources),
    (("DRAListTypeAttributes",), _list_type_attributes),
    (("DRAResourceClaimDeviceStatus",), _device_status),
)

Dropped = tuple[Callable[[dict], None], ...]


def dropped_by(kube: KubeVersion) -> Dropped:
    """What `kube`'s API server drops from the DRA objects it creates (resolve once per run)."""
    return tuple(drop for gates, drop in DROPPED
                 if gates[0] in kube.gates and not all(kube.enabled(g) for g in gates))


def prepare(obj: dict, dropped: Dropped) -> None:
    """PrepareForCreate of one DRA object (a copy, decoded and defaulted already), in place:
    the fields `dropped` (`dropped_by`) names go."""
    for drop in dropped:
        drop(obj)
