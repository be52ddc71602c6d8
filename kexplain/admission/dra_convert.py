"""resource.k8s.io objects as kube-apiserver decodes them: defaulted in the version written, then
converted to the internal form every later step reads (`resource.k8s.io/v1`'s fields).

Read from pkg/apis/resource/{v1,v1beta1,v1beta2} (conversion.go, zz_generated.conversion.go,
defaults.go) of Kubernetes v1.35.6. The differences converted: docs/internals/admission.md.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Any, Callable, Iterator, Mapping

from kexplain.admission.dra_defaults import claim_spec_of, default_count, default_object, default_tolerations
from kexplain.apimachinery.identity import dicts as _dicts
from kexplain.apimachinery.versions import DEFAULT_K8S_VERSION

INTERNAL = "resource.k8s.io/v1"
V1BETA2 = "resource.k8s.io/v1beta2"
V1BETA1 = "resource.k8s.io/v1beta1"
KINDS = frozenset({"DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate"})

# v1beta1 DeviceRequest fields that v1 keeps under `exactly`, in v1's order
REQUEST_BODY_FIELDS = ("deviceClassName", "selectors", "allocationMode", "count", "adminAccess", "tolerations",
                       "capacity")
# v1beta1 BasicDevice fields, each moved up to the Device
BASIC_DEVICE_FIELDS = ("attributes", "capacity", "consumesCounters", "nodeName", "nodeSelector", "allNodes",
                       "taints", "bindsToNode", "bindingConditions", "bindingFailureConditions",
                       "allowMultipleAllocations")
_NONE_WHEN_EMPTY = frozenset({"attributes", "capacity", "consumesCounters", "taints"})   # len(x) > 0 or a loop

Decoder = Callable[[dict, bool], dict]


# -- v1beta1 ------------------------------------------------------------------------------------
def _requests(obj: dict) -> Iterator[dict]:
    devices = claim_spec_of(obj).get("devices")
    return _dicts(devices.get("requests") if isinstance(devices, dict) else None)


def default_v1beta1(obj: dict) -> None:
    """The v1beta1 defaulters of one object, in place: SetDefaults_DeviceRequest (only for a
    request with a deviceClassName), SetDefaults_DeviceSubRequest, tolerations' operator."""
    if obj.get("kind") not in ("ResourceClaim", "ResourceClaimTemplate"):
        return
    for request in _requests(obj):
        if request.get("deviceClassName"):
            default_count(request)
        default_tolerations(request)
        for sub in _dicts(request.get("firstAvailable")):
            default_count(sub)
            default_tolerations(sub)


def _body_set(request: dict) -> bool:
    """hasAnyMainRequestFieldsSet: a field of the request body not at its Go zero value."""
    for key in REQUEST_BODY_FIELDS:
        value = request.get(key)
        if value is None:
            continue
        if key in ("deviceClassName", "allocationMode") and value == "":
            continue
        if key == "count" and value == 0:
            continue
        return True
    return False


def convert_request(request: Any) -> Any:
    """A v1beta1 DeviceRequest as v1's: its body under `exactly` when any of it is set."""
    if not isinstance(request, dict):
        return request
    out = {"name": request["name"]} if "name" in request else {}     # other fields: not v1beta1's (`exactly`)
    if _body_set(request):
        exactly = {}
        for key in REQUEST_BODY_FIELDS:
            value = request.get(key)
            if key == "tolerations" and not value:
                value = None
            if value is not None:
                exactly[key] = value
        out["exactly"] = exactly
    if request.get("firstAvailable") is not None:
        out["firstAvailable"] = request["firstAvailable"]
    return out


def convert_device(device: Any) -> Any:
    """A v1beta1 Device as v1's: the fields of `basic` moved up."""
    if not isinstance(device, dict):
        return device
    out = {k: v for k, v in device.items() if k != "basic"}
    basic = device.get("basic")
    for key, value in (basic.items() if isinstance(basic, dict) else ()):
        if key not in BASIC_DEVICE_FIELDS:
            continue            # not a BasicDevice field (decoding drops it): never over a Device's own
        if value is None or (key in _NONE_WHEN_EMPTY and not value):
            continue
        out[key] = value
    return out


def convert_slice_spec(spec: dict) -> dict:
    """A v1beta1 ResourceSliceSpec as v1's: `nodeName: ""` and `allNodes: false` unset, devices
    converted."""
    out = dict(spec)
    if out.get("nodeName") in ("", None):
        out.pop("nodeName", None)
    if out.get("allNodes") in (False, None):
        out.pop("allNodes", None)
    if isinstance(out.get("devices"), list):
        out["devices"] = [convert_device(d) for d in out["devices"]]
    return out


def convert_v1beta1(obj: dict) -> dict:
    """A v1beta1 object (any of the four kinds) as v1's, defaults already applied: a new top
    level and new containers where the structs differ; the other values are `obj`'s own."""
    out = {**obj, "apiVersion": INTERNAL}
    kind = obj.get("kind")
    spec = obj.get("spec")
    if kind == "ResourceSlice" and isinstance(spec, dict):
        out["spec"] = convert_slice_spec(spec)
    elif kind in ("ResourceClaim", "ResourceClaimTemplate") and isinstance(spec, dict):
        inner = spec.get("spec") if kind == "ResourceClaimTemplate" else spec
        if isinstance(inner, dict) and isinstance(inner.get("devices"), dict):
            devices = inner["devices"]
            if isinstance(devices.get("requests"), list):
                devices = {**devices, "requests": [convert_request(r) for r in devices["requests"]]}
            inner = {**inner, "devices": devices}
            out["spec"] = {**spec, "spec": inner} if kind == "ResourceClaimTemplate" else inner
    return out


# -- decoders -----------------------------------------------------------------------------------
def _decode_as_v1(obj: dict, defaults: bool) -> dict:
    if defaults:
        default_object(obj)
    obj["apiVersion"] = INTERNAL
    return obj


def _decode_v1beta1(obj: dict, defaults: bool) -> dict:
    if defaults:
        default_v1beta1(obj)
    return convert_v1beta1(obj)


_V1_AND_BETAS = MappingProxyType({INTERNAL: _decode_as_v1, V1BETA2: _decode_as_v1, V1BETA1: _decode_v1beta1})
# minor -> the written versions kexplain decodes into the internal form, as that minor's
# kube-apiserver has them (1.33 has no v1; alpha versions are not read)
READ_AS: Mapping[str, Mapping[str, Decoder]] = MappingProxyType({
    "1.33": MappingProxyType({V1BETA2: _decode_as_v1, V1BETA1: _decode_v1beta1}),
    "1.34": _V1_AND_BETAS,
    "1.35": _V1_AND_BETAS,
    "1.36": _V1_AND_BETAS,
})


def decoder(api_version: Any, kind: Any, minor: str = DEFAULT_K8S_VERSION) -> Decoder | None:
    """How a DRA object at `api_version` becomes the internal form (None: a version kexplain does not
    read); a minor without a table reads as the default minor."""
    if kind not in KINDS or not isinstance(api_version, str):
        return None
    return READ_AS.get(minor, READ_AS[DEFAULT_K8S_VERSION]).get(api_version)


def reads(api_version: Any, kind: Any, minor: str = DEFAULT_K8S_VERSION) -> bool:
    """Whether kexplain can read an object of `kind` at `api_version`: any version of the kinds
    whose versions share one schema, only the `READ_AS` versions of the DRA kinds."""
    return kind not in KINDS or decoder(api_version, kind, minor) is not None


def decode(obj: dict, *, defaults: bool, minor: str = DEFAULT_K8S_VERSION) -> dict:
    """`obj` (changed or reused: the caller's) in the internal form, with its version's defaults when
    `defaults` (a stored object has them); `obj` itself at a version kexplain does not read."""
    found = decoder(obj.get("apiVersion"), obj.get("kind"), minor)
    return obj if found is None else found(obj, defaults)
