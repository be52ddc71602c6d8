"""What DynamicResources writes into a pod's claims when the pod is bound (Reserve, then PreBind):
the allocation Filter found as `status.allocation`, the delete-protection finalizer and the pod
in `status.reservedFor`, so later pods find the devices in use. New objects, never changed ones
(snapshots share their objects)."""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Mapping

from kexplain.model.dra import ResourceClaim
from kexplain.plugins.dra.allocator import ClaimAllocation
from kexplain.plugins.dra.features import as_list, as_map

FINALIZER = "resource.kubernetes.io/delete-protection"   # resourceapi.Finalizer
SOURCE_CLASS = "FromClass"
SOURCE_CLAIM = "FromClaim"


@dataclass(frozen=True)
class ClaimBinding:
    """One claim of the pod as PreBind leaves it: the claim, and the allocation Reserve recorded
    for it (None: it was allocated already, only the reservation is added)."""

    claim: ResourceClaim
    allocation: ClaimAllocation | None = None
    # With device binding conditions on, PreBind stamps the allocation (when it has no stamp yet).
    allocation_timestamp: str | None = None


def _device_configuration(config: Mapping[str, Any]) -> dict[str, Any]:
    """The DeviceConfiguration embedded in a class or claim config (today: `opaque`)."""
    return {k: copy.deepcopy(v) for k, v in config.items() if k != "requests"}


def _chosen_requests(spec: Mapping[str, Any], allocation: ClaimAllocation) -> list[tuple[str, str, str | None]]:
    """Per request, in order: its name, the name its allocation results use (`request` or the chosen
    `request/subrequest`) and that choice's device class (None when no subrequest was chosen)."""
    used = {d.request for d in allocation.devices}
    out: list[tuple[str, str, str | None]] = []
    for raw in as_list(as_map(spec.get("devices")).get("requests")):
        raw = as_map(raw)
        name = str(raw.get("name") or "")
        exactly = raw.get("exactly")
        if isinstance(exactly, Mapping):
            out.append((name, name, str(exactly.get("deviceClassName") or "") or None))
            continue
        for sub in map(as_map, as_list(raw.get("firstAvailable"))):
            full = f"{name}/{sub.get('name') or ''}"
            if full in used:
                out.append((name, full, str(sub.get("deviceClassName") or "") or None))
                break
        else:
            out.append((name, name, None))
    return out


def allocation_config(spec: Mapping[str, Any], allocation: ClaimAllocation,
                      classes: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """`status.allocation.devices.config`: each used class's configuration once, then the claim's own,
    an entry naming requests repeated per request (or chosen subrequest) it names, as the allocator does."""
    out: list[dict[str, Any]] = []
    chosen = _chosen_requests(spec, allocation)
    by_class: dict[str, list[dict[str, Any]]] = {}
    for _, result_name, class_name in chosen:
        if class_name is None:
            continue
        entries = by_class.get(class_name)
        if entries is not None:       # the class's configuration is there: one more request
            for entry in entries:
                entry["requests"].append(result_name)
            continue
        entries = by_class[class_name] = []
        for config in map(as_map, as_list(as_map(as_map(classes.get(class_name)).get("spec")).get("config"))):
            entry = {"source": SOURCE_CLASS, "requests": [result_name], **_device_configuration(config)}
            entries.append(entry)
            out.append(entry)
    for config in map(as_map, as_list(as_map(spec.get("devices")).get("config"))):
        named = [str(r) for r in as_list(config.get("requests"))]
        entry = {"source": SOURCE_CLAIM, **({"requests": named} if named else {}), **_device_configuration(config)}
        if not named:
            out.append(entry)
            continue
        for request_name, result_name, _ in chosen:
            if request_name in named or (result_name != request_name and result_name in named):
                out.append(copy.deepcopy(entry))
    return out


def allocation_result(spec: Mapping[str, Any], allocation: ClaimAllocation,
                      classes: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The AllocationResult as stored in `status.allocation` (empty fields left out)."""
    results = []
    for d in allocation.devices:
        result: dict[str, Any] = {"request": d.request, "driver": d.driver, "pool": d.pool, "device": d.device}
        if d.admin_access:
            result["adminAccess"] = True
        for key, value in (("tolerations", [copy.deepcopy(dict(t)) for t in d.tolerations]),
                           ("bindingConditions", list(d.binding_conditions)),
                           ("bindingFailureConditions", list(d.binding_failure_conditions)),
                           ("shareID", d.share_id), ("consumedCapacity", dict(d.consumed))):
            if value:
                result[key] = value
        results.append(result)
    devices: dict[str, Any] = {"results": results}
    config = allocation_config(spec, allocation, classes)
    if config:
        devices["config"] = config
    out: dict[str, Any] = {"devices": devices}
    if allocation.node_selector is not None:
        out["nodeSelector"] = copy.deepcopy(dict(allocation.node_selector))
    return out


def bound_claim(obj: Mapping[str, Any], binding: ClaimBinding, pod: Mapping[str, Any],
                classes: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """A copy of the claim object `obj` as PreBind writes it for `pod` (its allocation, when the
    plugin made one, with the finalizer; the pod appended to `reservedFor`)."""
    out = copy.deepcopy(dict(obj))
    status = out["status"] = dict(as_map(out.get("status")))
    if binding.allocation is not None:
        meta = out["metadata"] = dict(as_map(out.get("metadata")))
        finalizers = [str(f) for f in as_list(meta.get("finalizers"))]
        if FINALIZER not in finalizers:
            meta["finalizers"] = [*finalizers, FINALIZER]
        status["allocation"] = allocation_result(as_map(out.get("spec")), binding.allocation, classes)
    allocation = status.get("allocation")
    if binding.allocation_timestamp and isinstance(allocation, Mapping) and not allocation.get("allocationTimestamp"):
        status["allocation"] = {**allocation, "allocationTimestamp": binding.allocation_timestamp}
    pod_meta = as_map(pod.get("metadata"))
    status["reservedFor"] = [*as_list(status.get("reservedFor")),
                             {"resource": "pods", "name": str(pod_meta.get("name") or ""),
                              "uid": str(pod_meta.get("uid") or "")}]
    return out


def reserved_for_pod(claim: ResourceClaim, pod_uid: str) -> bool:
    """resourceclaim.IsReservedForPod: PreBind leaves such a claim alone."""
    return bool(pod_uid) and pod_uid in claim.reserved_for
