"""The kinds Kueue's default configuration manages that kexplain does not model
(`kexplain.controllers.queued`): a job of one of them is read (its metadata), and the reconciler
makes no Workload of it, saying why (`not_modelled`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kexplain.controllers.queued import UNMODELLED, held
from kexplain.errors import Source
from kexplain.kueue.apis.meta import ObjectMeta, object_meta
from kexplain.kueue.apis.workload import PodSet

GROUPS = frozenset(group for group, _ in UNMODELLED)


@dataclass(frozen=True)
class Unmodelled:
    meta: ObjectMeta
    kind: str
    group: str
    not_modelled: str           # why no Workload is made of it
    source: Source | None = None

    def pod_sets(self) -> tuple[PodSet, ...]:
        return ()

    def pod_priority_class_name(self) -> str:
        return ""


def handles(kind: str, group: str) -> bool:
    return (group, kind) in UNMODELLED


def from_object(obj: dict[str, Any], source: Source | None) -> Unmodelled:
    api = str(obj.get("apiVersion") or "")
    kind = str(obj.get("kind") or "")
    why = held(obj) or f"kexplain does not model {kind} yet"
    return Unmodelled(object_meta(obj, source), kind, api.split("/", 1)[0], why, source)
