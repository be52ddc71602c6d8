"""LocalQueue (localqueue_types.go): a namespace's queue into a ClusterQueue."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kexplain.errors import Source
from kexplain.kueue.apis import schema
from kexplain.kueue.apis.constants import LOCAL_QUEUE, STOP_NONE
from kexplain.kueue.apis.meta import ObjectMeta, object_meta


@dataclass(frozen=True)
class LocalQueue:
    meta: ObjectMeta
    cluster_queue: str = ""
    stop_policy: str = STOP_NONE

    @property
    def key(self) -> str:
        """`NAMESPACE/NAME`, the queue manager's key."""
        return self.meta.key

    @property
    def stopped(self) -> bool:
        return self.stop_policy != STOP_NONE


def parse_local_queue(obj: dict[str, Any], source: Source | None = None, *, validate: str = "strict",
                      warnings: list[str] | None = None) -> LocalQueue:
    stored = schema.store(obj, schema.LOCAL_QUEUE, LOCAL_QUEUE, source, validate, warnings)
    spec = stored.get("spec") or {}
    return LocalQueue(meta=object_meta(stored, source), cluster_queue=str(spec.get("clusterQueue") or ""),
                      stop_policy=str(spec.get("stopPolicy") or STOP_NONE))
