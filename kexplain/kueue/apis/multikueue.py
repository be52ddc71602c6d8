"""MultiKueueConfig and MultiKueueCluster (multikueue_types.go): what the manager cluster holds of
MultiKueue. A config names the worker clusters a MultiKueue admission check dispatches to; a
cluster's `Active` condition is set by Kueue's cluster controller from its connection to the worker,
which kexplain cannot make, so it is read as stored. Read leniently: a field of the wrong type
counts as unset (Kueue's CRDs would have refused it)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kexplain.errors import Source
from kexplain.kueue.apis.meta import ObjectMeta, object_meta

CLUSTER_ACTIVE = "Active"       # MultiKueueClusterActive


@dataclass(frozen=True)
class MultiKueueConfig:
    meta: ObjectMeta
    clusters: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.meta.name


@dataclass(frozen=True)
class MultiKueueCluster:
    meta: ObjectMeta
    active: bool = False
    reason: str = ""
    message: str = ""

    @property
    def name(self) -> str:
        return self.meta.name


def parse_multikueue_config(obj: Mapping[str, Any], source: Source | None = None) -> MultiKueueConfig:
    spec = obj.get("spec") if isinstance(obj.get("spec"), Mapping) else {}
    clusters = spec.get("clusters") if isinstance(spec.get("clusters"), list) else []
    return MultiKueueConfig(object_meta(obj, source, namespaced=False), tuple(str(c) for c in clusters))


def parse_multikueue_cluster(obj: Mapping[str, Any], source: Source | None = None) -> MultiKueueCluster:
    """IsStatusConditionTrue(status.conditions, Active), with the condition's words."""
    status = obj.get("status") if isinstance(obj.get("status"), Mapping) else {}
    conditions = status.get("conditions") if isinstance(status.get("conditions"), list) else []
    found = next((c for c in conditions if isinstance(c, Mapping) and c.get("type") == CLUSTER_ACTIVE), None)
    meta = object_meta(obj, source, namespaced=False)
    if found is None:
        return MultiKueueCluster(meta)
    return MultiKueueCluster(meta, found.get("status") == "True", str(found.get("reason") or ""),
                             str(found.get("message") or ""))
