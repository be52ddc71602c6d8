"""pkg/workloadslicing: whether a job is an elastic one (its Workload a slice that a scale-up
replaces). Kueue's webhooks let an elastic Ray job use in-tree autoscaling, and the job
reconciler names its Workload with the job's generation (newWorkloadName) and marks it."""
from __future__ import annotations

from typing import Mapping

from kexplain.kueue.feature_gates import ELASTIC_JOBS, FeatureGates

ELASTIC_JOB_ANNOTATION = "kueue.x-k8s.io/elastic-job"            # constants.ElasticJobAnnotation
WORKLOAD_SLICE_NAME_ANNOTATION = "kueue.x-k8s.io/workload-slice-name"
RAYCLUSTER_GENERATION_ANNOTATION = "kueue.x-k8s.io/raycluster-generation"


def enabled(annotations: Mapping[str, str], gates: FeatureGates) -> bool:
    """workloadslicing.Enabled: ElasticJobsViaWorkloadSlices on (the release's default, or the
    Configuration's featureGates) and the job's annotation exactly "true"."""
    return gates.enabled(ELASTIC_JOBS) and annotations.get(ELASTIC_JOB_ANNOTATION) == "true"


# The kinds whose job implements ElasticWorkloadNameProvider (raycluster.GetWorkloadNameExtraPart).
RAY_NAME_EXTRA = frozenset({("ray.io", "RayJob"), ("ray.io", "RayService")})


def name_extra(group: str, kind: str, generation: int, annotations: Mapping[str, str]) -> str:
    """newWorkloadName's extra part of an elastic job: its generation, and for a RayJob or a
    RayService `_` and the raycluster-generation annotation when set."""
    extra = str(generation)
    cluster_generation = annotations.get(RAYCLUSTER_GENERATION_ANNOTATION, "")
    if (group, kind) in RAY_NAME_EXTRA and cluster_generation:
        extra += "_" + cluster_generation
    return extra
