"""A ProvisioningRequest as CA reads it (provreqwrapper: its pod sets with their PodTemplates
resolved) and the pods CA simulates for it (pods/pods.go PodsForProvisioningRequest)."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from kexplain.admission.defaults import default_pod
from kexplain.apimachinery import columns
from kexplain.autoscaler.provisioningrequest.conditions import CLASS_ANNOTATION, CONSUME_ANNOTATION, Condition
from kexplain.features import KubeVersion

API_VERSION = "autoscaling.x-k8s.io/v1"
KIND = "ProvisioningRequest"


@dataclass(frozen=True)
class PodSet:
    """One pod set: the PodTemplate it names (its `template`: a PodTemplateSpec) and how many pods."""

    template_name: str
    template: Mapping[str, Any]
    count: int


@dataclass(frozen=True)
class ProvisioningRequest:
    """What CA reads of a ProvisioningRequest: its class, parameters, pod sets and conditions."""

    namespace: str
    name: str
    class_name: str
    parameters: Mapping[str, str] = field(default_factory=dict)
    pod_sets: tuple[PodSet, ...] = ()
    conditions: tuple[Condition, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


def pods_for(pr: ProvisioningRequest, kube: KubeVersion) -> list[dict[str, Any]]:
    """PodsForProvisioningRequest: `count` pods of each pod set's template (GetPodFromTemplate, the
    request as their controller), named `<request>-<set>-<n>`, annotated with the request and its
    class, their uid `namespace/name`, defaulted as SetDefaults_Pod does."""
    out = []
    for i, ps in enumerate(pr.pod_sets):
        meta = ps.template.get("metadata") if isinstance(ps.template.get("metadata"), Mapping) else {}
        spec = ps.template.get("spec") if isinstance(ps.template.get("spec"), Mapping) else {}
        for j in range(ps.count):
            name = f"{pr.name}-{i}-{j}"
            annotations = {**(meta.get("annotations") or {}), CONSUME_ANNOTATION: pr.name,
                           CLASS_ANNOTATION: pr.class_name}
            pod: dict[str, Any] = {
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "generateName": f"{pr.name}-", "namespace": pr.namespace,
                             "uid": f"{pr.namespace}/{name}", "labels": dict(meta.get("labels") or {}),
                             "annotations": annotations,
                             "ownerReferences": [{"apiVersion": API_VERSION, "kind": KIND, "name": pr.name,
                                                  "uid": "", "controller": True}]},
                "spec": copy.deepcopy(dict(spec))}
            default_pod(pod, kube)
            out.append(pod)
    return out


def from_objects(request: Mapping[str, Any], templates: Sequence[Mapping[str, Any]]) -> ProvisioningRequest:
    """provreqwrapper.PodSets: a ProvisioningRequest object with the PodTemplates its pod sets name
    (by name, in its namespace; ValueError for one missing, as CA's lister fails)."""
    meta = request.get("metadata") if isinstance(request.get("metadata"), Mapping) else {}
    spec = request.get("spec") if isinstance(request.get("spec"), Mapping) else {}
    status = request.get("status") if isinstance(request.get("status"), Mapping) else {}
    namespace = str(meta.get("namespace") or "default")
    by_name = {str((t.get("metadata") or {}).get("name")): t for t in templates
               if str((t.get("metadata") or {}).get("namespace") or "default") == namespace}
    pod_sets = []
    for ps in spec.get("podSets") or ():
        name = str((ps.get("podTemplateRef") or {}).get("name") or "")
        if name not in by_name:
            raise ValueError(f"podtemplate \"{name}\" not found")
        pod_sets.append(PodSet(name, by_name[name].get("template") or {}, int(ps.get("count") or 0)))
    conditions = tuple(Condition(str(c.get("type")), str(c.get("status")), str(c.get("reason") or ""),
                                 str(c.get("message") or "")) for c in status.get("conditions") or ()
                       if isinstance(c, Mapping))
    return ProvisioningRequest(namespace, str(meta.get("name") or ""), str(spec.get("provisioningClassName") or ""),
                               {str(k): str(v) for k, v in (spec.get("parameters") or {}).items()}, tuple(pod_sets),
                               conditions)


def requests_note(enabled: bool, objects: Sequence[tuple[Any, Any]]) -> list[str]:
    """What CA's own loop does with the ProvisioningRequests among the cluster's objects, said (none
    modelled in it): with --enable-provisioning-requests its injector takes one a loop, answered by
    the request's class in a loop of its own (the wrapper orchestrator alternating them with the
    regular pods); without, CA ignores them. A dump's (`columns.Dump`) are looked for in its rows: the
    report's loops each say it, over 150,000 pods."""
    rows = columns.rows_of(objects)
    if rows is not None:
        objects = columns.of_kind(objects, rows, KIND)    # type: ignore[arg-type]
    names = [f"{(o.get('metadata') or {}).get('namespace') or 'default'}/{(o.get('metadata') or {}).get('name')}"
             for o, _ in objects if isinstance(o, Mapping) and o.get("kind") == KIND
             and str(o.get("apiVersion") or "").startswith("autoscaling.x-k8s.io/")]
    if not names:
        return []
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    what = f"ProvisioningRequest{'s' if len(names) != 1 else ''} {shown} among the cluster's objects"
    if not enabled:
        return [f"{what}: CA runs with --enable-provisioning-requests=false (its default) and ignores them"]
    return [f"{what}: CA's injector takes one a loop and its class answers it in a loop of its own (the wrapper "
            "orchestrator alternates them with the regular pods); this loop answers for the pods only (`kexplain "
            "kueue --node-groups` answers the requests Kueue creates)"]
