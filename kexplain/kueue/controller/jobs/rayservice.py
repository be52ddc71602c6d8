"""ray.io/v1 RayService (pkg/controller/jobs/rayservice): the pod sets of its RayClusterSpec, as a
RayCluster's (`raycluster.pod_sets`: head, then a pod set per worker group); Kueue holds it through
`spec.rayClusterSpec.suspend`. What Kueue's webhook refuses of a managed one (validateCreate: the
RayClusterSpec checks of common.go, in its words, as a RayJob's cluster)."""
from __future__ import annotations

from typing import Any

from kexplain.errors import Source
from kexplain.kueue.apis.constants import QUEUE_NAME_LABEL
from kexplain.kueue.apis.meta import object_meta
from kexplain.kueue.apis.once import by_identity
from kexplain.kueue.controller.jobs import raycluster
from kexplain.kueue.controller.jobs.podsets import PodSetsJob, webhook_denied
from kexplain.kueue.feature_gates import FeatureGates
from kexplain.controllers.templates import mapping
from kexplain.kueue.versions import KueueVersion

KIND = "RayService"
GROUP = "ray.io"
CLUSTER_SPEC = "spec.rayClusterSpec"


def webhook(obj: dict[str, Any], source: Source | None, version: KueueVersion,
            gates: FeatureGates | None = None) -> None:
    """Kueue's RayService webhook's validateCreate of a managed RayService (the version's limits; an
    elastic one may autoscale)."""
    if not mapping(mapping(obj.get("metadata")).get("labels")).get(QUEUE_NAME_LABEL):
        return
    cluster = mapping(mapping(obj.get("spec")).get("rayClusterSpec"))
    errors = raycluster.spec_errors(cluster, CLUSTER_SPEC, raycluster.AUTOSCALING_RAYJOB, version,
                                    raycluster.elastic(obj, version, gates))
    if errors:
        raise webhook_denied("vrayservice.kb.io", obj, errors, source)


@by_identity
def from_object(obj: dict[str, Any], source: Source | None) -> PodSetsJob:
    meta = object_meta(obj, source)
    cluster = mapping(mapping(obj.get("spec")).get("rayClusterSpec"))
    return PodSetsJob(meta, KIND, GROUP, raycluster.pod_sets(obj, cluster, CLUSTER_SPEC, meta.annotations, source),
                      source=source)
