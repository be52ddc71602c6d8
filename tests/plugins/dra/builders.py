"""Small builders for resource.k8s.io/v1 objects (as YAML would give them) in DRA tests."""
from __future__ import annotations

from typing import Any

from kexplain.model.dra import DeviceClass, ResourceClaim, ResourceSlice

GPU = "gpu.example.com"


def dev(name: str, **attrs: Any) -> dict:
    """A device; keyword attributes become typed attributes (`memory=...` capacity via `cap`)."""
    cap = attrs.pop("cap", None)
    out: dict = {"name": name, "attributes": {}}
    for k, v in attrs.items():
        kind = "bool" if isinstance(v, bool) else "int" if isinstance(v, int) else "string"
        if isinstance(v, tuple):   # ("version", "1.2.3")
            kind, v = v
        out["attributes"][k] = {kind: v}
    if cap:
        out["capacity"] = {k: {"value": v} for k, v in cap.items()}
    return out


def slice_obj(name: str, devices: list[dict], *, node: str = "", driver: str = GPU, pool: str | None = None,
              generation: int = 1, count: int = 1, all_nodes: bool = False, selector: dict | None = None,
              **extra: Any) -> dict:
    spec: dict = {"driver": driver, "pool": {"name": pool or node or name, "generation": generation,
                                            "resourceSliceCount": count}, "devices": devices}
    if node:
        spec["nodeName"] = node
    if all_nodes:
        spec["allNodes"] = True
    if selector is not None:
        spec["nodeSelector"] = selector
    spec.update(extra)
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name}, "spec": spec}


def device_class(name: str, *expressions: str) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": e}} for e in expressions]}}


def exact(cls: str, count: int | None = None, mode: str | None = None, admin: bool | None = None,
          selectors: tuple[str, ...] = ()) -> dict:
    out: dict = {"deviceClassName": cls}
    if count is not None:
        out["count"] = count
    if mode is not None:
        out["allocationMode"] = mode
    if admin is not None:
        out["adminAccess"] = admin
    if selectors:
        out["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    return out


def req(name: str, cls: str = GPU, **kw: Any) -> dict:
    return {"name": name, "exactly": exact(cls, **kw)}


def first(name: str, *subs: tuple[str, dict]) -> dict:
    return {"name": name, "firstAvailable": [{"name": n, **s} for n, s in subs]}


def claim(name: str, *requests: dict, namespace: str = "default", constraints: list[dict] | None = None,
          allocation: dict | None = None, reserved_for: list[str] | None = None, owner: str | None = None,
          deleting: bool = False) -> dict:
    meta: dict = {"name": name, "namespace": namespace, "uid": f"uid-{name}"}
    if owner is not None:
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": owner,
                                    "controller": True}]
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    devices: dict = {"requests": list(requests)}
    if constraints:
        devices["constraints"] = constraints
    status: dict = {}
    if allocation is not None:
        status["allocation"] = allocation
    if reserved_for is not None:
        status["reservedFor"] = [{"resource": "pods", "name": u, "uid": u} for u in reserved_for]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta,
            "spec": {"devices": devices}, "status": status}


def allocation(*results: tuple[str, str, str, str], node: str | None = None, admin: bool = False) -> dict:
    """status.allocation with (request, driver, pool, device) results, pinned to `node`."""
    out: dict = {"devices": {"results": [
        {"request": r, "driver": d, "pool": p, "device": n, **({"adminAccess": True} if admin else {})}
        for r, d, p, n in results]}}
    if node is not None:
        out["nodeSelector"] = {"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": [node]}]}]}
    return out


def slices(*objs: dict) -> list[ResourceSlice]:
    return [ResourceSlice.from_obj(o) for o in objs]


def classes(*objs: dict) -> dict[str, DeviceClass]:
    return {c.name: c for c in map(DeviceClass.from_obj, objs)}


def claims(*objs: dict) -> list[ResourceClaim]:
    return [ResourceClaim.from_obj(o) for o in objs]
