"""Drift (controllers/disruption/drift.go): the drifted node that drifted first (empty ones first)
whose pods all schedule elsewhere or on a replacement, within the budget."""
from __future__ import annotations

from datetime import datetime

from kexplain.karpenter.disruption import events as ev
from kexplain.karpenter.disruption.candidate import (EVENTUAL, Candidate, Command, Method, condition, condition_true,
                                                    sentence)
from kexplain.karpenter.disruption.helpers import CandidateDeleting, simulate_scheduling
from kexplain.karpenter.inputs import parse_time


def drifted_at(c: Candidate):
    cond = condition(c.node_claim, "Drifted") or {}
    return parse_time(cond.get("lastTransitionTime"))


class Drift(Method):
    name = "Drift"
    reason = "Drifted"
    disruption_class = EVENTUAL

    def should_disrupt(self, c: Candidate) -> bool:
        return not c.owned_by_static_node_pool() and condition_true(c.node_claim, "Drifted")

    def compute_commands(self, budgets: dict[str, int], candidates: list[Candidate]) -> list[Command]:
        # sort.Slice over GetCandidates' map order: a tie comes out at random; here in name order (`ties`)
        times = {id(c): drifted_at(c) for c in candidates}
        candidates[:] = sorted(candidates, key=lambda c: _when(times[id(c)]))
        ordered = [c for c in candidates if not c.reschedulable_pods] + [c for c in candidates if c.reschedulable_pods]
        for c in ordered:
            if budgets.get(c.node_pool.name, 0) == 0:
                continue
            try:
                sim = simulate_scheduling(self.ctx, [c])
            except CandidateDeleting:
                continue
            if not sim.all_non_pending_pods_scheduled():
                self.ctx.recorder.publish(*ev.blocked(c.node, c.node_claim, sentence(sim.non_pending_errors_text())))
                continue
            return [Command([c], list(sim.results.new_node_claims), sim)]
        return []


def _when(at: datetime | None) -> tuple[int, float]:
    """The order's key: no Drifted time first (Go's zero time), then the earliest."""
    return (0, 0.0) if at is None else (1, at.timestamp())
