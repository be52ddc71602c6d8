"""StaticDrift (controllers/disruption/staticdrift.go): replace drifted nodes of static NodePools
(spec.replicas) one for one, within the budget, the node limit and the replicas."""
from __future__ import annotations

from kexplain.karpenter.disruption.candidate import EVENTUAL, Candidate, Command, Method, condition_true
from kexplain.karpenter.provisioning.scheduling.nodeclaimtemplate import new_node_claim_template
from kexplain.karpenter.state.statenodepool import new_node_pool_state

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
            if budgets.get(name, 0) == 0:
                continue
            active, _, pending_disruption = state.node_count(name)
            if active + pending_disruption > (np.spec.replicas or 0):    # scale-down first
                continue
            limit = (np.spec.limits or {}).get("nodes")
            node_limit = int(limit.value) if limit is not None else MAX_INT64
            allowed = state.reserve_node_count(name, node_limit, min(budgets[name], len(group)))
            for c in group[:allowed]:
                cmds.append(Command([c], [_ClaimOf(new_node_claim_template(np.obj))]))
        return cmds


class _ClaimOf:
    """A replacement NodeClaim made from the NodePool's template alone (no scheduling)."""

    def __init__(self, template) -> None:
        self.template = template
        self.pods: list = []
        self.node_pool_name = template.node_pool_name
        self.requirements = template.requirements
        self.instance_type_options = list(template.instance_type_options or [])
