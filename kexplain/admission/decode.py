"""Decoding strictness: does a known kind decode into its Go type at all?

The API server decodes JSON into typed structs; a string where an int belongs, a list where a
mapping belongs, or a quantity that does not parse makes the whole request fail before
admission, with the decoder's error (`json: cannot unmarshal string into Go struct field
DeploymentSpec.spec.replicas of type int32`). `check_fields` asks that of every object a command
reads that the API server has not stored already, with the walk lint's schema check uses
(`kexplain.admission.openapi.ApiIndex.decode_problems`): explain and lint refuse the same objects with
the same words. `check_decodes` then walks the fields the scheduler and admission read with a
small schema, making the values what the model reads (YAML's `1.0` an int, a null list item
the zero value); an object that does not decode there (one already stored, not checked before)
is refused with the API server's words too.

Unknown fields are `check_fields`' business as well: kubectl asks for strict field validation
by default (`--validate=strict`), and the API server then refuses an object with a field its
schema does not define (`strict decoding error: unknown field "spec.x"`); with
`--validate=warn` it drops them with a warning, with `ignore` silently. A decoding error comes
first: the API server reports it, not the unknown fields.
"""
from __future__ import annotations

import copy
import datetime
from collections.abc import Mapping
from itertools import repeat
from typing import Any

from kexplain.errors import InputError, Source, clip, describe

from kexplain.admission import dra_convert
from kexplain.apimachinery import quantity
from kexplain.apimachinery.fielderrors import go_quote
from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion
from kexplain.admission.openapi import (RFC3339, _key_text, _timestamp_text, builtin_index, go_time_parse_error,
                                        unknown_field_warning, unknown_fields_error)

STR, INT, BOOL, NUM, QTY, TIME, INTSTR, ANY = "str", "int", "bool", "num", "qty", "time", "intstr", "any"


def m(schema: Any) -> tuple[str, Any]:
    """map[string]schema."""
    return ("map", schema)


LABEL_SELECTOR = {
    "matchLabels": m(STR),
    "matchExpressions": [{"key": STR, "operator": STR, "values": [STR]}],
}
NODE_SELECTOR_REQ = {"key": STR, "operator": STR, "values": [STR]}
NODE_SELECTOR = {"nodeSelectorTerms": [{"matchExpressions": [NODE_SELECTOR_REQ],
                                        "matchFields": [NODE_SELECTOR_REQ]}]}
POD_AFFINITY_TERM = {
    "labelSelector": LABEL_SELECTOR, "namespaceSelector": LABEL_SELECTOR, "namespaces": [STR],
    "topologyKey": STR, "matchLabelKeys": [STR], "mismatchLabelKeys": [STR],
}
POD_AFFINITY = {
    "requiredDuringSchedulingIgnoredDuringExecution": [POD_AFFINITY_TERM],
    "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": INT, "podAffinityTerm": POD_AFFINITY_TERM}],
}
AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": NODE_SELECTOR,
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": INT, "preference": {"matchExpressions": [NODE_SELECTOR_REQ],
                                           "matchFields": [NODE_SELECTOR_REQ]}}],
    },
    "podAffinity": POD_AFFINITY,
    "podAntiAffinity": POD_AFFINITY,
}
TOLERATION = {"key": STR, "operator": STR, "value": STR, "effect": STR, "tolerationSeconds": INT}
TAINT = {"key": STR, "value": STR, "effect": STR, "timeAdded": TIME}
RESOURCES = {"requests": m(QTY), "limits": m(QTY), "claims": [{"name": STR, "request": STR}]}
CONTAINER = {
    "name": STR, "image": STR, "imagePullPolicy": STR, "command": [STR], "args": [STR],
    "ports": [{"name": STR, "containerPort": INT, "hostPort": INT, "hostIP": STR, "protocol": STR}],
    "resources": RESOURCES, "restartPolicy": STR,
    "volumeMounts": [{"name": STR, "mountPath": STR, "subPath": STR, "readOnly": BOOL}],
    "volumeDevices": [{"name": STR, "devicePath": STR}],
    "terminationMessagePath": STR, "terminationMessagePolicy": STR,
    "resizePolicy": [{"resourceName": STR, "restartPolicy": STR}],
    "restartPolicyRules": [{"action": STR, "exitCodes": {"operator": STR, "values": [INT]}}],
}
PVC_SPEC = {
    "accessModes": [STR], "selector": LABEL_SELECTOR, "resources": RESOURCES, "volumeName": STR,
    "storageClassName": STR, "volumeMode": STR, "volumeAttributesClassName": STR,
}
VOLUME = {
    "name": STR,
    "persistentVolumeClaim": {"claimName": STR, "readOnly": BOOL},
    "emptyDir": {"medium": STR, "sizeLimit": QTY},
    "hostPath": {"path": STR, "type": STR},
    "ephemeral": {"volumeClaimTemplate": {"metadata": ANY, "spec": PVC_SPEC}},
    "csi": {"driver": STR, "readOnly": BOOL},
    "image": {"reference": STR, "pullPolicy": STR},
}
METADATA = {
    "name": STR, "generateName": STR, "namespace": STR, "uid": STR, "resourceVersion": STR,
    "labels": m(STR), "annotations": m(STR), "creationTimestamp": TIME, "deletionTimestamp": TIME,
    "finalizers": [STR], "generation": INT,
    "ownerReferences": [{"apiVersion": STR, "kind": STR, "name": STR, "uid": STR, "controller": BOOL,
                         "blockOwnerDeletion": BOOL}],
}
POD = {
    "metadata": METADATA,
    "spec": {
        "containers": [CONTAINER], "initContainers": [CONTAINER], "ephemeralContainers": [ANY],
        "volumes": [VOLUME], "nodeName": STR, "nodeSelector": m(STR), "affinity": AFFINITY,
        "tolerations": [TOLERATION], "schedulerName": STR, "priorityClassName": STR, "priority": INT,
        "preemptionPolicy": STR, "runtimeClassName": STR, "overhead": m(QTY), "hostNetwork": BOOL,
        "hostPID": BOOL, "hostIPC": BOOL, "hostUsers": BOOL,
        "topologySpreadConstraints": [{
            "maxSkew": INT, "topologyKey": STR, "whenUnsatisfiable": STR, "labelSelector": LABEL_SELECTOR,
            "minDomains": INT, "nodeAffinityPolicy": STR, "nodeTaintsPolicy": STR, "matchLabelKeys": [STR]}],
        "schedulingGates": [{"name": STR}], "resources": RESOURCES, "restartPolicy": STR,
        "dnsPolicy": STR, "terminationGracePeriodSeconds": INT, "activeDeadlineSeconds": INT,
        "enableServiceLinks": BOOL, "serviceAccountName": STR, "hostname": STR, "subdomain": STR,
        "securityContext": ANY, "os": {"name": STR},
        "resourceClaims": [{"name": STR, "resourceClaimName": STR, "resourceClaimTemplateName": STR}],
    },
    "status": {"phase": STR, "nominatedNodeName": STR, "startTime": TIME,
               "resourceClaimStatuses": [{"name": STR, "resourceClaimName": STR}]},
}
NODE = {
    "metadata": METADATA,
    "spec": {"taints": [TAINT], "unschedulable": BOOL, "podCIDR": STR, "podCIDRs": [STR], "providerID": STR},
    "status": {
        "capacity": m(QTY), "allocatable": m(QTY),
        "images": [{"names": [STR], "sizeBytes": INT}],
        "conditions": [{"type": STR, "status": STR}],
        "declaredFeatures": [STR],
    },
}
PVC = {"metadata": METADATA, "spec": PVC_SPEC,
       "status": {"phase": STR, "capacity": m(QTY), "accessModes": [STR]}}
PV = {
    "metadata": METADATA,
    "spec": {
        "capacity": m(QTY), "accessModes": [STR], "storageClassName": STR, "volumeMode": STR,
        "persistentVolumeReclaimPolicy": STR, "nodeAffinity": {"required": NODE_SELECTOR},
        "claimRef": {"kind": STR, "namespace": STR, "name": STR, "uid": STR, "apiVersion": STR},
        "csi": {"driver": STR, "volumeHandle": STR, "fsType": STR, "readOnly": BOOL},
        "local": {"path": STR, "fsType": STR}, "hostPath": {"path": STR, "type": STR},
    },
    "status": {"phase": STR},
}
STORAGE_CLASS = {
    "metadata": METADATA, "provisioner": STR, "parameters": m(STR), "reclaimPolicy": STR,
    "volumeBindingMode": STR, "allowVolumeExpansion": BOOL,
    "allowedTopologies": [{"matchLabelExpressions": [{"key": STR, "values": [STR]}]}],
}
PRIORITY_CLASS = {"metadata": METADATA, "value": INT, "globalDefault": BOOL, "preemptionPolicy": STR,
                  "description": STR}
NAMESPACE = {"metadata": METADATA, "spec": {"finalizers": [STR]}, "status": {"phase": STR}}
RUNTIME_CLASS = {"metadata": METADATA, "handler": STR, "overhead": {"podFixed": m(QTY)},
                 "scheduling": {"nodeSelector": m(STR), "tolerations": [TOLERATION]}}
PDB = {"metadata": METADATA, "spec": {"selector": LABEL_SELECTOR, "minAvailable": INTSTR,
                                       "maxUnavailable": INTSTR},
       "status": {"disruptionsAllowed": INT, "currentHealthy": INT, "desiredHealthy": INT,
                  "expectedPods": INT}}
CSI_NODE = {"metadata": METADATA, "spec": {"drivers": [{"name": STR, "nodeID": STR, "topologyKeys": [STR],
                                                        "allocatable": {"count": INT}}]}}
SERVICE = {"metadata": METADATA, "spec": {"selector": m(STR), "type": STR}}
WORKLOAD = {"metadata": METADATA, "spec": {"selector": LABEL_SELECTOR, "replicas": INT}}
RC = {"metadata": METADATA, "spec": {"selector": m(STR), "replicas": INT}}
# resource.k8s.io/v1 (DRA), the internal form other versions are converted to first
# (`kexplain.admission.dra_convert`): what admission and the allocator read.
DRA_SELECTOR = {"cel": {"expression": STR}}
DRA_OPAQUE = {"opaque": {"driver": STR, "parameters": ANY}}
DEVICE_TOLERATION = {"key": STR, "operator": STR, "value": STR, "effect": STR, "tolerationSeconds": INT}
DEVICE_TAINT = {"key": STR, "value": STR, "effect": STR, "timeAdded": TIME}
_DEVICE_SUBREQUEST = {"deviceClassName": STR, "selectors": [DRA_SELECTOR], "allocationMode": STR, "count": INT,
                      "tolerations": [DEVICE_TOLERATION], "capacity": {"requests": m(QTY)}}
EXACT_DEVICE_REQUEST = {**_DEVICE_SUBREQUEST, "adminAccess": BOOL}
DEVICE_CLAIM = {
    "requests": [{"name": STR, "exactly": EXACT_DEVICE_REQUEST,
                  "firstAvailable": [{"name": STR, **_DEVICE_SUBREQUEST}]}],
    "constraints": [{"requests": [STR], "matchAttribute": STR, "distinctAttribute": STR}],
    "config": [{"requests": [STR], **DRA_OPAQUE}],
}
RESOURCE_CLAIM_SPEC = {"devices": DEVICE_CLAIM}
RESOURCE_CLAIM = {
    "metadata": METADATA, "spec": RESOURCE_CLAIM_SPEC,
    "status": {
        "allocation": {
            "devices": {
                "results": [{"request": STR, "driver": STR, "pool": STR, "device": STR, "adminAccess": BOOL,
                             "tolerations": [DEVICE_TOLERATION], "bindingConditions": [STR],
                             "bindingFailureConditions": [STR], "shareID": STR, "consumedCapacity": m(QTY)}],
                "config": [{"source": STR, "requests": [STR], **DRA_OPAQUE}],
            },
            "nodeSelector": NODE_SELECTOR, "allocationTimestamp": TIME,
        },
        "reservedFor": [{"apiGroup": STR, "resource": STR, "name": STR, "uid": STR}],
        "devices": [ANY],
    },
}
RESOURCE_CLAIM_TEMPLATE = {"metadata": METADATA,
                           "spec": {"metadata": {"labels": m(STR), "annotations": m(STR)}, "spec": RESOURCE_CLAIM_SPEC}}
DEVICE = {
    "name": STR, "attributes": m({"int": INT, "bool": BOOL, "string": STR, "version": STR}),
    "capacity": m({"value": QTY, "requestPolicy": ANY}), "taints": [DEVICE_TAINT], "consumesCounters": ANY,
    "nodeName": STR, "nodeSelector": NODE_SELECTOR, "allNodes": BOOL, "bindsToNode": BOOL,
    "bindingConditions": [STR], "bindingFailureConditions": [STR], "allowMultipleAllocations": BOOL,
}
RESOURCE_SLICE = {
    "metadata": METADATA,
    "spec": {"driver": STR, "pool": {"name": STR, "generation": INT, "resourceSliceCount": INT},
             "nodeName": STR, "nodeSelector": NODE_SELECTOR, "allNodes": BOOL, "perDeviceNodeSelection": BOOL,
             "devices": [DEVICE], "sharedCounters": ANY},
}
DEVICE_CLASS = {"metadata": METADATA,
                "spec": {"selectors": [DRA_SELECTOR], "config": [DRA_OPAQUE], "extendedResourceName": STR}}
DRA_KINDS = frozenset({"DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate"})

SCHEMAS: dict[str, dict] = {
    "Pod": POD, "Node": NODE, "PersistentVolumeClaim": PVC, "PersistentVolume": PV,
    "StorageClass": STORAGE_CLASS, "PriorityClass": PRIORITY_CLASS, "Namespace": NAMESPACE,
    "RuntimeClass": RUNTIME_CLASS, "PodDisruptionBudget": PDB, "CSINode": CSI_NODE, "Service": SERVICE,
    "ReplicaSet": WORKLOAD, "StatefulSet": WORKLOAD, "ReplicationController": RC,
    "DeviceClass": DEVICE_CLASS, "ResourceSlice": RESOURCE_SLICE, "ResourceClaim": RESOURCE_CLAIM,
    "ResourceClaimTemplate": RESOURCE_CLAIM_TEMPLATE,
}

_TYPE_NAMES = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
               list: "a list", dict: "a mapping"}


def _got(value: Any) -> str:
    for typ, name in _TYPE_NAMES.items():
        if isinstance(value, typ):
            return name
    if isinstance(value, (datetime.date, datetime.datetime)):
        return "a timestamp"
    return type(value).__name__


def _zero(schema: Any) -> Any:
    """What Go's JSON decoding makes of a `null` list item or map value: the element type's
    zero value (an empty struct, "", 0, false, a zero quantity); None for nested lists and maps."""
    if isinstance(schema, dict):
        return {}
    return {STR: "", INT: 0, BOOL: False, NUM: 0, QTY: "0"}.get(schema) if isinstance(schema, str) else None


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _check(value: Any, schema: Any, path: str, obj: dict, source: Source) -> Any:
    """Check `value` against `schema`; returns it, integral floats made ints (YAML `1.0` is JSON `1`).
    A mapping, map or list schema is told by its type first (most calls are for those: no
    comparison with each leaf name on the way)."""
    if value is None:
        return value
    kind = type(schema)
    if kind is dict:
        if not isinstance(value, dict):
            raise _expected("a mapping", value, path, obj, source)
        for name, sub in schema.items():
            if name in value:
                item = value[name]
                if type(sub) is str and type(item) in _KEPT.get(sub, ()):
                    continue
                value[name] = _check(item, sub, _join(path, name), obj, source)
    elif kind is tuple:
        return _check_map(value, schema[1], path, obj, source)
    elif kind is list:
        return _check_list(value, schema[0], path, obj, source)
    elif schema == ANY:
        return value
    elif schema == STR:
        if not isinstance(value, str):
            if isinstance(value, (datetime.date, datetime.datetime)):     # kubectl sends it as written
                return _timestamp_text(value)
            raise _expected("a string", value, path, obj, source)
    elif schema in (INT, INTSTR):
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if schema == INTSTR and isinstance(value, (datetime.date, datetime.datetime)):
            return _timestamp_text(value)
        if isinstance(value, bool) or not isinstance(value, (int, str) if schema == INTSTR else int):
            raise _expected("an integer or a string" if schema == INTSTR else "an integer", value, path, obj, source)
    elif schema == BOOL:
        if not isinstance(value, bool):
            raise _expected("a boolean", value, path, obj, source)
    elif schema == TIME:
        if not isinstance(value, (str, datetime.date, datetime.datetime)):
            raise _expected("a timestamp string", value, path, obj, source)
        problem = go_time_parse_error(RFC3339, _timestamp_text(value))     # metav1.Time's time.Parse
        if problem is not None:
            raise InputError(problem, source=source, obj=obj, field=path)
    elif schema == QTY:
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise _expected("a quantity (a string or a number)", value, path, obj, source)
        try:
            quantity.parse(value)
        except quantity.QuantityError as exc:
            shown = go_quote(clip(value)) if isinstance(value, str) else value
            raise InputError(f"invalid quantity {shown}: {exc}", source=source, obj=obj, field=path) from None
    return value


_STRS = repeat(str)     # (`isinstance`'s second argument, for as many keys as `map` asks)
# The types a leaf schema keeps as they are (`_check` returns the value itself): looked up
# before calling it for each item and field (most values are of these types).
_KEPT = {STR: (str,), INT: (int,), INTSTR: (int, str), BOOL: (bool,)}
_KEPT_SETS = {sub: frozenset(types) for sub, types in _KEPT.items()}
_STR_SET = _KEPT_SETS[STR]
# Quantity and time texts found to decode (bounded: then no more entries): a cluster's nodes
# repeat theirs.
_QUANTITY_TEXTS: set[str] = set()
_TIME_TEXTS: set[str] = set()
_TEXTS_MAX = 10_000


def _check_map(value: Any, sub: Any, path: str, obj: dict, source: Source) -> Any:
    """`_check` of a map (string keys, every value of schema `sub`)."""
    if not isinstance(value, dict):
        raise _expected("a mapping", value, path, obj, source)
    if not all(map(isinstance, value, _STRS)):     # YAML's `1:`: kubectl sends "1" (asked in C)
        keyed = {_key_text(key): item for key, item in value.items()}
        value.clear()
        value.update(keyed)
    kept = _KEPT.get(sub, ()) if type(sub) is str else ()
    if kept and _KEPT_SETS[sub].issuperset(map(type, value.values())):
        return value        # (labels, annotations: every value's type asked at once, in C)
    texts = sub == QTY      # (a resource list: each text parsed here, no call of `_check` each)
    if texts and _STR_SET.issuperset(map(type, value.values())) and _QUANTITY_TEXTS.issuperset(value.values()):
        return value        # (every text one parsed before)
    for key in list(value):
        if type(value[key]) in kept or (texts and type(value[key]) is str and _quantity_text(value[key])):
            continue
        if value[key] is None:
            value[key] = _zero(sub)
        value[key] = _check(value[key], sub, _join(path, key), obj, source)
    return value


def _check_list(value: Any, sub: Any, path: str, obj: dict, source: Source) -> Any:
    """`_check` of a list (every item of schema `sub`)."""
    if not isinstance(value, list):
        raise _expected("a list", value, path, obj, source)
    kept = _KEPT.get(sub, ()) if type(sub) is str else ()
    if kept and _KEPT_SETS[sub].issuperset(map(type, value)):
        return value
    for i, item in enumerate(value):
        if type(item) in kept:
            continue
        if item is None:
            item = _zero(sub)
        value[i] = _check(item, sub, f"{path}[{i}]", obj, source)
    return value


def _quantity_text(text: str) -> bool:
    """Whether a quantity written as a string parses (what `_check` asks of it, which keeps the
    string as it is): a node's or a container's resource list, one parse per text."""
    if text in _QUANTITY_TEXTS:
        return True
    try:
        quantity.parse_text(text)
    except quantity.QuantityError:
        return False
    if len(_QUANTITY_TEXTS) < _TEXTS_MAX:
        _QUANTITY_TEXTS.add(text)
    return True


def _time_text(text: str) -> bool:
    """Whether a time written as a string decodes (what `_check` asks of a TIME): metav1.Time's
    time.Parse, one parse per text (a node's conditions repeat theirs)."""
    if text in _TIME_TEXTS:
        return True

    if go_time_parse_error(RFC3339, text) is not None:
        return False
    if len(_TIME_TEXTS) < _TEXTS_MAX:
        _TIME_TEXTS.add(text)
    return True


_LEAF_UNCHANGED = {
    ANY: None, NUM: None,               # (anything: `_check` looks at neither)
    STR: lambda v: type(v) is str,
    INT: lambda v: type(v) is int,
    INTSTR: lambda v: type(v) is int or type(v) is str,
    BOOL: lambda v: type(v) is bool,
    TIME: lambda v: type(v) is str and _time_text(v),
    QTY: lambda v: type(v) is str and _quantity_text(v),
}


def _unchanged(schema: Any) -> Any:
    """`_check` compiled into a yes/no walk: whether it would find nothing wrong in a value of
    `schema` (never None; a mapping, map or list may be) and change none of it; None for a
    schema that takes anything. Stricter where that is simpler (a timestamp object, a number
    for a quantity, a null list item: no), never looser: `check_decodes` walks with `_check`
    whatever it says no to. What a cluster's many nodes are asked, each value at a glance."""
    kind = type(schema)
    if kind is dict:
        below = {name: (_KEPT.get(sub, ()) if type(sub) is str else (), _unchanged(sub))
                 for name, sub in schema.items()}
        below = {name: entry for name, entry in below.items() if entry[1] is not None}

        def mapping(v: Any) -> bool:
            if type(v) is not dict:
                return v is None
            for key, value in v.items():
                found = below.get(key)
                if found is not None and value is not None and type(value) not in found[0] and not found[1](value):
                    return False
            return True
        return mapping
    if kind is tuple or kind is list:
        sub = schema[1] if kind is tuple else schema[0]
        kept = _KEPT_SETS.get(sub, frozenset()) if type(sub) is str else frozenset()
        each = _unchanged(sub) or _any_but_none
        many = dict if kind is tuple else list

        def items(v: Any) -> bool:
            if type(v) is not many:
                return v is None
            values = v.values() if many is dict else v
            if many is dict and not _STR_SET.issuperset(map(type, v)):
                return False        # (a key that is not a string: `_check` makes it one)
            if kept and kept.issuperset(map(type, values)):
                return True
            return all(value is not None and each(value) for value in values)   # (a null: made the zero value)
        return items
    return _LEAF_UNCHANGED.get(schema, _no)


def _any_but_none(value: Any) -> bool:
    return value is not None


def _no(value: Any) -> bool:
    return False


_UNCHANGED: dict[str, Any] = {}     # kind -> `_unchanged` of its `SCHEMAS` entry, compiled when first asked


def _expected(what: str, value: Any, path: str, obj: dict, source: Source) -> InputError:
    """The decoder's words for a value of the wrong type (made only when one is found: `_check`
    runs for every field of every object read)."""
    return InputError(f"expected {what}, got {_got(value)}", source=source, obj=obj, field=path)


def check_decodes(obj: dict, source: Source, kube: KubeVersion = DEFAULT_VERSION) -> None:
    """Raise InputError when `obj` (a copy, of a known kind) would not decode into its Go type:
    the API server's decoding error (`decode_error`), or what the model cannot read, as
    `kube`'s API server decodes it (its versions of the kind).

    Integral floats in integer fields are turned into ints in place, as YAML-to-JSON does, and
    YAML timestamps in string fields into the strings kubectl sends. A DRA object is checked in
    the internal form (admission converts it first, `dra_convert`; one not converted yet is
    checked as a converted copy).
    """
    if obj["kind"] in DRA_KINDS and obj.get("apiVersion") != dra_convert.INTERNAL:
        if not dra_convert.reads(obj.get("apiVersion"), obj["kind"], kube.minor):
            raise InputError(dra_version_error(obj, kube), source=source, obj=obj, field="apiVersion")
        check_decodes(dra_convert.decode(copy.deepcopy(obj), defaults=False, minor=kube.minor), source, kube)
        return
    if decodes_unchanged(obj):
        return
    try:
        _check(obj, SCHEMAS[obj["kind"]], "", obj, source)
    except InputError as err:
        raise decode_error(obj, source, kube) or err from None


def decodes_unchanged(obj: dict) -> bool:
    """Whether `check_decodes` would find nothing wrong in `obj` (an object of a known kind, not
    DRA's: those are converted first) and change none of it, by the compiled yes/no walk
    (`_unchanged`): yes for nearly every object as written; no may still decode."""
    kind = obj["kind"]
    unchanged = _UNCHANGED.get(kind)
    if unchanged is None:
        unchanged = _UNCHANGED[kind] = _unchanged(SCHEMAS[kind])
    return unchanged(obj)  # type: ignore[no-any-return]


def status_decodes(pod: Mapping[str, Any], valid_times: set[str] | None = None) -> bool:
    """Whether `check_decodes` would find nothing wrong in a pod's status and change none of it
    (for a pod whose rest decodes as its shape's first did: `kexplain.admission.shapes`, where
    the status is not part of the shape). Texts and times known valid (`valid_times`, which
    it adds to) are taken at a glance; anything else is checked on a copy: the pod is never
    changed."""
    status = pod.get("status")
    if status is None:
        return True
    if type(status) is not dict:
        return False
    for key, value in status.items():      # (its own few fields, not the schema's many)
        sub = _POD_STATUS.get(key)
        if sub is None or value is None or (sub == STR and type(value) is str) or (
                sub == TIME and valid_times is not None and type(value) is str and value in valid_times):
            continue
        break
    else:
        return True
    checked = dict(status)
    try:
        _check(checked, _POD_STATUS, "status", pod, _NOWHERE)
    except InputError:
        return False
    if valid_times is not None:
        valid_times.update(status[key] for key, sub in _POD_STATUS.items()
                           if sub == TIME and type(status.get(key)) is str)
    return all(checked[key] is status[key] for key in _POD_STATUS if key in checked)


_NOWHERE = Source("<status>")
_POD_STATUS = POD["status"]


def dra_version_error(obj: dict, kube: KubeVersion = DEFAULT_VERSION) -> str:
    """Why a DRA object at a version kexplain does not convert (an alpha one) is not read."""
    readable = ", ".join(sorted(dra_convert.READ_AS.get(kube.minor, dra_convert.READ_AS[DEFAULT_VERSION.minor])))
    return (f"{obj.get('apiVersion') or 'no apiVersion'} {obj['kind']} is not read: write it as "
            f"{dra_convert.INTERNAL} (kexplain reads {readable})")


def decode_error(obj: dict, source: Source, kube: KubeVersion = DEFAULT_VERSION) -> InputError | None:
    """The API server's decoding error for `obj` (a built-in kind) as an InputError naming the
    field, or None when it decodes; an unserved or missing apiVersion is read as the kind's
    first served one (in `kube`'s API server)."""
    try:
        refused = builtin_index(kube.minor).decode_error(obj.get("apiVersion"), obj.get("kind"), obj)
    except RecursionError:
        return InputError("object is nested too deeply", source=source, obj=obj)
    if refused is None:
        return None
    return InputError(refused.message, source=source, obj=obj, field=refused.dotted or None)


def check_fields(obj: dict, source: Source, validate: str, kube: KubeVersion = DEFAULT_VERSION) -> list[str]:
    """`kube`'s kube-apiserver's decoding of `obj` (a create request) with the field validation kubectl
    asks for: an object that does not decode into its Go type raises InputError (the decoder's
    error, naming the field), whatever `validate` says. Then `validate` strict raises InputError
    naming every unknown field (the API server's message; the field too when there is one);
    warn returns one warning per unknown field (its warning's text, after the file and the
    object); ignore returns []."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return []
    try:
        refused, paths = builtin_index(kube.minor).decode_problems(api_version, kind, obj, unknown=validate != "ignore")
    except RecursionError:
        raise InputError("object is nested too deeply", source=source, obj=obj) from None
    if refused is not None:
        raise InputError(refused.message, source=source, obj=obj, field=refused.dotted or None)
    if not paths:
        return []
    if validate == "strict":
        raise InputError(unknown_fields_error(paths), source=source, obj=obj,
                         field=paths[0] if len(paths) == 1 else None)
    return [f"{source}: {describe(obj)}: {p}: {unknown_field_warning(p)}" for p in paths]
