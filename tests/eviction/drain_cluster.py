"""A small cluster for the drain's own tests (where the pods go, the fixes): three nodes with room
for pods, a ReplicaSet's pods and a StatefulSet's pod on node-a, a PodDisruptionBudget each."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

READY = [{"type": "Ready", "status": "True"}]


def node(name: str, pods: int = 10, unschedulable: bool = False) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "spec": {"unschedulable": unschedulable},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": str(pods)},
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def pod(name: str, owner: tuple[str, str, str] | None, node_name: str = "node-a", app: str = "web",
        namespace: str = "default", cpu: str = "500m") -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "labels": {"app": app}, "uid": f"uid-{name}"}
    if owner is not None:
        api, kind, owner_name = owner
        meta["ownerReferences"] = [{"apiVersion": api, "kind": kind, "name": owner_name, "uid": f"uid-{owner_name}",
                                    "controller": True}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"nodeName": node_name, "containers": [{"name": "main", "image": "app:1",
                                                            "resources": {"requests": {"cpu": cpu}}}]},
            "status": {"phase": "Running", "conditions": READY}}


def workload(kind: str, name: str, replicas: int, app: str, api: str = "apps/v1") -> dict[str, Any]:
    spec: dict[str, Any] = {"replicas": replicas, "selector": {"matchLabels": {"app": app}},
                            "template": {"metadata": {"labels": {"app": app}},
                                         "spec": {"containers": [{"name": "main", "image": "app:1",
                                                                  "resources": {"requests": {"cpu": "500m"}}}]}}}
    if kind == "StatefulSet":
        spec["serviceName"] = app
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
            "spec": spec}


def budget(name: str, app: str, **spec) -> dict[str, Any]:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": app}}, **spec}}


def cluster(budget_spec: dict | None = None, b_pods: int = 10, c_pods: int = 10) -> list[dict[str, Any]]:
    """web: a ReplicaSet of 2, both on node-a; db: a StatefulSet of 2, db-0 on node-a, db-1 on node-b."""
    return [node("node-a"), node("node-b", b_pods), node("node-c", c_pods),
            workload("ReplicaSet", "web-7d9", 2, "web"), workload("StatefulSet", "db", 2, "db"),
            pod("web-7d9-aaaaa", ("apps/v1", "ReplicaSet", "web-7d9")),
            pod("web-7d9-bbbbb", ("apps/v1", "ReplicaSet", "web-7d9")),
            pod("db-0", ("apps/v1", "StatefulSet", "db"), app="db"),
            pod("db-1", ("apps/v1", "StatefulSet", "db"), node_name="node-b", app="db"),
            budget("web-pdb", "web", **(budget_spec or {"minAvailable": 1})),
            budget("db-pdb", "db", maxUnavailable=1)]


def write(path: Path, objects: list[dict[str, Any]]) -> Path:
    path.write_text("\n---\n".join(json.dumps(o) for o in objects))
    return path
