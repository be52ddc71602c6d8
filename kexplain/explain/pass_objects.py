"""What the autoscalers read of a POD file besides its pending pods."""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from kexplain.admission.workloads import object_uid
from kexplain.controllers.ephemeral import create_volume_claims
from kexplain.controllers.workloads import workload_name
from kexplain.errors import Source

Obj = dict[str, Any]
Objects = list[tuple[Obj, Source]]

# The controller a workload's pods get their ownerReference from, when it is not the workload itself.
OWNER_OF_PODS = {"Deployment": ("apps/v1", "ReplicaSet"), "CronJob": ("batch/v1", "Job")}


def pods_owner(workload: Mapping[str, Any]) -> Obj | None:
    """The controller ownerReference of a workload's pods when it is not the workload (`OWNER_OF_PODS`)."""
    kind = workload.get("kind")
    if kind not in OWNER_OF_PODS:
        return None
    api_version, owner_kind = OWNER_OF_PODS[str(kind)]
    meta = workload.get("metadata") if isinstance(workload.get("metadata"), dict) else {}
    name = workload_name(dict(workload))
    uid = object_uid({"kind": owner_kind, "metadata": {"name": name, "namespace": meta.get("namespace") or "default"}})
    return {"apiVersion": api_version, "kind": owner_kind, "name": name, "uid": uid, "controller": True}


def owner_objects(workload: Mapping[str, Any], source: Source, replicas: int) -> Objects:
    """The controller object `pods_owner` names, as its workload's controller makes it."""
    owner = pods_owner(workload)
    if owner is None or owner["kind"] != "ReplicaSet":
        return []
    meta = workload.get("metadata") if isinstance(workload.get("metadata"), dict) else {}
    spec = workload.get("spec") if isinstance(workload.get("spec"), dict) else {}
    rs_meta: Obj = {"name": owner["name"], "namespace": meta.get("namespace") or "default", "uid": owner["uid"]}
    if meta.get("uid") or meta.get("name"):
        rs_meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "Deployment", "name": meta.get("name") or "",
                                       "uid": object_uid(dict(workload)), "controller": True}]
    rs: Obj = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": rs_meta,
               "spec": {"replicas": replicas, "selector": spec.get("selector") or {},
                        "template": spec.get("template") or {}}}
    return [(rs, source)]


def ephemeral_claims(pod: Obj, source: Source) -> Objects:
    """The claims the ephemeral volume controller creates for `pod`'s generic ephemeral volumes."""
    meta = pod.get("metadata") if isinstance(pod.get("metadata"), dict) else {}
    if not meta.get("uid"):
        pod = {**pod, "metadata": {**meta, "uid": object_uid(pod)}}
    return [(c, source) for c in create_volume_claims(pod, ()).claims]


def set_objects(objects: Objects, explained: Iterable[Obj]) -> Objects:
    """The objects of a POD file the autoscalers read besides its pending Pods."""
    skip = {id(o) for o in explained if o.get("kind") == "Pod" and not (o.get("spec") or {}).get("nodeName")}
    return [(o, s) for o, s in objects if id(o) not in skip]
