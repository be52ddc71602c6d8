"""Cohort (cohort_types.go, cohort_webhook.go): a node of the cohort tree, with its own quota."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kexplain.apimachinery.fielderrors import FieldError
from kexplain.errors import Source
from kexplain.kueue.apis import schema
from kexplain.kueue.apis.clusterqueue import ResourceGroup, fair_weight, parse_resource_groups, resource_group_errors
from kexplain.kueue.apis.constants import COHORT
from kexplain.kueue.apis.meta import ObjectMeta, object_meta


@dataclass(frozen=True)
class Cohort:
    meta: ObjectMeta
    parent: str = ""
    resource_groups: tuple[ResourceGroup, ...] = ()
    fair_weight: float = 1.0            # spec.fairSharing.weight

    @property
    def name(self) -> str:
        return self.meta.name


def _webhook(stored: dict[str, Any]) -> list[FieldError]:
    spec = stored.get("spec") or {}
    return resource_group_errors(spec.get("resourceGroups"), "spec.resourceGroups",
                                 has_parent=bool(spec.get("parentName")), is_cohort=True, enforce_lending=False)


def parse_cohort(obj: dict[str, Any], source: Source | None = None, *, validate: str = "strict",
                 warnings: list[str] | None = None) -> Cohort:
    stored = schema.store(obj, schema.COHORT, COHORT, source, validate, warnings, _webhook)
    spec = stored.get("spec") or {}
    return Cohort(meta=object_meta(stored, source, namespaced=False), parent=str(spec.get("parentName") or ""),
                  resource_groups=parse_resource_groups(spec.get("resourceGroups"), source, obj,
                                                        "spec.resourceGroups"),
                  fair_weight=fair_weight(spec, source, obj))
