"""ray.io/v1 RayCluster (pkg/controller/jobs/raycluster): pod set `head` of one pod, then one per
worker group named after it (lowercased), of replicas (1 when not set) x numOfHosts pods
(BuildPodSets); the head's first container asks at least KubeRay's Redis cleanup Job's requests
when GCS fault tolerance is on. What Kueue's webhook refuses of a managed one (ValidateCreate):
in-tree autoscaling unless the job is an elastic one (`workloadslicing`), more worker groups than
the version allows, a worker group named `head` (`webhook`, with the version and its gates)."""
from __future__ import annotations

import copy
from typing import Any, Mapping

from kexplain.apimachinery.fielderrors import FieldError, forbidden, invalid_typed
from kexplain.apimachinery.quantity import QuantityError, parse
from kexplain.errors import InputError, Source
from kexplain.kueue.apis.constants import QUEUE_NAME_LABEL
from kexplain.kueue.apis.meta import object_meta
from kexplain.kueue.apis.once import by_identity
from kexplain.kueue.apis.workload import PodSet
from kexplain.kueue.feature_gates import FeatureGates
from kexplain.kueue.versions import KueueVersion
from kexplain.kueue import workloadslicing
from kexplain.kueue.controller.jobs.podsets import PodSetsJob, webhook_denied
from kexplain.controllers.templates import count_at, mapping, template_at

KIND = "RayCluster"
GROUP = "ray.io"
HEAD = "head"                                   # headGroupPodSetName
MAX_WORKER_GROUPS = 7                           # 8 pod sets at most, less the head
FT_ENABLED_ANNOTATION = "ray.io/ft-enabled"     # rayv1.RayFTEnabledAnnotationKey
# KubeRay's Redis cleanup Job's requests (redisCleanupResourceRequests)
REDIS_CLEANUP_REQUESTS = {"cpu": "200m", "memory": "256Mi"}
# common.go's ValidateCreate's words (a RayJob's cluster); the RayCluster webhook's are the version's
AUTOSCALING_RAYJOB = "a kueue managed job should only use autoscaling when workload slicing is enabled"


def gcs_fault_tolerance(spec: Mapping[str, Any], annotations: Mapping[str, str]) -> bool:
    """rayutils.IsGCSFaultToleranceEnabled: the annotation "true" (any case), or gcsFaultToleranceOptions set."""
    return str(annotations.get(FT_ENABLED_ANNOTATION, "")).lower() == "true" or spec.get("gcsFaultToleranceOptions") \
        is not None


def _with_cleanup(template: Mapping[str, Any]) -> dict[str, Any]:
    """The head template with its Ray container (the first) asking at least the cleanup's requests
    (MergeResourceListKeepMax)."""
    out = copy.deepcopy(dict(template))
    containers = mapping(out.get("spec")).get("containers") or []
    if not containers or not isinstance(containers[0], dict):
        raise InputError("cannot account for Redis cleanup resources: head pod template must include the Ray "
                         "container")
    resources = containers[0].setdefault("resources", {})
    requests = dict(mapping(resources.get("requests")))
    for name, value in REDIS_CLEANUP_REQUESTS.items():
        try:
            keep = name in requests and parse(requests[name]).value >= parse(value).value
        except QuantityError:
            keep = True         # (the API server refuses the pod; kept as written)
        if not keep:
            requests[name] = value
    resources["requests"] = requests
    return out


def pod_sets(obj: Mapping[str, Any], spec: Mapping[str, Any], path: str, annotations: Mapping[str, str],
             source: Source | None) -> tuple[PodSet, ...]:
    """BuildPodSets over the RayClusterSpec at `path` of `obj`."""
    head = template_at(obj, mapping(spec.get("headGroupSpec")).get("template"), f"{path}.headGroupSpec.template",
                       source)
    if gcs_fault_tolerance(spec, annotations):
        head = _with_cleanup(head)
    out = [PodSet(HEAD, 1, head)]
    given = spec.get("workerGroupSpecs")
    if given is not None and not (isinstance(given, list) and all(isinstance(g, Mapping) for g in given)):
        raise InputError("must be a list of worker group specs", source=source, obj=obj, field=f"{path}.workerGroupSpecs")
    for i, group in enumerate(worker_groups(spec)):
        at = f"{path}.workerGroupSpecs[{i}]"
        template = template_at(obj, group.get("template"), f"{at}.template", source)
        count = count_at(obj, group.get("replicas"), 1, f"{at}.replicas", source)
        hosts = count_at(obj, group.get("numOfHosts"), 1, f"{at}.numOfHosts", source)
        out.append(PodSet(str(group.get("groupName") or "").lower(), count * hosts if hosts > 1 else count, template))
    return tuple(out)


def worker_groups(spec: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    groups = spec.get("workerGroupSpecs")
    return [g if isinstance(g, Mapping) else {} for g in groups] if isinstance(groups, list) else []


def spec_errors(spec: Mapping[str, Any], path: str, autoscaling: str, version: KueueVersion,
                elastic: bool = False) -> list[FieldError]:
    """What Kueue's webhook refuses of a managed job's RayClusterSpec: in-tree autoscaling unless the
    job is `elastic` (in `autoscaling`'s words), too many worker groups (the version's count), one
    named head."""
    errors: list[FieldError] = []
    if spec.get("enableInTreeAutoscaling") is True and not elastic:
        errors.append(invalid_typed(f"{path}.enableInTreeAutoscaling", True, autoscaling))
    groups = worker_groups(spec)
    count, most = ((len(groups), MAX_WORKER_GROUPS) if version.ray_max_pod_sets is None
                   else (len(groups) + 1, version.ray_max_pod_sets))
    if count > most:
        errors.append(FieldError("Too many", f"{path}.workerGroupSpecs", None, f"{count}: must have at most {most} items"))
    errors += [forbidden(f"{path}.workerGroupSpecs[{i}].groupName", f'"{HEAD}" is reserved for the head group')
               for i, g in enumerate(groups) if g.get("groupName") == HEAD]
    return errors


def elastic(obj: Mapping[str, Any], version: KueueVersion, gates: FeatureGates | None) -> bool:
    """workloadslicing.Enabled of a job: `gates` (the Configuration's over the release's), else the
    release's defaults."""
    annotations = mapping(mapping(obj.get("metadata")).get("annotations"))
    return workloadslicing.enabled(annotations, gates if gates is not None else FeatureGates(version.gates))


def webhook(obj: dict[str, Any], source: Source | None, version: KueueVersion,
            gates: FeatureGates | None = None) -> None:
    """Kueue's RayCluster webhook's validateCreate of a managed RayCluster, in the version's words; an
    elastic one may autoscale (its Default gates its templates, which validateElasticJob asks for)."""
    if mapping(mapping(obj.get("metadata")).get("labels")).get(QUEUE_NAME_LABEL):
        errors = spec_errors(mapping(obj.get("spec")), "spec", version.raycluster_autoscaling, version,
                             elastic(obj, version, gates))
        if errors:
            raise webhook_denied("vraycluster.kb.io", obj, errors, source)


@by_identity
def from_object(obj: dict[str, Any], source: Source | None) -> PodSetsJob:
    meta = object_meta(obj, source)
    spec = mapping(obj.get("spec"))
    return PodSetsJob(meta, KIND, GROUP, pod_sets(obj, spec, "spec", meta.annotations, source), source=source)
