"""Scale-down for one loop, from the loop's inputs to the document's `scaleDown` key.

`run_scale_down` builds what CA's planner starts from: CA's snapshot and scheduler (the loop's,
as its scale-up part left them), each node's group and each group's size, the listers the
drainability rules read and the PDB budgets; then plans. The caller (the autoscale command's
loop) says whether the loop is in scale-down cooldown (it scaled up).
"""
from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from kexplain.autoscaler.cloudprovider.provider import TEST, CloudProvider
from kexplain.autoscaler.nodegroups import NodeGroup
from kexplain.autoscaler.params import Settings
from kexplain.autoscaler.scaledown.config import ScaleDownConfig
from kexplain.autoscaler.scaledown.drainability import Controllers, DrainContext
from kexplain.autoscaler.scaledown.eligibility import group_sizes
from kexplain.autoscaler.scaledown.pdb import PdbTracker
from kexplain.autoscaler.scaledown.planner import NOT_TRIED, Loop, NodeVerdict, ScaleDownOutcome, plan
from kexplain.autoscaler.simulator import ClusterSim
from kexplain.autoscaler.taints import deletion_candidate_since
from kexplain.model.nodeinfo import NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.autoscaler.inputs import LoopInputs

SCALED_UP = "ScaleUpSuccessful"            # --scale-down-delay-after-add starts now
TOO_NEW = "ScaleUpInCooldown"              # pods too new to act on: DisableScaleDownForLoop
BOUND_POD_AGE_NS = 30 * 60 * 10**9         # a bound pod the inputs give without a creation time
NS = 10**9

def ca_snapshot(snapshot: Snapshot, expendable_cutoff: int) -> Snapshot:
    """CA's snapshot: the nodes in the snapshot's order (CA's list order), each with its pods of
    priority at least the expendable cutoff (SetClusterState with FilterOutExpendablePods)."""
    if all(p.priority >= expendable_cutoff for ni in snapshot.node_infos for p in ni.pods):
        return snapshot
    infos = []
    for found in snapshot.node_infos:
        info = NodeInfo(found.node)
        kept = [p for p in found.pods if p.priority >= expendable_cutoff]
        if kept:
            info.add_pods(kept)
        infos.append(info)
    return snapshot.with_node_infos(infos)


def run_scale_down(sim: ClusterSim, node_names: Sequence[str], groups: Sequence[NodeGroup],
                   members: Mapping[str, Sequence[str]], settings: Settings, now_ns: int, *,
                   controllers: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
                   in_cooldown: bool = False, sizes: Mapping[str, int] | None = None,
                   delayed_groups: frozenset[str] = frozenset(),
                   created: Callable[[PodInfo], int | None] | None = None,
                   provider: CloudProvider = TEST) -> ScaleDownOutcome:
    """Scale-down of one loop at `now_ns`, on `sim` as the loop's scale-up part left it, over the
    cluster's `node_names` (cluster order), each group's `members` and `sizes`; `controllers` the
    snapshot lacks, `delayed_groups`, pods' `created` times and the `provider` (its GPU label)."""
    config = ScaleDownConfig.from_settings(settings, provider)
    group_of: dict[str, NodeGroup | None] = {name: None for name in node_names}
    by_name = {g.name: g for g in groups}
    for group_name, names in members.items():
        for name in names:
            group_of[name] = by_name[group_name]
    snapshot = sim.snapshot
    listers = Controllers({**snapshot.objects, **(controllers or {})})
    drain = DrainContext(PdbTracker(snapshot.of_kind("PodDisruptionBudget")), listers, now_ns, config.delete_options,
                         created)
    sizes = {**group_sizes(groups, members), **(sizes or {})}
    loop = Loop(sim, node_names, group_of, sizes, config, drain, in_cooldown, delayed_groups,
                marked_unneeded(snapshot, config.deletion_candidate_ttl_ns, now_ns))
    return plan(loop)


def marked_unneeded(snapshot: Snapshot, ttl_ns: int, now_ns: int) -> dict[str, int]:
    """LoadFromExistingTaints (with --node-deletion-candidate-ttl only): each node CA marked as a
    deletion candidate less than the TTL ago, unneeded since the mark (ns)."""
    if ttl_ns == 0:
        return {}
    out = {}
    for ni in snapshot.node_infos:
        since = deletion_candidate_since(ni.node.obj)
        if since is not None and not since * NS + ttl_ns < now_ns:
            out[ni.name] = since * NS
    return out


def _ns(at: datetime) -> int:
    """Nanoseconds since the epoch (a naive time read as UTC)."""
    at = at if at.tzinfo is not None else at.replace(tzinfo=timezone.utc)
    return (at - datetime(1970, 1, 1, tzinfo=timezone.utc)) // timedelta(microseconds=1) * 1000


def loop_scale_down(loop: "LoopInputs", sim: ClusterSim, scale_up_result: str,
                    target_sizes: Mapping[str, int]) -> ScaleDownOutcome:
    """RunOnce's scale-down part on `sim` as the scale-up part left it, `scale_up_result` its ScaleUpStatus
    result and `target_sizes` the groups' sizes after it (set on the provider already)."""
    if not loop.settings.flag("scale-down-enabled"):
        return untried([n.name for n in loop.nodes], loop.groups, loop.group_members)
    now_ns = _ns(loop.now)
    extra = {"DaemonSet": loop.daemonsets, "Job": loop.jobs}
    # what the inputs leave out: pending pods (those the loop placed on nodes) were created when
    # the loop says, bound pods 30 minutes before now
    by_key = {p.key: _ns(t) for p, t in zip(loop.pending, loop.pending_created)}
    bound_created = now_ns - BOUND_POD_AGE_NS
    config = ScaleDownConfig.from_settings(loop.settings, loop.provider.provider)
    cooldown = config.in_cooldown(scale_up_result == SCALED_UP, scale_up_result == TOO_NEW)
    delayed: frozenset[str] = frozenset()
    if config.delay_type_local and config.delay_after_add_ns > 0:     # per group: the groups scaled up now
        before = group_sizes(loop.groups, loop.group_members)
        delayed = frozenset(g for g, size in target_sizes.items() if size > before.get(g, size))
    return run_scale_down(sim, [n.name for n in loop.nodes], loop.groups, loop.group_members, loop.settings,
                          now_ns, controllers=extra, in_cooldown=cooldown, sizes=target_sizes,
                          delayed_groups=delayed, created=lambda pod: by_key.get(pod.key, bound_created),
                          provider=loop.provider.provider)


def untried(node_names: Sequence[str], groups: Sequence[NodeGroup],
            members: Mapping[str, Sequence[str]]) -> ScaleDownOutcome:
    """A loop with --scale-down-enabled=false: the status stays ScaleDownNotTried, no node looked at."""
    owner = {name: g.name for g in groups for name in members.get(g.name, ())}
    return ScaleDownOutcome(NOT_TRIED, nodes=tuple(NodeVerdict(n, owner.get(n, ""), False, False) for n in node_names))


def scale_down_document(loop: "LoopInputs", outcome: ScaleDownOutcome | None, processed: bool = True
                        ) -> dict[str, Any]:
    """The document's `scaleDown` key: ScaleDownNotTried for a loop that ended before scale-down (an
    unhealthy cluster), NotTried when it ended before CA's status processors ran (`processed` false)."""
    if outcome is None:
        outcome = untried([n.name for n in loop.nodes], loop.groups, loop.group_members)
        if not processed:
            outcome = replace(outcome, result="NotTried")
    return scale_down_json(outcome)


def scale_down_json(outcome: ScaleDownOutcome | None) -> dict[str, Any]:
    """The document's `scaleDown` key (`NotTried` when the loop never reached scale-down)."""
    if outcome is None:
        return {"result": "NotTried", "unneeded": [], "scaledDown": [], "nodes": []}
    nodes = []
    for v in outcome.nodes:
        entry: dict[str, Any] = {"name": v.name, "nodeGroup": v.node_group, "candidate": v.candidate,
                                 "unneeded": v.unneeded, "reason": v.reason}
        if v.blocking_pod is not None:
            entry["blockingPod"] = v.blocking_pod.to_json()
        if v.utilization is not None:
            entry["utilization"] = v.utilization.to_json()
        nodes.append(entry)
    return {"result": outcome.result, "unneeded": list(outcome.unneeded), "scaledDown": list(outcome.scaled_down),
            "nodes": nodes}


__all__ = ["run_scale_down", "loop_scale_down", "scale_down_document", "scale_down_json", "ca_snapshot", "untried", "NOT_TRIED"]
