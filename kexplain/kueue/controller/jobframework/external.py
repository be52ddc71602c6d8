"""A job of a kind the Configuration's `integrations.externalFrameworks` names: Kueue manages it, but
through that kind's own external controller, which makes its Workload (Kueue's jobframework does not
reconcile it). kexplain cannot run that controller: the job has no Workload of kexplain's making; a
Workload it owns (given, in a snapshot or live) goes through the pass as any given Workload."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kexplain.errors import Source
from kexplain.kueue.apis.meta import ObjectMeta, object_meta
from kexplain.kueue.apis.workload import PodSet
from kexplain.kueue.config_external import EXTERNAL, external_framework


@dataclass(frozen=True)
class ExternalJob:
    """GenericJob of an external framework's kind: no pod sets kexplain could build."""

    kind: str
    group: str
    meta: ObjectMeta
    source: Source | None
    external: str = ""          # why kexplain makes no Workload of it

    def pod_sets(self) -> tuple[PodSet, ...]:
        return ()

    def pod_priority_class_name(self) -> str:
        return ""


def external_job(obj: Mapping[str, Any], source: Source | None, frameworks: tuple[str, ...]) -> ExternalJob | None:
    """The object as an external framework's job (None: its kind is not one the Configuration names)."""
    name = external_framework(obj, frameworks)
    if not name:
        return None
    api, kind = str(obj.get("apiVersion") or ""), str(obj.get("kind") or "")
    group = api.rsplit("/", 1)[0] if "/" in api else ""
    return ExternalJob(kind, group, object_meta(obj, source), source, EXTERNAL.format(name))
