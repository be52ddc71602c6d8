"""What DynamicResources cannot reproduce for a cycle, said (the trace's `notes`) instead of
answering as another version would; each note only when the pod or the cluster uses it."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from kexplain.features import KubeVersion
from kexplain.plugins.device_classes import extended_resource_classes
from kexplain.plugins.dra.features import as_map, consumption
from kexplain.plugins.dra.variant import CONSUMABLE_CAPACITY, PARTITIONABLE_DEVICES

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.pod import PodInfo
    from kexplain.plugins.dra.state import DraState


# gate -> what kexplain does not read while it is on
UNSUPPORTED_GATES = {
    "DRADeviceTaintRules": "DeviceTaintRule objects (their taints on devices are not applied)",
    "DRAListTypeAttributes": "list-valued device attributes",
    "DRANodeAllocatableResources": "node-allocatable resources backed by devices",
    "DRAWorkloadResourceClaims": "ResourceClaims of PodGroups",
}

_ALL_INCOMPLETE = re.compile(r"asks for all devices, but resource pool (\S+) is currently (being updated|invalid)")




def cycle_notes(kube: KubeVersion, state: "DraState | None", pod: "PodInfo",
                classes: Iterable[Mapping[str, Any]]) -> list[str]:
    out = []
    version = f"Kubernetes {kube.minor}"
    requested = [name for name, q in pod.resource.resource.scalar.items() if q]
    if requested and kube.enabled("DRAExtendedResource"):
        backed = extended_resource_classes(classes)
        wanted = sorted(name for name in requested if name in backed)
        if wanted:
            which = ", ".join(f"{name} (DeviceClass {backed[name]})" for name in wanted)
            out.append(f"{version} allocates extended resources through DRA when a DeviceClass provides them: "
                       f"the pod requests {which}. kexplain does not reproduce this: NodeResourcesFit checks "
                       "these resources against the nodes' allocatable and DynamicResources allocates no "
                       "devices for them, so the verdicts on them may differ from the scheduler's.")
    for gate, what in UNSUPPORTED_GATES.items():
        if kube.enabled(gate) and state is not None and state.claims:
            out.append(f"The feature gate {gate} is on: kexplain does not reproduce {what}.")
    if state is None or state.inventory is None or not state.claims:
        return out
    rules = state.rules
    if rules.has(CONSUMABLE_CAPACITY) and any("allowMultipleAllocations" in (e or "") for e in _selectors(state)):
        out.append(f"{version} gives device selectors device.allowMultipleAllocations (consumable capacity); "
                   "kexplain's CEL environment does not have it, so a selector that reads it fails here where "
                   "the scheduler evaluates it.")
    if rules.has(PARTITIONABLE_DEVICES) and not rules.cluster_wide_pools and any(
            consumption(d) for s in state.inventory.slices for d in s.devices):
        out.append(f"{version} keeps partitionable devices' counters per ResourceSlice; kexplain keeps them per "
                   "pool, as 1.35 does: verdicts on devices that consume counters may differ.")
    if not rules.variant.sorted_pools:
        out.extend(_random_pool_notes(state))
    return out


def _selectors(state: "DraState") -> Iterable[str | None]:
    """Every selector expression of the claims to allocate and of the classes they name."""
    assert state.inventory is not None
    for claim in state.to_allocate:
        for request in claim.requests:
            for req in (request.exactly,) if request.exactly is not None else request.first_available:
                yield from req.selectors
                cls = state.inventory.classes.get(req.device_class_name)
                if cls is not None:
                    yield from cls.selectors


def _random_pool_notes(state: "DraState") -> list[str]:
    """An All-mode error names the first incomplete or invalid pool in the allocator's pool
    order, which is random before 1.36: say so when the node had more than one."""
    out = []
    for name, (_, outcome) in sorted(state.outcomes().items()):
        m = _ALL_INCOMPLETE.search(outcome.error)
        if not m:
            continue
        broken = [p.id for p in outcome.pools if p.incomplete or p.invalid]
        if len(broken) > 1:
            out.append(f"On node {name} the scheduler names one of the pools {', '.join(broken)} at random (it "
                       f"lists pools in random order); kexplain names {m[1]}, the first by its slices.")
    return out
