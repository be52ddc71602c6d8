"""The consolidation base (controllers/disruption/consolidation.go): its candidate filter, the
order by disruption cost, computeConsolidation and spot-to-spot consolidation."""
from __future__ import annotations

from typing import Any

from kexplain.karpenter.cloudprovider.types import InstanceTypes, MAX_FLOAT64
from kexplain.karpenter.disruption import events as ev
from kexplain.karpenter.disruption.balanced import (Totals, estimated_savings, is_empty, node_pool_totals,
                                                   source_price)
from kexplain.karpenter.disruption.candidate import (CAPACITY_TYPE_LABEL, INSTANCE_TYPE_LABEL, ZONE_LABEL, Candidate,
                                                    Command, Method, condition_true, sentence)
from kexplain.karpenter.disruption.helpers import CandidateDeleting, simulate_scheduling
from kexplain.karpenter.scheduling.requirement import new_requirement
from kexplain.karpenter.scheduling.requirements import ALLOW_UNDEFINED_WELL_KNOWN_LABELS, new_requirements

SPOT, ON_DEMAND, RESERVED = "spot", "on-demand", "reserved"


def consolidation_disabled(c: Candidate) -> bool:
    """consolidateAfter: Never (a nil Duration)."""
    return c.node_pool.spec.disruption.consolidate_after == "Never"


def _offerings_compatible(offerings: Any, reqs: Any) -> list[Any]:
    return [o for o in offerings if reqs.is_compatible(o.requirements, ALLOW_UNDEFINED_WELL_KNOWN_LABELS)]


_CAPACITY_REQS = {ct: new_requirements(new_requirement(CAPACITY_TYPE_LABEL, "In", ct)) for ct in (RESERVED, SPOT, ON_DEMAND)}


def worst_launch_price(it: Any, reqs: Any) -> float:
    """Offerings.Available().WorstLaunchPrice: the most expensive offering of the capacity type it
    would launch with (reserved, spot, on-demand)."""
    available = [o for o in it.offerings if o.available]
    compatible = _offerings_compatible(available, reqs)
    for ct in (RESERVED, SPOT, ON_DEMAND):
        found = _offerings_compatible(compatible, _CAPACITY_REQS[ct])
        if found:
            best = found[0]
            for o in found[1:]:
                if o.price > best.price:
                    best = o
            return best.price
    return MAX_FLOAT64


def remove_by_price_and_min_values(claim: Any, reqs: Any, max_price: float) -> BaseException | None:
    """NodeClaim.RemoveInstanceTypeOptionsByPriceAndMinValues (the error: minValues no longer met)."""
    claim.instance_type_options = InstanceTypes(it for it in claim.instance_type_options
                                                if worst_launch_price(it, reqs) < max_price)
    _, _, err = InstanceTypes(claim.instance_type_options).satisfies_min_values(reqs)
    return err


class Consolidation(Method):
    """consolidation: what the three consolidation methods share."""

    _totals: tuple[list[Candidate], dict[str, Totals]] | None = None

    def should_disrupt(self, c: Candidate) -> bool:
        publish = self.ctx.recorder.publish
        if c.owned_by_static_node_pool():
            return False
        if c.instance_type is None:
            publish(*ev.unconsolidatable(c.node, c.node_claim,
                                         f'Instance Type "{c.labels().get(INSTANCE_TYPE_LABEL, "")}" not found'))
            return False
        if CAPACITY_TYPE_LABEL not in c.labels():
            publish(*ev.unconsolidatable(c.node, c.node_claim, f'Node does not have label "{CAPACITY_TYPE_LABEL}"'))
            return False
        if ZONE_LABEL not in c.labels():
            publish(*ev.unconsolidatable(c.node, c.node_claim, f'Node does not have label "{ZONE_LABEL}"'))
            return False
        if consolidation_disabled(c):
            publish(*ev.unconsolidatable(c.node, c.node_claim, f'NodePool "{c.node_pool.name}" has consolidation disabled'))
            return False
        rules = self.ctx.rules
        if rules.empty_by_eviction_cost and is_empty(rules, c):         # Emptiness's (v1.14)
            return False
        if c.node_pool.spec.disruption.consolidation_policy not in rules.underutilized_policies:
            publish(*ev.unconsolidatable(c.node, c.node_claim, rules.policy_refusal.format(pool=c.node_pool.name)))
            return False
        return condition_true(c.node_claim, "Consolidatable")

    def totals(self) -> dict[str, Totals]:
        """The NodePool totals Balanced scoring measures against (SetNodePoolTotals), once per run."""
        made = self.ctx.candidates_made
        if self._totals is None or self._totals[0] is not made:
            self._totals = (made, node_pool_totals(self.ctx, made) if self.ctx.rules.balanced_k else {})
        return self._totals[1]

    def _single(self, candidates: list[Candidate], message: str) -> None:
        if len(candidates) == 1:
            c = candidates[0]
            self.ctx.recorder.publish(*ev.unconsolidatable(c.node, c.node_claim, message))

    def compute_consolidation(self, candidates: list[Candidate]) -> Command:
        """computeConsolidation: a command, or an empty one (no-op), with Karpenter's events."""
        try:
            sim = simulate_scheduling(self.ctx, candidates, consolidation=True)
        except CandidateDeleting:
            return Command([])
        if not sim.all_non_pending_pods_scheduled():
            self._single(candidates, sentence(sim.non_pending_errors_text()))
            return Command([])
        results = sim.results
        if not results.new_node_claims:
            return Command(list(candidates), [], sim)
        if len(results.new_node_claims) != 1:
            self._single(candidates, f"Can't remove without creating {len(results.new_node_claims)} candidates")
            return Command([])
        price = source_price(self.ctx.rules, candidates)
        all_spot = all(c.capacity_type == SPOT for c in candidates)
        claim = results.new_node_claims[0]
        claim.instance_type_options = InstanceTypes(claim.instance_type_options).order_by_price(claim.requirements)
        if all_spot and claim.requirements.get(CAPACITY_TYPE_LABEL).has(SPOT):
            return self.spot_to_spot(candidates, sim, price)
        err = remove_by_price_and_min_values(claim, claim.requirements, price)
        if err is not None:
            self._single(candidates, f"Filtering by price: {err}")
            return Command([])
        if not claim.instance_type_options:
            self._single(candidates, "Can't replace with a cheaper node")
            return Command([])
        ct = claim.requirements.get(CAPACITY_TYPE_LABEL)
        if ct.has(SPOT) and ct.has(ON_DEMAND):
            claim.requirements.add(new_requirement(CAPACITY_TYPE_LABEL, "In", SPOT))
        cmd = Command(list(candidates), [claim], sim)
        cmd.emit_candidate_events(self.ctx.recorder, estimated_savings(self.ctx.rules, cmd))
        return cmd

    def spot_to_spot(self, candidates: list[Candidate], sim: Any, price: float) -> Command:
        """computeSpotToSpotConsolidation."""
        min_types = self.ctx.rules.spot_to_spot_min_types
        if not self.ctx.gate("spot_to_spot_consolidation"):
            self._single(candidates, "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node")
            return Command([])
        claim = sim.results.new_node_claims[0]
        claim.requirements.add(new_requirement(CAPACITY_TYPE_LABEL, "In", SPOT))
        claim.instance_type_options = InstanceTypes(it for it in claim.instance_type_options
                                                    if _type_compatible(it, claim.requirements))
        err = remove_by_price_and_min_values(claim, claim.requirements, price)
        if err is not None:
            self._single(candidates, f"Filtering by price: {err}")
            return Command([])
        if not claim.instance_type_options:
            self._single(candidates, "Can't replace with a cheaper node")
            return Command([])
        if len(candidates) > 1:
            cmd = Command(list(candidates), [claim], sim)
            cmd.emit_candidate_events(self.ctx.recorder, estimated_savings(self.ctx.rules, cmd))
            return cmd
        if len(claim.instance_type_options) < min_types:
            self._single(candidates, f"SpotToSpotConsolidation requires {min_types} cheaper instance type options "
                                     f"than the current candidate to consolidate, got "
                                     f"{len(claim.instance_type_options)}")
            return Command([])
        if claim.requirements.has_min_values():
            needed, _, _ = InstanceTypes(claim.instance_type_options).satisfies_min_values(claim.requirements)
            claim.instance_type_options = InstanceTypes(claim.instance_type_options[:max(min_types, needed)])
        else:
            claim.instance_type_options = InstanceTypes(claim.instance_type_options[:min_types])
        cmd = Command(list(candidates), [claim], sim)
        cmd.emit_candidate_events(self.ctx.recorder, estimated_savings(self.ctx.rules, cmd))
        return cmd


def _type_compatible(it: Any, reqs: Any) -> bool:
    """InstanceTypes.Compatible: one of its available offerings is compatible."""
    return any(o.available and reqs.is_compatible(o.requirements, ALLOW_UNDEFINED_WELL_KNOWN_LABELS)
               for o in it.offerings)
