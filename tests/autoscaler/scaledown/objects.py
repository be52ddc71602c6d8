"""Small Kubernetes objects for the scale-down tests: nodes, pods and their controllers."""
from __future__ import annotations

from typing import Any

from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import PodInfo

NOW_NS = 1_800_000_000 * 10**9          # the loop's "now"
MINUTE_NS = 60 * 10**9


def stamp(ns: int) -> str:
    """An RFC 3339 time for nanoseconds since the epoch."""
    import datetime
    return datetime.datetime.fromtimestamp(ns // 10**9, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def node(name: str, cpu: str = "4", memory: str = "16Gi", group: str = "g", **extra: Any) -> dict[str, Any]:
    labels = {"kubernetes.io/hostname": name}
    if group:
        labels["nodegroup"] = group
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": "Node",
                           "metadata": {"name": name, "labels": labels, **extra.pop("metadata", {})},
                           "spec": extra.pop("spec", {}),
                           "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "110",
                                                      **extra.pop("allocatable", {})},
                                      "conditions": [{"type": "Ready", "status": "True"}]}}
    return obj


def pod(name: str, node_name: str = "n1", cpu: str = "100m", memory: str = "100Mi", namespace: str = "default",
        owner: tuple[str, str] | None = ("ReplicaSet", "rs"), annotations: dict[str, str] | None = None,
        labels: dict[str, str] | None = None, created_ns: int | None = NOW_NS - 30 * MINUTE_NS,
        **spec: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "uid": f"uid-{namespace}-{name}",
                            "labels": labels or {"app": "web"}}
    if created_ns is not None:
        meta["creationTimestamp"] = stamp(created_ns)
    if owner is not None:
        kind, owner_name = owner
        api = "v1" if kind == "ReplicationController" else "batch/v1" if kind == "Job" else "apps/v1"
        meta["ownerReferences"] = [{"apiVersion": api, "kind": kind, "name": owner_name, "uid": f"uid-{owner_name}",
                                    "controller": True}]
    if annotations:
        meta["annotations"] = annotations
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}
    body = {"nodeName": node_name, "containers": [{"name": "c", "image": "img",
                                                   "resources": {"requests": requests}}], **spec}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": body, "status": {"phase": "Running"}}


def controller(kind: str, name: str, namespace: str = "default", replicas: int | None = 3) -> dict[str, Any]:
    obj: dict[str, Any] = {"kind": kind, "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}"},
                           "spec": {}}
    if replicas is not None:
        obj["spec"]["replicas"] = replicas
    return obj


def pdb(name: str, match: dict[str, str], allowed: int, namespace: str = "default") -> dict[str, Any]:
    return {"kind": "PodDisruptionBudget", "metadata": {"name": name, "namespace": namespace},
            "spec": {"selector": {"matchLabels": match}}, "status": {"disruptionsAllowed": allowed}}


def node_info(node_obj: dict[str, Any], *pods: dict[str, Any]) -> NodeInfo:
    info = NodeInfo(Node.from_obj(node_obj))
    info.add_pods([PodInfo(p) for p in pods])
    return info
