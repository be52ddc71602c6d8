"""A pod template inside a Job, a JobSet or a Workload, decoded as the API server decodes a
PodSpec: a field of the wrong type or a quantity that does not parse is bad input, named at its
path in the object that holds it (the pod validation a created pod meets is not repeated)."""
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
