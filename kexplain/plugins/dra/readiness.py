"""Whether an allocated claim's devices with binding conditions are usable (device binding
conditions on: isClaimReadyForBinding, isClaimTimeout).

A result whose device has `bindingConditions` waits for the driver to set them True in the
claim's `status.devices`; one of its `bindingFailureConditions` True means binding failed.
Filter treats a claim whose binding failed, or that is still not ready `bindingTimeout` after
its `allocationTimestamp`, as not available on any node (PostFilter may then deallocate it).
"""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.framework.preemption import parse_timestamp
from kexplain.model.dra import ResourceClaim
from kexplain.plugins.dra.features import as_list, as_map

DEFAULT_BINDING_TIMEOUT_NS = 600 * 10**9   # DynamicResourcesBindingTimeoutDefault


def _results(claim: ResourceClaim) -> list[Mapping[str, Any]]:
    allocation = as_map(as_map(claim.raw.get("status")).get("allocation"))
    return [as_map(r) for r in as_list(as_map(allocation.get("devices")).get("results"))]


def _conditions(claim: ResourceClaim, result: Mapping[str, Any]) -> list[Mapping[str, Any]] | None:
    """The device's conditions in status.devices (None: the device has no entry)."""
    for entry in map(as_map, as_list(as_map(claim.raw.get("status")).get("devices"))):
        if all(entry.get(k) == result.get(k) for k in ("driver", "pool", "device")):
            return [as_map(c) for c in as_list(entry.get("conditions"))]
    return None


def _true(conditions: list[Mapping[str, Any]], name: str) -> Mapping[str, Any] | None:
    return next((c for c in conditions if c.get("type") == name and c.get("status") == "True"), None)


def binding_state(claim: ResourceClaim) -> str:
    """"failed" (a failure condition True: isClaimReadyForBinding's error), "ready" (every binding condition
    True) or "waiting"; devices read in order, the first without status or not ready ending the check."""
    for result in _results(claim):
        if not as_list(result.get("bindingConditions")):
            continue
        conditions = _conditions(claim, result)
        if conditions is None:
            return "waiting"
        if any(_true(conditions, str(name)) for name in as_list(result.get("bindingFailureConditions"))):
            return "failed"
        if not all(_true(conditions, str(name)) for name in as_list(result.get("bindingConditions"))):
            return "waiting"
    return "ready"


def timed_out(claim: ResourceClaim, timeout_ns: int, now_ns: int) -> bool:
    """The claim has a device with binding conditions and was allocated more than `timeout_ns` ago."""
    stamp = as_map(as_map(claim.raw.get("status")).get("allocation")).get("allocationTimestamp")
    at = parse_timestamp(stamp) if isinstance(stamp, str) else None
    if at is None:
        return False
    return any(result.get("bindingConditions") is not None for result in _results(claim)) and at + timeout_ns < now_ns


def unavailable(claim: ResourceClaim, timeout_ns: int, now_ns: int) -> bool:
    """Filter's verdict: binding failed, or not ready and timed out."""
    state = binding_state(claim)
    return state == "failed" or (state == "waiting" and timed_out(claim, timeout_ns, now_ns))
