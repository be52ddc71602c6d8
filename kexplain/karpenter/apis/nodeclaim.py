"""NodeClaim (karpenter.sh/v1, core `pkg/apis/v1/nodeclaim.go`, nodeclaim_status.go) and the pieces
NodePools share with it (requirements with minValues, NodeClassReference, taints, their CRD rules)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from kexplain.apimachinery import quantity
from kexplain.apimachinery.fielderrors import FieldError, invalid, invalid_message
from kexplain.apimachinery.names import is_dns1123_subdomain
from kexplain.errors import AdmissionRejected, InputError, Source
from kexplain.karpenter.apis import schema as s
from kexplain.karpenter.apis.labels import (AWS_GROUP, GROUP, LABEL_NODE_CLASS,
                                            NODE_POOL_LABEL_KEY, WELL_KNOWN_LABELS, get_label_domain)
from kexplain.karpenter.apis.status import Condition, parse_conditions

QUALIFIED_KIND = "NodeClaim.karpenter.sh"


@dataclass(frozen=True)
class NodeSelectorRequirementWithMinValues:
    """One requirement as the API holds it: `operator` may also be Karpenter's `Gte`/`Lte`;
    `values` in the order written (or sorted, when Karpenter writes it)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()
    min_values: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape (`values` and `minValues` omitted when empty, as Go's omitempty)."""
        out: dict[str, Any] = {"key": self.key, "operator": self.operator}
        if self.values:
            out["values"] = list(self.values)
        if self.min_values is not None:
            out["minValues"] = self.min_values
        return out


@dataclass(frozen=True)
class NodeClassReference:
    group: str
    kind: str
    name: str

    def group_kind(self) -> tuple[str, str]:
        return self.group, self.kind


@dataclass(frozen=True)
class NodeClaimStatus:
    node_name: str = ""
    provider_id: str = ""
    image_id: str = ""
    capacity: Mapping[str, quantity.Quantity] = field(default_factory=dict)
    allocatable: Mapping[str, quantity.Quantity] = field(default_factory=dict)
    conditions: tuple[Condition, ...] = ()


@dataclass(frozen=True)
class NodeClaim:
    """A NodeClaim as stored. `obj` is the object as admitted (defaults set)."""

    name: str
    uid: str
    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    taints: tuple[Mapping[str, str], ...]
    startup_taints: tuple[Mapping[str, str], ...]
    requirements: tuple[NodeSelectorRequirementWithMinValues, ...]
    requests: Mapping[str, quantity.Quantity]
    node_class_ref: NodeClassReference
    termination_grace_period: str | None
    expire_after: str
    status: NodeClaimStatus
    obj: Mapping[str, Any] = field(repr=False, compare=False, default_factory=dict)

    @property
    def node_pool_name(self) -> str:
        """The `karpenter.sh/nodepool` label ("" for a NodeClaim no NodePool owns)."""
        return self.labels.get(NODE_POOL_LABEL_KEY, "")


# -- the CRD's rules, shared with NodePools ----------------------------------------------------------
def _domain_exceptions(domain: str) -> frozenset[str]:
    """The keys of a restricted domain its CRDs still allow (the well-known ones, the node class label)."""
    return frozenset(k for k in WELL_KNOWN_LABELS | {LABEL_NODE_CLASS} if get_label_domain(k) == domain)


_ALLOWED = {GROUP: _domain_exceptions(GROUP), AWS_GROUP: _domain_exceptions(AWS_GROUP)}


def _domain_rule(domain: str) -> s.Rule:
    return (lambda key: key in _ALLOWED[domain] or not s.prefix_before_slash(key).endswith(domain),
            f'label domain "{domain}" is restricted')


def key_rules(*, node_pool: bool) -> tuple[s.Rule, ...]:
    """A requirement key's (and a template label's) rules: the restricted domains, the nodepool
    label (NodePools only), the hostname."""
    out = [_domain_rule(GROUP)]
    if node_pool:
        out.append((lambda key: key != NODE_POOL_LABEL_KEY, f'label "{NODE_POOL_LABEL_KEY}" is restricted'))
    out.append((lambda key: key != "kubernetes.io/hostname", 'label "kubernetes.io/hostname" is restricted'))
    out.append(_domain_rule(AWS_GROUP))
    return tuple(out)


def _values(x: Any) -> list:
    return s.get(x, "values")


def _in_has_values(reqs: list) -> bool:
    return s.all_of(reqs, lambda x: len(_values(x)) != 0 if x.get("operator") == "In" else True)


def _bounds_have_one_value(reqs: list) -> bool:
    def ok(x: Any) -> bool:
        if x.get("operator") not in ("Gt", "Lt", "Gte", "Lte"):
            return True
        values = _values(x)
        return len(values) == 1 and s.cel_int(values[0]) >= 0
    return s.all_of(reqs, ok)


def _min_values_met(reqs: list) -> bool:
    return s.all_of(reqs, lambda x: len(_values(x)) >= x["minValues"]
                    if x.get("operator") == "In" and "minValues" in x else True)


REQUIREMENTS_RULES = (
    (_in_has_values, "requirements with operator 'In' must have a value defined"),
    (_bounds_have_one_value, "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive "
                             "integer value"),
    (_min_values_met, "requirements with 'minValues' must have at least that many values specified in the "
                      "'values' field"),
)


def spec_rules(prefix: str, *, node_pool: bool) -> dict[str, tuple[s.Rule, ...]]:
    """The rules of a NodeClaim spec's requirements and node class reference, by their names in
    the data (`prefix`: the spec's path there)."""
    return {f"{prefix}.requirements[].key": key_rules(node_pool=node_pool),
            f"{prefix}.requirements": REQUIREMENTS_RULES,
            f"{prefix}.nodeClassRef.group": ((lambda v: v != "", "group may not be empty"),),
            f"{prefix}.nodeClassRef.kind": ((lambda v: v != "", "kind may not be empty"),),
            f"{prefix}.nodeClassRef.name": ((lambda v: v != "", "name may not be empty"),)}


# The CRD's structure is data (data/nodeclaim.json); status is written by Karpenter (the status
# subresource; a create drops it): taken as given, only its types checked.
NODE_CLAIM_SCHEMA = s.load_schemas(__package__, "nodeclaim", spec_rules("NodeClaim.spec", node_pool=False))["NodeClaim"]


# -- parsing ---------------------------------------------------------------------------------------
def metadata_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """What the API server checks of a custom resource's name: set, a DNS subdomain."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        return [FieldError("Required value", "metadata.name", None, "name or generateName is required")]
    return [invalid("metadata.name", name, msg) for msg in is_dns1123_subdomain(name)]


def admit(obj: Mapping[str, Any], node: s.Node, qualified_kind: str, source: Source | None,
          validate: str = "strict", invalid: str = "note", warnings: list[str] | None = None) -> dict:
    """The object as the API server would store it: its name checked, then its schema (schema.admit)."""
    if not isinstance(obj, dict):
        raise InputError(f"expected a {qualified_kind.split('.', 1)[0]} object (a mapping)", source=source)
    errs = metadata_errors(obj)
    if errs:
        name = (obj.get("metadata") or {}).get("name") if isinstance(obj.get("metadata"), dict) else ""
        raise AdmissionRejected(invalid_message(qualified_kind, name if isinstance(name, str) else "", errs),
                                source=source, obj=obj)
    return s.admit(obj, node, qualified_kind, source, validate, invalid, warnings)


def parse_requirement(raw: Mapping[str, Any]) -> NodeSelectorRequirementWithMinValues:
    return NodeSelectorRequirementWithMinValues(raw["key"], raw["operator"], tuple(raw.get("values") or ()),
                                                raw.get("minValues"))


def parse_taint(raw: Mapping[str, Any]) -> dict[str, str]:
    """A taint as kexplain's model reads it: key, value (when set), effect."""
    out = {"key": raw["key"], "effect": raw["effect"]}
    if raw.get("value"):
        out["value"] = raw["value"]
    return out


def parse_resources(raw: Mapping[str, Any] | None) -> dict[str, quantity.Quantity]:
    """A ResourceList (values already matched the quantity pattern)."""
    return {k: quantity.parse(v) for k, v in (raw or {}).items()}


def parse_node_class_ref(raw: Mapping[str, Any]) -> NodeClassReference:
    return NodeClassReference(raw["group"], raw["kind"], raw["name"])


def _meta(obj: Mapping[str, Any]) -> tuple[str, str, dict[str, str], dict[str, str]]:
    meta = obj.get("metadata") or {}
    labels = {str(k): str(v) for k, v in (meta.get("labels") or {}).items()}
    annotations = {str(k): str(v) for k, v in (meta.get("annotations") or {}).items()}
    return meta["name"], str(meta.get("uid") or ""), labels, annotations


def _stored(obj: Mapping[str, Any], source: Source | None, validate: str, invalid: str, warnings: list[str] | None
            ) -> tuple[dict, tuple[dict[str, quantity.Quantity], ...]]:
    """The NodeClaim as stored and its requests, capacity and allocatable: what may still refuse it once
    admitted (the rest of `parse_node_claim` reads fields the schema requires, as their types)."""
    stored = admit(obj, NODE_CLAIM_SCHEMA, QUALIFIED_KIND, source, validate, invalid, warnings)
    spec = stored["spec"]
    status = stored.get("status") or {}
    try:
        return stored, (parse_resources((spec.get("resources") or {}).get("requests")),
                        parse_resources(status.get("capacity")), parse_resources(status.get("allocatable")))
    except quantity.QuantityError as e:      # a pattern match the parser still refuses (too many digits)
        raise InputError(str(e), source=source, obj=obj) from None


def stored_node_claim(obj: Mapping[str, Any], source: Source | None = None, *, validate: str = "strict",
                      invalid: str = "note", warnings: list[str] | None = None) -> dict:
    """`parse_node_claim(...).obj`, the same errors said, without the `NodeClaim` (the cluster state reads
    the stored object: 2,000 of them made for nothing)."""
    return _stored(obj, source, validate, invalid, warnings)[0]


def parse_node_claim(obj: Mapping[str, Any], source: Source | None = None, *, validate: str = "strict",
                     invalid: str = "note", warnings: list[str] | None = None) -> NodeClaim:
    """A NodeClaim as stored (else AdmissionRejected, or InputError for unknown fields under strict)."""
    stored, (requests, capacity, allocatable) = _stored(obj, source, validate, invalid, warnings)
    name, uid, labels, annotations = _meta(stored)
    spec = stored["spec"]
    status = stored.get("status") or {}
    return NodeClaim(
        name=name, uid=uid, labels=labels, annotations=annotations,
        taints=tuple(parse_taint(t) for t in spec.get("taints") or ()),
        startup_taints=tuple(parse_taint(t) for t in spec.get("startupTaints") or ()),
        requirements=tuple(parse_requirement(r) for r in spec["requirements"]),
        requests=requests,
        node_class_ref=parse_node_class_ref(spec["nodeClassRef"]),
        termination_grace_period=spec.get("terminationGracePeriod"),
        expire_after=spec.get("expireAfter", "720h"),
        status=NodeClaimStatus(str(status.get("nodeName") or ""), str(status.get("providerID") or ""),
                               str(status.get("imageID") or ""), capacity, allocatable,
                               parse_conditions(status.get("conditions"))),
        obj=stored,
    )

