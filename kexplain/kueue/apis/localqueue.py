"""LocalQueue (localqueue_types.go): a namespace's queue into a ClusterQueue, with what admission fair
sharing reads of it: its `spec.fairSharing.weight` and the usage Kueue stored in
`status.fairSharing.admissionFairSharingStatus` (`consumedResources`, each as a float: AsApproximateFloat64)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kexplain.apimachinery.quantity import parse
from kexplain.errors import Source
from kexplain.kueue.apis import schema
from kexplain.kueue.apis.constants import LOCAL_QUEUE, STOP_NONE
from kexplain.kueue.apis.meta import ObjectMeta, object_meta


@dataclass(frozen=True)
class LocalQueue:
    meta: ObjectMeta
    cluster_queue: str = ""
    stop_policy: str = STOP_NONE
    fair_weight: float = 1.0                            # spec.fairSharing.weight
    consumed: tuple[tuple[str, float], ...] = ()        # the stored consumedResources, sorted
    consumed_updated: str = ""                          # its lastUpdate, as stored

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
    afs = _afs_status(stored.get("status"))
    return LocalQueue(meta=object_meta(stored, source), cluster_queue=str(spec.get("clusterQueue") or ""),
                      stop_policy=str(spec.get("stopPolicy") or STOP_NONE), fair_weight=_weight(spec),
                      consumed=_consumed(afs.get("consumedResources")), consumed_updated=str(afs.get("lastUpdate") or ""))


def _weight(spec: Mapping[str, Any]) -> float:
    """spec.fairSharing.weight AsApproximateFloat64 (the schema checked it is a quantity; 1 unset)."""
    raw = (spec.get("fairSharing") or {}).get("weight")
    return 1.0 if raw is None else float(parse(raw).value)


def _afs_status(status: Any) -> Mapping[str, Any]:
    fair = status.get("fairSharing") if isinstance(status, Mapping) else None
    afs = fair.get("admissionFairSharingStatus") if isinstance(fair, Mapping) else None
    return afs if isinstance(afs, Mapping) else {}


def _consumed(raw: Any) -> tuple[tuple[str, float], ...]:
    """consumedResources (a ResourceList); a value that is not a quantity counts as none."""
    out = []
    for name, value in (raw.items() if isinstance(raw, Mapping) else ()):
        try:
            out.append((str(name), float(parse(value).value)))
        except (ValueError, TypeError):
            continue
    return tuple(sorted(out))
