"""Dynamic Resource Allocation objects (resource.k8s.io/v1) as the scheduler's allocator reads them,
parsed once into frozen values, absent fields read as their API defaults so unadmitted objects mean
what the API server would store (v1beta1/v1beta2 arrive converted: `kexplain.admission.dra_convert`).
"""
from __future__ import annotations

from collections.abc import Mapping    # not typing.Mapping: its isinstance goes through typing (slow)
from dataclasses import dataclass, field, replace
from typing import Any

from kexplain.apimachinery.identity import as_list

EXACT_COUNT = "ExactCount"
ALL = "All"

DeviceID = tuple[str, str, str]   # (driver, pool, device)
# A device attribute as the matchAttribute constraint compares it: (type, value); the type is
# None for an attribute with no value set (it never equals anything but is accepted first).
Attribute = tuple[str | None, Any]
_ATTRIBUTE_TYPES = ("string", "int", "bool", "version")


def device_id_str(did: DeviceID) -> str:
    """DeviceID.String(): `driver/pool/device`."""
    return "/".join(did)


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _selectors(raw: Any) -> tuple[str | None, ...]:
    """CEL expressions of `selectors`; None for a selector without `cel` (unsupported type)."""
    out: list[str | None] = []
    for sel in as_list(raw):
        cel = _map(sel).get("cel")
        out.append(str(_map(cel).get("expression", "")) if isinstance(cel, Mapping) else None)
    return tuple(out)


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return _map(obj.get("metadata"))


def _spec(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return _map(obj.get("spec"))


# -- DeviceClass ------------------------------------------------------------------------------

@dataclass(frozen=True)
class DeviceClass:
    name: str
    selectors: tuple[str | None, ...] = ()

    @classmethod
    def from_obj(cls, obj: Mapping[str, Any]) -> "DeviceClass":
        return cls(str(_meta(obj).get("name") or ""), _selectors(_spec(obj).get("selectors")))


# -- ResourceSlice ----------------------------------------------------------------------------

def attribute_value(raw: Any) -> Attribute:
    """One DeviceAttribute as (type, value), the first field set in the allocator's order."""
    raw = _map(raw)
    for kind in _ATTRIBUTE_TYPES:
        if raw.get(kind) is not None:
            return kind, raw[kind]
    return None, None


@dataclass(frozen=True, eq=False)
class Device:
    """One device of a slice: what selectors, constraints and the allocator read. Compared
    and hashed by identity: caches of its CEL input key on the object."""

    name: str
    driver: str
    attributes: Mapping[str, Any] = field(default_factory=dict)   # qualified name -> raw attribute
    capacity: Mapping[str, Any] = field(default_factory=dict)     # qualified name -> raw capacity
    consumes_counters: bool = False     # partitionable device
    binding_conditions: bool = False    # binding conditions
    # The device as written: the fields of features not every version has (taints, counters,
    # sharing) are read from it by the allocator that knows them (kexplain.plugins.dra.features).
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_obj(cls, raw: Mapping[str, Any], driver: str) -> "Device":
        return cls(str(raw.get("name") or ""), driver, dict(_map(raw.get("attributes"))),
                   dict(_map(raw.get("capacity"))), bool(as_list(raw.get("consumesCounters"))),
                   bool(as_list(raw.get("bindingConditions"))), raw)

    def attribute(self, qualified: str) -> Attribute | None:
        """lookupAttribute: the attribute by its fully qualified name, or by its bare name when
        the domain is the device's driver; None when the device has neither."""
        if qualified in self.attributes:
            return attribute_value(self.attributes[qualified])
        domain, sep, ident = qualified.partition("/")
        if sep and domain == self.driver and ident in self.attributes:
            return attribute_value(self.attributes[ident])
        return None


@dataclass(frozen=True)
class ResourceSlice:
    name: str
    driver: str
    pool: str
    generation: int
    resource_slice_count: int
    node_name: str = ""
    all_nodes: bool = False
    node_selector: Mapping[str, Any] | None = None
    per_device_node_selection: bool | None = None   # None: the field is not set
    shared_counters: bool = False
    devices: tuple[Device, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)   # the spec, as for Device

    @classmethod
    def from_obj(cls, obj: Mapping[str, Any]) -> "ResourceSlice":
        spec = _spec(obj)
        pool = _map(spec.get("pool"))
        driver = str(spec.get("driver") or "")
        per_device = spec.get("perDeviceNodeSelection")
        selector = spec.get("nodeSelector")
        return cls(
            name=str(_meta(obj).get("name") or ""), driver=driver, pool=str(pool.get("name") or ""),
            generation=_int(pool.get("generation")), resource_slice_count=_int(pool.get("resourceSliceCount")),
            node_name=str(spec.get("nodeName") or ""), all_nodes=spec.get("allNodes") is True,
            node_selector=selector if isinstance(selector, Mapping) else None,
            per_device_node_selection=None if per_device is None else bool(per_device),
            shared_counters=bool(as_list(spec.get("sharedCounters"))),
            devices=tuple(Device.from_obj(_map(d), driver) for d in as_list(spec.get("devices"))), raw=spec)


def _int(value: Any, default: int = 0) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


# -- ResourceClaim ----------------------------------------------------------------------------

@dataclass(frozen=True)
class ExactRequest:
    """What one device request (`exactly`) or one `firstAvailable` subrequest asks for."""

    name: str
    device_class_name: str
    allocation_mode: str = EXACT_COUNT
    count: int = 1
    admin_access: bool | None = None    # None: not set (subrequests never have it)
    selectors: tuple[str | None, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)   # as for Device

    @classmethod
    def from_obj(cls, raw: Mapping[str, Any], name: str) -> "ExactRequest":
        mode = str(raw.get("allocationMode") or EXACT_COUNT)
        count = raw.get("count")
        admin = raw.get("adminAccess")
        return cls(name, str(raw.get("deviceClassName") or ""), mode,
                   _int(count, 1) if count is not None else (1 if mode == EXACT_COUNT else 0),
                   None if admin is None else admin is True, _selectors(raw.get("selectors")), raw)

    @property
    def uses_admin_access(self) -> bool:
        return self.admin_access is True


@dataclass(frozen=True)
class Request:
    name: str
    exactly: ExactRequest | None = None
    first_available: tuple[ExactRequest, ...] = ()

    @classmethod
    def from_obj(cls, raw: Mapping[str, Any]) -> "Request":
        name = str(raw.get("name") or "")
        exactly = raw.get("exactly")
        # A subrequest has no adminAccess field: whatever one carries is not read.
        subs = tuple(replace(ExactRequest.from_obj(_map(s), str(_map(s).get("name") or "")), admin_access=None)
                     for s in as_list(raw.get("firstAvailable")))
        return cls(name, ExactRequest.from_obj(exactly, name) if isinstance(exactly, Mapping) else None, subs)


@dataclass(frozen=True)
class Constraint:
    requests: tuple[str, ...] = ()
    match_attribute: str | None = None   # None: not this constraint type
    distinct_attribute: str | None = None   # DRAConsumableCapacity's constraint type

    @classmethod
    def from_obj(cls, raw: Mapping[str, Any]) -> "Constraint":
        attr, distinct = raw.get("matchAttribute"), raw.get("distinctAttribute")
        return cls(tuple(str(r) for r in as_list(raw.get("requests"))), None if attr is None else str(attr),
                   None if distinct is None else str(distinct))


@dataclass(frozen=True)
class DeviceResult:
    """One allocated device of a claim's status.allocation."""

    request: str
    driver: str
    pool: str
    device: str
    admin_access: bool = False

    @property
    def id(self) -> DeviceID:
        return self.driver, self.pool, self.device


@dataclass(frozen=True)
class Allocation:
    results: tuple[DeviceResult, ...] = ()
    node_selector: Mapping[str, Any] | None = None

    @classmethod
    def from_obj(cls, raw: Mapping[str, Any]) -> "Allocation":
        results = tuple(DeviceResult(str(r.get("request") or ""), str(r.get("driver") or ""),
                                     str(r.get("pool") or ""), str(r.get("device") or ""),
                                     r.get("adminAccess") is True)
                        for r in map(_map, as_list(_map(raw.get("devices")).get("results"))))
        selector = raw.get("nodeSelector")
        return cls(results, selector if isinstance(selector, Mapping) else None)


@dataclass(frozen=True)
class ResourceClaim:
    namespace: str
    name: str
    uid: str = ""
    requests: tuple[Request, ...] = ()
    constraints: tuple[Constraint, ...] = ()
    allocation: Allocation | None = None
    reserved_for: tuple[str, ...] = ()       # consumer UIDs
    controller_uid: str | None = None        # the owner reference with controller: true
    deleting: bool = False
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)   # as for Device

    @classmethod
    def from_obj(cls, obj: Mapping[str, Any]) -> "ResourceClaim":
        meta, spec, status = _meta(obj), _spec(obj), _map(obj.get("status"))
        devices = _map(spec.get("devices"))
        controller = next((str(o.get("uid") or "") for o in map(_map, as_list(meta.get("ownerReferences")))
                           if o.get("controller") is True), None)
        allocation = status.get("allocation")
        return cls(
            namespace=str(meta.get("namespace") or "default"), name=str(meta.get("name") or ""),
            uid=str(meta.get("uid") or ""),
            requests=tuple(Request.from_obj(_map(r)) for r in as_list(devices.get("requests"))),
            constraints=tuple(Constraint.from_obj(_map(c)) for c in as_list(devices.get("constraints"))),
            allocation=Allocation.from_obj(allocation) if isinstance(allocation, Mapping) else None,
            reserved_for=tuple(str(_map(r).get("uid") or "") for r in as_list(status.get("reservedFor"))),
            controller_uid=controller, deleting=bool(meta.get("deletionTimestamp")), raw=obj)

    @property
    def key(self) -> str:
        """klog.KObj: `namespace/name`."""
        return f"{self.namespace}/{self.name}"
