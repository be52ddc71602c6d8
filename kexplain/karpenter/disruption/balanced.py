"""The rules v1.14 added to consolidation (controllers/disruption/balanced.go and the v1.14 parts
of types.go): a candidate's price and reschedule disruption cost, emptiness by eviction cost, the
savings-ratio order, EstimatedSavings, and the Balanced policy's score. Each is asked of the
release's row (`versions.DisruptionRules`); v1.13.0's answers stay where they were."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

from kexplain.karpenter.disruption import events as ev
from kexplain.karpenter.disruption.candidate import (CAPACITY_TYPE_LABEL, INSTANCE_TYPE_LABEL, NODEPOOL_LABEL,
                                                    ZONE_LABEL, Candidate, Command, candidate_prices, cheapest)
from kexplain.karpenter.disruption.pods import eviction_cost
from kexplain.karpenter.disruption.versions import DisruptionRules
from kexplain.karpenter.scheduling.requirements import ALLOW_UNDEFINED_WELL_KNOWN_LABELS
from kexplain.karpenter.state.cluster import is_owned_by_daemonset

BALANCED = "Balanced"
PER_NODE_BASE_DISRUPTION_COST = 1.0


# -- the candidate's numbers (types.go) ------------------------------------------------------------
def offering_price(instance_type: Any, zone: str, capacity_type: str) -> float:
    """resolveNodePrice: the price of the type's first offering in this zone and capacity type
    (InstanceType.OfferingPrice), 0 without one (or NaN)."""
    if instance_type is None:
        return 0.0
    for o in instance_type.offerings:
        if o.zone() == zone and o.capacity_type() == capacity_type:
            return 0.0 if math.isnan(o.price) else o.price
    return 0.0


def node_price(c: Candidate) -> float:
    """Candidate.Price."""
    return offering_price(c.instance_type, c.labels().get(ZONE_LABEL, ""), c.labels().get(CAPACITY_TYPE_LABEL, ""))


def reschedule_disruption_cost(c: Candidate) -> float:
    """RescheduleDisruptionCost: 1 plus each reschedulable pod's positive eviction cost."""
    return PER_NODE_BASE_DISRUPTION_COST + sum(max(0.0, eviction_cost(p)) for p in c.reschedulable_pods)


def is_empty(rules: DisruptionRules, c: Candidate) -> bool:
    """Candidate.IsEmpty (v1.14), or no reschedulable pod (v1.13)."""
    if rules.empty_by_eviction_cost:
        return reschedule_disruption_cost(c) <= PER_NODE_BASE_DISRUPTION_COST
    return not c.reschedulable_pods


def sort_candidates(rules: DisruptionRules, candidates: list[Candidate]) -> list[Candidate]:
    """sortCandidates: by savings ratio (Price / RescheduleDisruptionCost), highest first (v1.14),
    or by disruption cost, lowest first (v1.13). Go's sort.Slice runs over a map's order, so its
    ties come out at random; here in the order given (name order: `ties` says which ones matter)."""
    if not rules.order_by_savings_ratio:
        candidates[:] = sorted(candidates, key=lambda c: c.disruption_cost)
        return candidates
    ratio = {id(c): node_price(c) / reschedule_disruption_cost(c) for c in candidates}
    candidates[:] = sorted(candidates, key=lambda c: ratio[id(c)], reverse=True)
    return candidates


def source_price(rules: DisruptionRules, candidates: Sequence[Candidate]) -> float:
    """The candidates' price: sumCandidatePrices (v1.14) or getCandidatePrices (v1.13)."""
    if rules.price_by_offering:
        return sum(node_price(c) for c in candidates)
    return candidate_prices(list(candidates))


def estimated_savings(rules: DisruptionRules, cmd: Command) -> float:
    """Command.EstimatedSavings: the candidates' price less each replacement's cheapest offering of
    its first type (v1.14: of those available and compatible with its requirements)."""
    if not rules.price_by_offering:
        return cmd.estimated_savings()
    source = source_price(rules, cmd.candidates)
    if not cmd.replacements:
        return source
    dest = 0.0
    for claim in cmd.replacements:
        if claim.instance_type_options:
            offerings = [o for o in claim.instance_type_options[0].offerings if o.available
                         and claim.requirements.is_compatible(o.requirements, ALLOW_UNDEFINED_WELL_KNOWN_LABELS)]
            if offerings:
                dest += cheapest(offerings).price
    return source - dest


# -- Balanced scoring (balanced.go) ----------------------------------------------------------------
@dataclass(frozen=True)
class Totals:
    """NodePoolTotals: what a move's savings and disruption are measured against."""

    cost: float
    disruption_cost: float


@dataclass(frozen=True)
class Score:
    """ScoreResult."""

    savings_fraction: float
    disruption_fraction: float
    k: int

    def score(self) -> float:
        if self.savings_fraction <= 0:
            return 0.0
        if self.disruption_fraction == 0:
            return math.inf
        return self.savings_fraction / self.disruption_fraction

    def threshold(self) -> float:
        return 1.0 / self.k

    def approved(self) -> bool:
        return self.score() >= self.threshold()


def _state_disruption_cost(ctx: Any, state: Any) -> float:
    """StateNode.DisruptionCost: 1 plus the positive eviction costs of its pods not a DaemonSet's."""
    return PER_NODE_BASE_DISRUPTION_COST + sum(max(0.0, eviction_cost(p)) for p in ctx.pods_on(state)
                                               if not is_owned_by_daemonset(p))


def _cluster_cost(ctx: Any, pool: str) -> float:
    """ClusterCost.GetNodepoolCost: each labelled NodeClaim of the pool at its offering's price."""
    types = ctx.instance_types.get(pool) or {}
    total = 0.0
    for state in ctx.cluster.nodes:
        labels = ((state.node_claim or {}).get("metadata") or {}).get("labels") or {}
        if labels.get(NODEPOOL_LABEL) != pool or not all(labels.get(k) for k in
                                                         (CAPACITY_TYPE_LABEL, ZONE_LABEL, INSTANCE_TYPE_LABEL)):
            continue
        total += offering_price(types.get(labels[INSTANCE_TYPE_LABEL]), labels[ZONE_LABEL], labels[CAPACITY_TYPE_LABEL])
    return total


def node_pool_totals(ctx: Any, all_candidates: Sequence[Candidate]) -> dict[str, Totals]:
    """computeNodePoolTotals over every candidate NewCandidate made (before the method's filter):
    the pool's cost (ClusterCost, else its candidates' prices) and every node's disruption cost."""
    by_name = {c.name(): c for c in all_candidates}
    fallback: dict[str, float] = {}
    for c in all_candidates:
        fallback[c.node_pool.name] = fallback.get(c.node_pool.name, 0.0) + node_price(c)
    disruption: dict[str, float] = {}
    for state in ctx.cluster.nodes:
        pool = state.labels().get(NODEPOOL_LABEL)
        if pool is None:
            continue
        c = by_name.get(state.name())
        disruption[pool] = disruption.get(pool, 0.0) + (reschedule_disruption_cost(c) if c is not None
                                                        else _state_disruption_cost(ctx, state))
    out = {}
    for pool, cost in fallback.items():
        cluster_cost = _cluster_cost(ctx, pool)
        out[pool] = Totals(cluster_cost if cluster_cost > 0 else cost, disruption.get(pool, 0.0))
    return out


def score_move(savings: float, disruption_cost: float, totals: Totals, k: int) -> Score:
    """ScoreMove: (savings / pool cost) against (disruption / pool disruption); zero totals score 0."""
    if totals.cost <= 0 or totals.disruption_cost <= 0:
        return Score(0.0, 0.0, k)
    return Score(savings / totals.cost, disruption_cost / totals.disruption_cost, k)


def evaluate(rules: DisruptionRules, cmd: Command, totals: dict[str, Totals]) -> tuple[bool, dict[str, Score]]:
    """EvaluateBalancedMove: each Balanced pool of the move scored on its share of the savings;
    approved when every one of them approves (other pools are not scored)."""
    if not cmd.candidates:
        return False, {}
    by_pool: dict[str, list[Candidate]] = {}
    for c in cmd.candidates:
        by_pool.setdefault(c.node_pool.name, []).append(c)
    savings = estimated_savings(rules, cmd)
    source = source_price(rules, cmd.candidates)
    approved, per_pool = True, {}
    for pool, members in by_pool.items():
        if members[0].node_pool.spec.disruption.consolidation_policy != BALANCED:
            continue
        share = savings
        if source > 0 and len(by_pool) > 1:
            share = savings * (source_price(rules, members) / source)
        result = score_move(share, sum(reschedule_disruption_cost(c) for c in members),
                            totals.get(pool, Totals(0.0, 0.0)), rules.balanced_k)
        per_pool[pool] = result
        approved = approved and result.approved()
    return approved, per_pool


def can_pass_threshold(rules: DisruptionRules, c: Candidate, totals: dict[str, Totals]) -> bool:
    """CanPassThreshold: a delete of the candidate (the best a move of it can score) passes."""
    if not rules.balanced_k or c.node_pool.spec.disruption.consolidation_policy != BALANCED:
        return True
    pool = totals.get(c.node_pool.name)
    if pool is None or pool.cost <= 0:
        return True
    return score_move(node_price(c), reschedule_disruption_cost(c), pool, rules.balanced_k).approved()


def _message(s: Score) -> str:
    score = s.score()
    text = "+Inf" if math.isinf(score) else f"{score:.2f}"
    return (f"score {text} >= threshold {s.threshold():.2f} (k: {s.k}, savings {s.savings_fraction * 100:.1f}%, "
            f"disruption {s.disruption_fraction * 100:.1f}%)")


def approve(rules: DisruptionRules, cmd: Command, totals: dict[str, Totals], recorder: ev.Recorder) -> bool:
    """balancedEvaluator.ApproveCommand: a one-node move approved in a Balanced pool publishes
    ConsolidationApproved on its Node and NodeClaim. Always approved without Balanced scoring."""
    if not rules.balanced_k:
        return True
    approved, per_pool = evaluate(rules, cmd, totals)
    if len(cmd.candidates) == 1:
        c = cmd.candidates[0]
        result = per_pool.get(c.node_pool.name)
        if result is not None and result.approved():
            recorder.publish(*ev.consolidation_approved(c.node, c.node_claim, _message(result)))
    return approved


def emit_multi_node(cmd: Command, per_pool: dict[str, Score], recorder: ev.Recorder) -> None:
    """EmitMultiNodeEvents: ConsolidationApproved on each NodePool whose score passed."""
    pools = {c.node_pool.name: c.node_pool for c in cmd.candidates}
    for name, result in per_pool.items():
        if result.approved():
            recorder.publish(ev.consolidation_approved_multi_node(pools[name], _message(result)))
