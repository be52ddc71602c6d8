"""What Kueue's ProvisioningRequest controller asks for a Workload that reserved quota
(pkg/controller/admissionchecks/provisioning: controller.go syncOwnedProvisionRequest,
createPodTemplate, mergePodSets; provisioning.go): per check of its controller, the
ProvisioningRequest it creates, `<workload>-<check>-<attempt>`, with one PodTemplate
`ppt-<request>-<pod set>` per pod set that uses a managed resource (the pod set's template with
its flavors' node labels and tolerations, limits as missing requests), the
ProvisioningRequestConfig's class and parameters and the Workload's `provreq.kueue.x-k8s.io/`
annotations; the objects as the API server would hold them."""
from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from kexplain.kueue.apis.admissioncheck import AdmissionCheck, ProvisioningRequestConfig
from kexplain.kueue.apis.constants import (GROUP, PROV_REQ_ANNOTATION_PREFIX, PROVISIONING_REQUEST_CONFIG,
                                           PROVISIONING_REQUEST_CONTROLLER)
from kexplain.kueue.apis.resourceflavor import ResourceFlavor
from kexplain.kueue.apis.workload import PodSet, PodSetAssignment
from kexplain.kueue.podset import PodSetInfo, merged
from kexplain.kueue.workload.workload import Workload

OBJ_NAME_HASH_LENGTH = 5
OBJ_NAME_MAX_PREFIX_LENGTH = 252 - OBJ_NAME_HASH_LENGTH
POD_TEMPLATES_PREFIX = "ppt"
MANAGED_BY_LABEL, MANAGED_BY_VALUE = "kueue.x-k8s.io/managed", "true"
API_VERSION = "autoscaling.x-k8s.io/v1"
IDENTICAL_POD_TEMPLATES = "IdenticalPodTemplates"
IDENTICAL_SCHEDULING_REQUIREMENTS = "IdenticalWorkloadSchedulingRequirements"
INCONSISTENT = "inconsistent podSet assignments"          # errInconsistentPodSetAssignments


def limit_object_name(full: str) -> str:
    """limitObjectName: a name past 247 characters cut there, with `-` and 5 hex of its SHA-1."""
    if len(full) <= OBJ_NAME_MAX_PREFIX_LENGTH:
        return full
    return f"{full[:OBJ_NAME_MAX_PREFIX_LENGTH]}-{hashlib.sha1(full.encode()).hexdigest()[:OBJ_NAME_HASH_LENGTH]}"


def request_name(workload: str, check: str, attempt: int) -> str:
    """ProvisioningRequestName."""
    return limit_object_name(f"{workload}-{check}-{attempt}")


def pod_template_name(request: str, pod_set: str) -> str:
    """getProvisioningRequestPodTemplateName."""
    return limit_object_name(f"{POD_TEMPLATES_PREFIX}-{request}-{pod_set}")


def provisioning_checks(wl: Workload, checks: Mapping[str, AdmissionCheck]) -> list[str]:
    """FilterForController: the Workload's checks (in its order) whose AdmissionCheck exists and is
    the ProvisioningRequest controller's."""
    return [s.name for s in wl.admission_checks
            if (ac := checks.get(s.name)) is not None and ac.controller_name == PROVISIONING_REQUEST_CONTROLLER]


def config_for(check: AdmissionCheck | None, configs: Mapping[str, ProvisioningRequestConfig]
               ) -> ProvisioningRequestConfig | None:
    """ConfigForAdmissionCheck: the ProvisioningRequestConfig the check's parameters name (None: no
    valid reference, or no such config: the check is not active)."""
    ref = check.parameters if check is not None else None
    if not ref or not ref.get("name") or ref.get("apiGroup") != GROUP or ref.get("kind") != PROVISIONING_REQUEST_CONFIG:
        return None
    return configs.get(ref["name"])


def _uses(template: Mapping[str, Any], resources: frozenset[str]) -> bool:
    """podUses: a container or init container requests or limits one of `resources`."""
    spec = template.get("spec") if isinstance(template.get("spec"), Mapping) else {}
    for container in [*(spec.get("initContainers") or ()), *(spec.get("containers") or ())]:
        res = container.get("resources") if isinstance(container, Mapping) else None
        if isinstance(res, Mapping) and any(r in resources for key in ("requests", "limits")
                                            for r in (res.get(key) or {})):
            return True
    return False


def required_pod_sets(pod_sets: Sequence[PodSet], managed: Sequence[str]) -> list[str]:
    """requiredPodSets: every pod set without managedResources, else those using one."""
    wanted = frozenset(managed)
    return [ps.name for ps in pod_sets if not wanted or _uses(ps.template, wanted)]


@dataclass(frozen=True)
class MergedPodSet:
    name: str
    pod_set: PodSet
    assignment: PodSetAssignment
    count: int


def _containers_equal(a: Sequence[Any], b: Sequence[Any]) -> bool:
    return len(a) == len(b) and all(((x or {}).get("resources") or {}).get("requests") ==
                                    ((y or {}).get("resources") or {}).get("requests") for x, y in zip(a, b))


def _similar(a: PodSet, b: PodSet) -> bool:
    """arePodSetsSimilar: the same requests per container and init container, pod resources,
    node selector, tolerations, affinity and resource claims."""
    sa, sb = (ps.template.get("spec") or {} for ps in (a, b))
    return (_containers_equal(sa.get("containers") or [], sb.get("containers") or [])
            and _containers_equal(sa.get("initContainers") or [], sb.get("initContainers") or [])
            and all(sa.get(k) == sb.get(k) for k in ("resources", "nodeSelector", "tolerations", "affinity",
                                                      "resourceClaims")))


def _can_merge(a: PodSet, b: PodSet, policy: str | None) -> bool:
    if policy == IDENTICAL_POD_TEMPLATES:
        return a.template == b.template
    if policy == IDENTICAL_SCHEDULING_REQUIREMENTS:
        return _similar(a, b)
    return False


def merge_pod_sets(wl: Workload, config: ProvisioningRequestConfig) -> list[MergedPodSet]:
    """mergePodSets: the required pod sets in order, with their admitted counts, those the
    podSetMergePolicy finds alike added to the first (ValueError: a pod set without assignment)."""
    assert wl.admission is not None
    assignments = {a.name: a for a in wl.admission.pod_set_assignments}
    pod_sets = {ps.name: ps for ps in wl.spec.pod_sets}
    out: list[MergedPodSet] = []
    for name in required_pod_sets(wl.spec.pod_sets, config.managed_resources):
        ps, psa = pod_sets.get(name), assignments.get(name)
        if ps is None or psa is None:
            raise ValueError(INCONSISTENT)
        count = psa.count if psa.count is not None else ps.count
        into = next((i for i, m in enumerate(out) if config.pod_set_merge_policy is not None
                     and _can_merge(m.pod_set, ps, config.pod_set_merge_policy)), None)
        if into is None:
            out.append(MergedPodSet(name, ps, psa, count))
        else:
            out[into] = MergedPodSet(out[into].name, out[into].pod_set, out[into].assignment, out[into].count + count)
    return out


def _limits_as_requests(spec: dict[str, Any]) -> None:
    """UseLimitsAsMissingRequestsInPod: a container's limit is its request where it gives none."""
    for container in [*(spec.get("initContainers") or ()), *(spec.get("containers") or ())]:
        if not isinstance(container, dict):
            continue
        res = container.get("resources") if isinstance(container.get("resources"), dict) else None
        if res is None or not res.get("limits"):
            continue
        requests = dict(res.get("requests") or {})
        res["requests"] = {**requests, **{k: v for k, v in res["limits"].items() if k not in requests}}


def pod_template(wl: Workload, name: str, merged_set: MergedPodSet, flavors: Mapping[str, ResourceFlavor]
                 ) -> dict[str, Any]:
    """createPodTemplate: the pod set's template with its assignment's flavors' node labels and
    tolerations merged in (FromAssignment, podset.Merge), limits copied to missing requests."""
    selector: dict[str, str] = {}
    tolerations: list[Mapping[str, Any]] = []
    seen: list[str] = []
    for _, flavor_name in sorted(merged_set.assignment.flavors.items()):
        if flavor_name in seen:
            continue
        seen.append(flavor_name)
        flavor = flavors.get(flavor_name)
        if flavor is not None:
            selector.update(flavor.node_labels)
            tolerations += flavor.tolerations
    info = PodSetInfo(merged_set.name, merged_set.count, tuple(seen), node_selector=selector,
                      tolerations=tuple(tolerations))
    template = merged(copy.deepcopy(dict(merged_set.pod_set.template)), info)
    _limits_as_requests(template["spec"])
    return {"apiVersion": "v1", "kind": "PodTemplate",
            "metadata": {"name": name, "namespace": wl.meta.namespace,
                         "labels": {MANAGED_BY_LABEL: MANAGED_BY_VALUE}},
            "template": template}


@dataclass(frozen=True)
class Created:
    """A ProvisioningRequest Kueue creates for one check, and its PodTemplates (API objects)."""

    check: str
    config: str
    attempt: int
    request: dict[str, Any]
    templates: tuple[dict[str, Any], ...]
    pod_sets: Mapping[str, str]         # template name -> the Workload's pod set

    @property
    def name(self) -> str:
        return str(self.request["metadata"]["name"])


def create(wl: Workload, check: str, config: ProvisioningRequestConfig, attempt: int,
           flavors: Mapping[str, ResourceFlavor]) -> Created:
    """syncOwnedProvisionRequest's new request: its name for `attempt`, the config's class and
    parameters with the Workload's provreq annotations, one pod set per merged pod set."""
    name = request_name(wl.meta.name, check, attempt)
    parameters = dict(config.parameters or {})
    for key, value in sorted(wl.meta.annotations.items()):      # passProvReqParams
        if key.startswith(PROV_REQ_ANNOTATION_PREFIX):
            parameters[key[len(PROV_REQ_ANNOTATION_PREFIX):]] = value
    templates, pod_sets, owned = [], [], {}
    for m in merge_pod_sets(wl, config):
        pt_name = pod_template_name(name, m.name)
        templates.append(pod_template(wl, pt_name, m, flavors))
        pod_sets.append({"podTemplateRef": {"name": pt_name}, "count": m.count})
        owned[pt_name] = m.name
    request = {"apiVersion": API_VERSION, "kind": "ProvisioningRequest",
               "metadata": {"name": name, "namespace": wl.meta.namespace,
                            "labels": {MANAGED_BY_LABEL: MANAGED_BY_VALUE},
                            "ownerReferences": [{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
                                                 "name": wl.meta.name, "controller": True,
                                                 "blockOwnerDeletion": True}]},
               "spec": {"provisioningClassName": config.provisioning_class,
                        **({"parameters": parameters} if parameters else {}), "podSets": pod_sets}}
    return Created(check, config.name, attempt, request, tuple(templates), owned)
