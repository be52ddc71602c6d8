"""Why VolumeBinding's PreFilter turns a pod away for every node: each claim at fault, in volume
order, with one `cause` (missing, classMissing, noDefaultClass, noClass, noMatchingVolume,
volumeNotBound; docs/internals/plugins.md), kexplain's facts beside the trace, never in the
scheduler's message (whose words name neither the claim nor the cause)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kexplain.apimachinery.display import format_quantity
from kexplain.apimachinery.labels import DEFAULT_STORAGE_CLASS_ANNOTATIONS
from kexplain.plugins.volumes import (
    ANN_BETA_STORAGE_CLASS, NOT_SUPPORTED_PROVISIONER, WAIT_FOR_FIRST_CONSUMER, VolumeIndex, access_modes,
    annotations, binding_mode, claim_class, claim_of_volume, is_fully_bound, pod_volumes, spec, storage_request,
)

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.plugins.volumes import Obj

MISSING = "missing"
CLASS_MISSING = "classMissing"
NO_DEFAULT_CLASS = "noDefaultClass"
NO_CLASS = "noClass"
NO_MATCHING_VOLUME = "noMatchingVolume"
VOLUME_NOT_BOUND = "volumeNotBound"


def default_classes(idx: VolumeIndex) -> list[str]:
    """The StorageClasses marked default (the annotation, or its beta form, "true"), by name."""
    return sorted(name for name, sc in idx.classes.items()
                  if any(annotations(sc).get(a) == "true" for a in DEFAULT_STORAGE_CLASS_ANNOTATIONS))


def _asks_no_class(pvc: "Obj") -> bool:
    """The claim names no class at all (neither the field nor the beta annotation)."""
    return ANN_BETA_STORAGE_CLASS not in annotations(pvc) and spec(pvc).get("storageClassName") is None


def unbound_claims(idx: VolumeIndex, pod: Any, candidates: Any) -> list[dict[str, Any]]:
    """The facts of each claim of `pod` that keeps VolumeBinding's PreFilter from passing (missing, or
    unbound and not waiting); `candidates(pvc)`: the free volumes that could bind it."""
    out: list[dict[str, Any]] = []
    for vol in pod_volumes(pod):
        ref = claim_of_volume(pod, vol)
        if ref is None:
            continue
        entry: dict[str, Any] = {"volume": str(vol.get("name") or ""), "claim": f"{pod.namespace}/{ref[0]}"}
        if ref[1]:
            entry["ephemeral"] = True
        pvc = idx.pvc(pod.namespace, ref[0])
        if pvc is None:
            out.append({**entry, "cause": MISSING})
            continue
        if is_fully_bound(pvc):
            continue
        cls = claim_class(pvc)
        sc = idx.storage_class(cls) if cls else None
        if sc is not None and binding_mode(sc) == WAIT_FOR_FIRST_CONSUMER and not spec(pvc).get("volumeName"):
            continue            # waits for the pod: Filter's business, node by node
        entry["request"] = format_quantity("storage", storage_request(pvc))
        entry["accessModes"] = list(access_modes(pvc))
        if spec(pvc).get("volumeName"):
            name = str(spec(pvc)["volumeName"])
            pv = idx.pv(name)
            entry.update(cause=VOLUME_NOT_BOUND, volumeName=name, volumeExists=pv is not None)
            if pv is not None and isinstance(spec(pv).get("claimRef"), dict):
                ref_to = spec(pv)["claimRef"]
                entry["volumeClaimRef"] = f"{ref_to.get('namespace') or ''}/{ref_to.get('name') or ''}"
        elif cls and sc is None:
            entry.update(cause=CLASS_MISSING, storageClass=cls)
        elif not cls and _asks_no_class(pvc):
            entry.update(cause=NO_DEFAULT_CLASS, defaultClasses=default_classes(idx))
        elif not cls:
            entry.update(cause=NO_CLASS, matchingVolumes=len(candidates(pvc)))
        else:
            entry.update(cause=NO_MATCHING_VOLUME, storageClass=cls, bindingMode=binding_mode(sc),
                         matchingVolumes=len(candidates(pvc)))
            provisioner = str(sc.get("provisioner") or "") if sc is not None else ""
            if provisioner and provisioner != NOT_SUPPORTED_PROVISIONER:
                entry["provisioner"] = provisioner
        out.append(entry)
    return out


def claim_name(entry: dict[str, Any]) -> str:
    """The claim's name without its namespace."""
    return str(entry.get("claim") or "").split("/", 1)[-1]


__all__ = ["CLASS_MISSING", "MISSING", "NO_CLASS", "NO_DEFAULT_CLASS", "NO_MATCHING_VOLUME", "VOLUME_NOT_BOUND",
           "claim_name", "default_classes", "unbound_claims"]
