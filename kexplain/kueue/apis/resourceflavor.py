"""ResourceFlavor (resourceflavor_types.go, resourceflavor_webhook.go)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from kexplain.apimachinery.fielderrors import FieldError, duplicate, index, invalid
from kexplain.apimachinery.names import is_label_value
from kexplain.errors import Source
from kexplain.kueue.apis import schema
from kexplain.kueue.apis.constants import RESOURCE_FLAVOR
from kexplain.kueue.apis.meta import ObjectMeta, object_meta


@dataclass(frozen=True)
class ResourceFlavor:
    meta: ObjectMeta
    node_labels: Mapping[str, str] = field(default_factory=dict)
    node_taints: tuple[Mapping[str, Any], ...] = ()
    tolerations: tuple[Mapping[str, Any], ...] = ()
    topology_name: str | None = None        # spec.topologyName: a TAS flavor

    @property
    def name(self) -> str:
        return self.meta.name


def _webhook(stored: dict[str, Any]) -> list[FieldError]:
    """ValidateResourceFlavor: each taint's value a label value, no taint twice (key, effect)."""
    errs: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for i, taint in enumerate((stored.get("spec") or {}).get("nodeTaints") or ()):
        path = index("spec.nodeTaints", i)
        value = str(taint.get("value") or "")
        problems = is_label_value(value)
        if problems:
            errs.append(invalid(f"{path}.value", value, ";".join(problems)))
        key = (str(taint.get("key")), str(taint.get("effect")))
        if key in seen:
            shown = {"key": key[0], **({"value": value} if value else {}), "effect": key[1]}
            errs.append(duplicate(path, shown, typed=True))
        seen.add(key)
    return errs


def parse_resource_flavor(obj: dict[str, Any], source: Source | None = None, *, validate: str = "strict",
                          warnings: list[str] | None = None) -> ResourceFlavor:
    stored = schema.store(obj, schema.RESOURCE_FLAVOR, RESOURCE_FLAVOR, source, validate, warnings, _webhook)
    spec = stored.get("spec") or {}
    return ResourceFlavor(
        meta=object_meta(stored, source, namespaced=False),
        node_labels={str(k): str(v) for k, v in (spec.get("nodeLabels") or {}).items()},
        node_taints=tuple(spec.get("nodeTaints") or ()),
        tolerations=tuple(spec.get("tolerations") or ()),
        topology_name=str(spec["topologyName"]) if spec.get("topologyName") is not None else None)
