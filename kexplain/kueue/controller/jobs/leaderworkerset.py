"""leaderworkerset.x-k8s.io/v1 LeaderWorkerSet (pkg/controller/jobs/leaderworkerset): one prebuilt
group Workload per group replica (spec.replicas, 1 when not set), named as GetWorkloadName names
it (GetWorkloadNameForOwnerWithGVK over `NAME-INDEX` and the LeaderWorkerSet's uid); its pod sets
(podSets): with a leaderTemplate, `leader` of one pod and `worker` of size-1, else `main` of size
(leaderWorkerTemplate.size, 1 when not set) pods; each template as Kueue's webhook defaults it
(suspended by its parent, a serving group, the WorkloadPriorityClass label; the worker's pod index
offset by the leader), the leaderworkerset.sigs.k8s.io keys but the name dropped.

Its reconciler attaches each Workload with controllerutil.SetOwnerReference: the LeaderWorkerSet
owns it, no controller (`owns_not_controls`).

Kueue meets a LeaderWorkerSet as its group replicas (`groups`, what `jobs.parents` hands the
integration): each a copy carrying its index in Kueue's component-workload-index annotation."""
from __future__ import annotations

import copy
from typing import Any, Mapping

from kexplain.errors import Source
from kexplain.kueue.apis.constants import DEFAULT_POD_SET_NAME, PRIORITY_CLASS_LABEL, QUEUE_NAME_LABEL
from kexplain.kueue.apis.meta import object_meta
from kexplain.kueue.apis.once import by_identity
from kexplain.kueue.apis.workload import PodSet
from kexplain.kueue.controller.jobs.podsets import PodSetsJob
from kexplain.controllers.templates import count_at, mapping, template_at

KIND = "LeaderWorkerSet"
GROUP = "leaderworkerset.x-k8s.io"
FRAMEWORK = "leaderworkerset.x-k8s.io/leaderworkerset"
LEADER, WORKER = "leader", "worker"
LWS_PREFIX = "leaderworkerset.sigs.k8s.io"
LWS_NAME_LABEL = "leaderworkerset.sigs.k8s.io/name"
GROUP_INDEX_ANNOTATION = "kueue.x-k8s.io/component-workload-index"     # ComponentWorkloadIndexAnnotation
SUSPENDED_BY_PARENT = "kueue.x-k8s.io/pod-suspending-parent"
GROUP_SERVING = "kueue.x-k8s.io/pod-group-serving"
POD_INDEX_OFFSET = "kueue.x-k8s.io/pod-index-offset"
PODSET_GROUP_NAME = "kueue.x-k8s.io/podset-group-name"


def replicas(obj: Mapping[str, Any]) -> int:
    value = mapping(obj.get("spec")).get("replicas")
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 1


def groups(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """The LeaderWorkerSet's group replicas as Kueue's reconciler makes a Workload of each (index in
    GROUP_INDEX_ANNOTATION)."""
    out = []
    for index in range(replicas(obj)):
        part = dict(obj)
        meta = part["metadata"] = dict(mapping(obj.get("metadata")))
        meta["annotations"] = {**mapping(meta.get("annotations")), GROUP_INDEX_ANNOTATION: str(index)}
        out.append(part)
    return out


def group_index(obj: Mapping[str, Any]) -> int:
    text = str(mapping(mapping(obj.get("metadata")).get("annotations")).get(GROUP_INDEX_ANNOTATION) or "0")
    return int(text) if text.isdigit() else 0


def defaulted(template: Mapping[str, Any], labels: Mapping[str, str], offset: bool) -> dict[str, Any]:
    """The pod template as Kueue's webhook defaults it for a managed LeaderWorkerSet
    (podTemplateSpecDefault), then as newPodSet keeps it (the LWS keys but its name dropped)."""
    out = copy.deepcopy(dict(template))
    meta = out["metadata"] = dict(mapping(out.get("metadata")))
    labels_out = dict(mapping(meta.get("labels")))
    if labels.get(PRIORITY_CLASS_LABEL):
        labels_out[PRIORITY_CLASS_LABEL] = labels[PRIORITY_CLASS_LABEL]
    annotations = {**mapping(meta.get("annotations")), SUSPENDED_BY_PARENT: FRAMEWORK, GROUP_SERVING: "true"}
    if offset and PODSET_GROUP_NAME not in annotations:
        annotations[POD_INDEX_OFFSET] = "1"
    for kept, key in ((labels_out, "labels"), (annotations, "annotations")):
        kept = {k: v for k, v in kept.items() if not k.startswith(LWS_PREFIX) or k == LWS_NAME_LABEL}
        if kept:
            meta[key] = kept
        else:
            meta.pop(key, None)
    return out


def pod_sets(obj: Mapping[str, Any], source: Source | None) -> tuple[PodSet, ...]:
    lwt = mapping(mapping(obj.get("spec")).get("leaderWorkerTemplate"))
    path = "spec.leaderWorkerTemplate"
    size = count_at(obj, lwt.get("size"), 1, f"{path}.size", source)
    labels = mapping(mapping(obj.get("metadata")).get("labels"))
    managed = bool(labels.get(QUEUE_NAME_LABEL))
    worker = template_at(obj, lwt.get("workerTemplate"), f"{path}.workerTemplate", source)
    if lwt.get("leaderTemplate") is None:
        return (PodSet(DEFAULT_POD_SET_NAME, size, defaulted(worker, labels, False) if managed else worker),)
    leader = template_at(obj, lwt.get("leaderTemplate"), f"{path}.leaderTemplate", source)
    return (PodSet(LEADER, 1, defaulted(leader, labels, False) if managed else leader),
            PodSet(WORKER, size - 1, defaulted(worker, labels, True) if managed else worker))


@by_identity
def from_object(obj: dict[str, Any], source: Source | None) -> PodSetsJob:
    meta = object_meta(obj, source)
    return PodSetsJob(meta, KIND, GROUP, pod_sets(obj, source), owner_name=f"{meta.name}-{group_index(obj)}",
                      owns_not_controls=True, source=source)
