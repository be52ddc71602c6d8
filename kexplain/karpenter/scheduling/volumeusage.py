"""CSI volume limits as Karpenter tracks them per node (pkg/scheduling/volumeusage.go)."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.karpenter.errors import (
    PERSISTENT_VOLUME_CLAIMS, PERSISTENT_VOLUMES, STORAGE_CLASSES, GoError, NotFound, StructuredError,
    is_not_found, wrap,
)
from kexplain.plugins.volumes import AWS_EBS, VolumeIndex, claim_of_volume, name_of, namespace_of, plugin_by_name, spec

ERR_EXCEEDS_VOLUME_LIMIT = "would exceed volume limit"

Obj = Mapping[str, Any]
# Volumes: CSI driver -> the claims (`namespace/name`) using it.
Volumes = dict[str, set[str]]


def get_persistent_volume_claim(index: VolumeIndex, pod, volume: Obj) -> tuple[Obj | None, GoError | None]:
    """utils/volume.GetPersistentVolumeClaim: the claim a pod volume uses (a generic ephemeral
    volume's is `<pod>-<volume>`); (None, None) for a volume without one."""
    ref = claim_of_volume(pod, volume)
    if ref is None:
        return None, None
    name = ref[0]
    pvc = index.pvc(pod.namespace, name)
    if pvc is None:
        return None, StructuredError(wrap("getting persistent volume claim", NotFound(PERSISTENT_VOLUME_CLAIMS, name)),
                                     {"PersistentVolumeClaim": name})
    return pvc, None


def storage_class_name(pvc: Obj) -> str:
    """`lo.FromPtr(pvc.Spec.StorageClassName)`: the field alone, no beta annotation."""
    return spec(pvc).get("storageClassName") or ""


def claim_key(pvc: Obj) -> str:
    """client.ObjectKeyFromObject(pvc).String()."""
    return f"{namespace_of(pvc)}/{name_of(pvc)}"


def get_volumes(index: VolumeIndex, pod) -> tuple[Volumes, GoError | None]:
    """GetVolumes: the pod's claims by driver. A missing claim is skipped (Karpenter logs it);
    a bound claim whose volume is missing is an error."""
    pod_pvcs: Volumes = {}
    if not pod.may_use_claims:      # (its volumes' text names no claim: not decoded, nothing to find)
        return pod_pvcs, None
    for volume in pod.volumes or ():
        if not isinstance(volume, Mapping):
            continue
        pvc, err = get_persistent_volume_claim(index, pod, volume)
        if err is not None:
            if is_not_found(err):
                continue
            return {}, wrap("failed updating volume limits", err)
        if pvc is None:
            continue
        driver, err = resolve_driver(index, pvc, storage_class_name(pvc))
        if err is not None:
            return {}, err
        if driver:
            pod_pvcs.setdefault(driver, set()).add(claim_key(pvc))
    return pod_pvcs, None


def resolve_driver(index: VolumeIndex, pvc: Obj, class_name: str) -> tuple[str, GoError | None]:
    """ResolveDriver: the bound volume's driver, else the class's provisioner; "" when neither
    says (no class, a class that is gone, a volume of another kind)."""
    volume_name = spec(pvc).get("volumeName") or ""
    if volume_name:
        return driver_from_volume(index, volume_name)
    if not class_name:
        return "", None
    driver, err = driver_from_sc(index, class_name)
    if err is not None:
        return "", None if is_not_found(err) else err
    return driver, None


def driver_from_sc(index: VolumeIndex, class_name: str) -> tuple[str, GoError | None]:
    sc = index.storage_class(class_name)
    if sc is None:
        return "", NotFound(STORAGE_CLASSES, class_name)
    provisioner = sc.get("provisioner") or ""
    plugin = plugin_by_name(provisioner)
    return (plugin.driver if plugin is not None else provisioner), None


def driver_from_volume(index: VolumeIndex, volume_name: str) -> tuple[str, GoError | None]:
    pv = index.pv(volume_name)
    if pv is None:
        return "", NotFound(PERSISTENT_VOLUMES, volume_name)
    pv_spec = spec(pv)
    if isinstance(pv_spec.get("csi"), Mapping):
        return pv_spec["csi"].get("driver") or "", None
    if isinstance(pv_spec.get(AWS_EBS.source), Mapping):
        return AWS_EBS.driver, None
    return "", None


def volume_limits(csinode: Obj | None) -> dict[str, int]:
    """The limits state gives a node (Cluster.populateVolumeLimits): per driver of its CSINode
    with `allocatable`, its count (0 without one)."""
    limits: dict[str, int] = {}
    for driver in spec(csinode).get("drivers") or ():
        allocatable = driver.get("allocatable")
        if allocatable is None:
            continue
        limits[driver.get("name") or ""] = int(allocatable.get("count") or 0)
    return limits


def union(a: Volumes, b: Volumes) -> Volumes:
    out = {k: set(v) for k, v in a.items()}
    for k, v in b.items():
        out.setdefault(k, set()).update(v)
    return out


class VolumeUsage:
    """The claims a node's pods mount, per driver and per pod, and the node's limits."""

    __slots__ = ("volumes", "pod_volumes", "limits")

    def __init__(self) -> None:
        self.volumes: Volumes = {}
        self.pod_volumes: dict[tuple[str, str], Volumes] = {}
        self.limits: dict[str, int] = {}

    def exceeds_limits(self, vols: Volumes) -> StructuredError | None:
        """The first driver whose claims, with `vols`, would be more than its limit (Go walks a
        map: with several over, the one named here is the first by driver name)."""
        merged = union(self.volumes, vols)
        for driver in sorted(merged):
            limit = self.limits.get(driver)
            if limit is not None and len(merged[driver]) > limit:
                return StructuredError(ERR_EXCEEDS_VOLUME_LIMIT, {
                    "provisioner": driver, "volume-count": len(merged[driver]), "volume-limit": limit})
        return None

    def add_limit(self, storage_driver: str, value: int) -> None:
        self.limits[storage_driver] = value

    def add(self, pod, volumes: Volumes) -> None:
        self.pod_volumes[(pod.namespace, pod.name)] = volumes
        self.volumes = union(self.volumes, volumes)

    def deep_copy(self) -> "VolumeUsage":
        out = VolumeUsage()
        out.volumes = {k: set(v) for k, v in self.volumes.items()}
        out.pod_volumes = {p: {k: set(v) for k, v in vols.items()} for p, vols in self.pod_volumes.items()}
        out.limits = dict(self.limits)
        return out
