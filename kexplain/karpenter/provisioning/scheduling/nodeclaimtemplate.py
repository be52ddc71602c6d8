"""A NodePool's template for new NodeClaims (provisioning/scheduling/nodeclaimtemplate.go)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from kexplain.apimachinery.selectors import IN
from kexplain.karpenter.apis.labels import RESTRICTED_LABELS, WELL_KNOWN_LABELS
from kexplain.karpenter.scheduling.requirement import RandomMarker, new_requirement
from kexplain.karpenter.scheduling.requirements import (
    Requirements, new_label_requirements, new_node_selector_requirements_with_min_values, new_requirements,
)
from kexplain.apimachinery.identity import as_dict
from kexplain.karpenter.utils.resources import ResourceList
from kexplain.karpenter.apis.nodeclaim import NodeSelectorRequirementWithMinValues

# MaxInstanceTypes (nodeclaimtemplate.go): how many instance types a NodeClaim names at most.
# (The README says 60; the code at this commit says 600, and the code wins.)
MAX_INSTANCE_TYPES = 600
NODEPOOL_LABEL = "karpenter.sh/nodepool"
CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"


def node_class_label_key(group: str, kind: str) -> str:
    """v1.NodeClassLabelKey: `GROUP/lowercase(KIND)` (karpenter.k8s.aws/ec2nodeclass)."""
    return f"{group}/{kind.lower()}"


@dataclass
class NodeClaimTemplate:
    """What every NodeClaim of one NodePool starts from. Mutable as Go's: `to_node_claim` and the
    scheduler's NodeClaims change their own copies."""

    node_pool_name: str
    node_pool_uid: str
    node_pool_weight: int
    labels: dict[str, str]
    annotations: dict[str, str]
    taints: list[dict[str, Any]]
    startup_taints: list[dict[str, Any]]
    node_class_ref: dict[str, Any]
    requirements: Requirements
    requests: ResourceList = field(default_factory=dict)      # Spec.Resources.Requests
    instance_type_options: list[Any] = field(default_factory=list)
    is_static: bool = False
    spec: dict[str, Any] = field(default_factory=dict)        # the template's spec as written

    def copy(self) -> "NodeClaimTemplate":
        """Go's struct copy (`template := *nodeClaimTemplate`): maps and slices shared."""
        return NodeClaimTemplate(**{f: getattr(self, f) for f in self.__dataclass_fields__})


def new_node_claim_template(node_pool: Mapping[str, Any]) -> NodeClaimTemplate:
    """NewNodeClaimTemplate of a NodePool (its object as written)."""
    meta = as_dict(node_pool.get("metadata"))
    spec = as_dict(node_pool.get("spec"))
    template = as_dict(spec.get("template"))
    tmeta = as_dict(template.get("metadata"))
    tspec = as_dict(template.get("spec"))
    ref = as_dict(tspec.get("nodeClassRef"))
    name = meta.get("name") or ""
    labels = {str(k): str(v) for k, v in as_dict(tmeta.get("labels")).items()}
    labels[NODEPOOL_LABEL] = name
    labels[node_class_label_key(ref.get("group") or "", ref.get("kind") or "")] = ref.get("name") or ""
    annotations = {str(k): str(v) for k, v in as_dict(tmeta.get("annotations")).items()}
    requirements = new_requirements()
    requirements.add(*new_node_selector_requirements_with_min_values(
        _requirement_values(tspec.get("requirements"))).values())
    requirements.add(*new_label_requirements(labels).values())
    weight = spec.get("weight")
    return NodeClaimTemplate(
        node_pool_name=name, node_pool_uid=meta.get("uid") or "",
        node_pool_weight=weight if isinstance(weight, int) and not isinstance(weight, bool) else 0,
        labels=labels, annotations=annotations,
        taints=[t for t in tspec.get("taints") or () if isinstance(t, dict)],
        startup_taints=[t for t in tspec.get("startupTaints") or () if isinstance(t, dict)],
        node_class_ref=ref, requirements=requirements, is_static=spec.get("replicas") is not None, spec=tspec)


def _requirement_values(raw: Any) -> list[Any]:
    out = []
    for r in raw or ():
        if not isinstance(r, dict):
            continue
        min_values = r.get("minValues")
        out.append(NodeSelectorRequirementWithMinValues(
            str(r.get("key") or ""), str(r.get("operator") or ""), tuple(str(v) for v in r.get("values") or ()),
            min_values if isinstance(min_values, int) and not isinstance(min_values, bool) else None))
    return out


def resolve_custom_labels_from_requirements(requirements: Requirements) -> dict[str, str]:
    """The labels a NodeClaim gets from requirements on custom keys: a single `In` value as is;
    a value Karpenter draws at random (Exists, NotIn, several In values) as the README's marker."""
    labels: dict[str, str] = {}
    marker = RandomMarker()
    for key, requirement in requirements.items():
        if key in WELL_KNOWN_LABELS or key in RESTRICTED_LABELS:
            continue
        value = requirement.any(marker)
        if value:
            labels[key] = value
    return labels


def to_node_claim(template: NodeClaimTemplate, index: Any) -> dict[str, Any]:
    """ToNodeClaim: the NodeClaim Create sends (name left to the caller); mutates the template's
    requirements and labels, as Go's does."""
    if not template.is_static:
        options = template.instance_type_options
        ordered = index.question(template.requirements).order_by_price(options)[:MAX_INSTANCE_TYPES]
        current = template.requirements.get(INSTANCE_TYPE_LABEL)
        template.requirements.add(new_requirement(INSTANCE_TYPE_LABEL, IN, *(it.name for it in ordered),
                                                  min_values=current.min_values))
        capacity_types = index.question(template.requirements).capacity_types(ordered)
        if capacity_types:
            template.requirements.add(new_requirement(CAPACITY_TYPE_LABEL, IN, *capacity_types))
    template.labels = {**template.labels, **resolve_custom_labels_from_requirements(template.requirements)}
    return {
        "labels": dict(template.labels),
        "annotations": dict(template.annotations),
        "nodePool": template.node_pool_name,
        "requirements": template.requirements.node_selector_requirements(),
        "requests": dict(template.requests),
        "taints": list(template.taints),
        "startupTaints": list(template.startup_taints),
    }
