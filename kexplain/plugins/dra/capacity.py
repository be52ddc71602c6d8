"""Consumable capacity (DRAConsumableCapacity): how much of a device's capacity a request consumes,
and whether it still fits beside the device's allocations and this attempt's picks (the
allocators' consumable_capacity.go)."""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Mapping

from kexplain.apimachinery.quantity import BINARY_SI, Quantity, QuantityError, parse
from kexplain.plugins.dra.features import Capacity

Consumed = dict[str, Quantity]   # capacity name -> amount consumed


class UnknownCapacity(Exception):
    """The request names a capacity the device does not have ("some requested capacity has not
    been defined"): the device is skipped."""


def amount(raw: Any) -> Quantity:
    """A quantity as written (zero when it does not parse: the API server refuses it)."""
    return _q(raw) or Quantity(Fraction(0))


def _q(raw: Any) -> Quantity | None:
    try:
        return parse(raw) if raw is not None else None
    except QuantityError:
        return None


def _int(q: Quantity) -> int:
    """Quantity.Value(): rounded up to an integer."""
    return math.ceil(q.value)


def _go_mod(a: int, b: int) -> int:
    """Go's `%` on int64 (truncated toward zero)."""
    return a - b * int(a / b) if b else 0


def consume(requested: Quantity | None, cap: Capacity) -> Quantity:
    """calculateConsumedCapacity: what one allocation takes of a capacity."""
    policy = cap.policy
    if requested is None:
        default = _q((policy or {}).get("default"))
        return default if default is not None else Quantity(cap.value)
    if policy is None:
        return requested
    valid_range = policy.get("validRange")
    if isinstance(valid_range, Mapping) and _q(valid_range.get("min")) is not None:
        low = _q(valid_range.get("min"))
        assert low is not None
        if requested.value < low.value:
            return low
        step = _q(valid_range.get("step"))
        if step is None:
            return requested
        added = _int(requested) - _int(low)
        n = int(added / _int(step)) if _int(step) else 0
        if _go_mod(added, _int(step)):
            n += 1
        return Quantity(_int(low) + _int(step) * n, BINARY_SI)
    values = policy.get("validValues")
    if values is not None:
        for raw in values if isinstance(values, list) else ():
            v = _q(raw)
            if v is not None and requested.value <= v.value:
                return v
    return requested


def violates(value: Quantity, policy: Mapping[str, Any] | None) -> bool:
    """violatesPolicy: the consumed amount is not one the policy allows."""
    if policy is None:
        return False
    default = _q(policy.get("default"))
    if default is not None and default.value == value.value:
        return False
    valid_range = policy.get("validRange")
    if isinstance(valid_range, Mapping):
        high = _q(valid_range.get("max"))
        if high is not None and value.value > high.value:
            return True
        step, low = _q(valid_range.get("step")), _q(valid_range.get("min"))
        if step is not None:
            return bool(_go_mod(_int(value) - (_int(low) if low is not None else 0), _int(step)))
        return False
    values = policy.get("validValues")
    if isinstance(values, list) and values:
        return not any((v := _q(raw)) is not None and v.value == value.value for raw in values)
    return False


def consumed_by(requests: Mapping[str, Any] | None, capacities: Mapping[str, Capacity]) -> Consumed:
    """GetConsumedCapacityFromRequest: what one allocation of the request takes of each capacity."""
    requests = requests or {}
    return {name: consume(_q(requests.get(name)), cap) for name, cap in capacities.items()}


def fits(requests: Mapping[str, Any] | None, capacities: Mapping[str, Capacity],
         allocated: Consumed, allocating: Consumed) -> bool:
    """CmpRequestOverCapacity: one more allocation of the request stays within every capacity beside
    `allocated` and `allocating`; UnknownCapacity when it names a capacity the device lacks."""
    requests = requests or {}
    if any(name not in capacities for name in requests):
        raise UnknownCapacity()
    for name, cap in capacities.items():
        amount = consume(_q(requests.get(name)), cap)
        if violates(amount, cap.policy):
            return False
        total = amount.value + (allocated[name].value if name in allocated else 0) + \
            (allocating[name].value if name in allocating else 0)
        if total > cap.value:
            return False
    return True


def add(into: Consumed, more: Consumed) -> None:
    for name, q in more.items():
        into[name] = Quantity(into[name].value + q.value, into[name].fmt) if name in into else q


def sub(into: Consumed, less: Consumed) -> None:
    for name, q in less.items():
        if name in into:
            into[name] = Quantity(into[name].value - q.value, into[name].fmt)
