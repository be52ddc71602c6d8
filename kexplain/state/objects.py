"""The words for a cluster state's objects: the scheduler's kinds, `object_key`, bound pods."""
from __future__ import annotations

from itertools import compress
from operator import not_
from typing import Any, Iterable

from kexplain.admission.podsecurity import labelled
from kexplain.admission.workloads import WORKLOAD_KINDS
from kexplain.apimachinery import columns
from kexplain.apimachinery.identity import object_uid
from kexplain.apimachinery.kinds import is_builtin_kind
from kexplain.apimachinery.stored_pods import StoredPod
from kexplain.errors import CLUSTER_SCOPED_KINDS as _CLUSTER_SCOPED, Source

CLUSTER_KINDS = frozenset({
    "Node", "Pod", "PersistentVolumeClaim", "PersistentVolume", "StorageClass", "CSINode",
    "PodDisruptionBudget", "PriorityClass", "Namespace", "RuntimeClass", "Service", "ReplicaSet",
    "StatefulSet", "ReplicationController", "DeviceClass", "ResourceSlice", "ResourceClaim",
    "ResourceClaimTemplate", "LimitRange", "ResourceQuota"})


POD_KINDS = frozenset({"Pod"}) | WORKLOAD_KINDS     # what the POD file is read for


VOLUME_KINDS = frozenset({"PersistentVolumeClaim", "PersistentVolume"})   # what the PV controller binds


ADMISSION_CONTEXT_KINDS = frozenset({"PriorityClass", "RuntimeClass", "LimitRange"})


Objects = list[tuple[dict[str, Any], Source]]


def admission_context(objects: Objects) -> Objects:
    """What admission looks up when a pod is created against a pool."""
    return [(o, s) for o, s in among_kinds(objects, _CONTEXT_OR_NAMESPACE) if o.get("kind") in ADMISSION_CONTEXT_KINDS
            or (o.get("kind") == "Namespace" and labelled((o.get("metadata") or {}).get("labels")))]


_CONTEXT_OR_NAMESPACE = ADMISSION_CONTEXT_KINDS | {"Namespace"}


def among_kinds(objs: Objects, kinds: frozenset[str], among: bool = True) -> Iterable[tuple[Any, Source]]:
    """The objects whose kind is (`among`) or is not one of `kinds`, a dump's chosen off its rows in C;
    any other list (or a dump whose kinds are not all names) as it is, for the caller to ask each."""
    rows = columns.rows_of(objs)
    if rows is None:
        return objs
    try:
        keep = list(map(kinds.__contains__, rows.kinds))
    except TypeError:
        return objs
    return compress(objs, keep if among else map(not_, keep))


def of_kinds(objs: Objects, kinds: frozenset[str]) -> Objects:
    """The objects of the built-in `kinds`, not custom resources sharing a kind's name (`is_builtin_kind`)."""
    rows = columns.rows_of(objs)
    if rows is not None:       # a dump's 150,000 objects: by (apiVersion, kind), asked of their rows
        try:
            keep = {pair: pair[1] in kinds and is_builtin_kind(*pair) for pair in rows.pairs()}
        except TypeError:
            keep = None
        if keep is not None:
            if all(keep.values()):
                return objs.same()      # type: ignore[attr-defined]
            if not any(keep.values()):
                return columns.Dump(())
            by_kind: dict[Any, bool] = {}
            for (_, kind), verdict in keep.items():
                if by_kind.setdefault(kind, verdict) != verdict:     # (a kind kept at one apiVersion only)
                    return objs.taken(list(map(keep.__getitem__, zip(rows.api_versions, rows.kinds))))  # type: ignore[attr-defined]
            return objs.taken(list(map(by_kind.__getitem__, rows.kinds)))      # type: ignore[attr-defined]
    verdicts: dict[tuple[str, str], bool] = {}     # by (apiVersion, kind): one look-up for 150,000 pods
    out: Objects = []
    for o, s in objs:
        kind = o.get("kind")
        if kind not in kinds:
            continue
        api_version = o.get("apiVersion")
        if type(api_version) is not str:
            builtin = is_builtin_kind(api_version, kind)
        else:
            builtin = verdicts.get((api_version, kind))
            if builtin is None:
                builtin = verdicts[(api_version, kind)] = is_builtin_kind(api_version, kind)
        if builtin:
            out.append((o, s))
    return out


def object_key(obj: dict[str, Any]) -> tuple[str, str, str] | None:
    """(kind, namespace, name): what names one object in a cluster; None for an object without a name."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        return None
    kind = str(obj.get("kind") or "")
    namespace = "" if kind in _CLUSTER_SCOPED else str(meta.get("namespace") or "default")
    return kind, namespace, name


def is_bound_pod(obj: dict[str, Any]) -> bool:
    """A Pod with spec.nodeName: bound already, the scheduler never sees it."""
    if type(obj) is StoredPod:      # (read so only when it is one)
        return True
    spec = obj.get("spec")
    return obj.get("kind") == "Pod" and isinstance(spec, dict) and bool(spec.get("nodeName"))


def admission_filled_uid(obj: Any) -> bool:
    """Whether an admitted Pod's uid is the version-5 one admission filled in (`identity.object_uid`)."""
    if type(obj) is StoredPod:
        view = obj.view.metadata
        uid, namespace, name = view.uid, view.namespace, view.name
    else:
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        uid, namespace, name = meta.get("uid"), meta.get("namespace"), meta.get("name")
    if type(uid) is not str or len(uid) != 36 or uid[14] != "5":
        return False
    return uid == object_uid({"kind": obj.get("kind"), "metadata": {"namespace": namespace, "name": name}})
