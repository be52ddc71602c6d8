"""NodePool (karpenter.sh/v1, core `pkg/apis/v1/nodepool.go`, nodepool_validation.go,
nodepool_status.go): what it launches, how it is ordered, bounded and disrupted, whether it is ready."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Mapping

from kexplain.apimachinery import quantity
from kexplain.apimachinery.names import is_label_key, is_label_value
from kexplain.apimachinery.strconv import parse_int64
from kexplain.errors import InputError, Source
from kexplain.karpenter.apis import schema as s
from kexplain.karpenter.apis.ec2nodeclass import SUPPORTED_NODE_CLASSES
from kexplain.karpenter.apis.labels import (NODE_POOL_LABEL_KEY, NORMALIZED_LABELS, WELL_KNOWN_LABELS,
                                            WELL_KNOWN_VALUES_FOR_REQUIREMENTS, go_list, go_set_text, go_unsorted_list,
                                            is_restricted_label)
from kexplain.karpenter.apis.nodeclaim import (NodeClassReference, NodeSelectorRequirementWithMinValues, admit,
                                               key_rules, parse_node_class_ref, parse_requirement, parse_resources,
                                               parse_taint, spec_rules)
from kexplain.karpenter.apis.status import CONDITION_READY, Condition, ConditionSet, parse_conditions

QUALIFIED_KIND = "NodePool.karpenter.sh"
CONDITION_VALIDATION_SUCCEEDED = "ValidationSucceeded"
CONDITION_NODE_CLASS_READY = "NodeClassReady"
SUPPORTED_NODE_SELECTOR_OPS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte")


# -- the objects -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class NodeClaimTemplateSpec:
    taints: tuple[Mapping[str, str], ...]
    startup_taints: tuple[Mapping[str, str], ...]
    requirements: tuple[NodeSelectorRequirementWithMinValues, ...]
    node_class_ref: NodeClassReference
    termination_grace_period: str | None = None
    expire_after: str = "720h"


@dataclass(frozen=True)
class NodeClaimTemplate:
    """spec.template: the labels and annotations NodeClaims get, and their spec."""

    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    spec: NodeClaimTemplateSpec


@dataclass(frozen=True)
class Budget:
    nodes: str
    schedule: str | None = None
    duration: str | None = None
    reasons: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Disruption:
    consolidate_after: str = "0s"
    consolidation_policy: str = "WhenEmptyOrUnderutilized"
    budgets: tuple[Budget, ...] = (Budget("10%"),)


@dataclass(frozen=True)
class LimitExceeded:
    """Limits.ExceededBy's error: the first resource whose usage is above its limit."""

    resource: str
    usage: quantity.Quantity
    limit: quantity.Quantity

    def __str__(self) -> str:
        # serrors sorts its keys; Go prints the values with AsDec (inf.Dec), here their canonical text.
        return f"resource usage exceeds limit (limit={self.limit}, resource-name={self.resource}, usage={self.usage})"


@dataclass(frozen=True)
class NodePoolSpec:
    template: NodeClaimTemplate
    disruption: Disruption
    limits: Mapping[str, quantity.Quantity] | None = None      # None: no limits at all
    weight: int | None = None
    replicas: int | None = None

    def exceeded_by(self, resources: Mapping[str, quantity.Quantity]) -> LimitExceeded | None:
        """Limits.ExceededBy: a resource of `resources` above its limit (in key order: Go's is a map's)."""
        if self.limits is None:
            return None
        for name in sorted(resources):
            limit = self.limits.get(name)
            if limit is not None and resources[name].value > limit.value:
                return LimitExceeded(name, resources[name], limit)
        return None


@dataclass(frozen=True)
class NodePoolStatus:
    resources: Mapping[str, quantity.Quantity] = field(default_factory=dict)
    nodes: int = 0
    conditions: tuple[Condition, ...] = ()


@dataclass(frozen=True)
class NodePool:
    """A NodePool as stored (the schema's defaults set). `obj` is that object."""

    name: str
    uid: str
    generation: int
    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    spec: NodePoolSpec
    status: NodePoolStatus
    obj: Mapping[str, Any] = field(repr=False, compare=False, default_factory=dict)

    @property
    def weight(self) -> int:
        """lo.FromPtr(spec.weight): 0 when unset."""
        return self.spec.weight or 0

    def is_static(self) -> bool:
        """A static NodePool (spec.replicas set): Karpenter's provisioner does not use it."""
        return self.spec.replicas is not None

    def is_managed(self) -> bool:
        """nodepoolutils.IsManaged: its node class is one the cloud provider supports."""
        return self.spec.template.spec.node_class_ref.group_kind() in SUPPORTED_NODE_CLASSES


# -- the CRD ---------------------------------------------------------------------------------------
def _labels_rules() -> tuple[s.Rule, ...]:
    return tuple((lambda labels, rule=rule: all(rule(k) for k in labels), message)
                 for rule, message in key_rules(node_pool=True))


def _static_limits(spec: Any) -> bool:
    limits = spec.get("limits")
    return "replicas" not in spec or not limits or (len(limits) == 1 and "nodes" in limits)


_RULES: dict[str, tuple[s.Rule, ...]] = {
    **spec_rules("NodePool.spec.template.spec", node_pool=True),
    "NodePool.spec.template.metadata.labels": _labels_rules(),
    "NodePool.spec.disruption.budgets": ((lambda budgets: all(("schedule" in b) == ("duration" in b) for b in budgets),
                                         "'schedule' must be set with 'duration'"),),
    "NodePool.spec": (
        (_static_limits, "only 'limits.nodes' is supported on static NodePools"),
        (lambda spec: "replicas" not in spec or "weight" not in spec, "'weight' is not supported on static NodePools"),
    ),
}
NODE_POOL_SCHEMA = s.load_schemas(__package__, "nodepool", _RULES)["NodePool"]      # the structure: data/nodepool.json
_POLICY_PATH = ("spec", "disruption", "consolidationPolicy")


@lru_cache(maxsize=4)
def node_pool_schema(policies: tuple[str, ...] | None = None) -> s.Node:
    """The NodePool CRD of a release whose consolidationPolicy enum is `policies` (None: v1.13.0's,
    data/nodepool.json's): the one node replaced, the rest shared."""
    base = NODE_POOL_SCHEMA
    for key in _POLICY_PATH:
        base = (base.properties or {})[key]
    if policies is None or policies == base.enum:
        return NODE_POOL_SCHEMA

    def swap(node: s.Node, path: tuple[str, ...]) -> s.Node:
        assert node.properties is not None
        child = node.properties[path[0]]
        new = replace(child, enum=policies) if len(path) == 1 else swap(child, path[1:])
        return replace(node, properties={**node.properties, path[0]: new})
    return swap(NODE_POOL_SCHEMA, _POLICY_PATH)


# -- parsing ---------------------------------------------------------------------------------------
def parse_node_pool(obj: Mapping[str, Any], source: Source | None = None, *, validate: str = "strict",
                    invalid: str = "note", warnings: list[str] | None = None,
                    policies: tuple[str, ...] | None = None) -> NodePool:
    """A NodePool as stored (else AdmissionRejected, or InputError for unknown fields under strict).
    `policies`: the release's consolidationPolicy enum (`node_pool_schema`)."""
    stored = admit(obj, node_pool_schema(policies), QUALIFIED_KIND, source, validate, invalid, warnings)
    meta = stored.get("metadata") or {}
    spec = stored["spec"]
    template = spec["template"]
    tmeta = template.get("metadata") or {}
    tspec = template["spec"]
    disruption = spec["disruption"]
    status = stored.get("status") or {}
    try:
        limits = parse_resources(spec["limits"]) if "limits" in spec else None
        resources = parse_resources(status.get("resources"))
    except quantity.QuantityError as e:
        raise InputError(str(e), source=source, obj=obj) from None
    return NodePool(
        name=meta["name"], uid=str(meta.get("uid") or ""), generation=int(meta.get("generation") or 0),
        labels={str(k): str(v) for k, v in (meta.get("labels") or {}).items()},
        annotations={str(k): str(v) for k, v in (meta.get("annotations") or {}).items()},
        spec=NodePoolSpec(
            template=NodeClaimTemplate(
                labels=dict(tmeta.get("labels") or {}), annotations=dict(tmeta.get("annotations") or {}),
                spec=NodeClaimTemplateSpec(
                    taints=tuple(parse_taint(t) for t in tspec.get("taints") or ()),
                    startup_taints=tuple(parse_taint(t) for t in tspec.get("startupTaints") or ()),
                    requirements=tuple(parse_requirement(r) for r in tspec["requirements"]),
                    node_class_ref=parse_node_class_ref(tspec["nodeClassRef"]),
                    termination_grace_period=tspec.get("terminationGracePeriod"),
                    expire_after=tspec.get("expireAfter", "720h"))),
            disruption=Disruption(
                consolidate_after=disruption["consolidateAfter"],
                consolidation_policy=disruption.get("consolidationPolicy", "WhenEmptyOrUnderutilized"),
                budgets=tuple(Budget(b["nodes"], b.get("schedule"), b.get("duration"),
                                     tuple(b["reasons"]) if "reasons" in b else None)
                              for b in disruption.get("budgets") or ())),
            limits=limits, weight=spec.get("weight"), replicas=spec.get("replicas")),
        status=NodePoolStatus(resources, int(status.get("nodes") or 0), parse_conditions(status.get("conditions"))),
        obj=stored,
    )


# -- Karpenter's runtime validation (nodepool_validation.go, nodeclaim_validation.go) ---------------
def _validate_labels(labels: Mapping[str, str]) -> list[str]:
    errs: list[str] = []
    for key in sorted(labels):               # Go ranges over the map: any order
        value = labels[key]
        if key == NODE_POOL_LABEL_KEY:
            errs.append(f'invalid key name "{key}" in labels, restricted')
        errs.extend(f'invalid key name "{key}" in labels, "{e}"' for e in is_label_key(key))
        errs.extend(f"invalid value: {value} for label[{key}], {e}" for e in is_label_value(value))
        restricted = is_restricted_label(key)
        if restricted:
            errs.append(f'invalid key name "{key}" in labels, {restricted}')
    return errs


def _validate_taints(taints: tuple[Mapping[str, str], ...], seen: set[tuple[str, str]], name: str) -> list[str]:
    errs: list[str] = []
    for taint in taints:
        key, value, effect = taint.get("key", ""), taint.get("value", ""), taint.get("effect", "")
        errs.extend(f"invalid value: {e} in {name}" for e in is_label_key(key))
        if value:
            errs.extend(f"invalid value: {e} in {name}" for e in is_label_key(value))
        if effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute", ""):
            errs.append(f'invalid value: "{effect}" in {name}')
        if (key, effect) in seen:
            errs.append(f"duplicate taint Key/Effect pair {key}={effect}")
        seen.add((key, effect))
    return errs


def _validate_well_known_values(key: str, operator: str, values: tuple[str, ...],
                                min_values: int | None) -> str | None:
    if key not in WELL_KNOWN_LABELS or operator != "In" or key not in WELL_KNOWN_VALUES_FOR_REQUIREMENTS:
        return None
    known = WELL_KNOWN_VALUES_FOR_REQUIREMENTS[key]
    valid = [v for v in values if v in known]
    invalid = [v for v in values if v not in known]
    if not valid:
        return (f"no valid values found in {go_list(values)} for {key}, expected one of: {go_set_text(key)}, "
                f"got: {go_list(invalid)}")
    if min_values is not None and len(valid) < min_values:
        return (f"not enough valid values found in {go_list(values)} for {key}, expected at least {min_values} "
                f"valid values from: {go_list(go_unsorted_list(key))}, got: {len(valid)}")
    return None


def validate_requirement(req: NodeSelectorRequirementWithMinValues) -> list[str]:
    """ValidateRequirement's errors (the key normalized first)."""
    key = NORMALIZED_LABELS.get(req.key, req.key)
    op, values = req.operator, req.values
    errs: list[str] = []
    if op not in SUPPORTED_NODE_SELECTOR_OPS:
        # Go prints sets.String.UnsortedList(): any order
        errs.append(f"key {key} has an unsupported operator {op} not in {go_list(SUPPORTED_NODE_SELECTOR_OPS)}")
    restricted = is_restricted_label(key)
    if restricted:
        errs.append(restricted)
    known = _validate_well_known_values(key, op, values, req.min_values)
    if known:
        errs.append(known)
    errs.extend(f"key {key} is not a qualified name, {e}" for e in is_label_key(key))
    for value in values:
        errs.extend(f"invalid value {value} for key {key}, {e}" for e in is_label_value(value))
    if op == "In" and not values:
        errs.append(f"key {key} with operator {op} must have a value defined")
    if op == "In" and req.min_values is not None and len(values) < req.min_values:
        errs.append(f"key {key} with operator {op} must have at least minimum number of values defined in "
                    f"'values' field")
    if op in ("Gt", "Lt", "Gte", "Lte"):
        n = parse_int64(values[0]) if len(values) == 1 else None
        if n is None or n < 0:
            errs.append(f"key {key} with operator {op} must have a single positive integer value")
    return errs


def runtime_validate(node_pool: NodePool) -> str | None:
    """RuntimeValidate: None, or the errors (joined with `; ` as multierr prints them) that set
    the NodePool's ValidationSucceeded condition False, reason NodePoolValidationFailed."""
    template = node_pool.spec.template
    errs = _validate_labels(template.labels)
    seen: set[tuple[str, str]] = set()
    errs += _validate_taints(template.spec.taints, seen, "taints")
    errs += _validate_taints(template.spec.startup_taints, seen, "startupTaints")
    for req in template.spec.requirements:
        errs.extend(f"invalid value: {e} in requirements, restricted" for e in validate_requirement(req))
    errs.extend(f'invalid key: "{r.key}" in requirements, restricted'
                for r in template.spec.requirements if r.key == NODE_POOL_LABEL_KEY)
    return "; ".join(errs) if errs else None


# -- readiness (controllers/nodepool/validation and readiness) --------------------------------------
NODE_CLASS_NOT_FOUND = ("NodeClassNotFound", "NodeClass not found on cluster")
NODE_CLASS_TERMINATING = ("NodeClassTerminating", "NodeClass is Terminating")
NODE_CLASS_READINESS_UNKNOWN = ("NodeClassReadinessUnknown", "Node Class Readiness Unknown")


def node_pool_conditions(node_pool: NodePool, node_class_ready: Condition | None, *, found: bool = True,
                         terminating: bool = False) -> tuple[Condition, ...]:
    """The NodePool's status conditions as Karpenter's controllers leave them: the input's, else
    NodeClassReady then ValidationSucceeded, the root `Ready` recomputed after each."""
    if node_pool.status.conditions:
        return node_pool.status.conditions
    cs = ConditionSet((CONDITION_VALIDATION_SUCCEEDED, CONDITION_NODE_CLASS_READY), generation=node_pool.generation)
    if not node_pool.is_managed():
        return tuple(cs.conditions)
    if not found:
        cs.set_false(CONDITION_NODE_CLASS_READY, *NODE_CLASS_NOT_FOUND)
    elif terminating:
        cs.set_false(CONDITION_NODE_CLASS_READY, *NODE_CLASS_TERMINATING)
    elif node_class_ready is None or node_class_ready.is_unknown():
        cs.set_false(CONDITION_NODE_CLASS_READY, *NODE_CLASS_READINESS_UNKNOWN)
    elif node_class_ready.is_false():
        cs.set_false(CONDITION_NODE_CLASS_READY, node_class_ready.reason, node_class_ready.message)
    else:
        cs.set_true(CONDITION_NODE_CLASS_READY)
    failure = runtime_validate(node_pool)
    if failure:
        cs.set_false(CONDITION_VALIDATION_SUCCEEDED, "NodePoolValidationFailed", failure)
    else:
        cs.set_true(CONDITION_VALIDATION_SUCCEEDED)
    return tuple(cs.conditions)


def is_ready(conditions: tuple[Condition, ...]) -> bool:
    """StatusConditions().IsTrue(): the root Ready condition is True."""
    return any(c.type == CONDITION_READY and c.is_true() for c in conditions)

