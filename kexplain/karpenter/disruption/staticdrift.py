"""StaticDrift (controllers/disruption/staticdrift.go): replace drifted nodes of static NodePools
(spec.replicas) one for one, within the budget, the node limit and the replicas."""
from __future__ import annotations

from typing import Any

from kexplain.apimachinery import quantity
from kexplain.karpenter.disruption.candidate import EVENTUAL, Candidate, Command, Method, condition_true
from kexplain.karpenter.provisioning.scheduling.nodeclaimtemplate import new_node_claim_template
from kexplain.karpenter.state.statenodepool import NodePoolState, new_node_pool_state

MAX_INT64 = 2**63 - 1


class StaticDrift(Method):
    name = "StaticDrift"
    reason = "Drifted"
    disruption_class = EVENTUAL

    def should_disrupt(self, c: Candidate) -> bool:
        return c.owned_by_static_node_pool() and condition_true(c.node_claim, "Drifted")

    def compute_commands(self, budgets: dict[str, int], candidates: list[Candidate]) -> list[Command]:
        by_pool: dict[str, list[Candidate]] = {}
        for c in candidates:
            by_pool.setdefault(c.node_pool.name, []).append(c)
        state = new_node_pool_state(self.ctx.inputs.node_claims, self.ctx.cluster.by_provider_id)
        cmds = []
        for name in sorted(by_pool):
            group = by_pool[name]
            np = group[0].node_pool
            allowed = allowance(state, np, budgets.get(name, 0), len(group))[0]
            for c in group[:allowed]:
                cmds.append(Command([c], [_ClaimOf(new_node_claim_template(np.obj))]))
        return cmds

    def left_out(self, budgets: dict[str, int], candidates: list[Candidate], cand: Candidate
                 ) -> tuple[str, str, dict[str, Any]]:
        """Why the commands leave `cand` out (the pass's own words: Karpenter says nothing): the
        check that binds, its text, the facts (`position`: the candidate's place in its NodePool's)."""
        group = [c for c in candidates if c.node_pool.name == cand.node_pool.name]
        state = new_node_pool_state(self.ctx.inputs.node_claims, self.ctx.cluster.by_provider_id)
        allowed, check, why, detail = allowance(state, cand.node_pool, budgets.get(cand.node_pool.name, 0), len(group))
        detail.update(nodePool=cand.node_pool.name, position=group.index(cand), candidates=len(group))
        if allowed:
            why = f"{why}: the replacements go to {allowed} of its {len(group)} candidates"
        return check, why, detail


def allowance(state: NodePoolState, np: Any, budget: int, candidates: int) -> tuple[int, str, str, dict[str, Any]]:
    """How many of a NodePool's drifted candidates StaticDrift replaces this pass, the check that
    binds and why: none while the NodePool is over its replicas (the scale-down goes first), else
    the fewest of the budget, the candidates and what the node limit leaves (ReserveNodeCount)."""
    if budget == 0:
        return 0, "budget", "the budget allows no disruption", {}
    active, deleting, pending_disruption = state.node_count(np.name)
    replicas, counted = np.spec.replicas or 0, active + deleting + pending_disruption
    if active + pending_disruption > replicas:
        return 0, "replicas", (f"the NodePool has {active + pending_disruption} NodeClaim(s) for {replicas} "
                               "replica(s): StaticDrift waits for the scale-down"), {"replicas": replicas}
    limit = (np.spec.limits or {}).get("nodes")
    node_limit = quantity.value(limit.value) if limit is not None else MAX_INT64    # Value(): rounded up
    wanted = min(budget, candidates)
    allowed = state.reserve_node_count(np.name, node_limit, wanted)
    if allowed < wanted:
        return allowed, "node-limit", (f"its node limit {node_limit} leaves room for {allowed} replacement(s) beside "
                                       f"its {counted} NodeClaim(s) ({deleting} deleting)"), \
            {"limit": node_limit, "nodeClaims": counted}
    why = f"the budget allows {budget}" if budget < candidates else f"{allowed} replacement(s)"
    return allowed, "budget-spent", why, {}


class _ClaimOf:
    """A replacement NodeClaim made from the NodePool's template alone (no scheduling)."""

    def __init__(self, template) -> None:
        self.template = template
        self.pods: list = []
        self.node_pool_name = template.node_pool_name
        self.requirements = template.requirements
        self.instance_type_options = list(template.instance_type_options or [])
