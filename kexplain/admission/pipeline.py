"""admit(): run every object read from files through what kube-apiserver does on create, in the
Kubernetes version followed (v1.36.3 by default: its served versions, gates and validation).

Order matters twice: objects are admitted in the order admission.md gives
(PriorityClasses and PVs, PVCs, Nodes, Pods, Namespaces, then the DRA objects in file
order) so the first rejection reported is the API server's; and per pod, the mutating
plugins run in the server's fixed order before validation.
"""
from __future__ import annotations

import datetime
from bisect import insort
from dataclasses import dataclass, field
from itertools import compress, groupby, repeat
from operator import and_, not_
from typing import Callable, Iterable

import msgspec

from kexplain.errors import CLUSTER_SCOPED_KINDS, AdmissionRejected, InputError, NamespaceNotFound, Source

from kexplain.admission import defaults, dra_convert, extendedresourcetoleration, gated_fields, limitranger, \
    podsecurity, podtopologylabels, priority, providers, runtimeclass, shapes, defaulttolerationseconds, \
    validate_policy

from kexplain.admission.match_label_keys import merge_label_keys, merged_kinds
from kexplain.admission.patched import ShapeAdmission
from kexplain.apimachinery import columns
from kexplain.apimachinery.stored_pods import OBJECTS, StoredPod, plain
from kexplain.apimachinery.unstructured import copy_json, flatten_lists, is_list
from kexplain.admission.decode import SCHEMAS, check_decodes, decodes_unchanged
from kexplain.admission.dra import KINDS as DRA_KINDS, RESOURCES as DRA_RESOURCES, DraServer, admit_dra, \
    qualified_kind
from kexplain.apimachinery.fielderrors import FieldError, go_quote, invalid_message
from kexplain.apimachinery.labels import (ANN_BETA_STORAGE_CLASS as BETA_STORAGE_CLASS_ANNOTATION,
                                          DEFAULT_STORAGE_CLASS_ANNOTATIONS as DEFAULT_CLASS_ANNOTATIONS)
from kexplain.admission.validate_other import validate_namespace, validate_node, validate_pv, validate_pvc
from kexplain.admission.validate_pdb import validate_pdb
from kexplain.admission.validate_pod import validate_pod_create, validate_pod_status
from kexplain.apimachinery.identity import generated_name, object_uid, pod_uid
from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion

KNOWN_KINDS = frozenset(SCHEMAS)
# Namespaced policy objects admission reads for pods: LimitRanges (`limitranger`), and ResourceQuotas,
# which the set's pods are charged to as they are created (`resourcequota`, outside this module).
POLICY_KINDS = frozenset({"LimitRange", "ResourceQuota"})
POLICY_RESOURCES = {"LimitRange": "limitranges", "ResourceQuota": "resourcequotas"}
_UNSET = object()
BUILTIN = Source("<built-in>")
NAMESPACED_DEFAULTED = frozenset({"PersistentVolumeClaim", "PodDisruptionBudget", "Service", "ReplicaSet",
                                  "StatefulSet", "ReplicationController", "ResourceClaim",
                                  "ResourceClaimTemplate"})


@dataclass
class Admitted:
    """What the scheduler would find stored: admitted copies in file order, plus built-ins."""

    objects: list[tuple[dict, Source]] = field(default_factory=list)
    pending: dict | None = None
    warnings: list[str] = field(default_factory=list)
    patched: int = 0        # pods admitted by their shape's patch (`kexplain.admission.shapes`)
    kube: KubeVersion = DEFAULT_VERSION     # the version admitted as: its admission plugins recognised


def _kind(obj: object) -> str:
    return obj.get("kind") if isinstance(obj, OBJECTS) and isinstance(obj.get("kind"), str) else ""


def is_stored(obj: object) -> bool:
    """An object an API server has stored (a resourceVersion, which no create may carry): admission
    already ran on it, and running it again would change it (admission.md)."""
    if type(obj) is StoredPod:
        return obj.stored
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    return isinstance(meta, dict) and bool(meta.get("resourceVersion"))


def _name(obj: dict) -> str:
    meta = obj.get("metadata")
    return (meta.get("name") or "") if isinstance(meta, dict) else ""


@dataclass
class _Flat:
    """What `_flatten` leaves: the objects to admit in order, their indexes by kind, and those whose
    decoding is still to check (neither stored nor a pod kept as written)."""

    objects: list[tuple[dict, Source]] = field(default_factory=list)
    by_kind: dict[str, list[int]] = field(default_factory=dict)
    undecoded: list[tuple[dict, Source]] = field(default_factory=list)
    rows: columns.Rows | None = None        # the objects' rows, when they are a dump's as it is
    fresh: list[int] = field(default_factory=list)     # ... where its objects are not (rows read again once admitted)

    def add(self, kind: str, obj: dict, src: Source) -> None:
        """The next object to admit, indexed by its kind."""
        found = self.by_kind.get(kind)
        if found is None:
            found = self.by_kind[kind] = []
        found.append(len(self.objects))
        self.objects.append((obj, src))


def _flatten(cluster: list[tuple[dict, Source]], warnings: list[str],
             stored: set[int], shapes: "_Shapes | None", kube: KubeVersion) -> _Flat:
    """Unwrap lists, drop (with a warning) kinds the scheduler does not read, and deep-copy what admission
    will change: not stored objects (noted by identity), nor pods of a shape met before (`_Shapes.note`)."""
    flat = _Flat()
    rows = columns.rows_of(cluster)
    as_is = _stored_as_they_are(rows) if rows is not None else None
    if as_is is not None and all(as_is):        # a stored dump: every object kept as it is (`_take`)
        flat.objects = list(cluster)
        stored.update(map(id, columns.objects(cluster)))
        flat.by_kind = _by_kind(rows.kinds)       # type: ignore[union-attr]
        flat.rows = rows
        return flat
    if as_is is not None:           # a dump mostly stored: those kept as they are taken in C, the rest each
        taken = _flatten_dump(cluster, rows, as_is, warnings, stored, shapes, kube)   # type: ignore[arg-type]
        if taken is not None:
            return taken
    # a dump's pods not stored (admitted by shape: `_take`'s pod path) and nodes not stored (copied)
    node_dropped = gated_fields.node_dropped_by(kube)
    paths = [0 if was_stored else _POD if kind == "Pod" and shapes is not None else _NODE if kind == "Node" else 0
             for kind, was_stored in zip(rows.kinds, rows.stored)] if rows is not None else repeat(0)
    for (listed, src), kept, path in zip(cluster, as_is if as_is is not None else repeat(False), paths):
        if path == _POD:
            _take_pod(listed, src, flat, shapes)   # type: ignore[arg-type]
            continue
        if path == _NODE:
            _take_node(listed, src, flat, node_dropped)
            continue
        if kept:                    # (a stored object of a known kind, not DRA: `_take` keeps it)
            stored.add(id(listed))
            flat.add(listed.get("kind"), listed, src)       # (`get`: a view answers undecoded)
            continue
        kind = _kind(listed)
        # an object of a known kind is no list (none of them ends in List): no need to ask
        if kind in KNOWN_KINDS or not is_list(listed):
            _take(listed, kind, src, flat, warnings, stored, shapes, kube)
        else:
            for obj, _ in flatten_lists(listed, src):
                _take(obj, _kind(obj), src, flat, warnings, stored, shapes, kube)
    return flat


def _by_kind(kinds: list[str]) -> dict[str, list[int]]:
    """The positions of each kind, in order, the kinds in the order they first come (read by runs of one
    kind: a dump's come by kind)."""
    by_kind: dict[str, list[int]] = {}
    index = 0
    for kind, run in groupby(kinds):      # (runs of one kind)
        length = len(list(run))
        by_kind.setdefault(kind, []).extend(range(index, index + length))
        index += length
    return by_kind


_KEPT_AS_STORED = KNOWN_KINDS - DRA_KINDS
_TAKEN_ALONE = KNOWN_KINDS | POLICY_KINDS      # the kinds `_take` takes as one object each (no List, none skipped)


def _flatten_dump(cluster: list[tuple[dict, Source]], rows: columns.Rows, as_is: list[bool], warnings: list[str],
                  stored: set[int], shapes: "_Shapes | None", kube: KubeVersion) -> _Flat | None:
    """`_flatten` of a dump whose objects are mostly kept as they are (a stored dump with a few manifests:
    budgets written without a status): those taken in C by their rows, each of the others as `_flatten`
    takes it, in place; the rows carried, those of the others read again (`Rows.replaced`). None, having
    done nothing, when one of the others is not taken as one object (a List, a kind skipped) or most are."""
    todo = list(compress(range(len(as_is)), map(not_, as_is)))
    kinds = rows.kinds
    if len(todo) * 2 > len(as_is) or not all(kinds[i] in _TAKEN_ALONE for i in todo):
        return None
    part = _Flat()
    node_dropped = gated_fields.node_dropped_by(kube)
    for i in todo:
        listed, src = cluster[i]
        kind = kinds[i]
        if not rows.stored[i] and kind == "Pod" and shapes is not None:
            _take_pod(listed, src, part, shapes)
        elif not rows.stored[i] and kind == "Node":
            _take_node(listed, src, part, node_dropped)
        else:
            _take(listed, kind, src, part, warnings, stored, shapes, kube)
    objs = columns.objects(cluster)
    stored.update(map(id, compress(objs, as_is)))
    flat = _Flat(objects=list(cluster), undecoded=part.undecoded)
    flat.by_kind = _by_kind(kinds)
    for i, (obj, src) in zip(todo, part.objects):
        flat.objects[i] = (obj, src)
        kind = obj.get("kind")
        if kind != kinds[i]:        # (taken as another kind: filed under it)
            flat.by_kind[kinds[i]].remove(i)
            insort(flat.by_kind.setdefault(kind, []), i)
    flat.rows = rows.replaced(todo, [obj for obj, _ in part.objects])
    flat.fresh = todo
    return flat


def _stored_as_they_are(rows: columns.Rows) -> list[bool] | None:
    """For each object of a dump, whether it is one `_take` keeps as it is without a look
    (stored, of a known kind but DRA's), asked of its rows; None when a kind is no key."""
    try:
        return list(map(and_, rows.stored, map(_KEPT_AS_STORED.__contains__, rows.kinds)))
    except TypeError:
        return None


def _take(obj: dict, kind: str, src: Source, flat: _Flat, warnings: list[str],
          stored: set[int], shapes: "_Shapes | None", kube: KubeVersion) -> None:
    """One object of `_flatten`: kept, copied or skipped; a DRA object decoded into the internal form
    (defaulted first unless stored; a stored one converted on a copy)."""
    if kind in POLICY_KINDS:         # read by admission (LimitRanger, ResourceQuota), taken as written
        if is_stored(obj):           # (never validated again, as no stored object is)
            stored.add(id(obj))
        flat.add(kind, obj, src)
        return
    if kind not in KNOWN_KINDS:
        warnings.append(f"{src}: skipping object of kind {kind or '<none>'}: not read by the scheduler")
        return
    if is_stored(obj):
        if kind in DRA_KINDS and obj.get("apiVersion") != dra_convert.INTERNAL:
            obj = dra_convert.decode(_copy(obj, src), defaults=False, minor=kube.minor)
        stored.add(id(obj))
        kept = obj
    elif kind == "Pod" and shapes is not None:
        _take_pod(obj, src, flat, shapes)
        return
    else:
        if kind in DRA_KINDS:
            kept = dra_convert.decode(_copy(obj, src), defaults=True, minor=kube.minor)
        else:
            kept = _copy(obj, src)
        flat.undecoded.append((kept, src))
    flat.add(kept.get("kind"), kept, src)     # (a view: undecoded)


_POD, _NODE = 1, 2
_encode_copy = msgspec.msgpack.Encoder().encode
_decode_copy = msgspec.msgpack.Decoder().decode


def _admitted_as_read(node: dict, dropped: gated_fields.Dropped) -> bool:
    """Whether admission leaves a node it takes exactly as it is, so that it needs no copy: decodes
    unchanged, a metadata mapping without a namespace, nothing to default or to drop for the gates."""
    meta = node.get("metadata")
    return type(meta) is dict and "namespace" not in meta and decodes_unchanged(node) \
        and not defaults.default_node(node, change=False) and not gated_fields.drops_any(node, dropped)


def _copy_read(obj: dict, src: Source) -> dict:
    """`_copy` of an object read from JSON, through msgspec in C (a third of the time); exact for JSON's
    values (a YAML timestamp would come back a string), anything it cannot write copied by `_copy`."""
    try:
        return _decode_copy(_encode_copy(obj))      # type: ignore[no-any-return]
    except (TypeError, ValueError, OverflowError, RecursionError, msgspec.MsgspecError):
        return _copy(obj, src)


def _take_node(node: dict, src: Source, flat: _Flat, dropped: gated_fields.Dropped) -> None:
    """`_flatten`'s node not stored: taken as it is when admission leaves it so, else copied to admit."""
    if _admitted_as_read(node, dropped):
        copied = node         # (admission leaves it as it is: neither copied nor decoded again)
    else:
        copied = _copy_read(node, src)
        flat.undecoded.append((copied, src))
    flat.add("Node", copied, src)


def _take_pod(obj: dict, src: Source, flat: _Flat, shapes: "_Shapes") -> None:
    """`_take` of a pod not stored, when pods are admitted by shape (`_Shapes.note`)."""
    kept = shapes.note(obj, src)
    if kept is not obj and id(kept) not in shapes.raw:  # (a copy; one kept as written decodes as its shape's first)
        flat.undecoded.append((kept, src))
    flat.add("Pod", kept, src)


_NO_ENTRY = (None, None, False, False)     # (`ShapeIndex.entry` of what is no pod object)


class _Shapes:
    """The bound pods of one admission run, by shape (`kexplain.admission.shapes`): those kept as written
    (`raw`), the canonical pod of each shape met twice (a shape of one pod takes the full path: a patch
    would cost it a second admission), and each shape's patch once made (None: full path)."""

    def __init__(self, index: shapes.ShapeIndex | None = None) -> None:
        self.index = index if index is not None else shapes.ShapeIndex()
        self.once: set[bytes] = set()               # the shapes of a pod so far
        self.first: dict[bytes, dict] = {}          # shape -> its canonical pod, made at its second pod
        self.key_of: dict[int, bytes] = {}          # id(a copied pod) -> its shape
        self.raw: dict[int, bytes] = {}             # id(pod kept as written) -> shape
        self.patches: dict[bytes, shapes.Patch | None] = {}

    def note(self, obj: dict, src: Source) -> dict:
        """The pod to admit: `obj` itself when a pod of its shape came before (it decodes alike), else a copy."""
        _, key, decodes, by_text = self.index.entry(obj) if type(obj) is dict or type(obj) is StoredPod \
            else _NO_ENTRY
        viewed = type(obj) is StoredPod         # (read from JSON: `_copy_read` copies it exactly)
        if viewed and not by_text:
            obj = obj.obj           # (its shape not told by its text: admitted as its object)
        if key is not None and key not in self.first and key in self.once:     # its second pod
            found = self.index.canonical(obj)
            assert found is not None
            self.first[key] = found
        if decodes and key in self.first:     # (its status, each pod's own: `shapes.STATUS`)
            self.raw[id(obj)] = key
            return obj
        copied = _copy_read(plain(obj), src) if viewed else _copy(obj, src)
        if key is not None:
            self.once.add(key)
            self.key_of[id(copied)] = key
        return copied


def _copy(obj: dict, src: Source) -> dict:
    """A deep copy of one object; an object nested too deeply to copy is refused, not a crash."""
    try:
        return copy_json(obj)  # type: ignore[return-value]
    except RecursionError:
        raise InputError("object is nested too deeply", source=src, obj=obj) from None


def _reject(message: str, src: Source, obj: dict) -> AdmissionRejected:
    return AdmissionRejected(message, source=src, obj=obj)


def _not_found(namespace: str, src: Source, obj: dict) -> NamespaceNotFound:
    """NamespaceLifecycle's refusal of an object whose namespace does not exist."""
    return NamespaceNotFound(f"namespaces {go_quote(namespace)} not found", source=src, obj=obj)


def _check_invalid(kind: str, obj: dict, src: Source, errs: list[FieldError]) -> None:
    if errs:
        raise _reject(invalid_message(kind, _name(obj), errs), src, obj)


def _already_exists(resource: str, name: str) -> str:
    return f"{resource} {go_quote(name)} already exists"


def _timestamp(value: object) -> datetime.datetime | None:
    if isinstance(value, datetime.datetime):
        return value if value.tzinfo else value.replace(tzinfo=datetime.timezone.utc)
    if isinstance(value, datetime.date):
        return datetime.datetime(value.year, value.month, value.day, tzinfo=datetime.timezone.utc)
    if isinstance(value, str) and value:
        try:
            parsed = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=datetime.timezone.utc)
    return None


def default_storage_class_name(classes: list[dict]) -> str | None:
    """The default StorageClass: newest creationTimestamp (absent = oldest), ties -> smallest name."""
    oldest = datetime.datetime.min.replace(tzinfo=datetime.timezone.utc)
    candidates = []
    for sc in classes:
        annotations = (sc.get("metadata") or {}).get("annotations") or {}
        if any(annotations.get(a) == "true" for a in DEFAULT_CLASS_ANNOTATIONS):
            created = _timestamp((sc.get("metadata") or {}).get("creationTimestamp")) or oldest
            candidates.append((created, _name(sc)))
    if not candidates:
        return None
    newest = max(c[0] for c in candidates)
    return min(name for created, name in candidates if created == newest)


class _Taken:
    """The (namespace, name) of the pods admitted so far: a stored dump's by name (made in C), and a
    set of those admitted after them."""

    __slots__ = ("_by_name", "_more")

    def __init__(self, by_name: dict[str, str]) -> None:
        self._by_name = by_name
        self._more: set[tuple[str, str]] = set()

    def __contains__(self, key: tuple[str, str]) -> bool:
        namespace = self._by_name.get(key[1])
        return (namespace is not None and namespace == key[0]) or key in self._more

    def __bool__(self) -> bool:
        return bool(self._by_name) or bool(self._more)

    def add(self, key: tuple[str, str]) -> None:
        self._more.add(key)

    def update(self, keys: Iterable[tuple[str, str]]) -> None:
        self._more.update(keys)


class _Admission:
    """One admission run; holds the cluster state the plugins look up. Every object takes the steps in
    admission.md's order (the first rejection is the API server's); a stored one is never changed."""

    def __init__(self, objects: list[tuple[dict, Source]], stored: set[int], kube: KubeVersion,
                 shapes_seen: _Shapes | None, by_kind: dict[str, list[int]], rows: columns.Rows | None = None,
                 absent: frozenset[str] = frozenset()) -> None:
        self.kube = kube
        self.absent = absent        # namespaces that do not exist: their Namespace was refused
        self._pod_dropped = gated_fields.pod_dropped_by(kube)        # the version's gates, resolved once
        self._node_dropped = gated_fields.node_dropped_by(kube)
        self._volume_dropped = gated_fields.volume_dropped_by(kube)
        self._merged = merged_kinds(kube)
        self._copies_labels = podtopologylabels.copies_labels(kube)
        self._pod_level = kube.enabled("PodLevelResources")     # LimitRanger's pod totals
        self._extended_tolerations = kube.admission.enabled(extendedresourcetoleration.PLUGIN_NAME)
        self.objects: list[tuple[dict, Source]] = []
        self._stored = stored
        self._shapes = shapes_seen
        self._node_topology: dict[str, dict[str, str]] = {}
        self._zones: dict[tuple[tuple[str, str], ...], dict[str, str]] = {}     # `_topology_labels`, by value
        self.patched = 0           # pods admitted by their shape's patch
        # kind -> the indexes in `objects` of its objects, in file order (`_Flat.by_kind`; read
        # there: `admit_pods` replaces a pod by its admitted self in `objects` only)
        self._by_kind = by_kind
        self._rows = rows           # the rows of `objects` (a dump's; those of objects not stored as they were)
        self.objects = list(objects)
        self.priority_classes: dict[str, priority.PriorityClassInfo] = {}
        self.default_priority: priority.PriorityClassInfo | None = None
        self.runtime_classes: dict[str, dict] = {}
        self.nodes: dict[str, dict] = {}
        self.pod_keys: set[tuple[str, str]] | _Taken = set()
        self.namespaces: dict[str, dict] = {}
        self.pod_namespaces: list[str] = []
        self._pod_namespace_set: set[str] = set()
        self.warnings: list[str] = []
        # namespace -> its LimitRanges by name, each with its place among `objects` and its key: a
        # pod meets those created before it (`_ranges_for`)
        self.limit_ranges: dict[str, list[tuple[int, tuple[str, str, str], limitranger.LimitRange]]] = {}
        for index in self._by_kind.get("LimitRange", ()):
            obj = self.objects[index][0]
            namespace = str((obj.get("metadata") or {}).get("namespace") or "default")
            parsed = limitranger.parse(obj)
            self.limit_ranges.setdefault(namespace, []).append((index, ("LimitRange", namespace, parsed.name), parsed))
        for ranges in self.limit_ranges.values():
            ranges.sort(key=lambda entry: entry[2].name)
        self.later: frozenset[tuple[str, str, str]] = frozenset()     # (`admit`'s `later`: the pending pod's)
        # the labels of the input's Namespaces (as written: PodSecurity reads its own labels only)
        self.namespace_labels = {_name(o): dict((o.get("metadata") or {}).get("labels") or {})
                                 for o, _ in self.of_kind("Namespace") if isinstance(o.get("metadata"), dict)}

    def add(self, obj: dict, src: Source) -> None:
        self._by_kind.setdefault(obj["kind"], []).append(len(self.objects))
        self.objects.append((obj, src))

    def stored(self, obj: dict) -> bool:
        return id(obj) in self._stored

    def admit_pods(self) -> None:
        """The cluster's pods, in file order, each replaced by its admitted self; a pod of a shape whose
        patch replays is patched here directly (the loop of 150,000), a shape without one takes the full path."""
        indexes = self._by_kind.get("Pod", [])
        if self._register_stored_pods(indexes):
            return
        raw = self._shapes.raw if self._shapes is not None else {}
        firsts = self._shapes.key_of if self._shapes is not None else {}
        appliers: dict[bytes, Callable[[dict], dict | None] | None] = {}   # shape -> `_patched_admission`
        stored = self._stored
        objects = self.objects
        patched = 0
        for index in indexes:
            obj, src = objects[index]
            oid = id(obj)
            if oid in stored:
                self._register_stored_pod(obj, src)
                continue
            if self.absent:
                self._check_namespace(obj, src)
            admitted = None
            key = raw.get(oid)
            if key is None:
                key = firsts.get(oid)
            if key is not None:
                apply = appliers.get(key, _UNSET)
                if apply is _UNSET:     # (the shape's first pod: its patch made now, or none)
                    apply = appliers[key] = self._patched_admission(key)
                if apply is not None:
                    admitted = apply(obj)
                    patched += admitted is not None
            if admitted is None:
                admitted = self.admit_pod(obj, src, bound=True, at=index)
            if admitted is not obj:
                objects[index] = (admitted, src)
        self.patched += patched

    def of_kind(self, *kinds: str) -> list[tuple[dict, Source]]:
        """The objects of these kinds, in file order."""
        found = [index for kind in kinds for index in self._by_kind.get(kind, ())]
        if len(kinds) > 1:
            found.sort()
        objects = self.objects
        return [objects[index] for index in found]

    def run_cluster_objects(self) -> None:
        objects = self.objects
        for kind, indexes in self._by_kind.items():
            if kind == "Pod":       # `admit_pod` (and never cluster-scoped)
                continue
            for index in indexes:
                obj = objects[index][0]
                if self.stored(obj):
                    continue
                meta = defaults.meta_of(obj)
                if kind in CLUSTER_SCOPED_KINDS:
                    meta.pop("namespace", None)
                elif kind in NAMESPACED_DEFAULTED and not meta.get("namespace"):
                    meta["namespace"] = "default"
                if self.absent and kind not in CLUSTER_SCOPED_KINDS and (meta.get("namespace") or "default") \
                        in self.absent:     # NamespaceLifecycle
                    raise _not_found(meta.get("namespace") or "default", objects[index][1], obj)
        seen: dict[str, set[str]] = {}
        for obj, src in self.of_kind(*sorted(POLICY_KINDS)):    # refused: their defaults and quotas never act
            self._unique(POLICY_RESOURCES[obj["kind"]], (obj.get("metadata") or {}).get("namespace") or "default",
                         obj, src, seen)
            if not self.stored(obj):
                _check_invalid(obj["kind"], obj, src, validate_policy.validate(obj, self.kube))
        for obj, src in self.of_kind("PodDisruptionBudget"):
            if not self.stored(obj):
                _check_invalid("PodDisruptionBudget.policy", obj, src, validate_pdb(obj))
        for obj, src in self.of_kind("PriorityClass", "PersistentVolume"):
            resource = "priorityclasses" if obj["kind"] == "PriorityClass" else "persistentvolumes"
            self._unique(resource, "", obj, src, seen)
            if self.stored(obj):
                if obj["kind"] == "PriorityClass":
                    self._register_priority_class(obj)
            elif obj["kind"] == "PriorityClass":
                self._admit_priority_class(obj, src)
            else:
                defaults.default_pv(obj)
                gated_fields.drop_disabled_fields(obj, self._volume_dropped)
                _check_invalid("PersistentVolume", obj, src, validate_pv(obj))
        for obj, _src in self.of_kind("StorageClass"):
            if not self.stored(obj):
                defaults.default_storage_class(obj)
        default_class = default_storage_class_name([o for o, _ in self.of_kind("StorageClass")])
        for obj, src in self.of_kind("PersistentVolumeClaim"):
            self._unique("persistentvolumeclaims", (obj.get("metadata") or {}).get("namespace") or "default",
                         obj, src, seen)
            if self.stored(obj):
                continue
            defaults.default_pvc(obj)
            gated_fields.drop_disabled_fields(obj, self._volume_dropped)
            spec = defaults.spec_of(obj)
            annotations = obj["metadata"].get("annotations") or {}
            if default_class is not None and BETA_STORAGE_CLASS_ANNOTATION not in annotations \
                    and spec.get("storageClassName") is None:
                spec["storageClassName"] = default_class
            _check_invalid("PersistentVolumeClaim", obj, src, validate_pvc(obj))
        for obj, src in self.of_kind("Node"):
            self._unique("nodes", "", obj, src, seen)
            if not self.stored(obj):
                defaults.default_node(obj)
                gated_fields.drop_disabled_fields(obj, self._node_dropped)
                _check_invalid("Node", obj, src, validate_node(obj))
            self.nodes[_name(obj)] = obj
        for obj, _src in self.of_kind("RuntimeClass"):
            self.runtime_classes.setdefault(_name(obj), obj)

    def _unique(self, resource: str, namespace: str, obj: dict, src: Source, seen: dict[str, set[str]]) -> None:
        key = f"{namespace}/{_name(obj)}"
        names = seen.setdefault(resource, set())
        if _name(obj) and key in names:
            raise _reject(_already_exists(resource, _name(obj)), src, obj)
        names.add(key)

    def _admit_priority_class(self, obj: dict, src: Source) -> None:
        defaults.default_priority_class(obj)
        try:
            priority.check_global_default(obj, self.default_priority)
        except priority.PriorityRejected as exc:
            raise _reject(str(exc), src, obj) from None
        self._register_priority_class(obj)

    def _register_priority_class(self, obj: dict) -> None:
        info = priority.class_info(obj)
        self.priority_classes[info.name] = info
        if info.global_default:
            self.default_priority = info

    def add_builtin_priority_classes(self) -> None:
        for name, value in priority.SYSTEM_CLASSES:
            if name not in self.priority_classes:
                obj = priority.builtin_class(name, value)
                self.priority_classes[name] = priority.class_info(obj)
                self.add(obj, BUILTIN)

    def check_namespace_labels(self) -> None:
        """PodSecurity's ValidateNamespace before anything is created in the Namespaces (an otherwise
        invalid one is left to `run_namespaces`)."""
        for obj, src in self.of_kind("Namespace"):
            meta = obj.get("metadata")
            if self.stored(obj) or not isinstance(meta, dict) or not podsecurity.labelled(meta.get("labels")):
                continue
            refusal = podsecurity.namespace_refusal(obj)
            if refusal and not validate_namespace(obj):
                raise _reject(refusal, src, obj)

    def _check_namespace(self, pod: dict, src: Source) -> None:
        """NamespaceLifecycle: a pod of a namespace that does not exist is refused."""
        if self.absent and not self.stored(pod):
            namespace = (pod.view.metadata.namespace if type(pod) is StoredPod else
                         (pod.get("metadata") or {}).get("namespace")) or "default"
            if namespace in self.absent:
                raise _not_found(namespace, src, pod)

    def admit_pod(self, pod: dict, src: Source, *, bound: bool, at: int | None = None) -> dict:
        """Admit one pod by the full path: `pod` changed in place, or an admitted copy of a pod kept as
        written. `at`: its place among `objects` (None: the pending pod, created after them but `later`)."""
        if self.stored(pod):
            self._register_stored_pod(pod, src)
            return pod
        self._check_namespace(pod, src)
        if self._shapes is not None and id(pod) in self._shapes.raw:    # no patch for its shape, or its
            pod = _copy(plain(pod), src)    # name is taken: the full path (it decodes as its shape's first did)
            check_decodes(pod, src, self.kube)
        meta = defaults.meta_of(pod)
        spec = defaults.spec_of(pod)
        if not meta.get("namespace"):
            meta["namespace"] = "default"
        if not meta.get("name") and meta.get("generateName"):     # BeforeCreate names it, before validation
            meta["name"] = generated_name(pod)
        key = (meta["namespace"], meta.get("name") or "")
        if meta.get("name") and key in self.pod_keys:
            raise _reject(_already_exists("pods", meta["name"]), src, pod)
        self.pod_keys.add(key)
        self._admit_steps(pod, src, at)
        if bound:
            copied = self._topology_labels(spec.get("nodeName"))
            if copied:
                if not isinstance(meta.get("labels"), dict):
                    meta["labels"] = {}
                meta["labels"].update(copied)
        self._pod_namespace_seen(meta["namespace"])
        return pod

    def _ranges_for(self, namespace: str, at: int | None) -> list[limitranger.LimitRange]:
        """The LimitRanges of `namespace` a pod created at `at` meets: those that exist by then,
        created before it in the set's order (the pending pod: all but `later`)."""
        return [r for index, key, r in self.limit_ranges.get(namespace, ())
                if (index < at if at is not None else key not in self.later)]

    def _admit_steps(self, pod: dict, src: Source, at: int | None = None) -> None:
        """Admission of one pod between its name's check and its zone labels: uid, defaulting, the
        mutating plugins in the server's order, validation. `at`: as `admit_pod`'s."""
        meta = pod["metadata"]
        spec = pod["spec"]
        if not meta.get("uid"):
            meta["uid"] = object_uid(pod)
        defaults.default_pod(pod, self.kube)
        ranges = self._ranges_for(meta.get("namespace") or "default", at) if self.limit_ranges else None
        if ranges:              # LimitRanger, the first mutating plugin that changes a pod
            limitranger.admit(pod, ranges)
        try:
            priority.admit_pod(pod, self.priority_classes, self.default_priority)
        except priority.PriorityRejected as exc:
            raise _reject(str(exc), src, pod) from None
        defaulttolerationseconds.admit(spec)
        if self._extended_tolerations:      # (off in kube-apiserver's defaults; EKS's and GKE's run it)
            extendedresourcetoleration.admit(spec)
        try:
            runtimeclass.admit_pod(pod, self.runtime_classes)
        except runtimeclass.RuntimeClassRejected as exc:
            raise _reject(str(exc), src, pod) from None
        gated_fields.drop_disabled_fields(pod, self._pod_dropped)  # PrepareForCreate, then validation
        merge_label_keys(pod, self._merged)
        _check_invalid("Pod", pod, src, validate_pod_create(pod, self.kube))
        _check_invalid("Pod", pod, src, validate_pod_status(pod, self.kube))
        try:
            runtimeclass.validate_pod(pod, self.runtime_classes)
        except runtimeclass.RuntimeClassRejected as exc:
            raise _reject(str(exc), src, pod) from None
        if ranges:              # the validating plugins, in the server's order
            try:
                limitranger.check(pod, ranges, self._pod_level)
            except limitranger.LimitRangeRejected as exc:
                raise _reject(str(exc), src, pod) from None
        labels = self.namespace_labels.get(meta.get("namespace") or "default")
        if labels and podsecurity.labelled(labels):
            verdict = podsecurity.validate_pod(pod, labels, int(self.kube.minor.split(".")[1]))
            if verdict.refused:
                raise _reject(verdict.refused, src, pod)
            self.warnings += [f"{src}: pods {go_quote(meta.get('name') or '')}: Warning: {w}" for w in verdict.warnings]

    def _topology_labels(self, node_name: object) -> dict[str, str]:
        """The zone and region labels PodTopologyLabels copies from a bound pod's node (one
        small dict per node, kept for the run); none when the version does not run the plugin."""
        if not self._copies_labels or not isinstance(node_name, str) or node_name not in self.nodes:
            return {}
        copied = self._node_topology.get(node_name)
        if copied is None:
            node_labels = (self.nodes[node_name].get("metadata") or {}).get("labels") or {}
            copied = podtopologylabels.topology_labels(node_labels)
            copied = self._zones.setdefault(tuple(copied.items()), copied)     # one per zone, shared
            self._node_topology[node_name] = copied
        return copied

    def _patch_of(self, shape: bytes) -> shapes.Patch | None:
        """The patch of a shape: its canonical pod admitted by the same steps and diffed
        (`shapes.make_patch`); None when anything refuses it or it would not replay exactly."""
        assert self._shapes is not None
        written = self._shapes.first[shape]
        try:
            work = copy_json(written)
            assert isinstance(work, dict)
            check_decodes(work, BUILTIN, self.kube)
            meta = defaults.meta_of(work)
            defaults.spec_of(work)
            if not meta.get("namespace"):
                meta["namespace"] = "default"
            self._admit_steps(work, BUILTIN)
        except Exception:   # noqa: BLE001 - any refusal: the shape keeps the full path, which says it
            return None
        return shapes.make_patch(written, work, pod_uid)

    def _patched_admission(self, shape: bytes) -> Callable[[dict], dict | None] | None:
        """How a bound pod of `shape` kept as written is admitted (`patched.ShapeAdmission.admit`); None
        without a patch. The function returns None when the pod's name is taken (the full path refuses it)."""
        assert self._shapes is not None
        if shape not in self._shapes.first:     # its one pod: the full path, no patch to make
            return None
        if shape not in self._shapes.patches:
            self._shapes.patches[shape] = self._patch_of(shape)
        patch = self._shapes.patches[shape]
        if patch is None:
            return None
        first = self._shapes.first[shape]
        return ShapeAdmission(patch.compiled(), self.pod_keys, self._pod_namespace_set, self._pod_namespace_seen,
                              self._node_topology, self._topology_labels, not shapes.holds_own(first, "labels"),
                              shapes.images_own(first), shapes.volumes_own(first),
                              shapes.holds_own(first, "ownerReferences")).admit

    def _register_stored_pods(self, indexes: list[int]) -> bool:
        """`_register_stored_pod` of a stored dump's pods at `indexes` at once (their names all new);
        False, having done nothing, otherwise."""
        rows = self._rows
        if not indexes or self.pod_keys or rows is None or len(rows) > len(self.objects):
            return False
        first, last = indexes[0], indexes[-1] + 1
        if last - first == len(indexes):            # the pods one after another (a dump's, by name)
            stored, names, namespaces = rows.stored[first:last], rows.names[first:last], rows.namespaces[first:last]
        else:
            stored, names, namespaces = (list(map(column.__getitem__, indexes))      # (in C)
                                         for column in (rows.stored, rows.names, rows.namespaces))
        if not all(stored) or not all(names):
            return False
        if not all(namespaces):
            namespaces = [namespace or "default" for namespace in namespaces]
        try:
            by_name = dict(zip(names, namespaces))
        except TypeError:
            return False
        if len(by_name) != len(names):          # (a name in two namespaces: asked of each pod)
            return False
        self.pod_keys = _Taken(by_name)
        for namespace in dict.fromkeys(namespaces):
            self._pod_namespace_seen(namespace)
        return True

    def _register_stored_pod(self, pod: dict, src: Source) -> None:
        """A stored pod is taken as it is; it still takes its name, and its namespace exists (a dump's
        stored pod: read off its view, its object not decoded for it)."""
        view = pod.view.metadata if type(pod) is StoredPod else None
        if view is not None:
            namespace = view.namespace or "default"
            key = (namespace, view.name or "")
        else:
            meta = pod.get("metadata") or {}
            namespace = meta.get("namespace") or "default"
            key = (namespace, meta.get("name") or "")
        if key[1] and key in self.pod_keys:
            raise _reject(_already_exists("pods", key[1]), src, pod)
        self.pod_keys.add(key)
        if namespace not in self._pod_namespace_set:
            self._pod_namespace_seen(namespace)

    def _pod_namespace_seen(self, namespace: str) -> None:
        if namespace not in self._pod_namespace_set:
            self._pod_namespace_set.add(namespace)
            self.pod_namespaces.append(namespace)

    def note_claim_namespaces(self) -> None:
        """A claim's namespace is created like a pod's when the cluster has none (admission.md)."""
        for obj, _src in self.of_kind("ResourceClaim"):
            self._pod_namespace_seen((obj.get("metadata") or {}).get("namespace") or "default")

    def run_dra(self) -> None:
        """The DRA objects in file order, after the Namespaces (the admin-access rule reads their labels);
        names unique per kind and namespace."""
        seen: dict[str, set[str]] = {}
        server = DraServer.of(self.kube)
        for obj, src in self.of_kind(*sorted(DRA_KINDS)):
            kind = obj["kind"]
            namespace = (obj.get("metadata") or {}).get("namespace") or ""
            self._unique(DRA_RESOURCES[kind], namespace, obj, src, seen)
            if self.stored(obj):
                continue
            labels = (self.namespaces.get(namespace, {}).get("metadata") or {}).get("labels") if namespace else None
            spec_errs, status_errs = admit_dra(obj, labels, server)
            _check_invalid(qualified_kind(kind), obj, src, spec_errs)
            _check_invalid(qualified_kind(kind), obj, src, status_errs)

    def run_namespaces(self) -> None:
        seen: dict[str, set[str]] = {}
        for obj, src in self.of_kind("Namespace"):
            self._unique("namespaces", "", obj, src, seen)
            if self.stored(obj):
                self.namespaces[_name(obj)] = obj
                continue
            defaults.default_namespace(obj)
            _check_invalid("Namespace", obj, src, validate_namespace(obj))
            self.namespaces[_name(obj)] = obj
        for name in self.pod_namespaces:
            if name not in self.namespaces:
                ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
                defaults.default_namespace(ns)
                self.namespaces[name] = ns
                self.add(ns, BUILTIN)


def _per_namespace_policies(cluster: list[tuple[dict, Source]]) -> bool:
    """Whether admission may differ per namespace for pods alike (a LimitRange, Pod Security labels):
    then every pod takes the full path, not its shape's patch."""
    rows = columns.rows_of(cluster)
    if rows is not None:
        try:
            kinds = set(rows.kinds)
        except TypeError:           # (a kind no key: asked object by object)
            kinds = None
        if kinds is not None and not any(type(k) is str and (k == "LimitRange" or (
                k not in KNOWN_KINDS and k.endswith("List"))) for k in kinds):
            cluster = columns.of_kind(cluster, rows, "Namespace")
    for obj, src in cluster:
        kind = _kind(obj)
        if kind == "LimitRange" or (kind == "Namespace" and podsecurity.labelled(
                (obj.get("metadata") or {}).get("labels") if isinstance(obj.get("metadata"), dict) else None)):
            return True
        if kind not in KNOWN_KINDS and kind.endswith("List") and is_list(obj) and \
                _per_namespace_policies(list(flatten_lists(obj, src))):
            return True
    return False


def _with_rows(objects: list[tuple[dict, Source]], flat: _Flat) -> list[tuple[dict, Source]]:
    """The admitted objects as a `columns.Dump` when they are a dump's, taken one for one (`_Flat.rows`):
    the rows of those not kept as they are read again (admission may have named or moved them), those
    of the built-in ones added after; else the list as it is."""
    rows = flat.rows
    if rows is None or len(objects) < len(rows):
        return objects
    if flat.fresh:
        rows = rows.replaced(flat.fresh, [objects[i][0] for i in flat.fresh])
        if rows is None:
            return objects
    if len(objects) > len(rows):
        rows = rows + columns.Rows.of(objects[len(rows):])
    return columns.Dump(objects, rows) if rows.plain else objects


def admit(cluster: list[tuple[dict, Source]], pending: tuple[dict, Source] | None, *,
          stored: bool = False, shape_index: shapes.ShapeIndex | None = None, by_shape: bool = True,
          kube: KubeVersion = DEFAULT_VERSION, absent: frozenset[str] = frozenset(),
          later: frozenset[tuple[str, str, str]] = frozenset()) -> Admitted:
    """Admit the cluster objects and the pending pod as kube-apiserver would; never mutates the inputs.

    Raises AdmissionRejected for the first object refused, InputError for a known kind that does not
    decode; `stored` objects are copied untouched. Parameters: docs/internals/admission.md."""
    result = Admitted()
    stored_ids: set[int] = set()
    seen = None if stored or not by_shape or _per_namespace_policies(cluster) else _Shapes(shape_index)
    flat = _flatten(cluster, result.warnings, stored_ids, seen, kube)
    objects = flat.objects
    if kube.admission.recognise:    # nothing named the API server's plugins: its provider's, by the nodes
        kube = providers.recognised(kube, (objects[i][0] for i in flat.by_kind.get("Node", ())))
    result.kube = kube
    pending_pod = _copy(pending[0], pending[1]) if pending is not None else None
    for obj, src in flat.undecoded:   # stored objects decoded once already: for them this changes nothing
        check_decodes(obj, src, kube)
    if stored:
        if pending is not None and _kind(pending_pod) in KNOWN_KINDS:
            check_decodes(pending_pod, pending[1], kube)
        result.objects = _with_rows(objects, flat)
        result.pending = pending_pod
        return result
    if pending is not None:
        if _kind(pending_pod) != "Pod":
            raise InputError(f"expected a Pod, got {_kind(pending_pod) or 'an object without kind'}",
                             source=pending[1], obj=pending_pod)
        check_decodes(pending_pod, pending[1], kube)     # a copy, stored or not: one object, always checked
    if pending_pod is not None and is_stored(pending_pod):
        stored_ids.add(id(pending_pod))
    run = _Admission(objects, stored_ids, kube, seen, flat.by_kind, flat.rows, absent)
    run.later = later
    run.check_namespace_labels()
    run.run_cluster_objects()
    run.add_builtin_priority_classes()
    run.admit_pods()
    if pending_pod is not None:
        pending_pod = run.admit_pod(pending_pod, pending[1], bound=False)
    run.note_claim_namespaces()
    run.run_namespaces()
    run.run_dra()
    result.objects = _with_rows(run.objects, flat)
    result.pending = pending_pod
    result.warnings += run.warnings
    result.patched = run.patched
    return result
