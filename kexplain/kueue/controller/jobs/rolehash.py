"""A pod's role in its group (pkg/util/pod GenerateRoleHash, the pod controller's getRoleHash):
the first 8 hex digits of sha256 over encoding/json's text of the pod spec's admission shape
(containers' requests and ports, node selector, affinity, tolerations, runtime class, priority,
spread constraints, overhead, resource claims, pod-level requests); pods of one role make one pod
set, named by it. The pod webhook stores it as an annotation when it suspends the pod (`annotated`)."""
from __future__ import annotations

import hashlib
import json
from typing import Any, Mapping

from kexplain.apimachinery.fielderrors import go_json
from kexplain.controllers.controller_utils import NotReproduced, go_json_value

ROLE_HASH_ANNOTATION = "kueue.x-k8s.io/role-hash"      # podconstants.RoleHashAnnotation
ROLE_HASH_LENGTH = 8
# The Kubernetes libraries Kueue v0.17.8 vendors (v0.35): their Go structs decide the JSON's field order.
KUBE_MINOR = "1.35"
# SpecShape: each field's key and its Go type (a map[string]any: written with its keys sorted)
SHAPE_FIELDS = (("nodeSelector", "map[string]string"), ("affinity", "*v1.Affinity"),
                ("tolerations", "[]v1.Toleration"), ("runtimeClassName", "*string"), ("priority", "*int32"),
                ("topologySpreadConstraints", "[]v1.TopologySpreadConstraint"), ("overhead", "v1.ResourceList"),
                ("resourceClaims", "[]v1.PodResourceClaim"))


def _containers(raw: Any) -> list[dict[str, Any]] | None:
    """ContainersShape: per container its requests and ports (nil, null, for none)."""
    shapes = []
    for c in raw if isinstance(raw, list) else ():
        c = c if isinstance(c, Mapping) else {}
        resources = c.get("resources") if isinstance(c.get("resources"), Mapping) else {}
        shapes.append({"ports": go_json_value("[]v1.ContainerPort", c.get("ports"), KUBE_MINOR),
                       "resources": {"requests": go_json_value("v1.ResourceList", resources.get("requests"),
                                                               KUBE_MINOR)}})
    return shapes or None


def spec_shape(spec: Mapping[str, Any]) -> dict[str, Any]:
    """SpecShape of a pod spec, as encoding/json writes it (NotReproduced for a type kexplain lacks)."""
    shape: dict[str, Any] = {"initContainers": _containers(spec.get("initContainers")),
                             "containers": _containers(spec.get("containers"))}
    for key, gotype in SHAPE_FIELDS:
        shape[key] = go_json_value(gotype, spec.get(key), KUBE_MINOR)
    if isinstance(spec.get("resources"), Mapping):     # pod-level resources: only when set
        shape["resources"] = go_json_value("v1.ResourceList", spec["resources"].get("requests"), KUBE_MINOR)
    return dict(sorted(shape.items()))


def generate_role_hash(spec: Mapping[str, Any]) -> str:
    """GenerateRoleHash; a spec holding a Go type kexplain has no table for is hashed from its sorted
    JSON instead (stable, not Kueue's)."""
    try:
        text = go_json({"spec": spec_shape(spec)})
    except NotReproduced:
        text = json.dumps({"spec": spec}, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:ROLE_HASH_LENGTH]


def role_hash(annotations: Mapping[str, str], spec: Mapping[str, Any]) -> str:
    """getRoleHash: the pod's role-hash annotation, else its spec's hash."""
    if ROLE_HASH_ANNOTATION in annotations:
        return annotations[ROLE_HASH_ANNOTATION]
    return generate_role_hash(spec)


def annotated(pod: dict[str, Any]) -> dict[str, Any]:
    """The pod webhook's addRoleHash: `pod` with the role-hash annotation (kept when it has one)."""
    meta = pod.get("metadata") if isinstance(pod.get("metadata"), Mapping) else {}
    annotations = meta.get("annotations") if isinstance(meta.get("annotations"), Mapping) else {}
    if ROLE_HASH_ANNOTATION in annotations:
        return pod
    spec = pod.get("spec") if isinstance(pod.get("spec"), Mapping) else {}
    return {**pod, "metadata": {**meta, "annotations": {**annotations, ROLE_HASH_ANNOTATION: generate_role_hash(spec)}}}
