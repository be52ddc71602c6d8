"""A dump's bound pods read as the few fields the passes over a cluster read: each decoded in C into a
`PodView` (the rest skipped), the object itself (`StoredPod.obj`) decoded only when something asks for
more. A pod no API server stored is admitted by its shape (`with_own`); an item the view cannot hold
as the object does is decoded whole. Details: docs/internals/apimachinery.md.
"""
from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any, Callable, Iterator

import msgspec
from msgspec import UNSET, Raw, Struct, UnsetType

_NO_TEXT = Raw(b"")      # a field the item does not have


class _Meta(Struct):
    name: str | None = None
    namespace: str | None = None
    uid: str | None = None
    resourceVersion: str | None = None
    creationTimestamp: str | None = None
    labels: dict[str, str] | None = None
    deletionTimestamp: str | None = None
    ownerReferences: Raw = _NO_TEXT        # (decoded when asked: `PodView.owner_references`)
    annotations: Raw = _NO_TEXT            # (decoded when asked: `PodView.annotation`)
    generateName: str | None = None        # (a shape's hole, as the name: `shapes.GENERATED`)


class _Spec(Struct):
    nodeName: str | None = None
    priority: int | None = None
    volumes: Raw = _NO_TEXT         # (decoded when asked: `PodView.volumes`)
    # what a pod's facts are worked out from (`kexplain.model.shapes.facts_key`), as written
    affinity: Raw = _NO_TEXT
    resources: Raw = _NO_TEXT
    overhead: Raw = _NO_TEXT
    initContainers: Raw = _NO_TEXT
    containers: Raw = _NO_TEXT
    hostname: str | None = None     # (a pod admitted by its shape: its own, a StatefulSet's being its name)
    tolerations: Raw = _NO_TEXT     # (decoded when asked: `PodView.tolerations`)


class _ContainerStatus(Struct):
    name: Raw = _NO_TEXT
    resources: Raw = _NO_TEXT
    allocatedResources: Raw = _NO_TEXT


class _Condition(Struct):
    type: str | None = None
    status: Any = None          # (read for the Ready condition: `PodInfo.condition_status`)
    reason: str | None = None


class _Status(Struct):
    phase: str | None | UnsetType = UNSET
    nominatedNodeName: str | None = None
    startTime: str | None = None
    containerStatuses: list[_ContainerStatus] | None = None
    initContainerStatuses: list[_ContainerStatus] | None = None
    conditions: list[_Condition] | None = None


# The annotations admission writes on a pod (LimitRanger's note of the defaults it set): read off the
# admitted object, never off the text as written (`StoredPodInfo.annotation`).
ADMISSION_ANNOTATIONS = frozenset({"kubernetes.io/limit-ranger"})

_REFERENCES: dict[bytes, Any] = {}     # owner references' texts -> their values (bounded)
_VOLUMES: dict[bytes, Any] = {}        # volumes' texts -> their values (bounded)
_TOLERATIONS: dict[bytes, Any] = {}    # tolerations' texts -> their values (bounded)
_REFERENCES_MAX = 65536


class PodView(Struct):
    """The fields of a bound pod read for each of a cluster's pods."""

    kind: str | None = None
    apiVersion: str | None = None
    metadata: _Meta | None = None
    spec: _Spec | None = None
    status: _Status | None = None

    def volumes(self) -> Any:
        """spec.volumes as the object holds it (None without), one shared list for pods that write them alike."""
        volumes = self.spec.volumes if self.spec is not None else _NO_TEXT
        return _shared(volumes, _VOLUMES) if volumes else None

    def tolerations(self) -> Any:
        """spec.tolerations as the object holds it (None without), one shared list for pods that write them
        alike (not to be changed); a pod admitted by its shape has its shape's, admitted."""
        tolerations = self.spec.tolerations if self.spec is not None else _NO_TEXT
        return _shared(tolerations, _TOLERATIONS) if tolerations else None

    def annotation(self, key: str) -> Any:
        """The value of annotation `key` as the item writes it (None without). A pod admitted by its
        shape keeps its own annotations' text (`with_own`): their values are the shape's holes, and
        admission writes only keys of its own (`ADMISSION_ANNOTATIONS`), which are not asked here."""
        text = self.metadata.annotations if self.metadata is not None else _NO_TEXT
        if not text or bytes(text) == b"null":
            return None
        value = whole(text)
        return value.get(key) if type(value) is dict else None

    def owner_references(self) -> Any:
        """metadata.ownerReferences as the object holds it (None without); the pods of one
        controller share one (not to be changed) list."""
        refs = self.metadata.ownerReferences if self.metadata is not None else _NO_TEXT
        return _shared(refs, _REFERENCES) if refs else None


def _shared(raw: Raw, values: dict[bytes, Any]) -> Any:
    """The value of `raw`, the one made of an equal text before while `values` has room."""
    text = bytes(raw)
    value = values.get(text)
    if value is None:
        value = whole(raw)
        if len(values) < _REFERENCES_MAX:
            values[text] = value
    return value


SHARED_STATUSES = 4096      # (`written_status`: the distinct statuses shared, at most)


def asked_once(memo: dict[Any, tuple[Any, Any]], key: Any, obj: Any, ask: Callable[..., Any], *args: Any) -> Any:
    """`ask(*args)` about `obj` (a status the pods read as views share: `StoredPod.written_status`), once per
    `key` naming it by id: kept in `memo` with `obj`, so the id stays its own (at most `SHARED_STATUSES`)."""
    found = memo.get(key)
    if found is not None and found[0] is obj:
        return found[1]
    answer = ask(*args)
    if len(memo) < SHARED_STATUSES:
        memo[key] = (obj, answer)
    return answer
_UNREAD, _ABSENT = object(), object()      # `StoredPod._status` not read yet; read, and the pod has none


def _given(raw: Raw) -> bool:
    return bool(raw) and bytes(raw) != b"null"


def resize_text(status: _Status | None) -> bytes:
    """What `pod_resource` reads of a status, as one NUL-joined text: the container statuses reporting
    resources, and whether a resize is infeasible; empty when none reports them."""
    if status is None or not (status.containerStatuses or status.initContainerStatuses):
        return b""
    parts: list[Any] = []
    for tag, statuses in ((b"c", status.containerStatuses), (b"i", status.initContainerStatuses)):
        for cs in statuses or ():
            if _given(cs.resources) or _given(cs.allocatedResources):
                parts += (tag, cs.name, cs.resources, cs.allocatedResources)
    if not parts:
        return b""
    infeasible = next((c.reason == "Infeasible" for c in status.conditions or () if c.type == "PodResizePending"),
                      False)
    parts.append(b"Infeasible" if infeasible else b"-")
    return b"\0".join(parts)


def with_own(view: PodView, own: PodView, uid: str | None, labels: dict[str, str] | None, containers: Raw,
             init_containers: Raw, volumes: Raw, owners: bool = False) -> PodView:
    """`view` (a pod admitted by its shape) with `own`'s name, generateName, creation time, node, hostname (which
    admission leaves as written), status, uid and labels, these containers' and volumes' texts (the view's, or with
    `own`'s images or names), and `own`'s owner references when `owners` (the shape's pods name each their own
    owners)."""
    meta, mine, spec = view.metadata, own.metadata, view.spec
    return PodView(view.kind, view.apiVersion,
                   _Meta(mine.name, meta.namespace, uid, meta.resourceVersion, mine.creationTimestamp, labels,
                         meta.deletionTimestamp, mine.ownerReferences if owners else meta.ownerReferences,
                         mine.annotations, mine.generateName),
                   _Spec(own.spec.nodeName, spec.priority, volumes, spec.affinity, spec.resources, spec.overhead,
                         init_containers, containers, own.spec.hostname, spec.tolerations),
                   own.status)


def alike(view: PodView, other: PodView) -> bool:
    """Whether two views hold the same: equal, or but for how their annotations and owner references are
    written (a pod's own text, spaced as its file writes it, beside its admitted object's: `with_own`)."""
    if view is None or view == other:
        return view is not None
    mine, theirs = view.metadata, other.metadata
    if mine is None or theirs is None:
        return False
    written = {}
    for field in _OWN_TEXTS:
        text, admitted = getattr(mine, field), getattr(theirs, field)
        if text != admitted:
            if not (text and admitted) or whole(text) != whole(admitted):
                return False
            written[field] = admitted
    return bool(written) and msgspec.structs.replace(view, metadata=msgspec.structs.replace(mine, **written)) == other


_OWN_TEXTS = ("annotations", "ownerReferences")     # (`with_own`: the metadata texts a view keeps as its pod writes them)


def owning(view: PodView, texts: dict[bytes, Raw]) -> PodView:
    """`view` with each `Raw` its own copy, one per distinct text (`texts`), so a view does not keep a
    large file's part alive and a shape's pods share one copy."""
    meta, spec, status = view.metadata, view.spec, view.status
    if meta is not None and meta.ownerReferences:
        meta.ownerReferences = _owned(meta.ownerReferences, texts)
    if meta is not None and meta.annotations:
        meta.annotations = _owned(meta.annotations, texts)
    if spec is not None:
        if spec.containers:
            spec.containers = _owned(spec.containers, texts)
        if spec.volumes:
            spec.volumes = _owned(spec.volumes, texts)
        if spec.tolerations:
            spec.tolerations = _owned(spec.tolerations, texts)
        if spec.affinity:
            spec.affinity = _owned(spec.affinity, texts)
        if spec.initContainers:
            spec.initContainers = _owned(spec.initContainers, texts)
        if spec.resources:
            spec.resources = _owned(spec.resources, texts)
        if spec.overhead:
            spec.overhead = _owned(spec.overhead, texts)
    if status is not None:
        for statuses in (status.containerStatuses, status.initContainerStatuses):
            for cs in statuses or ():
                if cs.name:
                    cs.name = _owned(cs.name, texts)
                if cs.resources:
                    cs.resources = _owned(cs.resources, texts)
                if cs.allocatedResources:
                    cs.allocatedResources = _owned(cs.allocatedResources, texts)
    return view


RAW_FIELDS = {"_Meta": ("ownerReferences", "annotations"),
              "_Spec": ("volumes", "affinity", "resources", "overhead", "initContainers", "containers", "tolerations"),
              "_ContainerStatus": ("name", "resources", "allocatedResources")}     # what `owning` copies


def _owned(raw: Raw, texts: dict[bytes, Raw]) -> Raw:
    text = bytes(raw)
    found = texts.get(text)
    if found is None:
        found = texts[text] = Raw(text)
    return found


_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode
decode_view = msgspec.json.Decoder(PodView).decode     # a pod's JSON text read as its view


def view_of(obj: dict[str, Any]) -> PodView | None:
    """The view of a pod's object (as a dump holding it would be read); None when it has none."""
    try:
        view = decode_view(_encode(obj))
    except (TypeError, ValueError, OverflowError, msgspec.MsgspecError):
        return None
    return view if view.metadata is not None and view.spec is not None else None


def whole(raw: Raw) -> Any:
    """The object of an item's JSON text, as `json.loads` gives it (what msgspec refuses, json
    reads: an exponent past a double, ...)."""
    try:
        return _decode(raw)
    except msgspec.DecodeError:
        return json.loads(bytes(raw))


_SPEC_VALUES: dict[bytes, Any] = {}     # the texts of pods' spec fields (lists, mappings) -> their values
_SPEC_VALUES_MAX = 65536
_fields = msgspec.json.Decoder(dict[str, Raw]).decode
_COMPOUND = (ord("{"), ord("["))


def spec_value(text: Raw) -> Any:
    """The value of a pod's spec field's text (as `whole`), a list or mapping made once per distinct text while
    there is room, as `_pod_object` makes them (not to be changed)."""
    if memoryview(text)[0] not in _COMPOUND:
        return whole(text)
    written = bytes(text)
    found = _SPEC_VALUES.get(written)
    if found is None:
        found = whole(Raw(written))
        if len(_SPEC_VALUES) < _SPEC_VALUES_MAX:
            _SPEC_VALUES[written] = found
    return found


def _pod_object(raw: Raw) -> Any:
    """A pod's object from its text, its spec's lists and mappings made once per distinct text while there
    is room (the first pod of each shape; not to be changed)."""
    try:
        top = _fields(raw)
        spec = top.get("spec")
        if spec is None or memoryview(spec)[0] != _COMPOUND[0]:
            return whole(raw)
        out = {}
        for key, value in top.items():
            if key != "spec":
                out[key] = _decode(value)
                continue
            fields = {}
            for name, text in _fields(value).items():
                if memoryview(text)[0] not in _COMPOUND:
                    fields[name] = _decode(text)
                    continue
                written = bytes(text)
                found = _SPEC_VALUES.get(written)
                if found is None:
                    found = _decode(written)
                    if len(_SPEC_VALUES) < _SPEC_VALUES_MAX:
                        _SPEC_VALUES[written] = found
                fields[name] = found
            out[key] = fields
        return out
    except (msgspec.DecodeError, msgspec.ValidationError):  # (what msgspec refuses: json.loads reads)
        return whole(raw)


class StoredPod(Mapping[str, Any]):
    """A bound pod of a dump or list: its `view`, its object decoded on first use (`obj`), read as the
    mapping it stands for; an unstored one is admitted by its shape (`written_key`)."""

    __slots__ = ("raw", "view", "listed", "_obj", "_status")

    def __init__(self, raw: Raw, view: PodView, listed: Callable[[Any], Any] | None = None) -> None:
        self.raw = raw
        self.view = view
        self.listed = listed
        self._obj: dict[str, Any] | None = None
        self._status: Any = _UNREAD

    @property
    def stored(self) -> bool:
        """Whether an API server stored it (a resourceVersion): admission never runs on it."""
        meta = self.view.metadata
        return meta is not None and bool(meta.resourceVersion)

    def written_status(self, text: bytes, shared: dict[bytes, Any]) -> tuple[int, Any] | None:
        """Where the status begins in the text, and the status (the text's end without one); None unless it is
        written last as an object, as kubectl and API servers write a pod. `shared`: one status decoded per
        text, so the checks of a load ask each once (by identity); read only, as every status found alone."""
        at = text.rfind(b',"status":{')
        if at == -1:
            if text.find(b'"status":') != -1:
                return None
            self._status = _ABSENT
            return len(text), None
        if not text.endswith(b"}"):
            return None
        status = self.own_status(text[at + 10:-1], shared)
        return (at, status) if status is not _UNREAD else None

    def own_status(self, written: bytes, shared: dict[bytes, Any]) -> Any:
        """The status its text writes as `written` (an object's text), kept as found alone; `_UNREAD` when
        it does not decode. `shared`: as `written_status`'s."""
        status = shared.get(written)
        if status is None:
            try:
                status = _decode(written)
            except msgspec.DecodeError:
                return _UNREAD
            if len(shared) < SHARED_STATUSES:
                shared[written] = status
        self._status = status
        return status

    def status_at(self, start: int, end: int) -> None:
        """Its status is written alone at `raw[start:end]`, an object's text of a class found before
        (`admission.status_classes`: the checks ask that class's first): decoded at its first read."""
        self._status = slice(start, end)

    @property
    def decoded(self) -> bool:
        """Whether its object is made already (what is asked of it then is read there)."""
        return self._obj is not None

    @property
    def obj(self) -> dict[str, Any]:
        obj = self._obj
        if obj is None:
            obj = _pod_object(self.raw)
            obj = self._obj = self.listed(obj) if self.listed is not None else obj
        return obj

    def __getitem__(self, key: str) -> Any:
        return self.obj[key]

    def get(self, key: str, default: Any = None) -> Any:
        if key == "kind":
            return self.view.kind
        if key == "apiVersion":
            return self.view.apiVersion
        if key == "status" and self._status is not _UNREAD:     # (found alone: `written_status`; the
            status = self._status                                # pod is checked by it)
            if type(status) is slice:                            # (where: `status_at`)
                try:
                    status = self._status = _decode(memoryview(self.raw)[status])
                except msgspec.DecodeError:
                    self._status = _UNREAD
                    return self.obj.get(key, default)
            return default if status is _ABSENT else status
        return self.obj.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self.obj

    def __iter__(self) -> Iterator[str]:
        return iter(self.obj)

    def __len__(self) -> int:
        return len(self.obj)

    def __eq__(self, other: object) -> bool:
        return self.obj == (other.obj if type(other) is StoredPod else other)

    __hash__ = None     # type: ignore[assignment]

    def __copy__(self) -> dict[str, Any]:
        return dict(self.obj)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return copy.deepcopy(self.obj, memo)

    def __repr__(self) -> str:
        return f"StoredPod({self.obj!r})"


OBJECTS = (dict, StoredPod)     # what an object read is: `isinstance(obj, OBJECTS)`


def plain(obj: Any) -> Any:
    """The object as plain data (a `StoredPod`'s object; anything else as it is): what is
    written out whole."""
    return obj.obj if type(obj) is StoredPod else obj

