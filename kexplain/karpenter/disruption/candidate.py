"""Disruption candidates and commands (controllers/disruption/types.go): `new_candidate` is
NewCandidate (ValidateNodeDisruptable, the NodePool and instance type, ValidatePodsDisruptable,
the disruption cost), `Command` a decision with its String(), savings and events."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Mapping, Sequence

from kexplain.karpenter.disruption import events as ev
from kexplain.karpenter.disruption.pods import Limits, PodTraits, lifetime_remaining
from kexplain.karpenter.scheduling.requirements import new_label_requirements
from kexplain.karpenter.scheduling.requirements import ALLOW_UNDEFINED_WELL_KNOWN_LABELS
from kexplain.model.pod import PodInfo

GRACEFUL, EVENTUAL = "graceful", "eventual"
NODEPOOL_LABEL = "karpenter.sh/nodepool"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type"
ZONE_LABEL = "topology.kubernetes.io/zone"
NO_OP, REPLACE, DELETE = "no-op", "replace", "delete"


class CandidateError(Exception):
    """NewCandidate's error; `pod_block`: a PodBlockEvictionError (the eventual class ignores it
    for a NodeClaim with a terminationGracePeriod)."""

    def __init__(self, text: str, pod_block: bool = False) -> None:
        super().__init__(text)
        self.text = text
        self.pod_block = pod_block

    def __str__(self) -> str:
        return self.text


def sentence(text: str) -> str:
    """pretty.Sentence: the first letter upper-cased."""
    return text[:1].upper() + text[1:]


def conditions(obj: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    return [c for c in ((obj or {}).get("status") or {}).get("conditions") or () if isinstance(c, dict)]


def condition(obj: Mapping[str, Any] | None, kind: str) -> Mapping[str, Any] | None:
    return next((c for c in conditions(obj) if c.get("type") == kind), None)


def condition_true(obj: Mapping[str, Any] | None, kind: str) -> bool:
    c = condition(obj, kind)
    return c is not None and c.get("status") == "True"


@dataclass(eq=False)
class Candidate:
    state: Any                          # karpenter.state.statenode.StateNode
    instance_type: Any                  # cloudprovider InstanceType, None when not the NodePool's
    node_pool: Any                      # apis.nodepool.NodePool
    zone: str
    capacity_type: str
    disruption_cost: float
    pods: list[PodInfo]
    reschedulable_pods: list[PodInfo]

    def name(self) -> str:
        return self.state.name()

    def labels(self) -> Mapping[str, str]:
        return self.state.labels()

    @property
    def node(self) -> Any:
        return self.state.node

    @property
    def node_claim(self) -> Any:
        return self.state.node_claim

    def owned_by_static_node_pool(self) -> bool:
        return self.node_pool.spec.replicas is not None


def validate_node(state: Any, now: datetime) -> str | None:
    """ValidateNodeDisruptable: the first check the node fails, in Karpenter's order."""
    if state.node_claim is None:
        return "node isn't managed by karpenter"
    if state.node is None:
        return "nodeclaim does not have an associated node"
    if not state.initialized():
        return "node isn't initialized"
    if state.marked_for_deletion():
        return "node is deleting or marked for deletion"
    if state.nominated:
        return "node is nominated for a pending pod"
    if _annotations(state).get("karpenter.sh/do-not-disrupt") == "true":
        return 'disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation'
    if NODEPOOL_LABEL not in state.labels():
        return f"node doesn't have required label (label={NODEPOOL_LABEL})"
    return None


def _annotations(state: Any) -> Mapping[str, str]:
    obj = state.node_claim if state._reads_claim() else state.node
    return ((obj or {}).get("metadata") or {}).get("annotations") or {}


def validate_pods(pods: list[PodInfo], pdbs: Limits, now: datetime, recorder: ev.Recorder,
                  traits: Sequence[PodTraits] | None = None) -> str | None:
    """ValidatePodsDisruptable: an active do-not-disrupt pod, else a PodDisruptionBudget that
    allows no eviction of one of the pods (or a pod under two). `traits`: the pods' (`Limits.traits`)."""
    traits = traits if traits is not None else [pdbs.traits(p) for p in pods]
    for pod, t in zip(pods, traits):
        if not pdbs.is_disruptable(pod, now, recorder, t):
            return f'pod has "karpenter.sh/do-not-disrupt" annotation (Pod={pod.key})'
    keys, ok = pdbs.can_evict_pods(pods, now, recorder, traits)
    if not ok:
        if len(keys) > 1:
            return f"eviction does not support multiple PDBs (PodDisruptionBudget(s)=[{' '.join(keys)}])"
        return f"pdb prevents pod evictions (PodDisruptionBudget=[{' '.join(keys)}])"
    return None


def new_candidate(state: Any, pods: list[PodInfo], pdbs: Limits, node_pools: Mapping[str, Any],
                  instance_types: Mapping[str, Mapping[str, Any]], now: datetime, recorder: ev.Recorder,
                  disruption_class: str,
                  pods_check: Callable[[], tuple[str | None, Sequence[ev.Event]]] | None = None,
                  traits: Sequence[PodTraits] | Callable[[], Sequence[PodTraits]] | None = None) -> Candidate:
    """NewCandidate, publishing DisruptionBlocked where Karpenter does; raises CandidateError.
    `pods_check`: ValidatePodsDisruptable's answer and events, worked out already (the pass asks it
    once per node for both disruption classes); `traits`: the pods' (`Limits.traits`), or what reads
    them when needed (a node refused before its pods are read, most of a cluster, reads none)."""
    err = validate_node(state, now)
    if err is not None:
        if state.node_claim is not None:
            recorder.publish(*ev.blocked(state.node, state.node_claim, sentence(err)))
        raise CandidateError(err)
    pool_name = state.labels().get(NODEPOOL_LABEL) or ""
    node_pool, types = node_pools.get(pool_name), instance_types.get(pool_name)
    if node_pool is None or types is None:
        recorder.publish(*ev.blocked(state.node, state.node_claim, f"NodePool not found (NodePool={pool_name})"))
        raise CandidateError(f"nodepool not found (NodePool={pool_name})")
    instance_type = types.get(state.labels().get(INSTANCE_TYPE_LABEL) or "")
    if pods_check is None:
        err = validate_pods(pods, pdbs, now, recorder)
    else:
        err, events = pods_check()
        recorder.publish(*events)
    if err is not None:
        eventual = ((state.node_claim.get("spec") or {}).get("terminationGracePeriod") is not None
                    and disruption_class == EVENTUAL)
        if not eventual:
            recorder.publish(*ev.blocked(state.node, state.node_claim, sentence(err)))
            raise CandidateError(err, pod_block=True)
    labels = state.labels()
    traits = traits() if callable(traits) else traits if traits is not None else [pdbs.traits(p) for p in pods]
    cost = 0.0
    for t in traits:            # ReschedulingCost: the pods' eviction costs, summed in their order
        cost += t.cost
    return Candidate(state, instance_type, node_pool, labels.get(ZONE_LABEL) or "",
                     labels.get(CAPACITY_TYPE_LABEL) or "", cost * lifetime_remaining(now, state.node_claim),
                     pods, [p for p, t in zip(pods, traits) if t.reschedulable])


class Method:
    """What every method has (the Method interface)."""

    name = ""
    reason = ""
    disruption_class = GRACEFUL
    consolidation_type = ""

    def __init__(self, ctx: Any) -> None:       # helpers.Context
        self.ctx = ctx

    def should_disrupt(self, c: Candidate) -> bool:
        raise NotImplementedError

    def compute_commands(self, budgets: dict[str, int], candidates: list[Candidate]) -> list[Command]:
        raise NotImplementedError


# -- commands ------------------------------------------------------------------------------------
def cheapest(offerings: Any) -> Any:
    """Offerings.Cheapest (lo.MinBy: the first of the lowest price)."""
    best = None
    for o in offerings:
        if best is None or o.price < best.price:
            best = o
    return best


def candidate_price(c: Candidate) -> float | None:
    """The cheapest offering of the node's type compatible with its labels (None: none)."""
    if c.instance_type is None:
        return None
    reqs = new_label_requirements(c.labels())
    compatible = [o for o in c.instance_type.offerings
                  if reqs.is_compatible(o.requirements, ALLOW_UNDEFINED_WELL_KNOWN_LABELS)]
    return cheapest(compatible).price if compatible else None


def candidate_prices(candidates: list[Candidate]) -> float:
    """getCandidatePrices: their sum; 0 when one has no type or no compatible offering."""
    total = 0.0
    for c in candidates:
        price = candidate_price(c)
        if price is None:
            return 0.0
        total += price
    return total


@dataclass
class Command:
    candidates: list[Candidate]
    replacements: list[Any] = field(default_factory=list)     # scheduling NodeClaims
    results: Any = None                                       # the simulation's Results

    def decision(self) -> str:
        if self.candidates and self.replacements:
            return REPLACE
        if self.candidates:
            return DELETE
        return NO_OP

    def text(self) -> str:
        """Command.String() without a method (as consolidation's events print it)."""
        sources = ", ".join(c.name() for c in self.candidates)
        if self.replacements:
            plural = "replacement" if len(self.replacements) == 1 else "replacements"
            return f"{self.decision()}: [{sources}] -> [{len(self.replacements)} {plural}]"
        return f"{self.decision()}: [{sources}]"

    def text_for(self, candidate: Candidate) -> str:
        if len(self.candidates) == 1:
            return self.text()
        return f"{self.decision()}: [{candidate.name()}] (part of {len(self.candidates)}-node consolidation)"

    def estimated_savings(self) -> float:
        source = candidate_prices(self.candidates)
        if not self.replacements:
            return source
        dest = 0.0
        for claim in self.replacements:
            if claim.instance_type_options:
                offering = cheapest(claim.instance_type_options[0].offerings)
                if offering is not None:
                    dest += offering.price
        return source - dest

    def emit_candidate_events(self, recorder: ev.Recorder, savings: float | None = None) -> None:
        savings = self.estimated_savings() if savings is None else savings
        for c in self.candidates:
            recorder.publish(*ev.consolidation_candidate(c.node, c.node_claim, self.text_for(c), savings))
