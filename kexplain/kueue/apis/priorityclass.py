"""The priority classes a Workload's priority comes from: Kueue's WorkloadPriorityClass and the
scheduling.k8s.io PriorityClass (its value and whether it is the global default)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kexplain.errors import InputError, Source
from kexplain.kueue.apis import schema
from kexplain.kueue.apis.constants import WORKLOAD_PRIORITY_CLASS
from kexplain.kueue.apis.meta import object_meta

WORKLOAD_PRIORITY_CLASS_REF = "WorkloadPriorityClass"
POD_PRIORITY_CLASS_REF = "PriorityClass"


@dataclass(frozen=True)
class PriorityClassRef:
    """A Workload's spec.priorityClassRef."""

    kind: str           # WorkloadPriorityClass | PriorityClass
    name: str

    def __str__(self) -> str:
        return f"{self.kind}/{self.name}"


@dataclass(frozen=True)
class PriorityClass:
    name: str
    value: int
    global_default: bool = False


def parse_workload_priority_class(obj: dict[str, Any], source: Source | None = None, *, validate: str = "strict",
                                  warnings: list[str] | None = None) -> PriorityClass:
    stored = schema.store(obj, schema.WORKLOAD_PRIORITY_CLASS, WORKLOAD_PRIORITY_CLASS, source, validate, warnings)
    return PriorityClass(object_meta(stored, source, namespaced=False).name, int(stored["value"]))


def parse_priority_class(obj: dict[str, Any], source: Source | None = None) -> PriorityClass:
    """A scheduling.k8s.io/v1 PriorityClass: its value (an int32) and globalDefault."""
    value = obj.get("value")
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError("value must be an integer", source=source, obj=obj, field="value")
    return PriorityClass(object_meta(obj, source, namespaced=False).name, value, obj.get("globalDefault") is True)
