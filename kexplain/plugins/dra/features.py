"""The fields of DRA features that only some versions' allocators read (device taints,
partitionable devices, consumable capacity, binding conditions), read from the objects as
written (the model's `raw`) by the allocator whose rules turn the feature on.

Quantities are exact fractions; a quantity that does not parse (the API server refuses it)
counts as zero.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

from kexplain.apimachinery.quantity import QuantityError, parse_quantity
from kexplain.model.dra import Device, ExactRequest, ResourceSlice

NO_SCHEDULE, NO_EXECUTE = "NoSchedule", "NoExecute"


def as_map(value: Any) -> Mapping[str, Any]:
    """A JSON field read as a mapping, {} when it is not one (the DRA modules read raw objects)."""
    return value if isinstance(value, Mapping) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def quantity(raw: Any) -> Fraction:
    try:
        return parse_quantity(raw)
    except QuantityError:
        return Fraction(0)


# -- device taints ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: str

    def __str__(self) -> str:
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"


def taints(d: Device) -> tuple[Taint, ...]:
    return tuple(Taint(str(t.get("key") or ""), str(t.get("value") or ""), str(t.get("effect") or ""))
                 for t in map(as_map, as_list(d.raw.get("taints"))))


def tolerates(toleration: Mapping[str, Any], taint: Taint) -> bool:
    """resourceclaim.ToleratesTaint: an empty effect or key matches any; Exists any value, Equal
    (or no operator) the same value."""
    effect, key = str(toleration.get("effect") or ""), str(toleration.get("key") or "")
    if effect and effect != taint.effect:
        return False
    if key and key != taint.key:
        return False
    operator = str(toleration.get("operator") or "")
    if operator in ("", "Equal"):
        return str(toleration.get("value") or "") == taint.value
    return operator == "Exists"


def blocking_taint(d: Device, request: ExactRequest, by_effect: bool) -> Taint | None:
    """The first taint of the device the request does not tolerate: with `by_effect` only NoSchedule and
    NoExecute count (taintPreventsAllocation), else every taint (allTaintsTolerated, before 1.35)."""
    tolerations = [as_map(t) for t in as_list(request.raw.get("tolerations"))]
    for taint in taints(d):
        if by_effect and taint.effect not in (NO_SCHEDULE, NO_EXECUTE):
            continue
        if not any(tolerates(t, taint) for t in tolerations):
            return taint
    return None


# -- partitionable devices ------------------------------------------------------------------------

def counter_sets(s: ResourceSlice) -> list[tuple[str, dict[str, Fraction]]]:
    """The slice's sharedCounters, in order: (counter set, {counter: value})."""
    return [(str(c.get("name") or ""), {str(k): quantity(as_map(v).get("value")) for k, v in as_map(c.get("counters")).items()})
            for c in map(as_map, as_list(s.raw.get("sharedCounters")))]


def consumption(d: Device) -> list[tuple[str, dict[str, Fraction]]]:
    """What the device consumes: (counter set, {counter: value}) per consumesCounters entry."""
    return [(str(c.get("counterSet") or ""), {str(k): quantity(as_map(v).get("value"))
                                              for k, v in as_map(c.get("counters")).items()})
            for c in map(as_map, as_list(d.raw.get("consumesCounters")))]


def device_node_fields(d: Device) -> tuple[str, bool, Mapping[str, Any] | None]:
    """A device's own nodeName, allNodes and nodeSelector (perDeviceNodeSelection)."""
    selector = d.raw.get("nodeSelector")
    return (str(d.raw.get("nodeName") or ""), d.raw.get("allNodes") is True,
            selector if isinstance(selector, Mapping) else None)


# -- consumable capacity ----------------------------------------------------------------------------

def allows_multiple(d: Device) -> bool:
    return d.raw.get("allowMultipleAllocations") is True


def requested_capacity(request: ExactRequest) -> Mapping[str, Any] | None:
    """The request's `capacity.requests` (None when it has no `capacity`)."""
    cap = request.raw.get("capacity")
    if cap is None:
        return None
    return as_map(as_map(cap).get("requests"))


def has_capacity(request: ExactRequest) -> bool:
    return request.raw.get("capacity") is not None


@dataclass(frozen=True)
class Capacity:
    """One device capacity and its requestPolicy (None: no policy)."""

    value: Fraction
    policy: Mapping[str, Any] | None = None


def capacities(d: Device) -> dict[str, Capacity]:
    out = {}
    for name, raw in d.capacity.items():
        raw = as_map(raw)
        policy = raw.get("requestPolicy")
        out[str(name)] = Capacity(quantity(raw.get("value")), policy if isinstance(policy, Mapping) else None)
    return out


# -- binding conditions -------------------------------------------------------------------------

def binding_conditions(d: Device) -> list[str]:
    return [str(c) for c in as_list(d.raw.get("bindingConditions"))]


def binding_failure_conditions(d: Device) -> list[str]:
    return [str(c) for c in as_list(d.raw.get("bindingFailureConditions"))]


def binds_to_node(d: Device) -> bool:
    return d.raw.get("bindsToNode") is True
