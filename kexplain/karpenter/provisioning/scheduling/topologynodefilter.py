"""Which nodes a topology spread constraint counts (controllers/provisioning/scheduling/
topologynodefilter.go): its node affinity and taints policies."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from kexplain.karpenter.provisioning.scheduling.topologydomaingroup import NODE_INCLUSION_POLICY_HONOR
from kexplain.karpenter.scheduling.requirements import (
    Requirements, new_label_requirements, new_node_selector_requirements, new_requirements,
)
from kexplain.karpenter.scheduling.taints import Taints

Taint = Mapping[str, Any]


def odd_set(items) -> frozenset:
    """What hashstructure's SlicesAsSets keeps of a slice: element hashes XORed (a value present an
    even number of times cancels out)."""
    counts: dict = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return frozenset(item for item, n in counts.items() if n % 2)


class TopologyNodeFilter:
    """The pod's node selector and required node affinity terms (ORed), its tolerations and
    the two inclusion policies. The zero filter (TopologyNodeFilter()) passes every node."""

    __slots__ = ("requirements", "taint_policy", "affinity_policy", "tolerations")

    def __init__(self, requirements: Sequence[Requirements] = (), taint_policy: str = "",
                 affinity_policy: str = "", tolerations: Sequence[Mapping[str, Any]] = ()) -> None:
        self.requirements = tuple(requirements)
        self.taint_policy = taint_policy
        self.affinity_policy = affinity_policy
        self.tolerations = tuple(tolerations)

    def matches_all(self) -> bool:
        """Whether every node matches, whatever its labels and taints (the zero filter, or a
        spread constraint without node selection that ignores taints)."""
        return self.taint_policy != NODE_INCLUSION_POLICY_HONOR and (
            self.affinity_policy != NODE_INCLUSION_POLICY_HONOR or not self.requirements
            or any(not term for term in self.requirements))

    def matches(self, taints: Sequence[Taint], requirements: Requirements, allow_undefined: frozenset[str] = frozenset()) -> bool:
        """Matches: whether a node with these taints and requirements counts. (Go drops the
        compatibility options here, so `allow_undefined` is taken and not used.)"""
        if self.affinity_policy == NODE_INCLUSION_POLICY_HONOR and not self.matches_requirements(requirements):
            return False
        return self.taint_policy != NODE_INCLUSION_POLICY_HONOR or Taints(taints).tolerates(self.tolerations) is None

    def matches_requirements(self, requirements: Requirements) -> bool:
        """Some term's requirements are compatible with the node's (no terms: every node)."""
        if not self.requirements or self.affinity_policy != NODE_INCLUSION_POLICY_HONOR:
            return True
        # an empty term (no node selector, no affinity) is compatible with every node
        return any(not term or requirements.is_compatible(term) for term in self.requirements)

    def hash_key(self) -> tuple:
        """The filter as TopologyGroup.Hash sees it (hashstructure: exported fields, slices as sets): each
        term's keys and minValues only, as a Requirement's values are unexported."""
        terms = odd_set(frozenset((key, r.min_values) for key, r in term.items()) for term in self.requirements)
        tolerations = odd_set((t.get("key") or "", t.get("operator") or "", t.get("value") or "",
                               t.get("effect") or "", t.get("tolerationSeconds")) for t in self.tolerations)
        return (terms, self.taint_policy, self.affinity_policy, tolerations)


def make_topology_node_filter(pod, taint_policy: str, affinity_policy: str) -> TopologyNodeFilter:
    """MakeTopologyNodeFilter: with no required node affinity, the node selector alone; else one
    set of requirements per term (node selector plus the term's expressions)."""
    spec = pod.spec
    node_selector = new_label_requirements(spec.get("nodeSelector"))
    tolerations = tuple(spec.get("tolerations") or ())
    node_affinity = (spec.get("affinity") or {}).get("nodeAffinity") or {}
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if required is None:
        return TopologyNodeFilter((node_selector,), taint_policy, affinity_policy, tolerations)
    terms = []
    for term in required.get("nodeSelectorTerms") or ():
        requirements = new_requirements(*node_selector.values())
        requirements.add(*new_node_selector_requirements((term or {}).get("matchExpressions")).values())
        terms.append(requirements)
    return TopologyNodeFilter(terms, taint_policy, affinity_policy, tolerations)
