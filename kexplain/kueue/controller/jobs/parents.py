"""What Kueue's integrations meet of an object whose controller makes what Kueue manages
(`kueue_objects`): a CronJob's Job (the CronJob controller's, with the jobTemplate's labels:
Kueue's Job webhook suspends it as any labelled Job), a Deployment's pods (the deployment
webhook's template, then the ReplicaSet's pods, each its own Workload: the pod integration,
pkg/controller/jobs/deployment), a LeaderWorkerSet's group replicas (`leaderworkerset.groups`);
anything else is met as itself. A StatefulSet is its own
integration (`statefulset`: one pod-group Workload)."""
from __future__ import annotations

import copy
from typing import Any, Mapping

from kexplain.admission.workloads import check_workload
from kexplain.apimachinery.identity import as_dict, object_uid
from kexplain.controllers.controller_utils import POD_TEMPLATE_HASH_LABEL
from kexplain.controllers.cronjob import cronjob_job, is_cronjob
from kexplain.controllers.workloads import pod_from_workload, replica_count, workload_name
from kexplain.errors import Source
from kexplain.features import DEFAULT as DEFAULT_VERSION
from kexplain.kueue.apis.constants import PRIORITY_CLASS_LABEL, QUEUE_NAME_LABEL
from kexplain.kueue.controller.jobs import leaderworkerset
from kexplain.kueue.objects import makes_managed

MANAGED_LABEL = "kueue.x-k8s.io/managed"                         # constants.ManagedByKueueLabelKey
SUSPENDED_BY_PARENT = "kueue.x-k8s.io/pod-suspending-parent"     # podconstants.SuspendedByParentAnnotation
DEPLOYMENT_FRAMEWORK = "deployment"
STATEFULSET_FRAMEWORK = "statefulset"


def _labels(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return as_dict(as_dict(obj.get("metadata")).get("labels"))


def _is(obj: Any, kind: str, group: str) -> bool:
    api = obj.get("apiVersion") if isinstance(obj, Mapping) else None
    return (isinstance(api, str) and obj.get("kind") == kind
            and (api.rsplit("/", 1)[0] if "/" in api else "") == group)


def kueue_objects(obj: dict[str, Any], source: Source | None = None) -> list[dict[str, Any]]:
    """What Kueue's integrations meet of `obj` (see the module's words); AdmissionRejected when the
    API server refuses `obj` itself."""
    if _is(obj, leaderworkerset.KIND, leaderworkerset.GROUP):
        return leaderworkerset.groups(obj)      # (one Workload per group replica)
    if not makes_managed(obj):
        return [obj]
    check_workload(obj, source)     # (refused as written: the API server's words name it, not what it makes)
    if is_cronjob(obj):
        return [cronjob_job(obj)]
    if _is(obj, "Deployment", "apps"):
        return deployment_pods(obj, source)
    return [statefulset_webhook(obj)]


def _template_meta(obj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A deep copy of `obj` and its pod template's metadata, in it (made a map)."""
    out = copy.deepcopy(obj)
    spec = out["spec"] = as_dict(out.get("spec"))
    template = spec["template"] = as_dict(spec.get("template"))
    meta = template["metadata"] = as_dict(template.get("metadata"))
    return out, meta


def statefulset_webhook(obj: dict[str, Any]) -> dict[str, Any]:
    """The StatefulSet as Kueue's webhook stores it: its template annotated as suspended by it."""
    out, meta = _template_meta(obj)
    meta["annotations"] = {**as_dict(meta.get("annotations")), SUSPENDED_BY_PARENT: STATEFULSET_FRAMEWORK}
    return out


def deployment_webhook(obj: dict[str, Any]) -> dict[str, Any]:
    """The Deployment as Kueue's webhook stores it (Default): its template annotated as suspended
    by it, labelled managed, with the queue name and the WorkloadPriorityClass."""
    out, meta = _template_meta(obj)
    meta["annotations"] = {**as_dict(meta.get("annotations")), SUSPENDED_BY_PARENT: DEPLOYMENT_FRAMEWORK}
    labels = {**as_dict(meta.get("labels")), MANAGED_LABEL: "true"}
    own = _labels(obj)
    if own.get(QUEUE_NAME_LABEL):
        labels[QUEUE_NAME_LABEL] = str(own[QUEUE_NAME_LABEL])
    if own.get(PRIORITY_CLASS_LABEL):
        labels[PRIORITY_CLASS_LABEL] = str(own[PRIORITY_CLASS_LABEL])
    meta["labels"] = labels
    return out


def deployment_pods(obj: dict[str, Any], source: Source | None = None) -> list[dict[str, Any]]:
    """The pods the Deployment's ReplicaSet creates of the webhook's template, named as its
    controller names them, the ReplicaSet their controlling owner."""
    stored = deployment_webhook(obj)
    pods = [pod_from_workload(stored, source or Source("-"), i, DEFAULT_VERSION) for i in range(replica_count(obj))]
    for pod in pods:
        meta = pod["metadata"]
        template_hash = as_dict(meta.get("labels")).get(POD_TEMPLATE_HASH_LABEL)
        replica_set = f"{workload_name(obj)}-{template_hash}" if template_hash else workload_name(obj)
        ref = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": replica_set,
               "namespace": as_dict(obj.get("metadata")).get("namespace") or "default"}
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": replica_set,
                                    "uid": object_uid({"kind": "ReplicaSet", "metadata": ref}), "controller": True,
                                    "blockOwnerDeletion": True}]
    return pods
