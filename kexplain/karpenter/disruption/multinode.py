"""MultiNodeConsolidation (controllers/disruption/multinodeconsolidation.go): the largest prefix of
the candidates (cheapest to disrupt first, within the budgets, at most 100) that can go at once, by
binary search; a replacement must be cheaper than every candidate of its own type."""
from __future__ import annotations

from typing import Any

from kexplain.karpenter.cloudprovider.types import MAX_FLOAT64
from kexplain.karpenter.disruption.candidate import DELETE, REPLACE, Candidate, Command, candidate_price
from kexplain.karpenter.disruption.balanced import Score, emit_multi_node, evaluate, sort_candidates
from kexplain.karpenter.disruption.consolidation import Consolidation, remove_by_price_and_min_values


class MultiNodeConsolidation(Consolidation):
    name = "MultiNodeConsolidation"
    reason = "Underutilized"
    consolidation_type = "multi"

    def compute_commands(self, budgets: dict[str, int], candidates: list[Candidate]) -> list[Command]:
        disruptable = []
        rules = self.ctx.rules
        for c in sort_candidates(rules, candidates):
            if budgets.get(c.node_pool.name, 0) == 0:
                continue
            if not rules.empty_by_eviction_cost and not c.reschedulable_pods:     # v1.13: empty ones skipped
                continue
            disruptable.append(c)
            budgets[c.node_pool.name] -= 1
        limit = min(len(disruptable), self.ctx.rules.multi_node_max_candidates)
        cmd, per_pool = self.first_n(disruptable, limit)
        if cmd.decision() == "no-op":
            return []
        emit_multi_node(cmd, per_pool, self.ctx.recorder)
        return [cmd]

    def first_n(self, candidates: list[Candidate], high: int) -> tuple[Command, dict[str, Score]]:
        """firstNConsolidationOption: binary search on the prefix length (v1.14: a Balanced pool's
        score may refuse a prefix); the Balanced pools' scores of the command found."""
        if len(candidates) < 2:
            return Command([]), {}
        low = 1
        if len(candidates) <= high:
            high = len(candidates) - 1
        last, last_scores = Command([]), {}
        rejected: tuple[Command, dict[str, Score]] | None = None
        while low <= high:
            mid = (low + high) // 2
            batch = candidates[:mid + 1]
            cmd = self.compute_consolidation(batch)
            valid = cmd.decision() == DELETE
            if cmd.decision() == REPLACE:
                err = filter_out_same_instance_type(cmd.replacements[0], batch)
                if err is None and cmd.replacements[0].instance_type_options:
                    valid = True
            if valid and self.ctx.rules.balanced_k:
                valid, scores = evaluate(self.ctx.rules, cmd, self.totals())
                if valid:
                    last_scores = scores
                else:
                    rejected = (cmd, scores)
            if valid:
                last = cmd
                low = mid + 1
            else:
                high = mid - 1
        if not last.candidates and rejected is not None:    # the smallest batch refused, once
            emit_multi_node(*rejected, self.ctx.recorder)
        return last, last_scores


def filter_out_same_instance_type(replacement: Any, candidates: list[Candidate]) -> BaseException | None:
    """filterOutSameInstanceType: keep only options cheaper than the cheapest candidate of a type
    the options hold."""
    existing: set[str] = set()
    prices: dict[str, float] = {}
    for c in candidates:
        existing.add(c.instance_type.name)
        price = candidate_price(c)
        if price is None:
            continue
        if price < prices.get(c.instance_type.name, MAX_FLOAT64):
            prices[c.instance_type.name] = price
    max_price = MAX_FLOAT64
    for it in replacement.instance_type_options:
        if it.name in existing and prices.get(it.name, 0.0) < max_price:
            max_price = prices.get(it.name, 0.0)
    return remove_by_price_and_min_values(replacement, replacement.requirements, max_price)
