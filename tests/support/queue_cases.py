"""A live cluster where the scheduler's queue changes what pending pods get alone, for the
stand-in API server (`tests.support.live_server`): the recorded cluster with four 3-CPU pods of
team-a pending. Each fits node-a2 (the GPU node, 7910m; they tolerate its taint) alone; in the
queue (priority, then creation time) app-0 and app-1 take its room and the others no longer fit."""
from __future__ import annotations

from typing import Any

APPS = [f"team-a/app-{i}" for i in range(4)]


def pending_pod(key: str, cpu: str, minute: int) -> dict[str, Any]:
    """A pending pod the scheduler tried (PodScheduled=False), tolerating the GPU node's taint."""
    namespace, name = key.split("/")
    created = f"2025-11-03T10:{minute:02d}:00Z"
    return {"metadata": {"name": name, "namespace": namespace, "uid": f"uid-{namespace}-{name}",
                         "resourceVersion": "50001", "creationTimestamp": created},
            "spec": {"containers": [{"name": "c", "image": "app:1", "resources": {"requests": {"cpu": cpu}}}],
                     "schedulerName": "default-scheduler", "priority": 0,
                     "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]},
            "status": {"phase": "Pending", "conditions": [
                {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "lastTransitionTime": created,
                 "message": "0/6 nodes are available"}]}}


def crowd(api: Any) -> Any:
    """`api` (a `RecordedApiServer`) with namespace team-a and its four pending pods (`APPS`)."""
    api.collections["/api/v1/namespaces"]["items"].append(
        {"metadata": {"name": "team-a", "labels": {"kubernetes.io/metadata.name": "team-a"}, "uid": "uid-ns-team-a",
                      "resourceVersion": "50000", "creationTimestamp": "2025-11-03T09:00:00Z"},
         "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}})
    api.collections["/api/v1/pods"]["items"] += [pending_pod(k, "3", 20 + i) for i, k in enumerate(APPS)]
    return api
