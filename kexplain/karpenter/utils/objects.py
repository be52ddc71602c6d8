"""Field reads of unstructured objects that the pass's modules share, where Karpenter reads the
fields of typed Go objects."""
from __future__ import annotations

from typing import Any, Mapping


def field_of(obj: Any, name: str, default: Any = None) -> Any:
    """A field of a NodeClass part, read from a dataclass or a mapping alike."""
    if obj is None:
        return default
    if type(obj) is dict or isinstance(obj, Mapping):     # (a dict first: `typing.Mapping`'s check is Python)
        return obj.get(name, default)
    return getattr(obj, name, default)


def name_of(obj: Mapping[str, Any]) -> str:
    return (obj.get("metadata") or {}).get("name") or ""


def template_spec(np: Mapping[str, Any]) -> Mapping[str, Any]:
    """A NodePool's spec.template.spec."""
    return ((np.get("spec") or {}).get("template") or {}).get("spec") or {}
