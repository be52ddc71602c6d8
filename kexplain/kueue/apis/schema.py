"""The CRD schemas of the Kueue kinds kexplain reads (config/components/crd/bases of v0.17.8),
as nodes of the structural-schema walk kexplain already has (`karpenter.apis.schema`, the
apiextensions-apiserver's validator and CEL rules), with each rule's own message."""
from __future__ import annotations

from typing import Any, Callable

from kexplain.apimachinery.fielderrors import FieldError, invalid_message
from kexplain.errors import AdmissionRejected, InputError, Source
from kexplain.admission.openapi import unknown_field_warning, unknown_fields_error
from kexplain.karpenter.apis import schema as s
from kexplain.kueue.apis.constants import GROUP

NAME_PATTERN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
DNS_LABEL_PATTERN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
REFERENCE = s.string(max_length=253, pattern=NAME_PATTERN)
METADATA = s.Node("object", values=s.ANY)
EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _all(items: Any, predicate: Any) -> bool:
    return s.all_of(items if isinstance(items, list) else [], predicate)


def _has(value: Any, key: str) -> bool:
    return s.has(value, key)


TAINTS = s.array(s.obj({"key": s.STRING, "value": s.STRING, "effect": s.STRING, "timeAdded": s.STRING},
                       required=("effect", "key")), max_items=8, rules=s.rules(
    (lambda v: _all(v, lambda x: s.get(x, "effect") in EFFECTS),
     "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'")))

TOLERATIONS = s.array(s.obj({"key": s.STRING, "operator": s.STRING, "value": s.STRING, "effect": s.STRING,
                             "tolerationSeconds": s.integer()}), max_items=8, rules=s.rules(
    (lambda v: _all(v, lambda x: s.get(x, "operator") == "Exists" if not _has(x, "key") else True),
     "operator must be Exists when 'key' is empty, which means 'match all values and all keys'"),
    (lambda v: _all(v, lambda x: s.get(x, "effect") == "NoExecute" if _has(x, "tolerationSeconds") else True),
     "effect must be 'NoExecute' when 'tolerationSeconds' is set"),
    (lambda v: _all(v, lambda x: not _has(x, "operator") or x["operator"] in ("Equal", "Exists")),
     "supported toleration values: 'Equal'(default), 'Exists'"),
    (lambda v: _all(v, lambda x: not _has(x, "value") if _has(x, "operator") and x["operator"] == "Exists"
                    else True), "a value must be empty when 'operator' is 'Exists'"),
    (lambda v: _all(v, lambda x: not _has(x, "effect") or x["effect"] in EFFECTS),
     "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'")))

RESOURCE_FLAVOR = s.obj({
    "apiVersion": s.STRING, "kind": s.STRING, "metadata": METADATA,
    "spec": s.obj({
        "nodeLabels": s.mapping(s.STRING, max_properties=8),
        "nodeTaints": TAINTS,
        "tolerations": TOLERATIONS,
        "topologyName": REFERENCE,
    }, default={}, rules=s.rules(
        (lambda v: not _has(v, "topologyName") or len(v.get("nodeLabels") or {}) >= 1,
         "at least one nodeLabel is required when topology is set"))),
})

QUOTA = s.obj({"name": s.STRING, "nominalQuota": s.QUANTITY, "borrowingLimit": s.QUANTITY,
               "lendingLimit": s.QUANTITY}, required=("name", "nominalQuota"))
RESOURCE_GROUPS = s.array(s.obj({
    "coveredResources": s.array(s.STRING, min_items=1, max_items=64),
    "flavors": s.array(s.obj({"name": REFERENCE, "resources": s.array(QUOTA, min_items=1, max_items=64)},
                             required=("name", "resources")), min_items=1, max_items=64),
}, required=("coveredResources", "flavors"), rules=s.rules(
    (lambda v: _all(s.get(v, "flavors"), lambda x: len(s.get(x, "resources")) == len(s.get(v, "coveredResources"))),
     "flavors must have the same number of resources as the coveredResources"))), max_items=16)

LABEL_SELECTOR = s.obj({
    "matchLabels": s.STRING_MAP,
    "matchExpressions": s.array(s.obj({"key": s.STRING, "operator": s.STRING, "values": s.array(s.STRING)},
                                      required=("key", "operator"))),
})
FAIR_SHARING = s.obj({"weight": s.Node("int-or-string", pattern=s.QUANTITY_PATTERN, default=1)})


def _no_borrowing_limit_without_cohort(spec: Any) -> bool:
    if _has(spec, "cohortName") or not _has(spec, "resourceGroups"):
        return True
    return _all(spec["resourceGroups"], lambda rg: _all(s.get(rg, "flavors"), lambda f: _all(
        s.get(f, "resources"), lambda r: not _has(r, "borrowingLimit"))))


CLUSTER_QUEUE = s.obj({
    "apiVersion": s.STRING, "kind": s.STRING, "metadata": METADATA,
    "spec": s.obj({
        "resourceGroups": RESOURCE_GROUPS,
        "cohortName": REFERENCE,
        "queueingStrategy": s.string(enum=("StrictFIFO", "BestEffortFIFO"), default="BestEffortFIFO"),
        "namespaceSelector": LABEL_SELECTOR,
        "flavorFungibility": s.obj({
            "whenCanBorrow": s.string(enum=("MayStopSearch", "TryNextFlavor"), default="MayStopSearch"),
            "whenCanPreempt": s.string(enum=("MayStopSearch", "TryNextFlavor"), default="TryNextFlavor"),
            "preference": s.string(enum=("BorrowingOverPreemption", "PreemptionOverBorrowing")),
        }, default={}, rules=s.rules(
            (lambda v: not _has(v, "preference") or (v.get("whenCanBorrow") == "TryNextFlavor"
                                                     and v.get("whenCanPreempt") == "TryNextFlavor"),
             "preference can only be set when both whenCanBorrow and whenCanPreempt are TryNextFlavor"))),
        "preemption": s.obj({
            "reclaimWithinCohort": s.string(enum=("Never", "LowerPriority", "Any"), default="Never"),
            "borrowWithinCohort": s.obj({
                "policy": s.string(enum=("Never", "LowerPriority"), default="Never"),
                "maxPriorityThreshold": s.integer(),
            }, default={}),
            "withinClusterQueue": s.string(enum=("Never", "LowerPriority", "LowerOrNewerEqualPriority"),
                                           default="Never"),
        }, default={}, rules=s.rules(
            (lambda v: not (v.get("reclaimWithinCohort") == "Never" and _has(v, "borrowWithinCohort")
                            and (v["borrowWithinCohort"] or {}).get("policy") != "Never"),
             "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never"))),
        "admissionChecksStrategy": s.Node("object", values=s.ANY),
        "stopPolicy": s.string(enum=("None", "Hold", "HoldAndDrain"), default="None"),
        "fairSharing": FAIR_SHARING,
        "admissionScope": s.obj({"admissionMode": s.string(
            enum=("UsageBasedAdmissionFairSharing", "NoAdmissionFairSharing"))}, required=("admissionMode",)),
    }, default={}, rules=s.rules((_no_borrowing_limit_without_cohort, "borrowingLimit must be nil when cohort is empty"))),
    "status": s.Node("object", values=s.ANY),
})

COHORT = s.obj({
    "apiVersion": s.STRING, "kind": s.STRING, "metadata": METADATA,
    "spec": s.obj({"parentName": REFERENCE, "resourceGroups": RESOURCE_GROUPS, "fairSharing": FAIR_SHARING},
                  default={}),
    "status": s.Node("object", values=s.ANY),
})

LOCAL_QUEUE = s.obj({
    "apiVersion": s.STRING, "kind": s.STRING, "metadata": METADATA,
    "spec": s.obj({
        "clusterQueue": REFERENCE,
        "stopPolicy": s.string(enum=("None", "Hold", "HoldAndDrain"), default="None"),
        "fairSharing": FAIR_SHARING,
    }, default={}),
    "status": s.Node("object", values=s.ANY),
})

WORKLOAD_PRIORITY_CLASS = s.obj({
    "apiVersion": s.STRING, "kind": s.STRING, "metadata": METADATA,
    "value": s.integer(), "description": s.string(max_length=2048),
}, required=("value",))

POD_SET = s.obj({
    "name": s.string(max_length=63, pattern=DNS_LABEL_PATTERN, default="main"),
    "count": s.integer(minimum=0, default=1),
    "minCount": s.integer(minimum=1),
    "template": s.Node("object", values=s.ANY),
    "topologyRequest": s.Node("object", values=s.ANY),
}, required=("template",), rules=s.rules(
    (lambda v: v["minCount"] <= v.get("count", 1) if _has(v, "minCount") else True,
     "minCount should be positive and less or equal to count")))

WORKLOAD = s.obj({
    "apiVersion": s.STRING, "kind": s.STRING, "metadata": METADATA,
    "spec": s.obj({
        "active": s.Node("boolean", default=True),
        "maximumExecutionTimeSeconds": s.integer(minimum=1),
        "podSets": s.array(POD_SET, min_items=1, max_items=8),
        "preemptionGates": s.array(s.obj({"name": s.string(min_length=1, max_length=63)}, required=("name",)),
                                   max_items=8),
        "priority": s.integer(),
        "priorityClassRef": s.obj({
            "group": s.string(enum=("kueue.x-k8s.io", "scheduling.k8s.io")),
            "kind": s.string(enum=("WorkloadPriorityClass", "PriorityClass")),
            "name": s.string(min_length=1, max_length=253, pattern=NAME_PATTERN),
        }, required=("group", "kind", "name"), rules=s.rules(
            (lambda v: v["kind"] == "PriorityClass" if v["group"] == "scheduling.k8s.io" else True,
             "only the PriorityClass kind is allowed for the scheduling.k8s.io group"),
            (lambda v: v["kind"] == "WorkloadPriorityClass" if v["group"] == "kueue.x-k8s.io" else True,
             "only the WorkloadPriorityClass kind is allowed for the kueue.x-k8s.io group"))),
        "queueName": REFERENCE,
    }, default={}, rules=s.rules(
        (lambda v: not _has(v, "priorityClassRef") or _has(v, "priority"),
         "priority should not be nil when priorityClassRef is set"))),
    "status": s.Node("object", values=s.ANY),
})


def qualified(kind: str) -> str:
    return f"{kind}.{GROUP}"


def store(obj: dict[str, Any], schema: s.Node, kind: str, source: Source | None, validate: str,
          warnings: list[str] | None,
          webhook: Callable[[dict[str, Any]], list[FieldError]] | None = None) -> dict[str, Any]:
    """The object as the API server would store it (nulls dropped, the CRD's defaults set).
    Unknown fields are refused under `validate` strict (the decoder's words), warned of under
    warn; a schema or rule violation, then one of Kueue's validating webhook (`webhook`, run on
    the defaulted object), refuses it: AdmissionRejected in the API server's words."""
    checked = s.check(obj, schema)
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = meta.get("name") if isinstance(meta.get("name"), str) else ""
    if checked.unknown and validate == "strict":
        raise InputError(f'{kind} in version "v1beta2" cannot be handled as a {kind}: '
                         + unknown_fields_error(checked.unknown), source=source, obj=obj)
    if checked.unknown and validate == "warn" and warnings is not None:
        warnings.extend(f"{source}: {kind} {name}: {p}: {unknown_field_warning(p)}" for p in checked.unknown)
    errors = list(checked.errors)
    if not errors and webhook is not None:
        errors = webhook(checked.value)
    if errors:
        raise AdmissionRejected(invalid_message(qualified(kind), name, errors), source=source, obj=obj)
    return checked.value
