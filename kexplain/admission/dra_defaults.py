"""What kube-apiserver v1.35.4 does to a DRA object before validating it: the defaulters of the
version it was written in (at decoding, `kexplain.admission.dra_convert`: `default_claim_spec`
here for v1 and v1beta2, which default alike), then the registry strategies' dropping of fields
whose feature gates are off by default (`prepare`, on the internal form).

Why both matter to the scheduler: a request written without `allocationMode` and `count` is an
ExactCount request for one device only because the defaulter says so (the allocator reads the
stored values); and a field of a disabled gate (device taints, partitionable devices, binding
conditions, consumable capacity, extended resources) never reaches the store, so the scheduler
cannot act on it. Order as in the API server: decode-time defaulting, then PrepareForCreate.
"""
from __future__ import annotations

from typing import Any, Iterator

EXACT_COUNT = "ExactCount"
ALL = "All"
TOLERATION_EQUAL = "Equal"

# Fields the strategies drop on create with the v1.35.4 default gates (admission.md).
_SLICE_SPEC_DROPPED = ("perDeviceNodeSelection", "sharedCounters")                   # DRAPartitionableDevices
_DEVICE_DROPPED = ("taints",                                                          # DRADeviceTaints
                   "consumesCounters", "nodeName", "nodeSelector", "allNodes",        # DRAPartitionableDevices
                   "bindsToNode", "bindingConditions", "bindingFailureConditions",    # DRADeviceBindingConditions
                   "allowMultipleAllocations")                                        # DRAConsumableCapacity
_REQUEST_DROPPED = ("tolerations",                                                    # DRADeviceTaints
                    "capacity")                                                       # DRAConsumableCapacity
_RESULT_DROPPED = ("tolerations", "bindingConditions", "bindingFailureConditions", "shareID", "consumedCapacity")


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> Iterator[dict]:
    return (v for v in value if isinstance(v, dict)) if isinstance(value, list) else iter(())


def claim_spec_of(obj: dict) -> dict:
    """The ResourceClaimSpec of a claim (`spec`) or of a template (`spec.spec`); {} when absent."""
    spec = _dict(obj.get("spec"))
    return _dict(spec.get("spec")) if obj.get("kind") == "ResourceClaimTemplate" else spec


def device_requests(claim_spec: dict) -> Iterator[tuple[dict, dict | None]]:
    """(request, None) for each `exactly` request's body, (subrequest, request) for each
    `firstAvailable` subrequest: the parts that carry a class, selectors and a count."""
    for request in _dicts(_dict(claim_spec.get("devices")).get("requests")):
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
def _drop(obj: dict, keys: tuple[str, ...]) -> None:
    for key in keys:
        obj.pop(key, None)


def _drop_claim_spec(claim_spec: dict) -> None:
    for body, _ in device_requests(claim_spec):
        _drop(body, _REQUEST_DROPPED)
    for constraint in _dicts(_dict(claim_spec.get("devices")).get("constraints")):
        constraint.pop("distinctAttribute", None)


def _drop_claim_status(status: dict) -> None:
    devices = _dict(_dict(status.get("allocation")).get("devices"))
    for result in _dicts(devices.get("results")):
        _drop(result, _RESULT_DROPPED)


def _drop_slice(spec: dict) -> None:
    _drop(spec, _SLICE_SPEC_DROPPED)
    for device in _dicts(spec.get("devices")):
        _drop(device, _DEVICE_DROPPED)
        for capacity in _dict(device.get("capacity")).values():
            if isinstance(capacity, dict):
                capacity.pop("requestPolicy", None)


def prepare(obj: dict) -> None:
    """PrepareForCreate of one DRA object (a copy, decoded and defaulted already), in place."""
    kind = obj.get("kind")
    if kind in ("ResourceClaim", "ResourceClaimTemplate"):
        spec = claim_spec_of(obj)
        _drop_claim_spec(spec)
        if kind == "ResourceClaim":
            _drop_claim_status(_dict(obj.get("status")))
    elif kind == "ResourceSlice":
        _drop_slice(_dict(obj.get("spec")))
    elif kind == "DeviceClass":
        _dict(obj.get("spec")).pop("extendedResourceName", None)
