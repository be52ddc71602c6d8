"""Small constructors for the volume plugin tests: nodes, pods, claims, volumes, classes
and CSINodes as plain dicts, and a cluster snapshot with a handle around it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from kexplain.errors import Source
from kexplain.framework.cycle_state import CycleState
from kexplain.framework.status import Status
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot

ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"


def node(name: str, labels: Mapping[str, str] | None = None) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {HOSTNAME: name, **(labels or {})}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def claim_volume(claim: str, name: str | None = None) -> dict[str, Any]:
    return {"name": name or f"v-{claim}", "persistentVolumeClaim": {"claimName": claim}}


def ephemeral_volume(name: str) -> dict[str, Any]:
    return {"name": name, "ephemeral": {"volumeClaimTemplate": {"spec": {
        "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}}}


def gce_volume(pd: str, read_only: bool = False, name: str | None = None) -> dict[str, Any]:
    return {"name": name or f"gce-{pd}", "gcePersistentDisk": {"pdName": pd, "readOnly": read_only}}


def pod(name: str = "p", volumes: Iterable[Mapping[str, Any]] = (), node_name: str = "",
        namespace: str = "default", uid: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "busybox"}],
                            "volumes": [dict(v) for v in volumes]}
    if node_name:
        spec["nodeName"] = node_name
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "uid": uid or f"uid-{namespace}-{name}"},
            "spec": spec, "status": {"phase": "Running" if node_name else "Pending"}}


def pvc(name: str, storage_class: str | None = "standard", volume_name: str = "",
        bound: bool | None = None, modes: Iterable[str] = ("ReadWriteOnce",), request: str = "1Gi",
        namespace: str = "default", annotations: Mapping[str, str] | None = None,
        deleting: bool = False, phase: str | None = None, selector: Mapping[str, Any] | None = None,
        volume_mode: str | None = None, owner_uid: str | None = None, uid: str | None = None) -> dict[str, Any]:
    """A claim; `bound` (default: whether volume_name is set) adds the bind-completed annotation."""
    ann = dict(annotations or {})
    if bound if bound is not None else bool(volume_name):
        ann["pv.kubernetes.io/bind-completed"] = "yes"
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "annotations": ann,
                            "uid": uid or f"uid-pvc-{namespace}-{name}"}
    if deleting:
        meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    if owner_uid:
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": "owner",
                                    "uid": owner_uid, "controller": True}]
    spec: dict[str, Any] = {"accessModes": list(modes), "resources": {"requests": {"storage": request}}}
    if storage_class is not None:
        spec["storageClassName"] = storage_class
    if volume_name:
        spec["volumeName"] = volume_name
    if selector is not None:
        spec["selector"] = dict(selector)
    if volume_mode:
        spec["volumeMode"] = volume_mode
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec,
            "status": {"phase": phase or ("Bound" if volume_name else "Pending")}}


def pv(name: str, storage_class: str = "standard", capacity: str = "10Gi",
       modes: Iterable[str] = ("ReadWriteOnce",), affinity: Mapping[str, Iterable[str]] | None = None,
       labels: Mapping[str, str] | None = None, claim_ref: tuple[str, str] | None = None,
       phase: str = "Available", csi: tuple[str, str] | None = None,
       source: Mapping[str, Any] | None = None, volume_mode: str | None = None,
       deleting: bool = False) -> dict[str, Any]:
    """A volume; `affinity` is one required term of `key In values` requirements."""
    spec: dict[str, Any] = {"capacity": {"storage": capacity}, "accessModes": list(modes),
                            "storageClassName": storage_class}
    if affinity is not None:
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": k, "operator": "In", "values": list(v)} for k, v in affinity.items()]}]}}
    if claim_ref:
        spec["claimRef"] = {"namespace": claim_ref[0], "name": claim_ref[1]}
    if csi:
        spec["csi"] = {"driver": csi[0], "volumeHandle": csi[1]}
    if source:
        spec.update(source)
    if volume_mode:
        spec["volumeMode"] = volume_mode
    meta: dict[str, Any] = {"name": name, "labels": dict(labels or {})}
    if deleting:
        meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": meta, "spec": spec,
            "status": {"phase": phase}}


def storage_class(name: str = "standard", provisioner: str = "pd.csi.storage.gke.io",
                  mode: str | None = "Immediate",
                  allowed_zones: Iterable[str] | None = None) -> dict[str, Any]:
    sc: dict[str, Any] = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                          "metadata": {"name": name}, "provisioner": provisioner}
    if mode is not None:
        sc["volumeBindingMode"] = mode
    if allowed_zones is not None:
        sc["allowedTopologies"] = [{"matchLabelExpressions": [{"key": ZONE, "values": list(allowed_zones)}]}]
    return sc


def csinode(name: str, limits: Mapping[str, int | None] | None = None,
            migrated: str | None = None) -> dict[str, Any]:
    drivers = []
    for driver, count in (limits or {}).items():
        d: dict[str, Any] = {"name": driver, "nodeID": name}
        if count is not None:
            d["allocatable"] = {"count": count}
        drivers.append(d)
    meta: dict[str, Any] = {"name": name}
    if migrated is not None:
        meta["annotations"] = {"storage.alpha.kubernetes.io/migrated-plugins": migrated}
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": meta,
            "spec": {"drivers": drivers}}


@dataclass
class Handle:
    snapshot: Snapshot
    profile_name: str = "default-scheduler"


def cluster(nodes: Iterable[dict], pods: Iterable[dict] = (), others: Iterable[dict] = ()) -> Handle:
    snap = Snapshot.build([(n, Source("test")) for n in nodes], list(pods), list(others))
    return Handle(snap)


def status_tuple(s: Status) -> tuple[str, tuple[str, ...]]:
    return s.code.value, s.reasons


def run_filters(plugin_cls, handle: Handle, pending: dict, args: Mapping | None = None):
    """PreFilter once, then Filter on every node: (prefilter status, {node: status}, state)."""
    plugin = plugin_cls(dict(args or {}), handle)
    state = CycleState()
    info = PodInfo(pending)
    _, pre = plugin.pre_filter(state, info, handle.snapshot.node_infos)
    per_node = {}
    if pre.is_success:
        per_node = {ni.name: status_tuple(plugin.filter(state, info, ni)) for ni in handle.snapshot.node_infos}
    return status_tuple(pre), per_node, state
