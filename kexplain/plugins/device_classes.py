"""Which extended resources DeviceClasses provide (DRAExtendedResource, 1.36): read by DRA's notes and by
NodeResourcesFit's signature, apart from the DRA package so that Fit loads none of it."""
from __future__ import annotations

from typing import Any, Iterable, Mapping

IMPLICIT_PREFIX = "deviceclass.resource.kubernetes.io/"   # resourceapi.ResourceDeviceClassPrefix


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def extended_resource_classes(classes: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """Extended resource name -> the DeviceClass providing it (DRAExtendedResource): each class's implicit
    `deviceclass.resource.kubernetes.io/<class>` and its `extendedResourceName` (newer, then smaller name wins)."""
    out: dict[str, str] = {}
    named: dict[str, tuple[str, str]] = {}
    for obj in classes:
        meta = _map(obj.get("metadata"))
        name = str(meta.get("name") or "")
        out[IMPLICIT_PREFIX + name] = name
        ext = _map(obj.get("spec")).get("extendedResourceName")
        if isinstance(ext, str) and ext:
            created = str(meta.get("creationTimestamp") or "")
            have = named.get(ext)
            if have is None or created > have[0] or (created == have[0] and name < have[1]):
                named[ext] = (created, name)
    out.update({ext: name for ext, (_, name) in named.items()})
    return out
