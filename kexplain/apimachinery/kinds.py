"""Which objects are the built-in kinds kexplain reads, told apart by API group and kind as the API
server does: a custom resource may share a built-in kind's name (Volcano's Job) and is ignored like
any unknown kind. One rule for every reader: `is_builtin_kind`.
"""
from __future__ import annotations

from kexplain.errors import is_builtin_api

# The API group of each built-in kind kexplain reads ("" for the core group).
KIND_GROUPS: dict[str, str] = {
    "Pod": "", "Node": "", "Namespace": "", "Service": "", "PersistentVolume": "", "PersistentVolumeClaim": "",
    "ReplicationController": "", "LimitRange": "",
    "Deployment": "apps", "ReplicaSet": "apps", "StatefulSet": "apps", "DaemonSet": "apps",
    "Job": "batch", "CronJob": "batch",
    "StorageClass": "storage.k8s.io", "CSINode": "storage.k8s.io",
    "PodDisruptionBudget": "policy",
    "PriorityClass": "scheduling.k8s.io",
    "RuntimeClass": "node.k8s.io",
    "DeviceClass": "resource.k8s.io", "ResourceSlice": "resource.k8s.io", "ResourceClaim": "resource.k8s.io",
    "ResourceClaimTemplate": "resource.k8s.io",
}


def api_group(api_version: object) -> str | None:
    """The group of an apiVersion (`apps/v1`: apps; `v1`: the core group, ""); None without one."""
    if not isinstance(api_version, str) or not api_version:
        return None
    return api_version.rpartition("/")[0]


def is_builtin_kind(api_version: object, kind: object) -> bool:
    """Whether `kind` at `api_version` is the built-in kind of that name (its group; any version, or none);
    a kind kexplain does not read is judged by its group (`is_builtin_api`)."""
    group = api_group(api_version)
    if group is None:
        return True
    known = KIND_GROUPS.get(kind) if isinstance(kind, str) else None
    return group == known if known is not None else is_builtin_api(api_version)
