"""What every kind's metadata gives the engine: name, namespace, uid, creation time, labels,
annotations, the controller owner."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Mapping

from kexplain.errors import InputError, Source


@dataclass(frozen=True)
class ObjectMeta:
    name: str
    namespace: str = ""
    uid: str = ""
    created: datetime | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    owner_kind: str = ""            # the controller owner reference
    owner_name: str = ""
    owner_uid: str = ""
    # the owner reference is no controller (a Workload Kueue attached with SetOwnerReference: a
    # LeaderWorkerSet's group's): its owner, never its controller
    owner_not_controller: bool = False
    # metadata.generation as stored; a job the API server creates now gets 1 (what an elastic job's
    # Workload name counts: `jobframework.naming`)
    generation: int = 1

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


def parse_time(text: Any, source: Source | None = None, obj: Any = None, path: str = "") -> datetime | None:
    """A metav1.Time as stored (RFC 3339, second precision); None when absent."""
    if text is None or text == "":
        return None
    if isinstance(text, datetime):
        return text if text.tzinfo else text.replace(tzinfo=timezone.utc)
    try:
        parsed = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        raise InputError(f"{text!r} is not an RFC 3339 time", source=source, obj=obj, field=path) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def _strings(raw: Any) -> dict[str, str]:
    return {str(k): "" if v is None else str(v) for k, v in raw.items()} if isinstance(raw, Mapping) else {}


def object_meta(obj: Mapping[str, Any], source: Source | None = None, *, namespaced: bool = True) -> ObjectMeta:
    """The metadata of `obj` as stored: the namespace `default` when a namespaced object gives none."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    owner: Mapping[str, Any] = {}
    for ref in meta.get("ownerReferences") or ():
        if isinstance(ref, Mapping) and ref.get("controller") is True:
            owner = ref
            break
    namespace = str(meta.get("namespace") or "default") if namespaced else ""
    return ObjectMeta(
        name=str(meta.get("name") or ""), namespace=namespace, uid=str(meta.get("uid") or ""),
        created=parse_time(meta.get("creationTimestamp"), source, obj, "metadata.creationTimestamp"),
        labels=_strings(meta.get("labels")), annotations=_strings(meta.get("annotations")),
        owner_kind=str(owner.get("kind") or ""), owner_name=str(owner.get("name") or ""),
        owner_uid=str(owner.get("uid") or ""), generation=_generation(meta.get("generation")))


def _generation(raw: Any) -> int:
    """A stored object's generation; 1 (the API server's on create) when none is given."""
    return raw if isinstance(raw, int) and not isinstance(raw, bool) and raw > 0 else 1
