"""core/v1 scheme defaulting (SetObjectDefaults_*) for the kinds the scheduler reads.

The scheduler sees objects after this step: a container with only a limit
requests that limit, a node without allocatable offers its capacity, a claim
has a volumeMode. Only fields that something downstream (scheduling or
validation) reads are defaulted; all work is done in place on copies.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from kexplain.admission.template_defaults import default_pod_spec_scalars
from kexplain.apimachinery import quantity
from kexplain.apimachinery.labels import LABEL_METADATA_NAME
from kexplain.apimachinery.quantity import Quantity
from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion
from kexplain.model.resources import HUGEPAGES_PREFIX, is_native_resource

POD_LEVEL_RESOURCES = ("cpu", "memory")


def spec_of(obj: dict) -> dict:
    """obj['spec'], created when absent or null."""
    if not isinstance(obj.get("spec"), dict):
        obj["spec"] = {}
    return obj["spec"]


def meta_of(obj: dict) -> dict:
    """obj['metadata'], created when absent or null."""
    if not isinstance(obj.get("metadata"), dict):
        obj["metadata"] = {}
    return obj["metadata"]


def round_resource_list(rl: Any) -> None:
    """SetDefaults_ResourceList: round every value up to milli precision (text kept when unchanged)."""
    if not isinstance(rl, dict):
        return
    for name, raw in list(rl.items()):
        rounded = _rounded_text(raw) if type(raw) is str else _rounded(raw)
        if rounded is not None:
            rl[name] = rounded


def _rounded(raw: Any) -> str | None:
    """The canonical text of `raw` rounded up to milli precision, None when it needs none."""
    q = quantity.parse(raw)
    rounded = quantity.round_up_milli(q)
    if raw is None or rounded.value != q.value:
        return quantity.canonical(rounded)
    return None


@lru_cache(maxsize=4096)
def _rounded_text(raw: str) -> str | None:
    """`_rounded` of a text: the same few texts recur on every node and container of a cluster."""
    return _rounded(raw)


def _image_tag(image: str) -> str:
    """The tag parsers.ParseImageName finds ("latest" when there is neither tag nor digest)."""
    if "@" in image:
        image, _, _ = image.partition("@")
        last = image.rsplit("/", 1)[-1]
        return last.partition(":")[2]
    last = image.rsplit("/", 1)[-1]
    tag = last.partition(":")[2]
    return tag or "latest"


def _default_container(c: dict, host_network: bool) -> None:
    if not c.get("imagePullPolicy"):
        c["imagePullPolicy"] = "Always" if _image_tag(c.get("image") or "") == "latest" else "IfNotPresent"
    if not c.get("terminationMessagePath"):
        c["terminationMessagePath"] = "/dev/termination-log"
    if not c.get("terminationMessagePolicy"):
        c["terminationMessagePolicy"] = "File"
    for port in c.get("ports") or []:
        if isinstance(port, dict):
            if not port.get("protocol"):
                port["protocol"] = "TCP"
            if host_network and not port.get("hostPort"):
                port["hostPort"] = port.get("containerPort") or 0
    res = c.get("resources")
    if isinstance(res, dict):
        round_resource_list(res.get("limits"))
        round_resource_list(res.get("requests"))


def _requests_from_limits(c: dict) -> None:
    """SetDefaults_Pod: a resource with a limit and no request requests its limit."""
    res = c.get("resources")
    if not isinstance(res, dict) or res.get("limits") is None:
        return
    if res.get("requests") is None:
        res["requests"] = {}
    for name, value in res["limits"].items():
        if name not in res["requests"]:
            res["requests"][name] = value


def _add(acc: dict[str, Quantity], rl: dict | None) -> None:
    for name, raw in (rl or {}).items():
        q = quantity.parse(raw)
        acc[name] = Quantity(acc[name].value + q.value, acc[name].fmt) if name in acc else q


def _max_into(acc: dict[str, Quantity], rl: dict[str, Quantity]) -> None:
    for name, q in rl.items():
        if name not in acc or q.value > acc[name].value:
            acc[name] = q


def aggregate_containers(spec: dict, field: str) -> dict[str, Quantity]:
    """resourcehelper.AggregateContainerRequests/Limits (no status): sidecars add up, init containers max."""
    total: dict[str, Quantity] = {}
    for c in spec.get("containers") or []:
        _add(total, ((c.get("resources") or {}).get(field)))
    sidecars: dict[str, Quantity] = {}
    init_max: dict[str, Quantity] = {}
    for c in spec.get("initContainers") or []:
        rl = (c.get("resources") or {}).get(field)
        if c.get("restartPolicy") == "Always":
            _add(total, rl)
            _add(sidecars, rl)
            use = dict(sidecars)
        else:
            use = {}
            _add(use, rl)
            for name, q in sidecars.items():
                use[name] = Quantity(use[name].value + q.value, use[name].fmt) if name in use else q
        _max_into(init_max, use)
    _max_into(total, init_max)
    return total


def is_pod_level_resource(name: str) -> bool:
    return name in POD_LEVEL_RESOURCES or name.startswith(HUGEPAGES_PREFIX)


def _default_pod_level_resources(spec: dict) -> None:
    """defaultHugePagePodLimits then defaultPodRequests (with PodLevelResources on: from 1.34;
    1.33's API server leaves the field alone, and then drops it: `gated_fields`)."""
    res = spec.get("resources")
    if not isinstance(res, dict):
        return
    limits = res.get("limits")
    requests = res.get("requests")
    if limits or requests:
        pod_lims = dict(limits) if limits is not None else {}
        for name, q in aggregate_containers(spec, "limits").items():
            if not is_pod_level_resource(name) or not name.startswith(HUGEPAGES_PREFIX):
                continue
            if name in (requests or {}):
                continue
            if name not in pod_lims:
                pod_lims[name] = quantity.canonical(q)
        if pod_lims:
            res["limits"] = pod_lims
    limits = res.get("limits")
    if not limits:
        return
    pod_reqs = dict(res.get("requests") or {})
    for name, q in aggregate_containers(spec, "requests").items():
        if name not in pod_reqs and is_pod_level_resource(name) and is_native_resource(name) \
                and not name.startswith(HUGEPAGES_PREFIX):
            pod_reqs[name] = quantity.canonical(q)
    for name, value in limits.items():
        if name not in pod_reqs and is_pod_level_resource(name):
            pod_reqs[name] = value
    if pod_reqs:
        res["requests"] = pod_reqs


_VOLUME_SOURCES = (
    "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs",
    "iscsi", "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker",
    "downwardAPI", "fc", "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk",
    "photonPersistentDisk", "projected", "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral",
    "image",
)


def _default_volume(vol: dict) -> None:
    if all(vol.get(src) is None for src in _VOLUME_SOURCES):
        vol["emptyDir"] = {}
    if isinstance(vol.get("hostPath"), dict) and vol["hostPath"].get("type") is None:
        vol["hostPath"]["type"] = ""
    for src in ("secret", "configMap", "downwardAPI", "projected"):
        if isinstance(vol.get(src), dict) and vol[src].get("defaultMode") is None:
            vol[src]["defaultMode"] = 420
    eph = vol.get("ephemeral")
    if isinstance(eph, dict) and isinstance(eph.get("volumeClaimTemplate"), dict):
        tspec = spec_of(eph["volumeClaimTemplate"])
        if tspec.get("volumeMode") is None:
            tspec["volumeMode"] = "Filesystem"
        res = tspec.get("resources")
        if isinstance(res, dict):
            round_resource_list(res.get("limits"))
            round_resource_list(res.get("requests"))


def default_pod(pod: dict, kube: KubeVersion = DEFAULT_VERSION) -> None:
    """SetObjectDefaults_Pod (the parts that matter: resources, ports, spec scalars, volumes),
    with `kube`'s gates."""
    spec = spec_of(pod)
    containers = [c for c in spec.get("containers") or [] if isinstance(c, dict)]
    inits = [c for c in spec.get("initContainers") or [] if isinstance(c, dict)]
    for c in containers + inits:
        _requests_from_limits(c)
    if kube.enabled("PodLevelResources"):
        _default_pod_level_resources(spec)
    if spec.get("enableServiceLinks") is None:
        spec["enableServiceLinks"] = True
    host_network = bool(spec.get("hostNetwork"))
    default_pod_spec_scalars(spec)
    for vol in spec.get("volumes") or []:
        if isinstance(vol, dict):
            _default_volume(vol)
    for c in inits + containers:
        _default_container(c, host_network)
    for c in spec.get("ephemeralContainers") or []:
        if isinstance(c, dict):
            _default_container(c, False)
    round_resource_list(spec.get("overhead"))
    if isinstance(spec.get("resources"), dict):
        round_resource_list(spec["resources"].get("limits"))
        round_resource_list(spec["resources"].get("requests"))


def default_node(node: dict) -> None:
    """SetObjectDefaults_Node: allocatable := capacity when allocatable is absent."""
    status = node.get("status")
    if isinstance(status, dict):
        if status.get("allocatable") is None and status.get("capacity") is not None:
            status["allocatable"] = dict(status["capacity"])
        round_resource_list(status.get("capacity"))
        round_resource_list(status.get("allocatable"))


def default_pv(pv: dict) -> None:
    """SetObjectDefaults_PersistentVolume."""
    status = pv.get("status") if isinstance(pv.get("status"), dict) else {}
    pv["status"] = status
    if not status.get("phase"):
        status["phase"] = "Pending"
    spec = spec_of(pv)
    if not spec.get("persistentVolumeReclaimPolicy"):
        spec["persistentVolumeReclaimPolicy"] = "Retain"
    if spec.get("volumeMode") is None:
        spec["volumeMode"] = "Filesystem"
    round_resource_list(spec.get("capacity"))
    if isinstance(spec.get("hostPath"), dict) and spec["hostPath"].get("type") is None:
        spec["hostPath"]["type"] = ""


def default_pvc(pvc: dict) -> None:
    """SetObjectDefaults_PersistentVolumeClaim."""
    status = pvc.get("status") if isinstance(pvc.get("status"), dict) else {}
    pvc["status"] = status
    if not status.get("phase"):
        status["phase"] = "Pending"
    spec = spec_of(pvc)
    if spec.get("volumeMode") is None:
        spec["volumeMode"] = "Filesystem"
    res = spec.get("resources")
    if isinstance(res, dict):
        round_resource_list(res.get("limits"))
        round_resource_list(res.get("requests"))
    round_resource_list(status.get("capacity"))


def default_namespace(ns: dict) -> None:
    """SetObjectDefaults_Namespace: the kubernetes.io/metadata.name label, phase Active."""
    meta = meta_of(ns)
    name = meta.get("name") or ""
    if name:
        if not isinstance(meta.get("labels"), dict):
            meta["labels"] = {}
        meta["labels"][LABEL_METADATA_NAME] = name
    status = ns.get("status") if isinstance(ns.get("status"), dict) else {}
    ns["status"] = status
    if not status.get("phase"):
        status["phase"] = "Active"


def default_storage_class(sc: dict) -> None:
    """storage/v1 defaults: reclaimPolicy Delete, volumeBindingMode Immediate."""
    if not sc.get("reclaimPolicy"):
        sc["reclaimPolicy"] = "Delete"
    if not sc.get("volumeBindingMode"):
        sc["volumeBindingMode"] = "Immediate"


def default_priority_class(pc: dict) -> None:
    """scheduling/v1 defaults: preemptionPolicy PreemptLowerPriority."""
    if pc.get("preemptionPolicy") is None:
        pc["preemptionPolicy"] = "PreemptLowerPriority"

