"""The pod a workload would create: its template, made into a Pod as its controller would.

A DaemonSet's pods get what its controller (v1.35 pkg/controller/daemon) gives every pod it
creates: the tolerations of `add_daemon_tolerations`, and, per node, a required node affinity
pinning the pod to that node (`pin_to_node`)."""
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


def _count(raw: Any, default: int) -> int:
    return raw if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0 else default


def replica_count(obj: dict[str, Any]) -> int:
    """How many pods of a workload run at once: spec.replicas (default 1); a Job's parallelism
    (default 1), at most its completions; a CronJob's job template likewise; 1 for a Pod and
    for a DaemonSet (whose pods are counted per node: see `kexplain.place.daemon_nodes`)."""
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    kind = obj.get("kind")
    if kind == "CronJob":
        job = spec.get("jobTemplate") if isinstance(spec.get("jobTemplate"), dict) else {}
        spec, kind = (job.get("spec") if isinstance(job.get("spec"), dict) else {}), "Job"
    if kind == "Job":
        parallelism = _count(spec.get("parallelism"), 1)
        completions = spec.get("completions")
        return min(parallelism, _count(completions, parallelism)) if completions is not None else parallelism
    if kind in ("Pod", "DaemonSet"):
        return 1
    return _count(spec.get("replicas"), 1)


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
    spec = template.get("spec") if isinstance(template.get("spec"), dict) else {}
    if kind == "DaemonSet":
        add_daemon_tolerations(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta, "spec": spec}


# -- DaemonSet pods ---------------------------------------------------------------------------
# (key, effect) of the tolerations (operator Exists, no tolerationSeconds) the DaemonSet
# controller adds to its pod template: its pods stay on nodes that are not ready or unreachable,
# and are placed on nodes under disk, memory or PID pressure and on cordoned nodes.
DAEMON_TOLERATIONS: tuple[tuple[str, str], ...] = (
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
)
# Added only for pods on the host network.
HOST_NETWORK_TOLERATION = ("node.kubernetes.io/network-unavailable", "NoSchedule")
NODE_NAME_FIELD = "metadata.name"


def _toleration_key(t: dict[str, Any]) -> tuple[str, str, str, str]:
    return (t.get("key") or "", t.get("operator") or "", t.get("value") or "", t.get("effect") or "")


def _add_or_update_toleration(tolerations: list[Any], toleration: dict[str, Any]) -> list[Any]:
    """The list with `toleration` added, as the API helper AddOrUpdateTolerationInPodSpec does:
    an entry with the same key, operator, value and effect is replaced by it (the list is
    unchanged when such an entry is already identical to it); otherwise it is appended."""
    wanted = _toleration_key(toleration)
    out: list[Any] = []
    updated = False
    for t in tolerations:
        if isinstance(t, dict) and _toleration_key(t) == wanted:
            if t.get("tolerationSeconds") is None and toleration.get("tolerationSeconds") is None:
                return tolerations
            out.append(dict(toleration))
            updated = True
        else:
            out.append(t)
    if not updated:
        out.append(dict(toleration))
    return out


def add_daemon_tolerations(spec: dict[str, Any]) -> dict[str, Any]:
    """Adds (in place) the tolerations the DaemonSet controller gives its pods; returns `spec`."""
    raw = spec.get("tolerations")
    tolerations = list(raw) if isinstance(raw, list) else []
    wanted = list(DAEMON_TOLERATIONS)
    if spec.get("hostNetwork") is True:
        wanted.append(HOST_NETWORK_TOLERATION)
    for key, effect in wanted:
        tolerations = _add_or_update_toleration(tolerations, {"key": key, "operator": "Exists", "effect": effect})
    spec["tolerations"] = tolerations
    return spec


def pin_to_node(spec: dict[str, Any], node_name: str) -> dict[str, Any]:
    """Pins (in place) a DaemonSet pod to `node_name` as its controller does before creating it:
    the required node affinity becomes the one term `metadata.name In [node_name]` (replacing
    the template's required terms, which chose the node already); the node selector, the
    preferred terms and pod (anti-)affinity are kept. Returns `spec`."""
    term = {"matchFields": [{"key": NODE_NAME_FIELD, "operator": "In", "values": [node_name]}]}
    affinity = spec.get("affinity")
    if not isinstance(affinity, dict):
        affinity = spec["affinity"] = {}
    node_affinity = affinity.get("nodeAffinity")
    if not isinstance(node_affinity, dict):
        node_affinity = affinity["nodeAffinity"] = {}
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if not isinstance(required, dict):
        node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [term]}
    else:
        required["nodeSelectorTerms"] = [term]
    return spec
