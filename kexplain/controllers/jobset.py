"""The Jobs the JobSet controller makes of a JobSet (sigs.k8s.io/jobset: `constructJob` and
`labelAndAnnotateObject` of jobset_controller.go, the webhooks): for any JobSet, and for the one
Kueue starts (`kexplain.kueue.jobset_jobs`, its pod templates merged). Details:
docs/internals/kueue.md (`kueue/jobset_jobs.py`)."""
from __future__ import annotations

import copy
import hashlib
from typing import Any, Callable, Iterable, Mapping, Protocol

from kexplain.admission.workloads import object_uid
from kexplain.apimachinery import columns
from kexplain.apimachinery.identity import as_dict

KIND = "JobSet"
GROUP = "jobset.x-k8s.io"


def meta_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


class PriorityClass(Protocol):
    """What the pod's priority is read from: a PriorityClass's value and whether it is the default."""

    value: int
    global_default: bool


PREFIX = "jobset.sigs.k8s.io/"
JOBSET_NAME = PREFIX + "jobset-name"
JOBSET_UID = PREFIX + "jobset-uid"
REPLICATED_JOB_NAME = PREFIX + "replicatedjob-name"
RESTARTS = PREFIX + "restart-attempt"
REPLICATED_JOB_REPLICAS = PREFIX + "replicatedjob-replicas"
GLOBAL_REPLICAS = PREFIX + "global-replicas"
JOB_INDEX = PREFIX + "job-index"
JOB_KEY = PREFIX + "job-key"
JOB_GLOBAL_INDEX = PREFIX + "job-global-index"
GROUP_NAME = PREFIX + "group-name"
GROUP_REPLICAS = PREFIX + "group-replicas"
JOB_GROUP_INDEX = PREFIX + "job-group-index"
COORDINATOR = PREFIX + "coordinator"
PRIORITY = PREFIX + "priority"
EXCLUSIVE = "alpha.jobset.sigs.k8s.io/exclusive-topology"
NODE_SELECTOR_STRATEGY = "alpha.jobset.sigs.k8s.io/node-selector"
NAMESPACED_JOB = "alpha.jobset.sigs.k8s.io/namespaced-job"
NO_SCHEDULE_TAINT = "alpha.jobset.sigs.k8s.io/no-schedule"
DEFAULT_GROUP = "default"


def _replicas(rj: Mapping[str, Any]) -> int:
    return rj["replicas"] if isinstance(rj.get("replicas"), int) and not isinstance(rj["replicas"], bool) else 1


def job_key(namespace: str, job_name: str) -> str:
    """jobHashKey: the SHA-1 of `<namespace>/<job name>`, in hex."""
    return hashlib.sha1(f"{namespace}/{job_name}".encode()).hexdigest()


def _subdomain(spec: Mapping[str, Any], name: str) -> str | None:
    """GetSubdomain when DNS hostnames are on (the webhook's default), else None."""
    network = as_dict(spec.get("network"))
    if network.get("enableDNSHostnames") is False:
        return None
    return str(network.get("subdomain") or name)


def _names(obj: Mapping[str, Any], rjs: list[Mapping[str, Any]], index: int, job_index: int
           ) -> tuple[dict[str, str], dict[str, str]]:
    """labelAndAnnotateObject's labels and annotations for Job `job_index` of replicated job
    `index` (the template's own added under them by the caller)."""
    meta = meta_of(obj)
    name, namespace = str(meta.get("name") or ""), str(meta.get("namespace") or "default")
    spec = as_dict(obj.get("spec"))
    rj = rjs[index]
    group = str(rj.get("groupName") or DEFAULT_GROUP)
    job_name = f"{name}-{rj.get('name')}-{job_index}"
    before = sum(_replicas(r) for r in rjs[:index])
    in_group = [i for i, r in enumerate(rjs) if str(r.get("groupName") or DEFAULT_GROUP) == group]
    group_before = sum(_replicas(rjs[i]) for i in in_group if i < index)
    status = as_dict(obj.get("status"))
    restarts = status.get("restarts") if isinstance(status.get("restarts"), int) else 0
    labels = {JOBSET_NAME: name, JOBSET_UID: str(meta.get("uid") or object_uid(dict(obj))),
              REPLICATED_JOB_NAME: str(rj.get("name")), RESTARTS: str(restarts),
              REPLICATED_JOB_REPLICAS: str(_replicas(rj)), GLOBAL_REPLICAS: str(sum(_replicas(r) for r in rjs)),
              JOB_INDEX: str(job_index), JOB_KEY: job_key(namespace, job_name),
              JOB_GLOBAL_INDEX: str(before + job_index), GROUP_NAME: group,
              GROUP_REPLICAS: str(sum(_replicas(rjs[i]) for i in in_group)),
              JOB_GROUP_INDEX: str(group_before + job_index)}
    coordinator = as_dict(spec.get("coordinator"))
    if coordinator:
        subdomain = str(as_dict(spec.get("network")).get("subdomain") or name)
        labels[COORDINATOR] = (f"{name}-{coordinator.get('replicatedJob') or ''}-{coordinator.get('jobIndex') or 0}-"
                               f"{coordinator.get('podIndex') or 0}.{subdomain}")
    annotations = dict(labels)
    for source in (meta.get("annotations"), as_dict(as_dict(rj.get("template")).get("metadata")).get("annotations")):
        source = as_dict(source)
        if EXCLUSIVE in source:
            annotations[EXCLUSIVE] = str(source[EXCLUSIVE])
            if NODE_SELECTOR_STRATEGY in source:
                annotations[NODE_SELECTOR_STRATEGY] = str(source[NODE_SELECTOR_STRATEGY])
    return labels, annotations


def pod_priority(pod_spec: Mapping[str, Any], priority_classes: Mapping[str, PriorityClass]) -> int | None:
    """The priority the Priority admission plugin gives the pod: its own, its class's, the
    global default's, else 0; None when it names a class that does not exist (refused)."""
    if isinstance(pod_spec.get("priority"), int):
        return int(pod_spec["priority"])
    name = pod_spec.get("priorityClassName")
    if name:
        pc = priority_classes.get(str(name))
        return None if pc is None else pc.value
    return next((pc.value for pc in priority_classes.values() if pc.global_default), 0)


def _exclusive_terms(key: str, priority: str, topology: str) -> dict[str, Any]:
    """setExclusiveAffinities' two terms."""
    same = {"labelSelector": {"matchExpressions": [{"key": JOB_KEY, "operator": "In", "values": [key]}]},
            "namespaceSelector": {}, "topologyKey": topology}
    others = {"labelSelector": {"matchExpressions": [
        {"key": JOB_KEY, "operator": "Exists"}, {"key": JOB_KEY, "operator": "NotIn", "values": [key]},
        {"key": PRIORITY, "operator": "In", "values": [priority]}]},
        "namespaceSelector": {}, "topologyKey": topology}
    return {"podAffinity": same, "podAntiAffinity": others}


def _pod_webhook(template: dict[str, Any], priority_classes: Mapping[str, PriorityClass]) -> None:
    """The JobSet pod webhook's Default on the leader pod (see the module's words), in place."""
    meta, spec = template["metadata"], template["spec"]
    annotations = meta.get("annotations") or {}
    if NODE_SELECTOR_STRATEGY in annotations:
        return
    priority = pod_priority(spec, priority_classes)
    if priority is not None:
        meta["labels"] = {**(meta.get("labels") or {}), PRIORITY: str(priority)}
    if EXCLUSIVE not in annotations:
        return
    labels = meta.get("labels") or {}
    terms = _exclusive_terms(str(labels.get(JOB_KEY, "")), str(labels.get(PRIORITY, "")), str(annotations[EXCLUSIVE]))
    affinity = as_dict(spec.get("affinity"))
    spec["affinity"] = affinity
    for kind, term in terms.items():
        node = affinity[kind] = as_dict(affinity.get(kind))
        node["requiredDuringSchedulingIgnoredDuringExecution"] = [
            *(node.get("requiredDuringSchedulingIgnoredDuringExecution") or ()), term]


Template = Callable[[int, dict[str, Any]], dict[str, Any]]


def jobset_jobs(obj: Mapping[str, Any], *, suspend: bool, template: Template | None = None,
                priority_classes: Mapping[str, PriorityClass] | None = None) -> list[dict[str, Any]]:
    """The Jobs of a JobSet, `suspend`ed or not, each replicated job's pod template passed through
    `template` (index, template) first when given (Kueue's pod set info)."""
    meta = meta_of(obj)
    name = str(meta.get("name") or "")
    namespace = str(meta.get("namespace") or "default")
    spec = as_dict(obj.get("spec"))
    rjs = [rj for rj in spec.get("replicatedJobs") or () if isinstance(rj, Mapping)]
    subdomain = _subdomain(spec, name)
    out = []
    for index, rj in enumerate(rjs):
        job_template = as_dict(rj.get("template"))
        job_spec = copy.deepcopy(as_dict(job_template.get("spec")))
        job_spec.setdefault("completionMode", "Indexed")
        pod_template = copy.deepcopy(as_dict(job_spec.get("template")))
        pod_template["spec"] = as_dict(pod_template.get("spec"))
        if not pod_template["spec"].get("restartPolicy"):
            pod_template["spec"]["restartPolicy"] = "OnFailure"
        if template is not None:
            pod_template = template(index, pod_template)
        for i in range(_replicas(rj)):
            out.append(_job(obj, rjs, index, i, job_template, job_spec, pod_template, subdomain, suspend,
                            priority_classes or {}))
    return out


def _job(obj: Mapping[str, Any], rjs: list[Mapping[str, Any]], index: int, i: int, job_template: Mapping[str, Any],
         job_spec: Mapping[str, Any], pod_template: Mapping[str, Any], subdomain: str | None, suspend: bool,
         priority_classes: Mapping[str, PriorityClass]) -> dict[str, Any]:
    """Job `i` of replicated job `index`: constructJob, its pod template labelled, annotated and
    defaulted by the pod webhook."""
    meta = meta_of(obj)
    name = str(meta.get("name") or "")
    namespace = str(meta.get("namespace") or "default")
    labels, annotations = _names(obj, rjs, index, i)
    job_name = f"{name}-{rjs[index].get('name')}-{i}"
    pod = copy.deepcopy(dict(pod_template))
    pod["metadata"] = as_dict(pod.get("metadata"))
    pod["metadata"]["labels"] = {**(pod["metadata"].get("labels") or {}), **labels}
    pod["metadata"]["annotations"] = {**(pod["metadata"].get("annotations") or {}), **annotations}
    pod_spec = pod["spec"] = as_dict(pod.get("spec"))
    if subdomain is not None:
        pod_spec["subdomain"] = subdomain
    if EXCLUSIVE in annotations and NODE_SELECTOR_STRATEGY in annotations:
        pod_spec["nodeSelector"] = {**(pod_spec.get("nodeSelector") or {}),
                                    NAMESPACED_JOB: f"{namespace}_{job_name}"}
        pod_spec["tolerations"] = [*(pod_spec.get("tolerations") or ()),
                                   {"key": NO_SCHEDULE_TAINT, "operator": "Exists", "effect": "NoSchedule"}]
    _pod_webhook(pod, priority_classes)
    _add_volumes(pod_spec, obj)
    jmeta = as_dict(job_template.get("metadata"))
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {**jmeta, "name": job_name, "namespace": namespace,
                         "labels": {**(jmeta.get("labels") or {}), **labels},
                         "annotations": {**(jmeta.get("annotations") or {}), **annotations},
                         "ownerReferences": [{"apiVersion": str(obj.get("apiVersion")), "kind": KIND,
                                              "name": name, "uid": labels[JOBSET_UID],
                                              "controller": True, "blockOwnerDeletion": True}]},
            "spec": {**job_spec, "suspend": suspend, "template": pod}}


def _claim_templates(obj: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The PVC templates of `spec.volumeClaimPolicies`, in order."""
    return [t for policy in as_dict(obj.get("spec")).get("volumeClaimPolicies") or () if isinstance(policy, Mapping)
            for t in policy.get("templates") or () if isinstance(t, Mapping) and as_dict(t.get("metadata")).get("name")]


def _add_volumes(pod_spec: dict[str, Any], obj: Mapping[str, Any]) -> None:
    """addVolumes, in place: a volume of claim `<template>-<jobset>` for each claim template a
    container or init container mounts by its name."""
    mounted = {str(m.get("name")) for key in ("containers", "initContainers") for c in pod_spec.get(key) or ()
               if isinstance(c, Mapping) for m in c.get("volumeMounts") or () if isinstance(m, Mapping)}
    name = str(meta_of(obj).get("name") or "")
    for template in _claim_templates(obj):
        claim = str(as_dict(template.get("metadata"))["name"])
        if claim in mounted:
            pod_spec["volumes"] = [*(pod_spec.get("volumes") or ()),
                                   {"name": claim, "persistentVolumeClaim": {"claimName": f"{claim}-{name}"}}]


def volume_claims(obj: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The claims the JobSet controller creates of `spec.volumeClaimPolicies`
    (createPVCsIfNecessary): `<template>-<jobset>`, the template's labels with the JobSet's name,
    its annotations and spec."""
    meta = meta_of(obj)
    out = []
    for template in _claim_templates(obj):
        tmeta = as_dict(template.get("metadata"))
        claim_meta: dict[str, Any] = {"name": f"{tmeta['name']}-{meta.get('name') or ''}",
                                      "namespace": str(meta.get("namespace") or "default"),
                                      "labels": {**as_dict(tmeta.get("labels")), JOBSET_NAME: str(meta.get("name") or "")}}
        if tmeta.get("annotations"):
            claim_meta["annotations"] = dict(as_dict(tmeta.get("annotations")))
        out.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": claim_meta,
                    "spec": copy.deepcopy(as_dict(template.get("spec")))})
    return out


def is_jobset(obj: Any) -> bool:
    """A JobSet of the JobSet API (`jobset.x-k8s.io`)."""
    if not isinstance(obj, Mapping) or obj.get("kind") != KIND:
        return False
    api = obj.get("apiVersion")
    return isinstance(api, str) and api.split("/", 1)[0] == GROUP


class _Class:
    def __init__(self, value: int, global_default: bool) -> None:
        self.value, self.global_default = value, global_default


def priority_classes_of(objects: Iterable[tuple[Any, Any]]) -> dict[str, PriorityClass]:
    """The scheduling.k8s.io PriorityClasses among `objects`, by name (the pods' priority)."""
    out: dict[str, PriorityClass] = {}
    for obj, _ in objects:
        if (isinstance(obj, Mapping) and obj.get("kind") == "PriorityClass"
                and str(obj.get("apiVersion") or "").startswith("scheduling.k8s.io/")
                and isinstance(obj.get("value"), int) and meta_of(obj).get("name")):
            out[str(meta_of(obj)["name"])] = _Class(int(obj["value"]), obj.get("globalDefault") is True)
    return out


def _priority_classes(cluster: Iterable[tuple[Any, Any]]) -> Iterable[tuple[Any, Any]]:
    """What of `cluster` may be a PriorityClass: a dump's asked of its rows (`columns.of_kind`), else all."""
    rows = columns.rows_of(cluster)
    return columns.of_kind(cluster, rows, "PriorityClass") if rows is not None else cluster  # type: ignore[arg-type]


def with_jobset_jobs(objs: list[tuple[Any, Any]], cluster: Iterable[tuple[Any, Any]] = ()) -> list[tuple[Any, Any]]:
    """`objs` with each JobSet replaced by the claims of its volume claim policies and the Jobs its
    controller creates (suspended with it: `spec.suspend`), at its place; the PriorityClasses of `objs` and `cluster` give the pods'
    priority label. A JobSet without replicated jobs is kept (the loader says what it is)."""
    if not any(is_jobset(o) for o, _ in objs):
        return objs         # (the cluster, a dump of 150,000 objects, never looked at)
    classes = priority_classes_of([*objs, *_priority_classes(cluster)])
    out: list[tuple[Any, Any]] = []
    for obj, src in objs:
        jobs = jobset_jobs(obj, suspend=as_dict(obj.get("spec")).get("suspend") is True,
                           priority_classes=classes) if is_jobset(obj) else []
        out.extend([(made, src) for made in [*volume_claims(obj), *jobs]] if jobs else [(obj, src)])
    return out
