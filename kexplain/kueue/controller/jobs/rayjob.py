"""ray.io/v1 RayJob (pkg/controller/jobs/rayjob): its RayClusterSpec's pod sets (`raycluster`),
then, in K8sJobMode (the CRD's default submissionMode), pod set `submitter` of one pod, the
submitterPodTemplate or KubeRay's default submitter; in SidecarMode the head pod set carries the
submitter container instead. A RayJob on an existing cluster (clusterSelector) is skipped
(JobWithSkip: no Workload). What Kueue's webhook refuses of a managed one (validateCreate: in-tree
autoscaling only for an elastic one, `workloadslicing`)."""
from __future__ import annotations

import copy
from typing import Any, Mapping

from kexplain.apimachinery.fielderrors import invalid_typed, required
from kexplain.errors import Source
from kexplain.kueue.apis.constants import QUEUE_NAME_LABEL
from kexplain.kueue.apis.meta import object_meta
from kexplain.kueue.apis.once import by_identity
from kexplain.kueue.apis.workload import PodSet
from kexplain.kueue.feature_gates import FeatureGates
from kexplain.kueue.controller.jobs import raycluster
from kexplain.kueue.versions import KueueVersion
from kexplain.kueue.controller.jobs.podsets import PodSetsJob, webhook_denied
from kexplain.controllers.templates import mapping, template_at

KIND = "RayJob"
GROUP = "ray.io"
SUBMITTER = "submitter"                         # submitterJobPodSetName
SUBMITTER_CONTAINER = "ray-job-submitter"       # rayutils.SubmitterContainerName
K8S_JOB_MODE = "K8sJobMode"                     # the CRD's default submissionMode
SIDECAR_MODE = "SidecarMode"
# KubeRay's default submitter resources (defaultSubmitterResources)
SUBMITTER_RESOURCES = {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m", "memory": "200Mi"}}
SKIPPED = "uses an existing RayCluster (spec.clusterSelector): Kueue does not manage it (Skip), no Workload"


def submission_mode(spec: Mapping[str, Any]) -> str:
    return str(spec.get("submissionMode") or K8S_JOB_MODE)


def submitter_template(spec: Mapping[str, Any], head: Mapping[str, Any]) -> Mapping[str, Any]:
    """getSubmitterTemplate: the submitterPodTemplate, else KubeRay's default submitter pod (the
    head's first image, the default resources, restartPolicy Never)."""
    given = spec.get("submitterPodTemplate")
    if isinstance(given, Mapping):
        return given
    containers = mapping(head.get("spec")).get("containers") or [{}]
    image = mapping(containers[0]).get("image")
    return {"metadata": {}, "spec": {"containers": [{"name": SUBMITTER_CONTAINER, "image": image,
                                                     "resources": copy.deepcopy(SUBMITTER_RESOURCES)}],
                                     "restartPolicy": "Never"}}


def _with_sidecar(head: PodSet) -> PodSet:
    """addSidecarSubmitterToHeadPodSet: the head's template with KubeRay's submitter container."""
    template = copy.deepcopy(dict(head.template))
    spec = template["spec"] = dict(mapping(template.get("spec")))
    spec["containers"] = [*(spec.get("containers") or ()),
                          {"name": SUBMITTER_CONTAINER, "resources": copy.deepcopy(SUBMITTER_RESOURCES)}]
    return PodSet(head.name, head.count, template, head.min_count)


def pod_sets(obj: Mapping[str, Any], source: Source | None) -> tuple[PodSet, ...]:
    spec = mapping(obj.get("spec"))
    cluster = mapping(spec.get("rayClusterSpec"))
    annotations = mapping(mapping(obj.get("metadata")).get("annotations"))
    sets = list(raycluster.pod_sets(obj, cluster, "spec.rayClusterSpec", annotations, source))
    mode = submission_mode(spec)
    if mode == K8S_JOB_MODE:
        template = submitter_template(spec, sets[0].template)
        if isinstance(spec.get("submitterPodTemplate"), Mapping):
            template = template_at(obj, template, "spec.submitterPodTemplate", source)
        sets.append(PodSet(SUBMITTER, 1, template))
    elif mode == SIDECAR_MODE:
        sets[0] = _with_sidecar(sets[0])
    return tuple(sets)


def _refused(obj: Mapping[str, Any], spec: Mapping[str, Any], source: Source | None, version: KueueVersion,
             gates: FeatureGates | None) -> None:
    """The webhook's validateCreate of a managed RayJob that does not use an existing cluster."""
    cluster = spec.get("rayClusterSpec")
    if not isinstance(cluster, Mapping):
        raise webhook_denied("vrayjob.kb.io", obj, [required(
            "spec.rayClusterSpec", "rayClusterSpec is required for Kueue-managed jobs that don't use clusterSelector")],
            source)
    errors = [] if spec.get("shutdownAfterJobFinishes") is True else [invalid_typed(
        "spec.shutdownAfterJobFinishes", bool(spec.get("shutdownAfterJobFinishes")),
        "a kueue managed job should delete the cluster after finishing")]
    errors += raycluster.spec_errors(cluster, "spec.rayClusterSpec", raycluster.AUTOSCALING_RAYJOB, version,
                                     raycluster.elastic(obj, version, gates))
    if errors:
        raise webhook_denied("vrayjob.kb.io", obj, errors, source)


def webhook(obj: dict[str, Any], source: Source | None, version: KueueVersion,
            gates: FeatureGates | None = None) -> None:
    """Kueue's RayJob webhook's validateCreate of a managed RayJob (the version's limits, its gates)."""
    if not mapping(mapping(obj.get("metadata")).get("labels")).get(QUEUE_NAME_LABEL):
        return
    spec = mapping(obj.get("spec"))
    selector = spec.get("clusterSelector")
    if isinstance(selector, Mapping) and selector:
        if isinstance(spec.get("rayClusterSpec"), Mapping):
            raise webhook_denied("vrayjob.kb.io", obj, [invalid_typed(
                "spec.clusterSelector", dict(selector), "a kueue managed job should not use an existing cluster")],
                source)
        return
    _refused(obj, spec, source, version, gates)


@by_identity
def from_object(obj: dict[str, Any], source: Source | None) -> PodSetsJob:
    meta = object_meta(obj, source)
    spec = mapping(obj.get("spec"))
    selector = spec.get("clusterSelector")
    if isinstance(selector, Mapping) and selector:
        return PodSetsJob(meta, KIND, GROUP, (), skipped=SKIPPED, source=source)
    if not isinstance(spec.get("rayClusterSpec"), Mapping):     # (refused, managed, by `webhook`)
        return PodSetsJob(meta, KIND, GROUP, (), skipped="no spec.rayClusterSpec", source=source)
    return PodSetsJob(meta, KIND, GROUP, pod_sets(obj, source), source=source)
