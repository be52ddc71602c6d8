"""Emptiness (controllers/disruption/emptiness.go): delete empty, consolidatable nodes, as many as
the budgets allow, cheapest to disrupt first."""
from __future__ import annotations

from kexplain.karpenter.disruption import events as ev
from kexplain.karpenter.disruption.candidate import Candidate, Command, condition_true
from kexplain.karpenter.disruption.balanced import is_empty, sort_candidates
from kexplain.karpenter.disruption.consolidation import Consolidation, consolidation_disabled


class Emptiness(Consolidation):
    name = "Emptiness"
    reason = "Empty"
    consolidation_type = "empty"

    def should_disrupt(self, c: Candidate) -> bool:
        if c.owned_by_static_node_pool():
            return False
        if consolidation_disabled(c):
            self.ctx.recorder.publish(*ev.unconsolidatable(
                c.node, c.node_claim, f'NodePool "{c.node_pool.name}" has consolidation disabled'))
            return False
        return is_empty(self.ctx.rules, c) and condition_true(c.node_claim, "Consolidatable")

    def compute_commands(self, budgets: dict[str, int], candidates: list[Candidate]) -> list[Command]:
        empty = []
        for c in sort_candidates(self.ctx.rules, candidates):
            if not is_empty(self.ctx.rules, c):
                continue
            if budgets.get(c.node_pool.name, 0) == 0:
                continue
            empty.append(c)
            budgets[c.node_pool.name] -= 1
        return [Command(empty)] if empty else []
