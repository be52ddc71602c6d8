"""ValidateNode, ValidateNamespace, ValidatePersistentVolumeClaim (create), ValidatePersistentVolume."""
from __future__ import annotations

import math
import posixpath
import re

from kexplain.apimachinery import quantity
from kexplain.apimachinery.fielderrors import (FieldError, duplicate, forbidden, go_quote, invalid, not_supported, required,
                                               too_long)
from kexplain.apimachinery.names import is_dns1123_label, is_dns1123_subdomain, is_label_key, is_label_value, validate_label_name
from kexplain.admission.validate_common import (kube_finalizer_errors, taint_repr, validate_label_selector, validate_node_selector,
                              validate_object_meta, validate_quantity_value, validate_taint_effect)

ACCESS_MODES = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"]
VOLUME_MODES = ["Block", "Filesystem"]
RECLAIM_POLICIES = ["Delete", "Recycle", "Retain"]
_PV_SOURCES = ("hostPath", "gcePersistentDisk", "awsElasticBlockStore", "glusterfs", "flocker", "nfs", "rbd",
               "quobyte", "cephfs", "iscsi", "cinder", "fc", "flexVolume", "azureFile", "vsphereVolume",
               "photonPersistentDisk", "portworxVolume", "azureDisk", "scaleIO", "local", "storageos", "csi")


def validate_node(node: dict) -> list[FieldError]:
    """ValidateNode (taints are reported under metadata.taints, as Go does)."""
    meta = node.get("metadata") or {}
    spec = node.get("spec") or {}
    status = node.get("status") or {}
    errs = validate_object_meta(meta, False, is_dns1123_subdomain)
    taints = [t for t in spec.get("taints") or [] if isinstance(t, dict)]
    seen: dict[str, set[str]] = {}
    for i, taint in enumerate(taints):
        p = f"metadata.taints[{i}]"
        key, effect = taint.get("key") or "", taint.get("effect") or ""
        errs += validate_label_name(key, f"{p}.key")
        msgs = is_label_value(taint.get("value") or "")
        if msgs:
            errs.append(invalid(f"{p}.value", taint.get("value") or "", ";".join(msgs)))
        errs += validate_taint_effect(effect, False, f"{p}.effect")
        if key in seen.get(effect, set()):
            errs.append(duplicate(p, taint_repr(taint), detail="taints must be unique by key and effect pair"))
            continue
        seen.setdefault(effect, set()).add(key)
    for field in ("capacity", "allocatable"):
        for name, raw in (status.get(field) or {}).items():
            errs += validate_quantity_value(name, raw, f"status.{field}.{name}")
    return errs + _declared_features([f for f in status.get("declaredFeatures") or [] if isinstance(f, str)])


_FEATURE_NAME = re.compile(r"[A-Z][a-zA-Z0-9]*(/[a-zA-Z][a-zA-Z0-9]*)*")


def _declared_features(features: list[str]) -> list[FieldError]:
    """validateNodeDeclaredFeatures: at most 253 characters, UpperCamelCase segments separated by
    '/', sorted, unique (before 1.36, `gated_fields` drops them)."""
    errs: list[FieldError] = []
    for i, feature in enumerate(features):
        p = f"status.declaredFeatures[{i}]"
        if len(feature) > 253:
            errs.append(invalid(p, feature, f"invalid feature name {go_quote(feature)}: must be no more than 253 characters"))
        elif not _FEATURE_NAME.fullmatch(feature):
            errs.append(invalid(p, feature, f"invalid feature name {go_quote(feature)}: must start with an UpperCamelCase "
                                "segment, with subsequent segments separated by '/' (e.g., MyFeature or "
                                "MyFeature/mySubFeature), and contain only alphanumeric characters and slashes"))
        if i + 1 < len(features):
            following = features[i + 1]
            if feature == following:
                errs.append(duplicate(f"status.declaredFeatures[{i + 1}]", following))
            elif feature > following:
                errs.append(invalid(f"status.declaredFeatures[{i + 1}]", following, "list must be sorted alphabetically"))
    return errs


def validate_namespace(ns: dict) -> list[FieldError]:
    meta = ns.get("metadata") or {}
    errs = validate_object_meta(meta, False, is_dns1123_label)
    for fin in (ns.get("spec") or {}).get("finalizers") or []:
        errs += [invalid("spec.finalizers", fin, m) for m in is_label_key(fin)]
        errs += kube_finalizer_errors(fin, "spec.finalizers")
    return errs


def _access_modes(modes: list, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    rwop = other = False
    for mode in modes:
        if mode not in ACCESS_MODES:
            errs.append(not_supported(path, mode, ACCESS_MODES))
        if mode == "ReadWriteOncePod":
            rwop = True
        elif mode in ACCESS_MODES:
            other = True
    if rwop and other:
        errs.append(forbidden(path, "may not use ReadWriteOncePod with other access modes"))
    return errs


def validate_pvc(pvc: dict) -> list[FieldError]:
    """ValidatePersistentVolumeClaim with the create options."""
    meta = pvc.get("metadata") or {}
    spec = pvc.get("spec") or {}
    errs = validate_object_meta(meta, True, is_dns1123_subdomain)
    modes = spec.get("accessModes") or []
    if not modes:
        errs.append(required("spec.accessModes", "at least 1 access mode is required"))
    if isinstance(spec.get("selector"), dict):
        errs += validate_label_selector(spec["selector"], "spec.selector")
    errs += _access_modes(modes, "spec.accessModes")
    requests = (spec.get("resources") or {}).get("requests") or {}
    path = "spec.resources[storage]"
    if "storage" not in requests:
        errs.append(required(path))
    else:
        q = quantity.parse(requests["storage"])
        if q.value <= 0:
            errs.append(invalid(path, quantity.canonical(q), "must be greater than zero"))
        else:
            errs += validate_quantity_value("storage", requests["storage"], path)
    class_name = spec.get("storageClassName")
    if class_name:
        errs += [invalid("spec.storageClassName", class_name, m) for m in is_dns1123_subdomain(class_name)]
    mode = spec.get("volumeMode")
    if mode is not None and mode not in VOLUME_MODES:
        errs.append(not_supported("spec.volumeMode", mode, VOLUME_MODES))
    vac = spec.get("volumeAttributesClassName")
    if vac:
        errs += [invalid("spec.volumeAttributesClassName", vac, m) for m in is_dns1123_subdomain(vac)]
    return errs


def validate_pv(pv: dict) -> list[FieldError]:
    """ValidatePersistentVolume (not inline)."""
    meta = pv.get("metadata") or {}
    spec = pv.get("spec") or {}
    errs = validate_object_meta(meta, False, is_dns1123_subdomain)
    modes = spec.get("accessModes") or []
    if not modes:
        errs.append(required("spec.accessModes"))
    errs += _access_modes(modes, "spec.accessModes")
    capacity = spec.get("capacity") or {}
    if not capacity:
        errs.append(required("spec.capacity"))
    if "storage" not in capacity or len(capacity) > 1:
        shown = None if spec.get("capacity") is None else {k: quantity.text_of(capacity[k]) for k in sorted(capacity)}
        errs.append(not_supported("spec.capacity", shown, ["storage"]))
    for name, raw in capacity.items():
        q = quantity.parse(raw)
        if q.value < 0:
            errs.append(invalid(f"spec.capacity[{name}]", math.ceil(q.value), "must be a valid resource quantity"))
        if q.value <= 0:
            errs.append(invalid(f"spec.capacity[{name}]", quantity.canonical(q), "must be greater than zero"))
    policy = spec.get("persistentVolumeReclaimPolicy") or ""
    if policy and policy not in RECLAIM_POLICIES:
        errs.append(not_supported("spec.persistentVolumeReclaimPolicy", policy, RECLAIM_POLICIES))
    node_affinity_set = False
    if spec.get("nodeAffinity") is not None:
        node_affinity_set = True
        required_sel = (spec.get("nodeAffinity") or {}).get("required")
        if isinstance(required_sel, dict):
            errs += validate_node_selector(required_sel, "spec.nodeAffinity.required")
        else:
            errs.append(required("spec.nodeAffinity.required", "must specify required node constraints"))
    count = 0
    for kind in _PV_SOURCES:
        src = spec.get(kind)
        if src is None:
            continue
        if count:
            errs.append(forbidden(f"spec.{kind}", "may not specify more than 1 volume type"))
            continue
        count += 1
        src = src if isinstance(src, dict) else {}
        if kind in ("hostPath", "local"):
            if not src.get("path"):
                errs.append(required(f"spec.{kind}.path"))
            elif ".." in src["path"].split("/"):
                errs.append(invalid(f"spec.{kind}.path", src["path"], "must not contain '..'"))
            if kind == "local" and not node_affinity_set:
                errs.append(required("spec.nodeAffinity", "Local volume requires node affinity"))
        elif kind == "csi":
            driver = src.get("driver") or ""
            if not driver:
                errs.append(required("spec.csi.driver"))
            else:
                if len(driver) > 63:
                    errs.append(too_long("spec.csi.driver", 63))
                errs += [invalid("spec.csi.driver", driver, m) for m in is_dns1123_subdomain(driver.lower())]
            if not src.get("volumeHandle"):
                errs.append(required("spec.csi.volumeHandle"))
    if count == 0:
        errs.append(required("spec", "must specify a volume type"))
    host_path = spec.get("hostPath")
    if isinstance(host_path, dict) and posixpath.normpath(host_path.get("path") or ".") == "/" \
            and policy == "Recycle":
        errs.append(forbidden("spec.persistentVolumeReclaimPolicy", "may not be 'recycle' for a hostPath mount of '/'"))
    class_name = spec.get("storageClassName") or ""
    if class_name:
        errs += [invalid("spec.storageClassName", class_name, m) for m in is_dns1123_subdomain(class_name)]
    mode = spec.get("volumeMode")
    if mode is not None and mode not in VOLUME_MODES:
        errs.append(not_supported("spec.volumeMode", mode, VOLUME_MODES))
    return errs
