"""Where a pod's volumes let it run, as Karpenter works it out before scheduling
(controllers/provisioning/scheduling/volumetopology.go)."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from kexplain.apimachinery.labels import ANN_BIND_COMPLETED, LABEL_HOSTNAME
from kexplain.karpenter.errors import (
    PERSISTENT_VOLUMES, STORAGE_CLASSES, GoError, NotFound, StructuredError, wrap,
)
from kexplain.karpenter.scheduling.requirements import Requirements, new_node_selector_requirements, new_requirements
from kexplain.karpenter.scheduling.volumeusage import (claim_key, get_persistent_volume_claim, resolve_driver,
                                                      storage_class_name)
from kexplain.plugins.volumes import CLAIM_LOST, VolumeIndex, meta, name_of, spec

Obj = Mapping[str, Any]

VOLUME_BINDING_IMMEDIATE = "Immediate"

# Karpenter's core leaves both empty and the AWS provider adds none; kept so the checks read as Go's.
UNSUPPORTED_PROVISIONERS: frozenset[str] = frozenset()
UNSUPPORTED_TOPOLOGY_KEYS: frozenset[str] = frozenset()

ERR_PVC_DELETING = "persistentvolumeclaim is being deleted"
ERR_PVC_LOST = "persistentvolumeclaim bound to non-existent persistentvolume"
ERR_PV_DELETING = "persistentvolume is being deleted"
ERR_NOT_BIND_COMPLETED = "pvc is considered unbound because it does not contain annotation"
ERR_NO_STORAGE_CLASS = "unbound pvc must define a storage class"
ERR_IMMEDIATE_UNBOUND = "failed to validate pvc, pvc with immediate volume binding mode must be bound"
ERR_UNSUPPORTED_TOPOLOGY_KEY = "failed to validate pvc, storage class uses unsupported topology key"
ERR_UNSUPPORTED_PROVISIONER = "failed to validate pvc, provisioner is not supported"

# One alternative: None is Go's nil Requirements (no constraint at all).
Alternative = Requirements | None


class VolumeTopology:
    """Reads the cluster's claims, volumes and classes (kexplain's one index of them)."""

    def __init__(self, index: VolumeIndex) -> None:
        self.index = index

    # -- requirements -------------------------------------------------------------------------
    def get_requirements(self, pod) -> tuple[list[Requirements] | None, GoError | None]:
        """GetRequirements: the alternatives, None when the volumes constrain nothing; an error
        (a claim, volume or class that cannot be read) keeps the pod out of scheduling."""
        alternatives: list[Alternative] = [None]
        for volume in pod.spec.get("volumes") or ():
            if not isinstance(volume, Mapping):
                continue
            vol_alts, err = self._get_requirements(pod, volume)
            if err is not None:
                return None, err
            if not vol_alts:
                continue
            alternatives = merge_volume_requirement_alternatives(alternatives, vol_alts)
        if len(alternatives) == 1 and alternatives[0] is None:
            return None, None
        return [a for a in alternatives if a is not None], None   # merged: never None

    def _get_requirements(self, pod, volume: Obj) -> tuple[list[Requirements], GoError | None]:
        pvc, err = get_persistent_volume_claim(self.index, pod, volume)
        if err is not None:
            return [], wrap("discovering persistent volume claim", err)
        if pvc is None:
            return [], None
        volume_name = spec(pvc).get("volumeName") or ""
        if volume_name:
            reqs, err = self._get_persistent_volume_requirements(volume_name)
            if err is not None:
                return [], wrap("getting existing requirements", err)
            return reqs, None
        class_name = storage_class_name(pvc)
        if class_name:
            return self._get_storage_class_requirements(class_name)
        return [], None

    def _get_storage_class_requirements(self, class_name: str) -> tuple[list[Requirements], GoError | None]:
        sc = self.index.storage_class(class_name)
        if sc is None:
            return [], StructuredError(wrap("getting storage class", NotFound(STORAGE_CLASSES, class_name)),
                                       {"StorageClass": class_name})
        alternatives = []
        for term in sc.get("allowedTopologies") or ():
            reqs = [{"key": e.get("key") or "", "operator": "In", "values": list(e.get("values") or ())}
                    for e in term.get("matchLabelExpressions") or ()]
            if reqs:
                alternatives.append(new_node_selector_requirements(reqs))
        return alternatives, None

    def _get_persistent_volume_requirements(self, volume_name: str) -> tuple[list[Requirements], GoError | None]:
        pv = self.index.pv(volume_name)
        if pv is None:
            return [], StructuredError(wrap("getting persistent volume", NotFound(PERSISTENT_VOLUMES, volume_name)),
                                       {"PersistentVolume": volume_name})
        required = (spec(pv).get("nodeAffinity") or {}).get("required")
        if required is None:
            return [], None
        local = spec(pv).get("local") is not None or spec(pv).get("hostPath") is not None
        alternatives = []
        for term in required.get("nodeSelectorTerms") or ():
            expressions = list(term.get("matchExpressions") or ())
            if local:
                kept = [e for e in expressions if e.get("key") != LABEL_HOSTNAME]
                if expressions and not kept:
                    # a hostname-only term: the pod moves to a new node, so it constrains nothing
                    alternatives.append(new_requirements())
                    continue
                expressions = kept
            if expressions:
                alternatives.append(new_node_selector_requirements(expressions))
        return alternatives, None

    # -- validation ---------------------------------------------------------------------------
    def validate_persistent_volume_claims(self, pod) -> GoError | None:
        """ValidatePersistentVolumeClaims: the first claim of the pod Karpenter cannot provision
        for, as its error; None when every claim is fine."""
        for volume in pod.spec.get("volumes") or ():
            if not isinstance(volume, Mapping):
                continue
            pvc, err = get_persistent_volume_claim(self.index, pod, volume)
            if err is not None:
                return err
            if pvc is None:
                continue
            ref = claim_key(pvc)       # (klog.KObj's text: `namespace/name`)
            if meta(pvc).get("deletionTimestamp"):
                return StructuredError(ERR_PVC_DELETING, {"PersistentVolumeClaim": ref})
            volume_name = spec(pvc).get("volumeName") or ""
            if ((pvc.get("status") or {}).get("phase")) == CLAIM_LOST:
                return StructuredError(ERR_PVC_LOST, {"PersistentVolumeClaim": ref, "PersistentVolume": volume_name})
            class_name = storage_class_name(pvc)
            if volume_name:
                err = self._validate_volume(volume_name)
                if err is not None:
                    return StructuredError(wrap("failed to validate pvc", err), {
                        "PersistentVolumeClaim": ref, "PersistentVolume": volume_name, "StorageClass": class_name})
                if ANN_BIND_COMPLETED not in (meta(pvc).get("annotations") or {}):
                    return StructuredError(ERR_NOT_BIND_COMPLETED, {
                        "annotation": ANN_BIND_COMPLETED, "PersistentVolumeClaim": name_of(pvc),
                        "PersistentVolume": volume_name})
            else:
                if not class_name:
                    return StructuredError(ERR_NO_STORAGE_CLASS, {"PersistentVolumeClaim": ref, "StorageClass": class_name})
                sc = self.index.storage_class(class_name)
                if sc is None:
                    return StructuredError(
                        wrap("failed to validate pvc, failed to get storage class", NotFound(STORAGE_CLASSES, class_name)),
                        {"PersistentVolumeClaim": ref, "StorageClass": class_name})
                if sc.get("volumeBindingMode") == VOLUME_BINDING_IMMEDIATE:
                    return StructuredError(ERR_IMMEDIATE_UNBOUND, {"PersistentVolumeClaim": ref, "StorageClass": class_name})
                for term in sc.get("allowedTopologies") or ():
                    for expr in term.get("matchLabelExpressions") or ():
                        if expr.get("key") in UNSUPPORTED_TOPOLOGY_KEYS:
                            return StructuredError(ERR_UNSUPPORTED_TOPOLOGY_KEY, {
                                "PersistentVolumeClaim": ref, "StorageClass": class_name, "TopologyKey": expr.get("key")})
            driver, err = resolve_driver(self.index, pvc, class_name)
            if err is not None:
                return StructuredError(wrap("failed to validate pvc", err), {"PersistentVolumeClaim": ref,
                                                                             "StorageClass": class_name})
            if driver in UNSUPPORTED_PROVISIONERS:
                return StructuredError(ERR_UNSUPPORTED_PROVISIONER, {
                    "PersistentVolumeClaim": ref, "StorageClass": class_name, "Provisioner": driver})
        return None

    def _validate_volume(self, volume_name: str) -> GoError | None:
        pv = self.index.pv(volume_name)
        if pv is None:
            return NotFound(PERSISTENT_VOLUMES, volume_name)
        if meta(pv).get("deletionTimestamp"):
            return GoError(ERR_PV_DELETING)
        return None


# -- combining several volumes' alternatives -------------------------------------------------

def merge_volume_requirement_alternatives(alternatives: Sequence[Alternative],
                                          vol_alts: Sequence[Requirements]) -> list[Alternative]:
    """The cross product, keeping the combinations that intersect; every combination when none
    does (the scheduler then reports the conflict)."""
    merged = [merge_volume_requirements(e, v) for e in alternatives for v in vol_alts
              if volume_requirements_compatible(e, v)]
    if merged:
        return merged
    return [merge_volume_requirements(e, v) for e in alternatives for v in vol_alts]


def volume_requirements_compatible(existing: Alternative, vol_req: Alternative) -> bool:
    if existing is None or vol_req is None:
        return True
    return existing.intersects(vol_req) is None


def merge_volume_requirements(existing: Alternative, vol_req: Requirements) -> Requirements:
    merged = new_requirements()
    if existing is not None:
        merged.add(*existing.values())
    merged.add(*vol_req.values())
    return merged
