"""Karpenter's disruption rules that differ between releases, as data (one row per release): the
code asks a row for the rule, never a release's name. v1.13.0 is the build the yardsticks hold
(openshift/aws-karpenter-provider-aws abcf7d1e3417); v1.14.1 is kubernetes-sigs/karpenter at its tag
(the Balanced consolidation policy, consolidateAfter on destination nodes)."""
from __future__ import annotations

from dataclasses import dataclass

from kexplain.errors import KexplainError

BUILD_1_13 = ("sigs.k8s.io/karpenter v1.13.0 (github.com/openshift/kubernetes-sigs-karpenter 2b8ed744bf1c) in "
              "github.com/openshift/aws-karpenter-provider-aws abcf7d1e3417, as kexplain models it")
BUILD_1_14 = ("sigs.k8s.io/karpenter v1.14.1 (github.com/kubernetes-sigs/karpenter 6e7eab7a0f48), with kexplain's "
              "AWS provider, as kexplain models it")
NON_EMPTY_DISABLED = 'NodePool "{pool}" has non-empty consolidation disabled'
WHEN_EMPTY_NOT_EMPTY = 'NodePool "{pool}" has consolidation policy WhenEmpty, but node is not empty'


@dataclass(frozen=True)
class DisruptionRules:
    version: str
    build: str                                # the document's `karpenter`
    methods: tuple[str, ...]                  # NewMethods' order
    multi_node_max_candidates: int            # MultiNodeConsolidation: the batch it searches
    spot_to_spot_min_types: int               # MinInstanceTypesForSpotToSpotConsolidation
    max_instance_types: int                   # scheduling.MaxInstanceTypes (TruncateInstanceTypes)
    # The NodePool CRD's enum of spec.disruption.consolidationPolicy (the API server refuses others).
    consolidation_policies: tuple[str, ...]
    # The policies whose non-empty nodes consolidation (multi, single) takes; the others get
    # `policy_refusal` (an Unconsolidatable event; `{pool}`: the NodePool's name).
    underutilized_policies: tuple[str, ...]
    policy_refusal: str
    # Candidate.IsEmpty (v1.14): empty when no reschedulable pod has a positive eviction cost
    # (RescheduleDisruptionCost <= 1); consolidation's ShouldDisrupt drops empty nodes before the
    # policy check (no event), so MultiNode and SingleNode no longer skip them. v1.13: empty means
    # no reschedulable pod, and both consolidation methods skip those after the budget check.
    empty_by_eviction_cost: bool
    # sortCandidates: Price / RescheduleDisruptionCost, highest first (v1.14); v1.13: the
    # disruption cost, lowest first.
    order_by_savings_ratio: bool
    # Candidate.Price (resolveNodePrice, v1.14): the offering of the node's zone and capacity type;
    # the replacement's price in EstimatedSavings from its available offerings compatible with its
    # requirements. v1.13: getCandidatePrices (the cheapest offering compatible with the node's
    # labels, 0 for all when one has none) and the replacement's cheapest offering of any kind.
    price_by_offering: bool
    # IsConsolidationSimulation (v1.14): in consolidation's simulation an existing node still under
    # its NodePool's consolidateAfter takes no candidate's pod (pending pods and pods of deleting
    # nodes still go there).
    destination_consolidate_after: bool
    # v1.BalancedK: the Balanced policy's scoring (a move passes when its score >= 1/k); 0: none.
    balanced_k: int


V1_13_0 = DisruptionRules(
    "v1.13.0", BUILD_1_13, ("Emptiness", "StaticDrift", "Drift", "MultiNodeConsolidation", "SingleNodeConsolidation"),
    100, 15, 60, ("WhenEmpty", "WhenEmptyOrUnderutilized"), ("WhenEmptyOrUnderutilized",), NON_EMPTY_DISABLED,
    empty_by_eviction_cost=False, order_by_savings_ratio=False, price_by_offering=False,
    destination_consolidate_after=False, balanced_k=0)
V1_14_1 = DisruptionRules(
    "v1.14.1", BUILD_1_14, V1_13_0.methods, 100, 15, 60, ("WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"),
    ("WhenEmptyOrUnderutilized", "Balanced"), WHEN_EMPTY_NOT_EMPTY,
    empty_by_eviction_cost=True, order_by_savings_ratio=True, price_by_offering=True,
    destination_consolidate_after=True, balanced_k=2)
RELEASES = {r.version: r for r in (V1_13_0, V1_14_1)}
ALIASES = {"1.13": V1_13_0, "v1.13": V1_13_0, "1.13.0": V1_13_0, "1.14": V1_14_1, "v1.14": V1_14_1,
           "1.14.1": V1_14_1}
DEFAULT = V1_13_0


def resolve(value: str | None) -> DisruptionRules:
    """--karpenter-version: a release kexplain follows (X.Y, vX.Y or the full tag), else an error
    naming them (exit 2)."""
    if value is None:
        return DEFAULT
    found = RELEASES.get(value) or ALIASES.get(value)
    if found is None:
        known = ", ".join(f"{r.version[1:].rsplit('.', 1)[0]} ({r.version})" for r in RELEASES.values())
        raise KexplainError(f"--karpenter-version {value}: not a Karpenter release kexplain follows (known: {known})")
    return found
