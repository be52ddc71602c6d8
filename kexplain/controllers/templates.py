"""A pod template inside a Job, a JobSet, a Workload or an operator's job, decoded as the API server
decodes a PodSpec: a field of the wrong type or a quantity that does not parse is bad input, named at
its path in the object that holds it (the pod validation a created pod meets is not repeated); and a
count at a path, read as an int32. The operators' builders (`controllers.trainjob`, `controllers.mpijob`)
and Kueue's integrations read their objects with them."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.admission.decode import check_decodes
from kexplain.errors import InputError, Source

_SPEC = "spec"


def check_pod_spec(spec: Any, source: Source | None, obj: Mapping[str, Any], path: str) -> None:
    """InputError at `path` (the pod spec's place in `obj`) when `spec` would not decode."""
    if not isinstance(spec, Mapping):
        raise InputError(f"must be an object, not {type(spec).__name__}", source=source, obj=obj, field=path)
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": str(meta.get("name") or "template")},
           "spec": dict(spec)}
    try:
        check_decodes(pod, source or Source("-"))
    except InputError as err:
        inner = err.field or _SPEC
        field = path + inner[len(_SPEC):] if inner.startswith(_SPEC) else f"{path}.{inner}"
        raise InputError(err.message, source=source, obj=obj, field=field) from None


def mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def template_at(obj: Mapping[str, Any], template: Any, path: str, source: Source | None) -> Mapping[str, Any]:
    """The pod template at `path` of `obj` (`{metadata, spec}`), refused when it is missing or its
    pod spec would not decode."""
    if not isinstance(template, Mapping):
        raise InputError("a pod template is required", source=source, obj=obj, field=path)
    check_pod_spec(template.get("spec"), source, obj, f"{path}.spec")
    return template


def count_at(obj: Mapping[str, Any], value: Any, default: int, path: str, source: Source | None) -> int:
    """An int32 count at `path` (`default` when not set), refused when it is no non-negative integer."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"must be a non-negative integer, not {value!r}", source=source, obj=obj, field=path)
    return value
