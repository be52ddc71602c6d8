"""SingleNodeConsolidation (controllers/disruption/singlenodeconsolidation.go): the first candidate
(cheapest to disrupt first, NodePools interleaved) that can be deleted or replaced by a cheaper node;
a candidate whose simulation fails is passed over, not the method's error."""
from __future__ import annotations

from kexplain.karpenter.disruption.candidate import NO_OP, Candidate, Command
from kexplain.karpenter.disruption.balanced import approve, can_pass_threshold, sort_candidates
from kexplain.karpenter.disruption.consolidation import Consolidation
from kexplain.karpenter.disruption.helpers import SimulationError


class SingleNodeConsolidation(Consolidation):
    name = "SingleNodeConsolidation"
    reason = "Underutilized"
    consolidation_type = "single"
    first_pool = ""         # a NodePool to interleave first (`ties`: Go's map order may put any first)

    def compute_commands(self, budgets: dict[str, int], candidates: list[Candidate]) -> list[Command]:
        rules = self.ctx.rules
        for c in self.sort_candidates(candidates):
            if budgets.get(c.node_pool.name, 0) == 0:
                continue
            if rules.empty_by_eviction_cost:
                if not can_pass_threshold(rules, c, self.totals()):
                    continue
            elif not c.reschedulable_pods:                  # v1.13: empty ones skipped
                continue
            try:
                cmd = self.compute_consolidation([c])
            except SimulationError:         # logged ("failed computing consolidation"), next candidate
                continue
            if cmd.decision() == NO_OP:
                continue
            if not approve(rules, cmd, self.totals(), self.ctx.recorder):
                continue
            return [cmd]
        return []

    def sort_candidates(self, candidates: list[Candidate]) -> list[Candidate]:
        """SortCandidates: by disruption cost, then the NodePools interleaved (Go takes the pools in a
        map's order, lo.Keys: here by name, `first_pool` first)."""
        by_pool: dict[str, list[Candidate]] = {}
        for c in sort_candidates(self.ctx.rules, candidates):
            by_pool.setdefault(c.node_pool.name, []).append(c)
        pools = sorted(by_pool, key=lambda p: (p != self.first_pool, p))
        longest = max((len(v) for v in by_pool.values()), default=0)
        return [by_pool[p][i] for i in range(longest) for p in pools if i < len(by_pool[p])]
