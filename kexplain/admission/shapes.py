"""Pods of one shape admitted once: the fast path for the bound pods of a large unstored cluster.

The replicas of one workload differ only in name, uid, node and zone labels, which admission only
validates; so the first pod of a shape takes the full path, its canonical pod's admission becomes a
`Patch`, and later pods get the patch. Only success is remembered: every message is the full path's.
Mechanism and invariants: docs/internals/admission.md.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from operator import itemgetter
from types import CodeType
from typing import Any, Callable

import msgspec

from kexplain.admission.decode import status_decodes
from kexplain.admission.openapi import PLAIN_TIME as _PLAIN_TIME, RFC3339, go_time_parse_error
from kexplain.admission.pod_spec_defaults import image_tag
from kexplain.admission.status_classes import StatusClasses
from kexplain.apimachinery.labels import TOPOLOGY_LABELS
from kexplain.apimachinery.stored_pods import StoredPod, asked_once
from kexplain.admission.validate_common import ANNOTATIONS_SIZE_LIMIT, _mask_trailing_dash
from kexplain.apimachinery.names import _LABEL as DNS1123_LABEL, _SUBDOMAIN as DNS1123_SUBDOMAIN, \
    _VALUE_FMT as LABEL_VALUE_FMT, is_dns1123_label, is_dns1123_subdomain, is_label_value
from kexplain.model.shapes import shape_key

NAME = "kexplain-placeholder-name.invalid"
UID = "kexplain-placeholder-uid"
OWNER, OWNER_UID = "kexplain-placeholder-owner", "kexplain-placeholder-owner-uid"   # an owner reference's
NODE = "kexplain-placeholder-node.invalid"
TOPOLOGY = {label: f"kexplain-placeholder-{label.rsplit('/', 1)[-1]}" for label in TOPOLOGY_LABELS}
NAME_LABEL = "kexplain-placeholder-pod-name"        # label values: valid ones
SUFFIX_LABEL = "kexplain-placeholder-pod-suffix"
HOST = "kexplain-placeholder-hostname"             # a DNS label
LABEL = "kexplain-placeholder-label"                # any other label's value (a valid one)
ANNOTATION = "kexplain-placeholder-annotation"      # an annotation's value admission does not read
CREATED = "1111-11-11T11:11:11Z"                    # a creation timestamp (a valid one)
GENERATED = "kexplain-placeholder-generated-"       # a generateName (a valid one: a controller's pods each write theirs)
# a container's image, by what admission reads of it (`pod_spec_defaults.image_tag`: "latest" or not)
IMAGE, IMAGE_LATEST = "kexplain-placeholder-image:tag", "kexplain-placeholder-image"
# a volume's name, by its place in the pod's volumes (a DNS label each, distinct)
VOLUMES = tuple(f"kexplain-placeholder-volume-{i}" for i in range(64))
STATUS: dict[str, Any] = {}         # a pod's status (`_canonicalize`, a canonical pod's: never changed)
PLACEHOLDERS = (NAME, UID, OWNER, OWNER_UID, NODE, NAME_LABEL, SUFFIX_LABEL, HOST, CREATED, GENERATED, LABEL, ANNOTATION,
                IMAGE, IMAGE_LATEST,
                *TOPOLOGY.values(), *VOLUMES)
# The status fields of a pod that admission reads or drops (the claim statuses it validates and
# drops with their gates, `validate_pod.validate_pod_status`, `gated_fields`); the rest of the
# status it takes as written (admission.md), each value checked on its own when decoded.
STATUS_ADMITTED = frozenset({"resourceClaimStatuses", "extendedResourceClaimStatus"})
_ZONE, _REGION = TOPOLOGY_LABELS
_ZONE_PLACEHOLDER, _REGION_PLACEHOLDER = TOPOLOGY[_ZONE], TOPOLOGY[_REGION]
_subdomain_problems = getattr(is_dns1123_subdomain, "__wrapped__", is_dns1123_subdomain)   # names are unique: no cache
_SUBDOMAIN_FULL = re.compile(DNS1123_SUBDOMAIN).fullmatch      # the valid ones at once (ASCII: chars are bytes)
_LABEL_FULL = re.compile(DNS1123_LABEL).fullmatch              # a DNS label (at most 63 long: checked apart)
_LABEL_VALUE_FULL = re.compile(LABEL_VALUE_FMT).fullmatch       # a valid label value at most 63 long (ASCII)
# Annotations of these domains keep their values in the shape: the API server's own, some of which
# admission reads (the mirror pod's, the deletion cost, seccomp and AppArmor profiles, tolerations).
_RESERVED_DOMAINS = ("kubernetes.io", "k8s.io")


def canonical(pod: dict, valid_nodes: set[str], valid_times: set[str] | None = None) -> dict | None:
    """`pod` with what tells it from the other pods of its workload replaced by placeholders
    (shallow copies on the way), or None when it is not of the common shape (`_canonicalize`)."""
    meta = pod.get("metadata")
    spec = pod.get("spec")
    if type(meta) is not dict or type(spec) is not dict:
        return None
    out = pod.copy()
    meta = out["metadata"] = meta.copy()
    out["spec"] = spec.copy()
    if type(meta.get("labels")) is dict:
        meta["labels"] = meta["labels"].copy()
    return out if _canonicalize(out, valid_nodes, set() if valid_times is None else valid_times) is not None \
        else None


def _canonicalize(pod: dict, valid_nodes: set[str], valid_times: set[str]) -> list[tuple[dict, Any, Any]] | None:
    """Replace in place what tells `pod` from its workload's other pods by placeholders, each once it
    passes admission's own check; the undo list, or None (unchanged) when not of the common shape."""
    meta = pod.get("metadata")
    spec = pod.get("spec")
    if type(meta) is not dict or type(spec) is not dict:
        return None
    name = meta.get("name")
    if type(name) is not str or not name or (
            not (len(name) <= 253 and _SUBDOMAIN_FULL(name)) and _subdomain_problems(name)):
        return None
    uid = meta.get("uid")
    if uid is not None and type(uid) is not str:
        return None
    node = spec.get("nodeName")
    if node is not None and type(node) is not str:
        return None
    if node and node not in valid_nodes:
        if is_dns1123_subdomain(node):
            return None
        valid_nodes.add(node)
    undo: list[tuple[dict, Any, Any]] = []
    volumes = spec.get("volumes")
    renamed = not (type(volumes) is list and any(type(v) is dict and "ephemeral" in v for v in volumes))
    # (validation names an ephemeral volume's claim after the pod: such a pod keeps its name)
    if renamed:
        undo.append((meta, "name", name))
        meta["name"] = NAME
    labels = meta.get("labels")
    if type(labels) is dict and labels:
        _canonical_labels(labels, name, renamed, undo, not _reads_labels(spec))
    annotations = meta.get("annotations")
    if type(annotations) is dict and annotations:
        _canonical_annotations(meta, annotations, undo)
    if uid:
        undo.append((meta, "uid", uid))
        meta["uid"] = UID
    generated = meta.get("generateName")
    if type(generated) is str and generated and generated_valid(generated):     # (read only when no name is given)
        undo.append((meta, "generateName", generated))
        meta["generateName"] = GENERATED
    refs = meta.get("ownerReferences")
    if type(refs) is list and refs:
        owners = canonical_owners(refs)
        if owners is not None:
            undo.append((meta, "ownerReferences", refs))
            meta["ownerReferences"] = owners
    created = meta.get("creationTimestamp")
    if type(created) is str and (created in valid_times or _valid_time(created, valid_times)):
        undo.append((meta, "creationTimestamp", created))
        meta["creationTimestamp"] = CREATED
    status = pod.get("status")
    if type(status) is dict and status and STATUS_ADMITTED.isdisjoint(status):
        undo.append((pod, "status", status))
        pod["status"] = STATUS
    if node:
        _canonical_node(spec, node, undo)
    _canonical_images(spec, undo)
    if renamed:
        _canonical_named(spec, name, volumes, undo)
        _canonical_volume_names(spec, undo)
    return undo


def _canonical_labels(labels: dict, name: str, renamed: bool, undo: list[tuple[dict, Any, Any]],
                      unread: bool) -> None:
    """`_canonicalize`'s step for a pod's labels (values only: PodTopologyLabels merges by key)."""
    if unread:
        for key, value in labels.items():
            if type(value) is str and _valid_label_value(value):
                undo.append((labels, key, value))
                labels[key] = TOPOLOGY.get(key, LABEL)
        return
    suffix = name.rsplit("-", 1)[-1]
    values = labels.values()
    derived = renamed and (name in values or suffix in values)     # (scans in C; a StatefulSet's pods)
    if derived or TOPOLOGY_LABELS[0] in labels or TOPOLOGY_LABELS[1] in labels:
        value = labels.get(_ZONE)                   # (TOPOLOGY's two labels, written out)
        if type(value) is str and not is_label_value(value):
            undo.append((labels, _ZONE, value))
            labels[_ZONE] = _ZONE_PLACEHOLDER
        value = labels.get(_REGION)
        if type(value) is str and not is_label_value(value):
            undo.append((labels, _REGION, value))
            labels[_REGION] = _REGION_PLACEHOLDER
        if derived:
            for key, value in labels.items():
                if (value == name or value == suffix) and key not in TOPOLOGY and not is_label_value(value):
                    undo.append((labels, key, value))
                    labels[key] = NAME_LABEL if value == name else SUFFIX_LABEL


def canonical_owners(refs: list, name: str = OWNER, uid: str = OWNER_UID) -> list | None:
    """`_canonicalize`'s step for the owner references: each reference's name and uid, when a string
    given (validation asks of them only that: `validate_common._validate_owner_references`; nothing
    else in admission reads them), by `name` and `uid`; None when none is replaced."""
    out = None
    for i, ref in enumerate(refs):
        if type(ref) is not dict:
            continue
        owner, owner_uid = ref.get("name"), ref.get("uid")
        named = type(owner) is str and owner != ""
        uided = type(owner_uid) is str and owner_uid != ""
        if named or uided:
            if out is None:
                out = refs.copy()
            ref = out[i] = ref.copy()
            if named:
                ref["name"] = name
            if uided:
                ref["uid"] = uid
    return out


def _canonical_images(spec: dict, undo: list[tuple[dict, Any, Any]]) -> None:
    """`_canonicalize`'s step for the containers' images: admission reads of one only whether it is
    given, without surrounding space, and whether its tag is "latest" (the pull policy's default)."""
    for field in IMAGED:
        containers = spec.get(field)
        if type(containers) is not list or not containers:
            continue
        replaced = None
        for i, c in enumerate(containers):
            image = c.get("image") if type(c) is dict else None
            if type(image) is str and image and image == image.strip() and image not in _IMAGES:
                if replaced is None:
                    replaced = containers.copy()
                replaced[i] = {**c, "image": IMAGE_LATEST if image_tag(image) == "latest" else IMAGE}
        if replaced is not None:
            undo.append((spec, field, containers))
            spec[field] = replaced


IMAGED = ("containers", "initContainers")      # (ephemeral containers are refused on create)
_IMAGES = (IMAGE, IMAGE_LATEST)
_json = msgspec.json.encode     # (bytes searched with `find`: `in` makes and clears a TypeError first)
_compact = msgspec.json.format


def _valid_label_value(value: str) -> bool:
    """A valid label value (at most 63 long, ASCII: `_LABEL_VALUE_FULL`), as admission checks it alone. One of
    ASCII letters and digits only (a `pod-template-hash`: all distinct, past any memo) is one without the regex."""
    return len(value) <= 63 and (value.isalnum() and value.isascii() or _LABEL_VALUE_FULL(value) is not None)


def _reads_labels(spec: dict) -> bool:
    """Whether admission reads a pod's label values beyond validating them (`match_label_keys`); loosely."""
    spread = spec.get("topologySpreadConstraints")
    if spread is not None and (type(spread) is not list or any(
            type(c) is not dict or "matchLabelKeys" in c for c in spread)):
        return True
    affinity = spec.get("affinity")
    if affinity is None:
        return False
    if type(affinity) is not dict:
        return True
    if "podAffinity" not in affinity and "podAntiAffinity" not in affinity:
        return False
    encoded = shape_key(affinity)
    return encoded is None or b"LabelKeys" in encoded


def _canonical_annotations(meta: dict, annotations: dict, undo: list[tuple[dict, Any, Any]]) -> None:
    """`_canonicalize`'s step for a pod's annotations (not the reserved domains'), within the size limit."""
    if not _annotations_replaced(annotations):
        return
    replaced = {key: value if _reserved(key) else ANNOTATION for key, value in annotations.items()}
    undo.append((meta, "annotations", annotations))
    meta["annotations"] = replaced


def _annotations_replaced(annotations: dict) -> bool:
    """Whether the values of `annotations` are replaced: all keys and values strings, within the size limit."""
    total = 0
    for key, value in annotations.items():
        if type(key) is not str or type(value) is not str:
            return False
        total += len(key) + len(value)
    return 4 * total <= ANNOTATIONS_SIZE_LIMIT or sum(
        len(k.encode()) + len(v.encode()) for k, v in annotations.items()) <= ANNOTATIONS_SIZE_LIMIT


def _reserved(key: str) -> bool:
    """An annotation of the API server's own domains, whose value stays in the shape."""
    return key.partition("/")[0].endswith(_RESERVED_DOMAINS) and "/" in key


def _canonical_node(spec: dict, node: str, undo: list[tuple[dict, Any, Any]]) -> None:
    """`_canonicalize`'s step for a bound pod's node: its name, and a required node affinity
    pinning the pod to it (a DaemonSet's)."""
    undo.append((spec, "nodeName", node))
    spec["nodeName"] = NODE
    affinity = spec.get("affinity")
    if type(affinity) is dict and "nodeAffinity" in affinity:
        pinned = _pinned_to(affinity, node)
        if pinned is not None:
            undo.append((spec, "affinity", affinity))
            spec["affinity"] = pinned


def _canonical_named(spec: dict, name: str, volumes: Any, undo: list[tuple[dict, Any, Any]]) -> None:
    """`_canonicalize`'s step for what the spec derives from a replaced name: the hostname (a
    StatefulSet's, not a FQDN) and the name inside a claim's (`data-<pod>`)."""
    if spec.get("hostname") == name and not spec.get("setHostnameAsFQDN") and not is_dns1123_label(name):
        undo.append((spec, "hostname", name))
        spec["hostname"] = HOST
    if type(volumes) is list and any(type(v) is dict and type(v.get("persistentVolumeClaim")) is dict
                                     and name in str(v["persistentVolumeClaim"].get("claimName")) for v in volumes):
        undo.append((spec, "volumes", volumes))
        spec["volumes"] = [_claim_renamed(v, name) for v in volumes]


def _canonical_volume_names(spec: dict, undo: list[tuple[dict, Any, Any]]) -> None:
    """`_canonicalize`'s step for the volumes' names and the mounts naming them (an API server writes
    each pod's own service-account token volume: `kube-api-access-x7k2p`). Admission checks only that
    each is a DNS label, unique, and that each mount names one: the names replaced by their places."""
    volumes = spec.get("volumes")
    if type(volumes) is not list or not volumes or len(volumes) > len(VOLUMES) or "ephemeralContainers" in spec:
        return
    renames: dict[str, str] = {}
    for i, volume in enumerate(volumes):
        name = volume.get("name") if type(volume) is dict else None
        if type(name) is not str or name in renames or not (len(name) <= 63 and _LABEL_FULL(name)):
            return
        renames[name] = VOLUMES[i]
    undo.append((spec, "volumes", volumes))
    spec["volumes"] = [{**volume, "name": renames[volume["name"]]} for volume in volumes]
    for field in IMAGED:
        containers = spec.get(field)
        if type(containers) is list and containers:
            renamed = [_mounts_renamed(c, renames) for c in containers]
            undo.append((spec, field, containers))
            spec[field] = renamed


def _mounts_renamed(container: Any, renames: dict[str, str]) -> Any:
    """A container with the volumes its mounts and devices name renamed (`renames`); others kept."""
    if type(container) is not dict:
        return container
    out = container
    for field in ("volumeMounts", "volumeDevices"):
        mounts = container.get(field)
        if type(mounts) is list and mounts:
            if out is container:
                out = container.copy()
            out[field] = [{**m, "name": renames[m["name"]]} if type(m) is dict and type(m.get("name")) is str
                          and m["name"] in renames else m for m in mounts]
    return out


def written_key(pod: StoredPod, valid_nodes: set[str], valid_times: set[str],
                memo: dict[Any, Any] | None = None) -> bytes | None:
    """The shape of a pod read as a view, from its text (made compact): the text with its identity values,
    its label values and images cut out and its status left out; None when that would not say what
    `canonical` says. `memo`: what the texts of one load share (bounded)."""
    view = pod.view
    meta, spec = view.metadata, view.spec
    name, node = meta.name, spec.nodeName
    if not name or not (len(name) <= 253 and _SUBDOMAIN_FULL(name)) or not node:
        return None
    hostname = spec.hostname == name        # (a StatefulSet's: `_canonical_named` replaces it when a DNS label)
    if hostname and is_dns1123_label(name):
        return None
    if node not in valid_nodes:
        if is_dns1123_subdomain(node):
            return None
        valid_nodes.add(node)
    labels = meta.labels
    named, node_named = name.encode(), node.encode()
    if spec.volumes and (bytes(spec.volumes).find(named) != -1 or bytes(spec.volumes).find(b'"ephemeral"') != -1) \
            or spec.affinity and bytes(spec.affinity).find(node_named) != -1:
        return None
    text = bytes(pod.raw)
    if labels and text.find(b"LabelKeys") != -1 and (name in labels.values() or name.rsplit("-", 1)[-1] in labels.values()):
        return None     # (admission reads the label values: `_canonicalize` keeps a value derived from the name apart)
    if text.find(b'": ') != -1 or text.find(b", ") != -1 or text.find(b"\n") != -1:   # (not compact: json.dump's)
        try:
            text = _compact(text, indent=-1)
        except msgspec.MsgspecError:
            return None
    memo = {} if memo is None else memo
    found = pod.written_status(text, memo.setdefault(_STATUSES, {}))
    if found is None:
        return None
    at, status = found
    if status is not None and (type(status) is not dict or not STATUS_ADMITTED.isdisjoint(status)):
        return None
    body = text[:at]
    if meta.ownerReferences:
        body = _owners_cut(body, pod.view)
    key = body.replace(b'"name":"%s"' % named, b'"name":\0', 1)
    if len(key) == len(body):
        return None
    if hostname:        # (not set as an FQDN: then `_canonical_named` keeps it)
        size = len(key)
        key = key.replace(b'"hostname":"%s"' % named, b'"hostname":\0H', 1)
        if len(key) == size or key.find(b"setHostnameAsFQDN") != -1:
            return None
    size = len(key)
    key = key.replace(b'"nodeName":"%s"' % node_named, b'"nodeName":\0', 1)
    if len(key) == size:
        return None
    if meta.uid:
        key = key.replace(b'"uid":"%s"' % meta.uid.encode(), b'"uid":\0', 1)
    if meta.generateName:
        key = _generated_cut(key, meta.generateName)
    created = meta.creationTimestamp
    if created and (created in valid_times or _valid_time(created, valid_times)):
        key = key.replace(b'"creationTimestamp":"%s"' % created.encode(), b'"creationTimestamp":\0', 1)
    if labels:
        key = _labels_cut(key, labels, memo)
    if key.find(b'"annotations":{') != -1:
        key = _annotations_cut(key, meta.annotations, memo)
    if spec.volumes:
        key = _volume_names_cut(key, spec, memo)
    return _images_cut(key, spec, memo)


_MEMO_MAX = 65536


def generated_valid(prefix: str) -> bool:
    """Whether a generateName passes ValidateObjectMeta (ValidatePodName as a prefix: its trailing dash
    masked), which is all admission asks of it when the pod is named (`_canonicalize` replaces it then)."""
    masked = _mask_trailing_dash(prefix)
    return len(masked) <= 253 and _SUBDOMAIN_FULL(masked) is not None or not _subdomain_problems(masked)


def _generated_cut(key: bytes, generated: str) -> bytes:
    """`written_key`'s step for the generateName `_canonicalize` replaces (a valid one), when the text
    writes it once (its characters are never escaped)."""
    if not generated_valid(generated) or key.count(b'"generateName":') != 1:
        return key
    return key.replace(b'"generateName":"%s"' % generated.encode(), b'"generateName":\0', 1)


_CUT = "\0"        # an owner's cut name or uid in a key (written `"\u0000"`: no name, node or uid searched for)


def _owners_cut(body: bytes, view: Any) -> bytes:
    """`written_key`'s step for the owner references' names and uids `_canonicalize` replaces
    (`canonical_owners`): the references, when written once as a whole, as their canonical value with
    `_CUT` for each replaced; the text as it is otherwise. Cut first: the name's and uid's cuts that
    follow search the text for their own values, not an owner's."""
    refs = view.owner_references()
    owners = canonical_owners(refs, _CUT, _CUT) if type(refs) is list else None
    if owners is None:
        return body
    written = b'"ownerReferences":' + _json(refs)
    if body.count(written) != 1:
        return body
    return body.replace(written, b'"ownerReferences":' + _json(owners))


def _labels_cut(key: bytes, labels: dict[str, str], memo: dict[Any, Any]) -> bytes:
    """`written_key`'s step for the label values `_canonical_labels` replaces: every valid one, the labels
    written once as a whole (else each written once, twice it may be a selector's); only the zone's and
    region's when admission reads label values (`_reads_labels`: the text names `LabelKeys`)."""
    read = key.find(b"LabelKeys") != -1
    if not read and _all_valid(labels.values(), memo):
        written = b'"labels":' + _json(labels)
        if key.count(written) == 1:
            names = tuple(labels)
            cut = memo.get(names)
            if cut is None:
                cut = b'"labels":{%s}' % b",".join(_json(label) + b":\0" for label in names)
                if len(memo) < _MEMO_MAX:
                    memo[names] = cut
            return key.replace(written, cut)
    for label, value in labels.items():
        if read and label not in TOPOLOGY or not _valid_label_value(value):
            continue
        quoted = _json(label) + b":"
        written = quoted + b'"%s"' % value.encode()
        if key.count(written) == 1:
            key = key.replace(written, quoted + b"\0")
    return key


class _Named(msgspec.Struct):
    name: Any = None


class _Mounting(msgspec.Struct):
    volumeMounts: list[_Named] | None = None
    volumeDevices: list[_Named] | None = None


_volume_list = msgspec.json.Decoder(list[_Named]).decode
_mounting = msgspec.json.Decoder(list[_Mounting]).decode


def _mount_names(spec: Any) -> list[Any] | None:
    """The names a view's containers' and init containers' mounts and devices give (None: not told)."""
    try:
        return [m.name for text in (spec.containers, spec.initContainers) if text for c in _mounting(bytes(text))
                for m in (*(c.volumeMounts or ()), *(c.volumeDevices or ()))]
    except msgspec.MsgspecError:
        return None


_NAMES_READ: dict[bytes, list[bytes] | None] = {}      # a volumes text -> `volume_names` (bounded)


def volume_names(spec: Any) -> list[bytes] | None:
    """The names of a view's volumes as `_canonical_volume_names` replaces them (None: it does not); read
    once per text (a pod's is asked when it is keyed and again when it is admitted). Not to be changed."""
    text = bytes(spec.volumes)
    found = _NAMES_READ.get(text, _NAMES_READ)
    if found is _NAMES_READ:
        found = _volume_names(text)
        if len(_NAMES_READ) < _MEMO_MAX:
            _NAMES_READ[text] = found
    return found      # type: ignore[return-value]


def _volume_names(text: bytes) -> list[bytes] | None:
    try:
        names = [volume.name for volume in _volume_list(text)]
    except msgspec.MsgspecError:
        return None
    if not names or len(names) > len(VOLUMES) or not all(type(name) is str and len(name) <= 63 and _LABEL_FULL(name)
                                                         for name in names) or len(set(names)) != len(names):
        return None
    return [name.encode() for name in names]


def _volume_names_cut(key: bytes, spec: Any, memo: dict[Any, Any]) -> bytes:
    """`written_key`'s step for the volume names `_canonical_volume_names` replaces (all or none, as it
    does): each cut as its place where the text writes it only as the volume's and its mounts' name.
    The names and mounts read once per distinct volumes' and containers' texts (`memo`)."""
    if key.find(b'"ephemeralContainers"') != -1:
        return key
    texts = (_VOLUME_NAMES, bytes(spec.volumes), bytes(spec.containers), bytes(spec.initContainers))
    found = memo.get(texts)
    if found is None:
        names = volume_names(spec)
        found = (names, _mount_names(spec) if names is not None else None)
        if len(memo) < _MEMO_MAX:
            memo[texts] = found
    names, mounts = found
    if names is None or mounts is None:
        return key
    for i, name in enumerate(names):
        written = b'"name":"%s"' % name
        if key.count(written) == 1 + mounts.count(name.decode()):
            key = key.replace(written, b'"name":\0V%d' % i)
    return key


_annotations_of = msgspec.json.Decoder(dict[str, str] | None).decode
_ANNOTATIONS, _VOLUME_NAMES = ("annotations",), ("volume names",)     # (`written_key`'s memo: their entries)


def _annotations_cut(key: bytes, raw: Any, memo: dict[Any, Any]) -> bytes:
    """`written_key`'s step for the annotation values `_canonical_annotations` replaces (not the reserved
    domains'), when the annotations are written once as a whole, within the size limit (`raw`: the view's
    metadata.annotations). Their text as written and as cut, once per distinct text (`memo`)."""
    text = (_ANNOTATIONS, bytes(raw) if raw else b"")
    found = memo.get(text)
    if found is None:
        found = _annotations_texts(text[1])
        if len(memo) < _MEMO_MAX:
            memo[text] = found
    if found is None or key.count(found[0]) != 1:
        return key
    return key.replace(*found)


def _annotations_texts(text: bytes) -> tuple[bytes, bytes] | None:
    """The annotations' text as `_json` writes them and as `_annotations_cut` cuts them; None when
    `_canonical_annotations` leaves them (not all strings, beyond the size limit) or there are none."""
    try:
        annotations = _annotations_of(text) if text else None
    except msgspec.MsgspecError:
        return None
    if not annotations or not _annotations_replaced(annotations):
        return None
    cut = b",".join(_json(k) + (b":" + _json(v) if _reserved(k) else b":\0") for k, v in annotations.items())
    return b'"annotations":' + _json(annotations), b'"annotations":{%s}' % cut


def _all_valid(values: Any, memo: dict[Any, Any]) -> bool:
    """Whether each label value is valid (`_LABEL_VALUE_FULL`), those found so remembered in `memo`."""
    valid = memo.get(_VALID)
    if valid is None:
        valid = memo[_VALID] = set()
    for value in values:
        if value not in valid:
            if not _valid_label_value(value):
                return False
            if len(valid) < _MEMO_MAX:
                valid.add(value)
    return True


_VALID = ("valid label values",)      # (`_all_valid`'s entry in the memo: no key of another kind)
_STATUSES = ("statuses",)             # (the statuses `StoredPod.written_status` shares, by text)


def _images_cut(key: bytes, spec: Any, memo: dict[Any, Any]) -> bytes:
    """`written_key`'s step for the images `_canonical_images` replaces, when every `"image"` of the text is
    a container's (`image_values`): each cut, its tag's class kept."""
    texts = (bytes(spec.containers), bytes(spec.initContainers))
    found = memo.get(texts)
    if found is None:
        found = _image_cuts(texts)
        if len(memo) < _MEMO_MAX:
            memo[texts] = found
    count, cuts = found
    if not cuts or key.count(b'"image"') != count:
        return key
    for written, cut in cuts:
        key = key.replace(written, cut)
    return key


def _image_cuts(texts: tuple[bytes, bytes]) -> tuple[int, tuple[tuple[bytes, bytes], ...]]:
    """The images of containers' texts (`image_values`), how many, and each distinct one's text and cut;
    none when one is not told."""
    images: list[bytes] = []
    for text in texts:
        if text:
            values = image_values(text)
            if values is None:
                return 0, ()
            images += values
    return len(images), _cuts(images)


def _cuts(images: list[bytes]) -> tuple[tuple[bytes, bytes], ...]:
    """`_image_cuts`' text and cut of each distinct image of `images` that is cut."""
    cuts = []
    for value in dict.fromkeys(images):
        image = value.decode()
        if image and image == image.strip() and image not in _IMAGES:
            cuts.append((b'"image":"%s"' % value, b"\"image\":\0L" if image_tag(image) == "latest" else b"\"image\":\0T"))
    return tuple(cuts)


# a container's image as written: a string without escapes (`image_values`)
_IMAGE_VALUE = re.compile(rb'"image"\s*:\s*"([^"\\]*)"')


def image_values(text: bytes) -> list[bytes] | None:
    """The images written in a containers list's text, in order; None unless each `"image"` in it is
    one written as a plain string."""
    found = _IMAGE_VALUE.findall(text)
    return found if len(found) == text.count(b'"image"') else None


def image_pieces(text: bytes) -> list[bytes] | None:
    """A containers list's text cut at its images (`image_values`): text, image, text, ..., text."""
    pieces, at = [], 0
    for found in _IMAGE_VALUE.finditer(text):
        pieces += (text[at:found.start(1)], found[1])
        at = found.end(1)
    if len(pieces) != 2 * text.count(b'"image"'):      # (as `image_values`: each one a plain string)
        return None
    pieces.append(text[at:])
    return pieces


def _valid_time(text: str, valid_times: set[str]) -> bool:
    """Whether `text` decodes as a metav1.Time (an RFC 3339 time), remembered in `valid_times`; one in
    the form an API server writes, of a day every month has, without the parse (each pod's own: no memo)."""
    if _PLAIN_TIME(text) is not None:
        return True
    if go_time_parse_error(RFC3339, text) is not None:
        return False
    valid_times.add(text)
    return True




def _claim_renamed(volume: Any, name: str) -> Any:
    """A volume whose claim name holds the pod's name, with NAME in its place (a claim name is
    only required, never checked further)."""
    if type(volume) is not dict or type(volume.get("persistentVolumeClaim")) is not dict:
        return volume
    claim = volume["persistentVolumeClaim"].get("claimName")
    if type(claim) is not str or name not in claim:
        return volume
    return {**volume, "persistentVolumeClaim": {**volume["persistentVolumeClaim"],
                                                "claimName": claim.replace(name, NAME)}}


def _pinned_to(affinity: dict, node: str) -> dict | None:
    """The affinity with NODE where a required term's `metadata.name` names `node` (a DaemonSet pod)."""
    required = affinity["nodeAffinity"].get("requiredDuringSchedulingIgnoredDuringExecution") \
        if type(affinity["nodeAffinity"]) is dict else None
    terms = required.get("nodeSelectorTerms") if type(required) is dict else None
    if type(terms) is not list:
        return None
    found = False
    new_terms = []
    for term in terms:
        fields = term.get("matchFields") if type(term) is dict else None
        if type(fields) is list:
            new_fields = []
            for req in fields:
                if type(req) is dict and req.get("key") == "metadata.name" and type(req.get("values")) is list \
                        and node in req["values"]:
                    req = {**req, "values": [NODE if v == node else v for v in req["values"]]}
                    found = True
                new_fields.append(req)
            term = {**term, "matchFields": new_fields}
        new_terms.append(term)
    if not found:
        return None
    return {**affinity, "nodeAffinity": {**affinity["nodeAffinity"], "requiredDuringSchedulingIgnoredDuringExecution": {
        **required, "nodeSelectorTerms": new_terms}}}


class ShapeIndex:
    """Each pod's shape in one load, worked out once for the two passes that read it; by object identity,
    each object held so its id is not reused (one per load, never kept)."""

    def __init__(self) -> None:
        self.valid_nodes: set[str] = set()
        self.valid_times: set[str] = set()
        self._keys: dict[bytes, bytes] = {}               # a shape's key, one object per shape
        # id -> (pod, key, `status_decodes`, whether it has a `written_key`)
        self._of: dict[int, tuple[dict, bytes | None, bool, bool]] = {}
        self._written: dict[bytes, bytes] = {}             # `written_key` -> the shape's key
        self._texts: dict[Any, Any] = {}                   # `written_key`'s memo
        self._decodes: dict[int, tuple[Any, bool]] = {}    # id(status) -> it, `status_decodes`
        self.classes = StatusClasses()      # the statuses read alone, by class: one asked per class
        self._templates: _Templates | None = _Templates(self)     # the texts of shapes' first pods (None: off)
        # (minor, validate) -> the shapes whose pods check_fields found nothing in
        self.fields_ok: dict[tuple[str, str], set[bytes]] = {}

    def entry(self, pod: dict) -> tuple[dict, bytes | None, bool, bool]:
        """`pod`, its shape key (None off the fast path), whether its status decodes and whether its
        shape is told by its text: what each pass asks of a pod, in one look-up."""
        found = self._of.get(id(pod))
        if found is not None and found[0] is pod:
            return found
        key, by_text = self._written_shape(pod) if type(pod) is StoredPod else (self._shape(pod), False)
        decodes = False
        if key is not None:     # (its status, out of the shape, asked now: `status_decodes`; a view's, read alone)
            status = self.classes.stand_in(pod)      # (its class's answer is its own)
            held = self._decodes.get(id(status))
            decodes = held[1] if held is not None and held[0] is status else asked_once(
                self._decodes, id(status), status, status_decodes, pod, self.valid_times)
        found = self._of[id(pod)] = (pod, key, decodes, by_text)
        return found

    def _shape(self, pod: dict) -> bytes | None:
        undo = _canonicalize(pod, self.valid_nodes, self.valid_times)   # its canonical self for a moment
        if undo is None:
            return None
        try:
            key = shape_key(pod)
        finally:
            for mapping, k, value in reversed(undo):
                mapping[k] = value
        return self._keys.setdefault(key, key) if key is not None else None

    def _written_shape(self, pod: StoredPod) -> tuple[bytes | None, bool]:
        """The shape of a pod read as a view, and whether it has a `written_key` (then admitted as a view):
        its template's when it matches one (`_Templates`)."""
        found = self._templates.match(pod) if self._templates is not None else None
        if type(found) is bytes:
            return found, True
        text = written_key(pod, self.valid_nodes, self.valid_times, self._texts)
        key = self._written.get(text) if text is not None else None
        if key is None:
            key = self._shape(pod.obj)
            if key is not None and text is not None:
                self._written[text] = key
        if found is not None and key is not None and text is not None:
            self._templates.make(pod, found, text, key)    # type: ignore[union-attr]
        return key, text is not None

    def stand_in(self, pod: Any) -> Any:
        """The status the checks of a pod's status ask in place of its own (`StatusClasses`): the same answers."""
        return self.classes.stand_in(pod)

    def canonical(self, pod: dict) -> dict | None:
        """`canonical(pod)` with this load's valid node names and times."""
        return canonical(pod.obj if type(pod) is StoredPod else pod, self.valid_nodes, self.valid_times)


# -- a shape's text verified whole ----------------------------------------------------------------
# a JSON text's strings (a key with its colon) and brackets, in a text without escapes (`_holes`)
_TOKENS = re.compile(r'"([^"\\]*)"(\s*:)?|[{}\[\]]')
_TEMPLATES_MAX = 4096       # templates made in one load, at most
_PER_LOOK = 8               # templates made of one look's pods, at most
_OTHER = object()           # (`_Templates._filled`: the pod's text is not the template's)
_TRIED = 1024               # pods asked in turn, of which the templates must match half
_OWNED_AT = 2               # pods of one look and owners asked before a template of theirs is made


@dataclass(frozen=True)
class _Owned:
    """What `_Templates.match` answers when a template of a look's pods with these owner references may be
    made (`key`: the look and the references' text): a workload's, past the look's `_PER_LOOK`."""

    look: tuple
    key: tuple[tuple, bytes]


@dataclass(frozen=True)
class _Template:
    """The text of a shape's first pod with its own values' places marked (filled in `order`), and
    what a pod matching it must not hold for `written_key` to cut it as it cut the first pod."""

    parts: list[str]                # the text's pieces, each own value's place between two (None)
    order: Callable[[tuple], tuple]
    key: bytes                      # the shape's key
    status: bool                    # whether the text writes a status (last: each pod's own, not the template's)
    names: frozenset[str]           # strings written after "name", "nodeName" and "uid" that are no own value
    uid: bool = False               # whether the text writes the pod's uid (an own value, after its owners')
    created: bool = False           # whether it writes its creation time (an own value, after the uid)
    generated: bool = False         # whether it writes a generateName (an own value, after the creation time)
    # the annotations whose values are own values (`written_key` cuts them), by key in the text's order: after the
    # generateName, before the volumes
    annotations: tuple[str, ...] = ()
    hostname: bool = False          # whether it writes the name as the hostname (an own value, after the annotations)
    volumes: tuple[int, ...] = ()   # the volumes whose names are own values (`written_key` cuts them), last


class _Templates:
    """Pods checked against the text of a first pod of their shape (`_Template`) with their own values put
    in: a match is that text with other values in the same places, so `written_key` would give the first
    pod's key; its checks of a pod's own values are made here. Anything else goes `written_key`'s way.
    A look (what a pod's view tells of its shape at once) keeps a few templates, the last matched first:
    pods alike in it may differ in what only their texts tell (an annotation, tolerations)."""

    def __init__(self, index: "ShapeIndex") -> None:
        self.index = index
        self.of: dict[tuple, list[_Template]] = {}          # (namespace, label names, containers, ...) -> them
        self.made: dict[tuple, int] = {}                     # a look -> its templates made (`_PER_LOOK`: no more)
        self.images: dict[tuple[bytes, bytes], Any] = {}     # containers' texts -> `_own_images`
        self.groups: dict[tuple, int] = {}                   # containers' texts without images -> a number
        # (look, owner references' text) -> its template, else its pods asked so far (-1: none can be made): the
        # workloads of one look that differ in what it does not tell (a subdomain, an affinity naming their app)
        self.owned: dict[tuple[tuple, bytes], Any] = {}
        self.asked = self.matched = self.count = 0
        self._run_asked = self._run_matched = 0     # asked and matched when the current run of `_TRIED` asks began
        self.statuses: dict[bytes, Any] = index._texts.setdefault(_STATUSES, {})   # (`written_key`'s too)

    def match(self, pod: StoredPod) -> bytes | tuple | _Owned | None:
        """The shape key of a pod matching its owners' template or one of its look's; else its look when
        another template may be made from it (once `written_key` keyed it), or its owners' when theirs may
        be (`_Owned`: the look's are made, and another pod had them), or None."""
        self.asked += 1
        if self.asked - self._run_asked > _TRIED:       # (each run of asks: one whose pods do not match ends them)
            if 2 * (self.matched - self._run_matched) < _TRIED:
                self.index._templates = None    # (pods that do not match: asked no more)
                return None
            self._run_asked, self._run_matched = self.asked - 1, self.matched
        view = pod.view
        meta, spec = view.metadata, view.spec
        owners = _owner_values(view) if meta.ownerReferences else ()
        if owners is None:
            return None
        texts, volumes = _container_texts(spec)
        images = self.images.get(texts)
        if images is None:
            images = _own_images(texts, self.groups)
            if len(self.images) < _MEMO_MAX:
                self.images[texts] = images
        if not images:
            return None
        labels = meta.labels
        look = (meta.namespace, tuple(labels) if labels else None, images[1], len(owners), _given(meta))
        templates = self.of.get(look)
        owned_key = (look, bytes(meta.ownerReferences)) if owners else None
        owned = self.owned.get(owned_key, 0) if owned_key is not None else 0
        if templates is not None or type(owned) is _Template:
            name, node = meta.name, spec.nodeName
            if not name or not node or not (len(name) <= 253 and _SUBDOMAIN_FULL(name)):
                return None
            if spec.volumes and bytes(spec.volumes).find(name.encode()) != -1 \
                    or spec.affinity and bytes(spec.affinity).find(node.encode()) != -1:
                return None         # (`written_key` keys neither: a claim named after the pod, a node pinned)
            values = (name, *labels.values(), node, *images[0], *owners) if labels else (name, node, *images[0], *owners)
            if type(owned) is _Template:
                found = self._filled(pod, owned, values, owners, volumes)
                if found is not _OTHER:
                    return found     # type: ignore[return-value]
            for i, template in enumerate(templates or ()):
                found = self._filled(pod, template, values, owners, volumes)
                if found is not _OTHER:
                    if found is not None and i:
                        templates.insert(0, templates.pop(i))       # (the last matched first)
                    return found     # type: ignore[return-value]
        if self.count >= _TEMPLATES_MAX:
            return None
        if self.made.get(look, 0) < _PER_LOOK:
            return look
        if type(owned) is int and owned >= 0 and owned_key is not None:
            if owned + 1 >= _OWNED_AT:
                return _Owned(look, owned_key)
            if len(self.owned) < _MEMO_MAX:
                self.owned[owned_key] = owned + 1
        return None

    def _filled(self, pod: StoredPod, template: _Template, values: tuple, owners: tuple, volumes: Any
                ) -> bytes | None | object:
        """`template`'s key when `pod` (its `values` so far: name, labels, node, images, owners) matches it;
        `_OTHER` when its text is not the template's; None when `written_key` would not take the pod."""
        meta = pod.view.metadata
        name, node, uid, created = values[0], pod.view.spec.nodeName, meta.uid, meta.creationTimestamp
        names = template.names
        if name in names or node in names or uid in names or owners and not names.isdisjoint(owners):
            return None
        if template.uid or template.created:
            if template.uid and not uid or template.created and not created:
                return _OTHER
            values += ((uid,) if template.uid else ()) + ((created,) if template.created else ())
        if template.generated:
            generated = meta.generateName
            if not generated:
                return _OTHER
            if not generated_valid(generated):
                return None
            values += (generated,)
        if template.annotations:
            own = _own_annotations(meta.annotations, template.annotations)
            if type(own) is not tuple:
                return own
            values += own
        if template.hostname:       # (`written_key` cuts it as a DNS label)
            if len(name) > 63 or not _LABEL_FULL(name):
                return None
            values += (name,)
        elif pod.view.spec.hostname == name:
            return None             # (`written_key` cuts it; the template writes it)
        if template.volumes:
            if volumes is None or len(volumes) <= template.volumes[-1]:
                return _OTHER
            own = tuple(volumes[i].decode() for i in template.volumes)
            if not names.isdisjoint(own) or not {name, node, uid, *owners}.isdisjoint(own):
                return None     # (a name `written_key` would cut elsewhere too, or not cut)
            values += own
        if created and not (created in self.index.valid_times or _valid_time(created, self.index.valid_times)):
            return None
        parts = template.parts.copy()
        parts[1::2] = template.order(values)
        text = "".join(parts)
        raw, head = bytes(pod.raw), text.encode()
        if not raw.startswith(head) or len(raw) != len(head) and not template.status:
            return _OTHER
        labels = meta.labels
        if text.find("LabelKeys") != -1 or labels and not _all_valid(labels.values(), self.index._texts):
            return None
        if node not in self.index.valid_nodes:
            if is_dns1123_subdomain(node):
                return None
            self.index.valid_nodes.add(node)
        if template.status and not self._own_status(pod, raw[len(head):], len(head)):
            return None
        self.matched += 1
        return template.key

    def _own_status(self, pod: StoredPod, tail: bytes, at: int | None = None) -> bool:
        """Whether the text after the template's (`tail`, at `at` in the pod's text) writes the pod's status
        last, as an object that `written_key` would leave out of the shape (found there alone: no status
        nested in it, none of the fields admission writes), the status then kept as the pod's. A status of
        a class found before is all that (its keys and structure are the first's: `class_key` cuts only
        strings of name characters) and is decoded only when read (`StoredPod.status_at`)."""
        found = _STATUS_TAIL(tail)
        if found is None or _NESTED_STATUS(found[1]) is not None:
            return False
        text = found[1]
        classes = self.index.classes
        key = classes.key_of(text)
        first = classes.first.get(key) if key is not None and at is not None else None
        if first is not None and classes.stand(pod, first):
            pod.status_at(at + found.start(1), at + found.end(1))       # type: ignore[operator]
            return True
        status = pod.own_status(text, self.statuses)
        if type(status) is not dict or not STATUS_ADMITTED.isdisjoint(status):
            return False
        classes.place(key, pod, status)
        return True

    def make(self, pod: StoredPod, look: "tuple | _Owned", written: bytes, key: bytes) -> None:
        """The template of `pod`'s shape, from its text and its `written_key` (`key`: its shape's): one of its
        `look`'s, or its owners' (`_Owned`); none when the text does not show where each own value is, or
        `written_key` did not cut each (then the look's or the owners' pods make none again)."""
        self.count += 1
        if type(look) is _Owned:
            self.owned[look.key] = -1
            template = self._template(pod, written, key)
            if template is not None:
                self.owned[look.key] = template
            return
        made = self.made.get(look, 0)
        self.made[look] = _PER_LOOK
        template = self._template(pod, written, key)
        if template is not None:
            self.made[look] = made + 1
            self.of.setdefault(look, []).insert(0, template)

    def _template(self, pod: StoredPod, written: bytes, key: bytes) -> "_Template | None":
        try:
            text = bytes(pod.raw).decode()
        except UnicodeDecodeError:
            return
        view = pod.view
        labels = view.metadata.labels or {}
        texts, volumes = _container_texts(view.spec)
        images = self.images.get(texts) or _own_images(texts, self.groups)
        meta = view.metadata
        owners = _owner_values(view) if meta.ownerReferences else ()
        created = meta.creationTimestamp
        if owners is None or created and not (created in self.index.valid_times or _valid_time(
                created, self.index.valid_times)):
            return
        cut = sorted({int(i) for i in _VOLUME_CUT.findall(written)})      # (`_volume_names_cut`'s)
        if cut and (volumes is None or cut[-1] >= len(volumes)):
            return
        own = tuple(volumes[i].decode() for i in cut) if cut else ()
        annotations = _annotation_holes(meta.annotations, written)
        hostname = view.spec.hostname == meta.name
        found = _holes(text, labels, len(images[0]), len(owners) // 2, own, annotations, hostname) \
            if text.find("\\") == -1 and text.find("LabelKeys") == -1 else None
        if found is None:
            return
        holes, names, status_at, has_uid, has_created, has_generated = found
        if has_generated and not (meta.generateName and generated_valid(meta.generateName)):
            return
        identity = ((meta.uid,) if has_uid else ()) + ((created,) if has_created else ()) \
            + ((meta.generateName,) if has_generated else ())
        noted = _own_annotations(meta.annotations, annotations) if annotations else ()
        if type(noted) is not tuple:
            return
        values = (meta.name, *labels.values(), view.spec.nodeName, *images[0], *owners, *identity, *noted,
                  *((meta.name,) if hostname else ()), *own)
        slots = [slot for _, _, slot in holes]
        if not _cut_alike(written, labels, images[2], has_uid, has_created, meta.annotations, has_generated, hostname) \
                or sorted(set(slots)) != list(range(len(values))) \
                or any(slots.count(slot) != 1 for slot in range(len(values) - len(own))) \
                or not names.isdisjoint((values[0], values[1 + len(labels)], *owners, *identity[:has_uid], *own)) \
                or len(set(own)) != len(own) or any(text[a:b] != values[slot] for a, b, slot in holes):
            return
        parts: list[Any] = []
        at = 0
        for start, end, _ in holes:
            parts += (text[at:start], None)
            at = end
        parts.append(text[at:status_at])
        compact = bytes(pod.raw)
        if compact.find(b'": ') != -1 or compact.find(b", ") != -1 or compact.find(b"\n") != -1:
            compact = _compact(compact, indent=-1)
        status = compact.rfind(b',"status":{')
        if status_at < holes[-1][1] or (status == -1) != (status_at == len(text)) \
                or status != -1 and not self._own_status(pod, text[status_at:].encode()):
            return
        return _Template(parts, itemgetter(*(slot for _, _, slot in holes)), key, status != -1, frozenset(names),
                         has_uid, has_created, has_generated, annotations, hostname, tuple(cut))


# annotation keys that `written_key` searches the text for before it cuts the annotations (with a value of the pod's):
# their values, were they a template's holes, could take those cuts
_ANNOTATIONS_SEARCHED = frozenset({"name", "nodeName", "uid", "creationTimestamp", "generateName"})


def _annotation_holes(raw: Any, written: bytes) -> tuple[str, ...]:
    """The annotations whose values a template of a pod (`raw`: its view's annotations) takes as each pod's
    own: those its `written_key` (`written`) cut, when none is named as what a cut made before theirs searches
    for; none otherwise (their values stay the template's text)."""
    texts = _annotations_texts(bytes(raw)) if raw else None
    if texts is None or written.find(texts[1]) == -1:
        return ()
    keys = tuple(key for key in _annotations_of(bytes(raw)) if not _reserved(key))
    return keys if _ANNOTATIONS_SEARCHED.isdisjoint(keys) else ()


def _own_annotations(raw: Any, keys: tuple[str, ...]) -> tuple[str, ...] | Any:
    """A pod's values of the annotations `keys` (`raw`: its view's annotations), a template's own values;
    `_OTHER` when it does not write each as a string (its text is not the template's), None when `written_key`
    would not cut them (`_annotations_replaced`: beyond the size limit)."""
    try:
        annotations = _annotations_of(bytes(raw)) if raw else None
    except msgspec.MsgspecError:
        return _OTHER
    if not annotations:
        return _OTHER
    values = tuple(annotations.get(key) for key in keys)
    if None in values:
        return _OTHER
    return values if _annotations_replaced(annotations) else None


def _own_images(texts: tuple[bytes, bytes], groups: dict[tuple, int]
                ) -> tuple[tuple[str, ...], int, tuple[bytes, ...]] | tuple[()]:
    """The images of containers' texts (`image_values`), the number in `groups` of what the texts are
    without them (with each image's class) and each image's cut (`_image_cuts`); empty unless every
    image is cut."""
    pieces = [image_pieces(text) if text else [] for text in texts]
    if None in pieces:
        return ()
    images = [value for found in pieces for value in found[1::2]]
    cuts = dict(_cuts(images))
    classes = tuple(cuts.get(b'"image":"%s"' % value) for value in images)
    if None in classes:
        return ()
    group = groups.setdefault((*(tuple(p[0::2]) for p in pieces), classes), len(groups))
    return tuple(value.decode() for value in images), group, classes


def _holes(text: str, labels: dict[str, str], images: int, owners: int = 0, volumes: tuple[str, ...] = (),
           annotations: tuple[str, ...] = (), hostname: bool = False
           ) -> tuple[list[tuple[int, int, int]], set[str], int, bool, bool, bool] | None:
    """Where a pod's text (without escapes) writes its name (slot 0), its label values (1...), its node, its
    images, its `owners` owner references' names and uids, then its uid, its creation time and its
    generateName when written, each once, then the values of its `annotations` (those keys'), each once, its
    hostname when `hostname` (the name again), then the names of its `volumes` (each where the volume and the
    mounts naming it write it); the other strings written after "name", "nodeName" or "uid", where its status
    is written (the text's length without one) and whether it writes a uid, a creation time and a
    generateName. None when a key `written_key` cuts by is written elsewhere."""
    slots = {("metadata", "name"): 0, ("spec", "nodeName"): 1 + len(labels)}
    slots.update({("metadata", "labels", label): 1 + i for i, label in enumerate(labels)})
    image_slots = {("spec", "containers", "*", "image"): [], ("spec", "initContainers", "*", "image"): [],
                   _OWNER_NAME: [], _OWNER_UID: [], ("metadata", "uid"): [], ("metadata", "creationTimestamp"): [],
                   ("metadata", "generateName"): []}
    noted = {("metadata", "annotations", key): [] for key in annotations}
    if hostname:
        noted[("spec", "hostname")] = []
    holes, names, keys = [], set(), {"labels": 0, "image": 0, "annotations": 0, "generateName": 0}
    named: list[tuple[int, int, str]] = []      # where a volume or a mount writes a name of `volumes`
    lists: list[bool] = []          # the open containers, whether each is a list
    path: list[str] = []            # the keys down to the innermost open container
    key, status_at = None, len(text)
    for m in _TOKENS.finditer(text):
        value = m[1]
        if value is not None and m[2]:
            key = value
            if value in keys:
                keys[value] += 1
            elif value == "status" and len(lists) == 1:
                status_at = m.start()       # (each pod's own, written last: not read for the shape)
                break
        elif value is not None:
            here = (*path, "*" if lists[-1] else key)
            if here in slots:
                holes.append((m.start(1), m.end(1), slots.pop(here)))
            elif here in image_slots:
                image_slots[here].append((m.start(1), m.end(1)))
            elif here in noted:
                noted[here].append((m.start(1), m.end(1)))
            elif value in volumes and here in _VOLUME_NAMING:
                named.append((m.start(1), m.end(1), value))
            elif here[-1] in ("name", "nodeName", "uid"):
                names.add(value)
            keys["image"] += value == "image"
        elif m[0] in "{[":
            if lists:
                path.append("*" if lists[-1] else key)
            lists.append(m[0] == "[")
        else:
            lists.pop()
            if lists:
                path.pop()
    containers, init, owner_names, owner_uids, uid, created, generated = image_slots.values()
    found = containers + init
    if keys["labels"] != (1 if labels else keys["labels"]) or keys["image"] != len(found) or keys["annotations"] > 1 \
            or len(found) != images or "nodeName" in labels or "image" in labels \
            or len(owner_names) != owners or len(owner_uids) != owners or len(uid) > 1 or len(created) > 1 \
            or keys["generateName"] != len(generated) or len(generated) > 1 \
            or any(len(spans) != 1 for spans in noted.values()):
        return None
    holes += [(start, end, 2 + len(labels) + i) for i, (start, end) in enumerate(found)]
    at = 2 + len(labels) + images      # (each reference's name, then its uid: `_owner_values`' order)
    holes += [(start, end, at + 2 * i) for i, (start, end) in enumerate(owner_names)]
    holes += [(start, end, at + 2 * i + 1) for i, (start, end) in enumerate(owner_uids)]
    at += 2 * owners
    for start, end in uid + created + generated + [spans[0] for spans in noted.values()]:
        holes.append((start, end, at))
        at += 1
    holes += [(start, end, at + volumes.index(value)) for start, end, value in named]
    return sorted(holes), names, status_at, bool(uid), bool(created), bool(generated)


# where a volume's name is written: its own, and the containers' mounts and devices naming it
_VOLUME_NAMING = frozenset({("spec", "volumes", "*", "name"), *((("spec", field, "*", mounts, "*", "name"))
                                                                for field in ("containers", "initContainers")
                                                                for mounts in ("volumeMounts", "volumeDevices"))})
_VOLUME_CUT = re.compile(rb'"name":\0V([0-9]+)')
# a pod's text after its template's: its status, written last (`_Templates._own_status`); a status within it
_STATUS_TAIL = re.compile(rb'"status"\s*:\s*(\{.*\})\s*\}', re.S).fullmatch
_NESTED_STATUS = re.compile(rb'"status"\s*:\s*\{').search


def _container_texts(spec: Any) -> tuple[tuple[bytes, bytes], list[bytes] | None]:
    """A view's containers' and init containers' texts, the names of its volumes (`volume_names`) written
    there as `"\0"` (a workload's pods mounting each its own token volume write them alike so), and those
    names (None: not told, or no volumes)."""
    texts = (bytes(spec.containers), bytes(spec.initContainers))
    volumes = volume_names(spec) if spec.volumes else None
    if volumes:
        masked = []
        for text in texts:
            for name in volumes:
                if text.find(name) != -1:
                    text = text.replace(b'"%s"' % name, b'"\0"')
            masked.append(text)
        texts = (masked[0], masked[1])
    return texts, volumes


_OWNER_NAME, _OWNER_UID = ("metadata", "ownerReferences", "*", "name"), ("metadata", "ownerReferences", "*", "uid")


def _owner_values(view: Any) -> tuple[str, ...] | None:
    """Each owner reference's name and uid (`_Templates`' own values: `canonical_owners` replaces them all);
    None unless every reference is a mapping giving both as strings not empty."""
    values: list[str] = []
    refs = view.owner_references()
    if type(refs) is not list:
        return None
    for ref in refs:
        if type(ref) is not dict:
            return None
        name, uid = ref.get("name"), ref.get("uid")
        if type(name) is not str or type(uid) is not str or not name or not uid:
            return None
        values += (name, uid)
    return tuple(values)


def _given(meta: Any) -> tuple[bool, bool]:
    """Whether a view has a uid and a creation time (`_Templates`: given by its reader, not its text)."""
    return bool(meta.uid), bool(meta.creationTimestamp)


_BYTE_TOKENS = re.compile(rb'"([^"\\]*)"(\s*:)?|[{}\[\]]')


def string_spans(text: bytes, paths: dict[tuple[str, ...], int]) -> list[tuple[int, int, int]] | None:
    """Where a JSON text (without escapes) writes a string at one of `paths` (keys, "*" a list's item),
    each with the path's number; None for a text with escapes."""
    if text.find(b"\\") != -1:
        return None
    spans, lists, path, key = [], [], [], None
    for m in _BYTE_TOKENS.finditer(text):
        value = m[1]
        if value is not None and m[2]:
            key = value.decode()
        elif value is not None:
            found = paths.get((*path, "*" if lists[-1] else key)) if lists else None
            if found is not None:
                spans.append((m.start(1), m.end(1), found))
        elif m[0] in b"{[":
            if lists:
                path.append("*" if lists[-1] else key)
            lists.append(m[0] == b"[")
        else:
            lists.pop()
            if lists:
                path.pop()
    return spans


def _cut_alike(written: bytes, labels: dict[str, str], images: tuple[bytes, ...], uid: bool = False,
               created: bool = False, annotations: Any = None, generated: bool = False, hostname: bool = False) -> bool:
    """Whether `written_key` cut the name, the node, the labels as a whole, each image, the uid, creation time,
    generateName and hostname the text writes (`uid`, `created`, `generated`, `hostname`), and no other value but
    the values of its `annotations` (the view's: the same for every pod of the text, or a template's holes,
    `_annotation_holes`) and its volumes' names."""
    cut = b'"labels":{%s}' % b",".join(_json(label) + b":\0" for label in labels) if labels else b""
    fixed = written.count(b"\0V")         # (`_volume_names_cut`'s: a volume's name and its mounts')
    if annotations:
        texts = _annotations_texts(bytes(annotations))
        fixed += texts[1].count(b"\0") if texts is not None and written.find(texts[1]) != -1 else 0
    return written.count(b"\0") == 2 + len(labels) + len(images) + uid + created + generated + hostname + fixed \
        and written.find(cut) != -1 and sum(written.count(cut) for cut in set(images)) == len(images) \
        and (not uid or written.find(b'"uid":\0') != -1) \
        and (not created or written.find(b'"creationTimestamp":\0') != -1) \
        and (not hostname or written.find(b'"hostname":\0H') != -1) \
        and (not generated or written.find(b'"generateName":\0') != -1)


# -- patches ---------------------------------------------------------------------------------
class _Set:
    """Write this value. The pods of a shape share it (what admission wrote alike into each):
    admitted objects are never changed in place, as loaded ones are not."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class _Uid(_Set):
    """The uid admission generates for a pod written without one: the pod's own."""

    __slots__ = ("make",)

    def __init__(self, value: Any, make: Callable[[dict], str]) -> None:
        super().__init__(value)
        self.make = make


@dataclass
class Patch:
    """Changes to one mapping (`keys`) or list (`indexes`), each a `_Set` or a nested Patch, in the
    admitted value's order (new keys last, as admission appended them)."""

    is_dict: bool
    changes: list[tuple[Any, "Patch | _Set"]] = field(default_factory=list)
    _ops: list[tuple[int, Any, Any]] | None = field(default=None, repr=False)
    _function: Callable[[dict, dict], dict] | None = field(default=None, repr=False)
    _template: dict | None = field(default=None, repr=False)
    _own: tuple[Any, ...] = field(default=(), repr=False)

    def _prepare(self) -> list[tuple[int, Any, Any]]:
        ops: list[tuple[int, Any, Any]] = []
        for key, change in self.changes:
            if type(change) is Patch:
                ops.append((2, key, change))
            elif type(change) is _Set and self.is_dict:
                if ops and ops[-1][0] == 0:
                    ops[-1][2][key] = change.value
                else:
                    ops.append((0, None, {key: change.value}))
            else:
                ops.append((1, key, change))
        self._ops = ops
        return ops

    def compiled(self) -> Callable[[dict, dict], dict]:
        """The patch as one straight-line function (`_compile`), made on first use: `f(value, pod)`."""
        if self._function is None:
            self._function = _compile(self)
        return self._function


def _compile(patch: Patch) -> Callable[[dict, dict], dict]:
    """The patch as one function without a call per level (150,000 pods go through it); keys and values
    are the closure's constants (`c<i>`), so nothing written in a manifest becomes code."""
    consts: list[Any] = []
    lines = ["    def apply(v0, pod):"]
    names = iter(range(1, 1 << 30))

    def const(value: Any) -> str:
        consts.append(value)
        return f"c{len(consts) - 1}"

    def fresh(change: _Set) -> str:
        if type(change) is _Uid:
            return f"{const(change.make)}(pod)"      # (one call less per pod than `fresh`)
        return const(change.value)

    def emit(node: Patch, source: str, out: str) -> None:
        if node._template is not None:
            lines.append(f"        {out} = {const(node._template)}.copy()")
            for key in node._own:
                lines.append(f"        {out}[{const(key)}] = {source}[{const(key)}]")
            for key, change in node.changes:
                if type(change) is Patch:
                    nested(key, change, source, out)
            return
        lines.append(f"        {out} = {source}.copy()")
        for op, key, payload in node._ops if node._ops is not None else node._prepare():
            if op == 0:
                lines.append(f"        {out}.update({const(payload)})")
            elif op == 2:
                nested(key, payload, source, out)
            else:
                lines.append(f"        {out}[{const(key)}] = {fresh(payload)}")
    def nested(key: Any, change: Patch, source: str, out: str) -> None:
        n = next(names)
        lines.append(f"        s{n} = {source}[{const(key)}]")
        emit(change, f"s{n}", f"o{n}")
        lines.append(f"        {out}[{const(key)}] = o{n}")
    emit(patch, "v0", "o0")
    lines.append("        return o0")
    lines.append("    return apply")
    cells = "".join(f"c{i}, " for i in range(len(consts)))
    lines[:0] = ["def make(C):", f"    {cells} = C" if consts else "    pass"]
    namespace: dict[str, Any] = {}
    exec(_code("\n".join(lines)), namespace)     # noqa: S102 - code made here, of constants only
    return namespace["make"](consts)         # type: ignore[no-any-return]


@lru_cache(maxsize=256)
def _code(source: str) -> CodeType:
    """The compiled source of a patch function: the shapes of one load mostly have patches of
    one form (the same keys set, their values in `C`), so the same text, compiled once."""
    return compile(source, "<patch>", "exec")


def _same(a: Any, b: Any) -> bool:
    """Equal values of equal types, mappings in equal key order. A string, integer or boolean
    is compared as it is (its `==` is exact within its type), anything else by its repr."""
    if type(a) is not type(b):
        return False
    return a == b if type(a) in _EXACT else repr(a) == repr(b)


_EXACT = (str, int, bool)


def diff(before: Any, after: Any) -> Patch | _Set | None:
    """What turns `before` into `after`: None when nothing; a Patch when `after` keeps the
    keys of `before` in their order (new ones after them) or a list its length; else a _Set."""
    if type(before) is not type(after):
        return _Set(after)
    if type(after) is dict:
        keys = list(after)
        if keys[:len(before)] != list(before):
            return _Set(after)
        patch = Patch(True)
        for key in keys:
            change = diff(before[key], after[key]) if key in before else _Set(after[key])
            if change is not None:
                patch.changes.append((key, change))
        return patch if patch.changes else None
    if type(after) is list:
        if len(after) != len(before):
            return _Set(after)
        patch = Patch(False)
        for i, (b, a) in enumerate(zip(before, after)):
            change = diff(b, a)
            if change is not None:
                patch.changes.append((i, change))
        return patch if patch.changes else None
    return None if _same(before, after) else _Set(after)


def _leaks(change: Patch | _Set) -> bool:
    """Does the patch write a placeholder anywhere (admission copied one)?"""
    if type(change) is Patch:
        return any(_leaks(c) for _, c in change.changes)   # type: ignore[union-attr]
    return _holds_placeholder(change.value)   # type: ignore[union-attr]


def make_patch(written: dict, admitted: dict, make_uid: Callable[[dict], str]) -> Patch | None:
    """The patch that turns any pod of `written`'s shape into its admitted self, or None when none
    replays exactly. A uid admission added is `make_uid(pod)`."""
    change = diff(written, admitted)
    if change is None:
        return Patch(True)
    if type(change) is not Patch:
        return None
    meta_written = written.get("metadata")
    for key, meta_change in change.changes:
        if key == "metadata" and type(meta_change) is Patch and not meta_written.get("uid"):
            meta_change.changes = [(k, _Uid(c.value, make_uid) if k == "uid" and type(c) is _Set else c)
                                   for k, c in meta_change.changes]
    _share_alike(change, written, admitted)
    _templated(change, written, admitted)
    if _leaks(change) or not _same(change.compiled()(written, written), admitted):
        return None
    return change


def _share_alike(patch: Patch, written: Any, admitted: Any) -> None:
    """Changes to parts holding nothing of a pod's own made settings of the admitted part itself: shared."""
    for i, (key, change) in enumerate(patch.changes):
        if type(change) is not Patch:
            continue
        if _own(written[key]):
            _share_alike(change, written[key], admitted[key])
        else:
            patch.changes[i] = (key, _Set(admitted[key]))


def _templated(patch: Patch, written: Any, admitted: Any) -> None:
    """Mappings changed by more plain values than they hold of the pod's own, made from the admitted
    mapping with the pod's own values and patched parts written back: one copy at its final size, not
    one that grows."""
    for key, change in patch.changes:
        if type(change) is Patch:
            _templated(change, written[key], admitted[key])
    if patch.is_dict and all(type(change) is _Set or type(change) is Patch for _, change in patch.changes):
        changed = {key for key, _ in patch.changes}
        own = tuple(key for key in written if key not in changed and _own(written[key]))
        if len(own) < sum(type(change) is _Set for _, change in patch.changes):
            patch._template, patch._own = admitted, own


def _own(value: Any) -> bool:
    """Whether a part of a canonical pod holds something of each pod's own (a placeholder)."""
    return value is STATUS or _holds_placeholder(value)


# What each placeholder holds: the common prefix of all but CREATED, and CREATED
_MARKS = ("kexplain-placeholder-", CREATED)
assert all(any(mark in p for mark in _MARKS) for p in PLACEHOLDERS)
_MARK_BYTES = tuple(mark.encode() for mark in _MARKS)


def _holds_placeholder(value: Any) -> bool:
    """Whether a placeholder is written anywhere in `value`, asked loosely of its encoding (`shape_key`):
    a false yes only costs speed, never a wrong value."""
    encoded = shape_key(value)
    if encoded is None:
        text = repr(value)
        return _MARKS[0] in text or _MARKS[1] in text
    return _MARK_BYTES[0] in encoded or _MARK_BYTES[1] in encoded


def images_own(canonical_pod: dict) -> bool:
    """Whether the pods of a shape (its `canonical` pod) may differ in their containers' images."""
    spec = canonical_pod.get("spec")
    return type(spec) is dict and any(type(c) is dict and c.get("image") in _IMAGES
                                      for field in IMAGED if type(spec.get(field)) is list for c in spec[field])


def volumes_own(canonical_pod: dict) -> bool:
    """Whether the pods of a shape (its `canonical` pod) may differ in their volumes' names (and so in
    their containers' mounts)."""
    volumes = canonical_pod["spec"].get("volumes")
    return type(volumes) is list and any(type(v) is dict and v.get("name") in _VOLUME_SET for v in volumes)


_VOLUME_SET = frozenset(VOLUMES)


def holds_own(canonical_pod: dict, field: str) -> bool:
    """Whether the pods of a shape (its `canonical` pod) may differ in a metadata `field` (their
    labels): it holds a placeholder."""
    meta = canonical_pod.get("metadata")
    return type(meta) is not dict or _own(meta.get(field))
