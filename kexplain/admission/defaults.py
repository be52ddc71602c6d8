"""core/v1 scheme defaulting (SetObjectDefaults_*) for the kinds the scheduler reads, in place on copies.

The scheduler sees objects after this step (a container with only a limit requests it); a pod's
spec is defaulted in full (`pod_spec_defaults`), other kinds where something downstream reads.
"""
from __future__ import annotations

from kexplain.admission.pod_spec_defaults import default_pod_spec, round_resource_list
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


def default_pod(pod: dict, kube: KubeVersion = DEFAULT_VERSION) -> None:
    """SetObjectDefaults_Pod with `kube`'s gates: SetDefaults_Pod, then `default_pod_spec` (status: not
    defaulted, nothing reads its lists)."""
    spec = spec_of(pod)
    containers = [c for c in spec.get("containers") or [] if isinstance(c, dict)]
    inits = [c for c in spec.get("initContainers") or [] if isinstance(c, dict)]
    for c in containers + inits:
        _requests_from_limits(c)
    if kube.enabled("PodLevelResources"):
        _default_pod_level_resources(spec)
    if spec.get("enableServiceLinks") is None:
        spec["enableServiceLinks"] = True
    if spec.get("hostNetwork"):
        for c in containers + inits:
            _default_host_network_ports(c)
    default_pod_spec(spec)


def _default_host_network_ports(c: dict) -> None:
    """defaultHostNetworkPorts: with the host's network, a port without a hostPort has its containerPort."""
    for port in c.get("ports") or []:
        if isinstance(port, dict) and not port.get("hostPort"):
            port["hostPort"] = port.get("containerPort") or 0


def default_node(node: dict, change: bool = True) -> bool:
    """SetObjectDefaults_Node: allocatable := capacity when absent, the lists rounded; whether it
    changes the node (`change` False: asks without changing)."""
    status = node.get("status")
    if not isinstance(status, dict):
        return False
    changed = False
    if status.get("allocatable") is None and status.get("capacity") is not None:
        if not change:
            return True
        status["allocatable"] = dict(status["capacity"])
        changed = True
    changed |= round_resource_list(status.get("capacity"), change=change)
    return round_resource_list(status.get("allocatable"), change=change) or changed


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

