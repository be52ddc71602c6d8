"""One loop of CA's scale-down planner: candidates, eligibility, the removal simulation, and what
would be deleted now (core/static_autoscaler.go scaleDown, core/scaledown/planner, unneeded/nodes.go
RemovableAt); in a first loop an unneeded node is `NotUnneededLongEnough` unless a
DeletionCandidate mark says since when. Actuation is not simulated."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence

from kexplain.autoscaler.nodegroups import NodeGroup
from kexplain.autoscaler.scaledown.config import ScaleDownConfig
from kexplain.autoscaler.scaledown.drainability import BlockingPod, DrainContext
from kexplain.autoscaler.scaledown.eligibility import (
    NOT_AUTOSCALED, SCALE_DOWN_DISABLED_ANNOTATION, candidates, check, has_scale_down_disabled, is_ready,
    sort_candidates)
from kexplain.autoscaler.resourcelimits import QuotaTracker
from kexplain.autoscaler.scaledown.removal import Removable, simulate_removal
from kexplain.autoscaler.scaledown.utilization import PodRequests, Utilization
from kexplain.autoscaler.simulator import ClusterSim
from kexplain.model.snapshot import Snapshot

# ScaleDownStatus results
NO_NODE_DELETED = "ScaleDownNoNodeDeleted"
NODE_DELETE_STARTED = "ScaleDownNodeDeleteStarted"
IN_COOLDOWN = "ScaleDownInCooldown"
NO_CANDIDATES = "ScaleDownNoCandidates"
NOT_TRIED = "ScaleDownNotTried"
# UnremovableReasons the planner gives after the simulation
NOT_UNNEEDED_LONG_ENOUGH = "NotUnneededLongEnough"
NOT_UNREADY_LONG_ENOUGH = "NotUnreadyLongEnough"
NODE_GROUP_MIN_SIZE_REACHED = "NodeGroupMinSizeReached"
MINIMAL_RESOURCE_LIMIT_EXCEEDED = "MinimalResourceLimitExceeded"
ATOMIC_SCALE_DOWN_FAILED = "AtomicScaleDownFailed"
BLOCKED_BY_ON_COMPLETION_POD = "BlockedByOnCompletionPod"


@dataclass(frozen=True)
class NodeVerdict:
    """One node as the document's `scaleDown.nodes[]` gives it."""

    name: str
    node_group: str
    candidate: bool
    unneeded: bool
    reason: str = ""
    blocking_pod: BlockingPod | None = None
    utilization: Utilization | None = None


@dataclass(frozen=True)
class ScaleDownOutcome:
    result: str
    unneeded: tuple[str, ...] = ()
    scaled_down: tuple[str, ...] = ()
    nodes: tuple[NodeVerdict, ...] = ()
    removable: tuple[Removable, ...] = field(default=(), repr=False)   # the simulation's, in order


@dataclass(frozen=True)
class Loop:
    """What one loop's scale-down starts from: `sim` (CA's snapshot and scheduler, changed by the
    simulation and restored by `plan`), the cluster's `node_names` in cluster.yaml order, `group_of`
    (None: no group) and each group's `sizes`."""

    sim: ClusterSim
    node_names: Sequence[str]
    group_of: Mapping[str, NodeGroup | None]
    sizes: Mapping[str, int]
    config: ScaleDownConfig
    drain: DrainContext
    in_cooldown: bool = False       # the loop scaled up (or forbade scale-down): no deletion now
    delayed_groups: frozenset[str] = frozenset()    # groups whose nodes wait for a per-group delay
    unneeded_since: Mapping[str, int] = field(default_factory=dict)   # node -> unneeded since (ns); else now


def unneeded_limit(config: ScaleDownConfig) -> int:
    """unneededNodesLimit in a first loop: no node is unneeded yet and the loop interval is
    taken as the unneeded time, so both bounds are twice --max-scale-down-parallelism."""
    return 2 * config.max_scale_down_parallelism


def plan(loop: Loop) -> ScaleDownOutcome:
    """UpdateClusterState and NodesToDelete of one loop: the simulation changes `loop.sim`'s snapshot (CA's
    fork) and restores it at the end (revert); the node search keeps its position, as in CA."""
    original = loop.sim.snapshot
    try:
        return _plan(loop, original)
    finally:
        loop.sim.snapshot = original


def _plan(loop: Loop, original: Snapshot) -> ScaleDownOutcome:
    config, now_ns = loop.config, loop.drain.now_ns
    # the nodes CA's scale-down sees (allNodes): those of the snapshot (a node the loop left out
    # of it, as not started yet, is neither candidate nor destination)
    present = [n for n in loop.node_names if original.get(n) is not None]
    names = sort_candidates(candidates(present, loop.group_of, loop.sizes), original,
                            config.delete_options, now_ns, loop.drain.created)
    if loop.delayed_groups:         # ScaleDownCandidatesDelayProcessor (--scale-down-delay-type-local)
        names = [n for n in names if loop.group_of[n].name not in loop.delayed_groups]
    reasons: dict[str, tuple[str, BlockingPod | None]] = {}
    utilization: dict[str, Utilization] = {}
    eligible: list[str] = []
    requests = PodRequests()
    for name in names:
        verdict = check(original.get(name), loop.group_of.get(name), config, now_ns, requests)
        if verdict.utilization is not None:
            utilization[name] = verdict.utilization
        if verdict.reason:
            reasons[name] = (verdict.reason, None)
        else:
            eligible.append(name)

    destinations = set(present)
    removable: list[Removable] = []
    atomic = 0
    for name in eligible:
        if len(removable) - atomic >= unneeded_limit(config):
            break
        found = simulate_removal(loop.sim, name, destinations, loop.drain)
        if isinstance(found, Removable):
            pdb = loop.drain.pdbs.can_remove(found.pods)
            if not pdb.in_parallel:
                found = replace(found, risky=True)
            destinations.discard(name)
            loop.drain.pdbs.remove(found.pods)
            removable.append(found)
            group = loop.group_of.get(name)
            if group is not None and group.options.zero_or_max_node_scaling:
                atomic += 1
        else:
            reasons[name] = (found.reason, found.blocking)

    unneeded = tuple(r.node for r in removable)
    scaled_down: tuple[str, ...] = ()
    if loop.in_cooldown:
        result = IN_COOLDOWN
    elif not names:
        result = NO_CANDIDATES
    else:
        scaled_down = _nodes_to_delete(loop, original, removable, reasons)
        result = NODE_DELETE_STARTED if scaled_down else NO_NODE_DELETED

    looked_at, gone = set(names), set(unneeded)
    verdicts = []
    for name in loop.node_names:
        group = loop.group_of.get(name)
        reason, blocking = reasons.get(name, ("", None))
        verdicts.append(NodeVerdict(name, group.name if group is not None else "", name in looked_at, name in gone,
                                    reason, blocking, utilization.get(name) if reason else None))
    return ScaleDownOutcome(result, tuple(sorted(unneeded)), tuple(sorted(scaled_down)), tuple(verdicts),
                            tuple(removable))


def _removable_now_reason(loop: Loop, original: Snapshot, found: Removable, sizes: dict[str, int],
                          limits: QuotaTracker) -> str:
    """unremovableReason: why an unneeded node cannot go in this loop ("" when it can)."""
    info = original.get(found.node)
    node = info.node.obj
    if has_scale_down_disabled(node):
        return SCALE_DOWN_DISABLED_ANNOTATION
    group = loop.group_of.get(found.node)
    ready = is_ready(node)
    if group is not None:
        threshold = loop.config.unneeded_time_ns_for(group) if ready else loop.config.unready_time_ns
        now = loop.drain.now_ns
        if threshold > 0 and not loop.unneeded_since.get(found.node, now) + threshold < now:
            return NOT_UNNEEDED_LONG_ENOUGH if ready else NOT_UNREADY_LONG_ENOUGH
    if group is None:
        return NOT_AUTOSCALED
    if sizes[group.name] <= group.min_size:
        return NODE_GROUP_MIN_SIZE_REACHED
    if limits.consume(group.name, node, 1).is_exceeded:
        return MINIMAL_RESOURCE_LIMIT_EXCEEDED
    sizes[group.name] -= 1
    return ""


def _nodes_to_delete(loop: Loop, original: Snapshot, removable: Sequence[Removable],
                     reasons: dict[str, tuple[str, BlockingPod | None]]) -> tuple[str, ...]:
    """NodesToDelete and the deletion budgets: the nodes whose deletion starts now, why each other unneeded
    node stays in `reasons`; empty nodes first, then those needing a drain, each in simulation order."""
    sizes = dict(loop.sizes)
    groups = {n: g for n, g in loop.group_of.items() if g is not None}
    limits = QuotaTracker(loop.config.limits, [ni.node.obj for ni in original.node_infos],
                          {n: g.name for n, g in groups.items()},
                          {g.name: g.template for g in groups.values() if g.template is not None}, minimum=True,
                          provider=loop.config.provider)
    empty = [r for r in removable if not r.pods]
    drain = [r for r in removable if r.pods]
    drain = [r for r in drain if not r.risky] + [r for r in drain if r.risky]
    ok: list[Removable] = []
    for found in [*empty, *drain]:
        reason = _removable_now_reason(loop, original, found, sizes, limits)
        if reason:
            reasons[found.node] = (reason, None)
        else:
            ok.append(found)
    chosen: list[Removable] = []
    by_atomic_group: dict[str, list[Removable]] = {}
    for found in ok:
        group = loop.group_of.get(found.node)
        if group is not None and group.options.zero_or_max_node_scaling:
            by_atomic_group.setdefault(group.name, []).append(found)
        else:
            chosen.append(found)
    for group_name, members in by_atomic_group.items():
        if loop.sizes.get(group_name) == len(members):
            chosen.extend(members)
        else:
            for found in members:
                reasons[found.node] = (ATOMIC_SCALE_DOWN_FAILED, None)
    budget = loop.config.max_scale_down_parallelism
    drain_budget = loop.config.max_drain_parallelism
    started: list[str] = []
    for found in chosen:
        if found.on_completion_pods:
            reasons[found.node] = (BLOCKED_BY_ON_COMPLETION_POD, None)
            continue
        if budget <= 0:
            break
        if found.pods:
            if drain_budget <= 0:
                continue
            drain_budget -= 1
        budget -= 1
        started.append(found.node)
    return tuple(started)
