"""The topology request each job integration puts on its pod sets (jobframework/tas.go,
NewPodSetTopologyRequest(...).PodIndexLabel(...).SubGroup(...).Build()): read from the pod
template's annotations (a plain Pod's own), with the index labels the integration names for its
pods (`index_labels`), one mechanism for every kind. The topology ungater ranks the pods by them."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from kexplain.kueue.apis.topology import IndexLabels, request_from_annotations
from kexplain.kueue.apis.workload import PodSet
from kexplain.kueue.controller.jobframework.interface import GenericJob

JOB_COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"      # batchv1.JobCompletionIndexAnnotation
JOBSET_JOB_INDEX = "jobset.sigs.k8s.io/job-index"                       # jobsetapi.JobIndexKey
REPLICA_INDEX = "training.kubeflow.org/replica-index"                   # kftraining's and kfmpi's ReplicaIndexLabel
WORKER_INDEX = "leaderworkerset.sigs.k8s.io/worker-index"               # WorkerIndexLabelKey
POD_GROUP_INDEX = "kueue.x-k8s.io/pod-group-pod-index"                  # kueue.PodGroupPodIndexLabel
STATEFULSET_POD_INDEX = "apps.kubernetes.io/pod-index"                  # appsv1.PodIndexLabel
# The pod index label of each kind's pod sets whose integration names one (PodSets()); Ray's and
# SparkApplication's name none; a JobSet's (a TrainJob's) and an AppWrapper's are their own (`index_labels`)
POD_INDEX_LABELS = {"Job": JOB_COMPLETION_INDEX, "Pod": POD_GROUP_INDEX, "StatefulSet": STATEFULSET_POD_INDEX,
                    **{k: REPLICA_INDEX for k in ("PyTorchJob", "TFJob", "XGBoostJob", "PaddleJob", "JAXJob",
                                                  "MPIJob")}}
LWS_LEADER = "leader"           # a LeaderWorkerSet's leader pod set: no index label (newPodSet's nil)


def index_labels(job: GenericJob, index: int, ps: PodSet) -> IndexLabels:
    """What the job's integration passes to PodIndexLabel and SubGroup for its `index`th pod set."""
    own = getattr(job, "index_labels", None)
    if own is not None:
        return own(index)
    if job.kind == "LeaderWorkerSet":
        return IndexLabels() if ps.name == LWS_LEADER else IndexLabels(WORKER_INDEX)
    label = POD_INDEX_LABELS.get(job.kind)
    return IndexLabels(label) if label is not None else IndexLabels()


def _annotations(ps: PodSet, job: GenericJob) -> Mapping[str, Any]:
    own = getattr(job, "pod_set_annotations", None)     # a pod group's: the role's pod's own
    if own is not None:
        return own(ps)
    meta = ps.template.get("metadata")
    if isinstance(meta, Mapping) and isinstance(meta.get("annotations"), Mapping):
        return meta["annotations"]
    return job.meta.annotations if job.kind == "Pod" else {}


def with_topology_requests(job: GenericJob, pod_sets: tuple[PodSet, ...]) -> tuple[PodSet, ...]:
    """The pod sets with the topology request their templates and integration give them (InputError
    when an annotation does not parse)."""
    out = []
    for i, ps in enumerate(pod_sets):
        if ps.topology_request is None:
            request = request_from_annotations(_annotations(ps, job), job.source, None,
                                               f"pod set {ps.name}: template.metadata", index_labels(job, i, ps))
            if request is not None:
                ps = replace(ps, topology_request=request)
        out.append(ps)
    return tuple(out)
