"""The CRD schemas of the Kueue kinds kexplain reads (config/components/crd/bases of v0.17.8):
their structure as data (`data/schemas.json`), their CEL rules as predicates with each rule's own
message, walked as kexplain walks every CRD (`karpenter.apis.schema`)."""
from __future__ import annotations

from typing import Any, Callable

from kexplain.apimachinery.fielderrors import FieldError, invalid_message
from kexplain.errors import AdmissionRejected, InputError, Source
from kexplain.admission.openapi import unknown_field_warning, unknown_fields_error
from kexplain.karpenter.apis import schema as s
from kexplain.kueue.apis import conversion
from kexplain.kueue.apis.constants import GROUP

EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _all(items: Any, predicate: Any) -> bool:
    return s.all_of(items if isinstance(items, list) else [], predicate)


def _has(value: Any, key: str) -> bool:
    return s.has(value, key)


def _no_borrowing_limit_without_cohort(spec: Any) -> bool:
    if _has(spec, "cohortName") or not _has(spec, "resourceGroups"):
        return True
    return _all(spec["resourceGroups"], lambda rg: _all(s.get(rg, "flavors"), lambda f: _all(
        s.get(f, "resources"), lambda r: not _has(r, "borrowingLimit"))))


# The CRDs' x-kubernetes-validations, by the names data/schemas.json gives them.
_RULES: dict[str, tuple[s.Rule, ...]] = {
    "ResourceFlavor.spec.nodeTaints": s.rules(
        (lambda v: _all(v, lambda x: s.get(x, "effect") in EFFECTS),
         "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'")),
    "ResourceFlavor.spec.tolerations": s.rules(
        (lambda v: _all(v, lambda x: s.get(x, "operator") == "Exists" if not _has(x, "key") else True),
         "operator must be Exists when 'key' is empty, which means 'match all values and all keys'"),
        (lambda v: _all(v, lambda x: s.get(x, "effect") == "NoExecute" if _has(x, "tolerationSeconds") else True),
         "effect must be 'NoExecute' when 'tolerationSeconds' is set"),
        (lambda v: _all(v, lambda x: not _has(x, "operator") or x["operator"] in ("Equal", "Exists")),
         "supported toleration values: 'Equal'(default), 'Exists'"),
        (lambda v: _all(v, lambda x: not _has(x, "value") if _has(x, "operator") and x["operator"] == "Exists"
                        else True), "a value must be empty when 'operator' is 'Exists'"),
        (lambda v: _all(v, lambda x: not _has(x, "effect") or x["effect"] in EFFECTS),
         "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'")),
    "ResourceFlavor.spec": s.rules(
        (lambda v: not _has(v, "topologyName") or len(v.get("nodeLabels") or {}) >= 1,
         "at least one nodeLabel is required when topology is set")),
    "ClusterQueue.spec.resourceGroups[]": s.rules(
        (lambda v: _all(s.get(v, "flavors"), lambda x: len(s.get(x, "resources")) == len(s.get(v, "coveredResources"))),
         "flavors must have the same number of resources as the coveredResources")),
    "ClusterQueue.spec.flavorFungibility": s.rules(
        (lambda v: not _has(v, "preference") or (v.get("whenCanBorrow") == "TryNextFlavor"
                                                 and v.get("whenCanPreempt") == "TryNextFlavor"),
         "preference can only be set when both whenCanBorrow and whenCanPreempt are TryNextFlavor")),
    "ClusterQueue.spec.preemption": s.rules(
        (lambda v: not (v.get("reclaimWithinCohort") == "Never" and _has(v, "borrowWithinCohort")
                        and (v["borrowWithinCohort"] or {}).get("policy") != "Never"),
         "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never")),
    "ClusterQueue.spec": s.rules(
        (_no_borrowing_limit_without_cohort, "borrowingLimit must be nil when cohort is empty")),
    "Workload.spec.podSets[]": s.rules(
        (lambda v: v["minCount"] <= v.get("count", 1) if _has(v, "minCount") else True,
         "minCount should be positive and less or equal to count")),
    "Workload.spec.priorityClassRef": s.rules(
        (lambda v: v["kind"] == "PriorityClass" if v["group"] == "scheduling.k8s.io" else True,
         "only the PriorityClass kind is allowed for the scheduling.k8s.io group"),
        (lambda v: v["kind"] == "WorkloadPriorityClass" if v["group"] == "kueue.x-k8s.io" else True,
         "only the WorkloadPriorityClass kind is allowed for the kueue.x-k8s.io group")),
    "Topology.spec.levels": s.rules(
        (lambda v: len({str(s.get(x, "nodeLabel")) for x in v}) == len(v) if isinstance(v, list) else True,
         "must be unique"),
        (lambda v: not isinstance(v, list) or not any(s.get(x, "nodeLabel") == "kubernetes.io/hostname" for x in v)
         or s.get(v[-1], "nodeLabel") == "kubernetes.io/hostname",
         "the kubernetes.io/hostname label can only be used at the lowest level of topology")),
    "Workload.spec": s.rules(
        (lambda v: not _has(v, "priorityClassRef") or _has(v, "priority"),
         "priority should not be nil when priorityClassRef is set")),
}
_SCHEMAS = s.load_schemas(__package__, "schemas", _RULES)
RESOURCE_FLAVOR = _SCHEMAS["ResourceFlavor"]
CLUSTER_QUEUE = _SCHEMAS["ClusterQueue"]
COHORT = _SCHEMAS["Cohort"]
LOCAL_QUEUE = _SCHEMAS["LocalQueue"]
WORKLOAD_PRIORITY_CLASS = _SCHEMAS["WorkloadPriorityClass"]
WORKLOAD = _SCHEMAS["Workload"]
ADMISSION_CHECK = _SCHEMAS["AdmissionCheck"]
PROVISIONING_REQUEST_CONFIG = _SCHEMAS["ProvisioningRequestConfig"]
TOPOLOGY = _SCHEMAS["Topology"]


def qualified(kind: str) -> str:
    return f"{kind}.{GROUP}"


def store(obj: dict[str, Any], schema: s.Node, kind: str, source: Source | None, validate: str,
          warnings: list[str] | None,
          webhook: Callable[[dict[str, Any]], list[FieldError]] | None = None) -> dict[str, Any]:
    """The object as the API server would store it (nulls dropped, defaults set; a v1beta1 one
    converted to v1beta2): unknown fields per `validate`; a schema, rule or `webhook` violation is
    AdmissionRejected in its words."""
    version = conversion.version_of(obj)
    hub, served_only, rule_errors = obj, [], []
    if version == conversion.V1BETA1:      # checked as the conversion webhook hands it to v1beta2
        hub, served_only, rule_errors = conversion.to_v1beta2(kind, obj)
    checked = s.check(hub, schema)
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = meta.get("name") if isinstance(meta.get("name"), str) else ""
    unknown = [*served_only, *checked.unknown]
    if unknown and validate == "strict":
        raise InputError(f'{kind} in version "{version}" cannot be handled as a {kind}: '
                         + unknown_fields_error(unknown), source=source, obj=obj)
    if unknown and validate == "warn" and warnings is not None:
        warnings.extend(f"{source}: {kind} {name}: {p}: {unknown_field_warning(p)}" for p in unknown)
    errors = rule_errors + list(checked.errors)
    if not errors and webhook is not None:
        errors = webhook(checked.value)
    if errors:
        raise AdmissionRejected(invalid_message(qualified(kind), name, errors), source=source, obj=obj)
    return checked.value
