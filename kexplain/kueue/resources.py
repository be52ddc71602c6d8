"""Kueue's integer view of quantities (pkg/resources): cpu in millicores, everything else in
units; the text a value prints as (`ResourceQuantity`), and requests as maps of those integers."""
from __future__ import annotations

from fractions import Fraction
from typing import Iterable, Mapping, NamedTuple

from kexplain.apimachinery.quantity import (BINARY_SI, DECIMAL_SI, Quantity, canonical, milli_value, new_quantity,
                                            parse_text, value)
from kexplain.model.resources import pod_requests

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"
HUGEPAGES_PREFIX = "hugepages-"

Requests = dict[str, int]


class FlavorResource(NamedTuple):
    """A (flavor, resource) pair: the unit quota and usage are kept in."""

    flavor: str
    resource: str

    def __str__(self) -> str:
        return f"{self.resource} in flavor {self.flavor}"


def fnv64a(text: str) -> int:
    h = 0xCBF29CE484222325
    for byte in text.encode():
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def iteration_order(names: Iterable[str], hashed: bool = True) -> list[str]:
    """The order Kueue ranges over a pod set's requests: it decides which resource is found short
    first. v0.19 keeps them sorted by the FNV-64a hash of the name (SliceRequests, `hashed`); v0.17
    ranges over a Go map, whose order is random, but a small map's iteration starts at a random one
    of its 8 slots and wraps around, so its first-inserted key comes first most often: the order
    the pod's requests were written in (not `hashed`)."""
    return sorted(names, key=lambda n: (fnv64a(n), n)) if hashed else list(names)


def resource_value(name: str, exact: Fraction) -> int:
    """ResourceValue: cpu as MilliValue, the rest as Value (both rounded up)."""
    return milli_value(exact) if name == CPU else value(exact)


def resource_quantity_text(name: str, amount: int) -> str:
    """ResourceQuantityString: cpu from millicores in decimal SI, memory, ephemeral storage and
    hugepages in their canonical binary form, anything else as a decimal count."""
    if name == CPU:
        return canonical(new_quantity(Fraction(amount, 1000), DECIMAL_SI))
    if name in (MEMORY, EPHEMERAL_STORAGE) or name.startswith(HUGEPAGES_PREFIX):
        preferred = canonical(new_quantity(amount, BINARY_SI))
        return canonical(parse_text(preferred))
    return canonical(new_quantity(amount, DECIMAL_SI))


def resource_quantity(name: str, amount: int) -> Quantity:
    """ResourceQuantity: the quantity a value is written back as (its text `resource_quantity_text`)."""
    return parse_text(resource_quantity_text(name, amount))


def requests_of(resource_list: Mapping[str, Fraction]) -> Requests:
    """NewMapRequests: each quantity as its integer value."""
    return {name: resource_value(name, q) for name, q in resource_list.items()}


def pod_spec_requests(spec: Mapping) -> Requests:
    """NewMapRequestsFromPodSpec: one pod's requests (component-helpers PodRequests: containers
    summed, init containers by their maximum, sidecars, pod-level requests, overhead)."""
    return requests_of(pod_requests({"spec": spec}))


def scaled(requests: Mapping[str, int], factor: int) -> Requests:
    return {k: v * factor for k, v in requests.items()}


def divided(requests: Mapping[str, int], divisor: int) -> Requests:
    """MapRequests.Divide: Go's integer division (truncating toward zero)."""
    out = {}
    for k, v in requests.items():
        if v == 0 and divisor == 0:
            out[k] = v
            continue
        q = abs(v) // abs(divisor)
        out[k] = q if (v >= 0) == (divisor > 0) else -q
    return out
