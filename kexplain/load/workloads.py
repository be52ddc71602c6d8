"""The pod a workload would create: its template, made into a Pod as its controller would."""
from __future__ import annotations

import copy
import uuid
from typing import Any

from ..errors import InputError, Source

# kind -> path to the pod template
TEMPLATE_PATHS: dict[str, tuple[str, ...]] = {
    "Deployment": ("spec", "template"),
    "ReplicaSet": ("spec", "template"),
    "ReplicationController": ("spec", "template"),
    "StatefulSet": ("spec", "template"),
    "DaemonSet": ("spec", "template"),
    "Job": ("spec", "template"),
    "CronJob": ("spec", "jobTemplate", "spec", "template"),
}
WORKLOAD_KINDS = frozenset(TEMPLATE_PATHS)


def _derived_uid(kind: str, namespace: str, name: str) -> str:
    """A stable uid for a manifest that has none (the API server would assign one; owner
    references must carry one to pass validation)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"kexplain:{kind}/{namespace}/{name}"))


def pod_from_workload(obj: dict[str, Any], source: Source) -> dict[str, Any]:
    """A Pod built from the workload's template: its labels, annotations and spec, the
    workload's namespace, a name like the controller's, and an owner reference (ReplicaSet,
    StatefulSet and ReplicationController pods are owned by the object itself, which
    default topology spreading reads)."""
    kind = obj["kind"]
    node: Any = obj
    walked = []
    for key in TEMPLATE_PATHS[kind]:
        walked.append(key)
        node = node.get(key) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            raise InputError("workload has no pod template", source=source, obj=obj, field=".".join(walked))
    template = copy.deepcopy(node)
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    tmeta = template.get("metadata") if isinstance(template.get("metadata"), dict) else {}
    name = meta.get("name") or "workload"
    pod_meta: dict[str, Any] = {
        "name": f"{name}-0" if kind == "StatefulSet" else f"{name}-kexplain",
        "labels": dict(tmeta.get("labels") or {}),
    }
    if meta.get("namespace"):
        pod_meta["namespace"] = meta["namespace"]
    if tmeta.get("annotations"):
        pod_meta["annotations"] = dict(tmeta["annotations"])
    if kind in ("ReplicaSet", "StatefulSet", "ReplicationController", "Job", "DaemonSet"):
        pod_meta["ownerReferences"] = [{
            "apiVersion": obj.get("apiVersion", ""), "kind": kind, "name": name,
            "uid": meta.get("uid") or _derived_uid(kind, meta.get("namespace") or "default", name),
            "controller": True}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta, "spec": template.get("spec") or {}}
