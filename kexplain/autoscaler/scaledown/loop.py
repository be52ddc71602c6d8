"""Scale-down for one loop, from the loop's inputs to the document's `scaleDown` key.

`run_scale_down` builds what CA's planner starts from: the snapshot's nodes in cluster.yaml
order with their non-expendable bound pods, each node's group and each group's size, the
listers the drainability rules read, the PDB budgets and the scheduler CA embeds; then plans.
The caller (the autoscale command's loop) says whether the loop is in scale-down cooldown
(it scaled up) and where the scheduler's node search stands after the scale-up part.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from kexplain.autoscaler.nodegroups import NodeGroup
from kexplain.autoscaler.params import Settings
from kexplain.autoscaler.scaledown.cluster import Placer, SimCluster
from kexplain.autoscaler.scaledown.config import ScaleDownConfig
from kexplain.autoscaler.scaledown.drainability import Controllers, DrainContext
from kexplain.autoscaler.scaledown.eligibility import group_sizes
from kexplain.autoscaler.scaledown.pdb import PdbTracker
from kexplain.autoscaler.scaledown.planner import NOT_TRIED, Loop, NodeVerdict, ScaleDownOutcome, plan
from kexplain.config import load_config
from kexplain.features import KubeVersion
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.snapshot import Snapshot
from kexplain.plugins import implements, known

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.autoscaler.inputs import LoopInputs

CA_KUBERNETES = "1.36"          # the scheduler CA embeds (k8s.io/kubernetes v1.36.2)
BOUND_POD_AGE_NS = 30 * 60 * 10**9
DEFAULT_SCHEDULER = "default-scheduler"


def ca_placer(last_index: int = 0) -> Placer:
    """The scheduler CA embeds: the default profile of its Kubernetes version."""
    kube = KubeVersion(CA_KUBERNETES)
    config = load_config(None, implements=implements, known=known, kube=kube)
    return Placer(config.profile_for(DEFAULT_SCHEDULER), last_index)


def _ready_by_default(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """The node with a Ready=True condition when it has no Ready condition (the cases' rule
    for what the input leaves out)."""
    status = obj.get("status") or {}
    conditions = status.get("conditions") or []
    if any(isinstance(c, dict) and c.get("type") == "Ready" for c in conditions):
        return obj
    ready = {"type": "Ready", "status": "True", "reason": "KubeletReady"}
    return {**obj, "status": {**status, "conditions": [*conditions, ready]}}


def ca_cluster(snapshot: Snapshot, expendable_cutoff: int) -> SimCluster:
    """CA's snapshot: the snapshot's nodes in its order (CA's list order), each with its pods
    of priority at least the expendable cutoff (SetClusterState with FilterOutExpendablePods)."""
    infos = []
    for found in snapshot.node_infos:
        info = NodeInfo(Node.from_obj(_ready_by_default(found.node.obj)))
        kept = [p for p in found.pods if p.priority >= expendable_cutoff]
        if kept:
            info.add_pods(kept)
        infos.append(info)
    return SimCluster.of(infos, snapshot)


def run_scale_down(snapshot: Snapshot, node_names: Sequence[str], groups: Sequence[NodeGroup],
                   members: Mapping[str, Sequence[str]], settings: Settings, now_ns: int, *,
                   controllers: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
                   in_cooldown: bool = False, last_index: int = 0) -> ScaleDownOutcome:
    """Scale-down of one loop at `now_ns`. `snapshot`: CA's snapshot as the loop left it, nodes
    in CA's list order (cluster.yaml order, then any the loop added); `node_names`: the
    cluster's nodes (the candidates and destinations), in cluster.yaml order; `members`: each
    group's nodes; `controllers`: controllers by kind the snapshot's objects lack (DaemonSets,
    Jobs); `last_index`: where the scheduler's node search stands after the scale-up part."""
    config = ScaleDownConfig.from_settings(settings)
    group_of: dict[str, NodeGroup | None] = {name: None for name in node_names}
    by_name = {g.name: g for g in groups}
    for group_name, names in members.items():
        for name in names:
            group_of[name] = by_name[group_name]
    listers = Controllers({**snapshot.objects, **(controllers or {})})
    drain = DrainContext(PdbTracker(snapshot.of_kind("PodDisruptionBudget")), listers, now_ns, config.delete_options)
    loop = Loop(ca_cluster(snapshot, config.expendable_pods_priority_cutoff), node_names, group_of,
                group_sizes(groups, members), config, drain, ca_placer(last_index), in_cooldown)
    return plan(loop)


# Scale-up results after which the loop does not scale down: a scale-up (--scale-down-delay-after-add
# starts now) or pods too new to act on (the loop's DisableScaleDownForLoop).
COOLDOWN_AFTER = frozenset({"ScaleUpSuccessful", "ScaleUpInCooldown"})


def loop_scale_down(loop: "LoopInputs", snapshot: Snapshot, last_index: int, scale_up_result: str,
                    controllers: Mapping[str, Sequence[Mapping[str, Any]]] | None = None) -> ScaleDownOutcome:
    """RunOnce's scale-down part, after its scale-up part left CA's snapshot as `snapshot` and the
    scheduler's node search at `last_index`, with `scale_up_result` its ScaleUpStatus result."""
    epoch = datetime(1970, 1, 1, tzinfo=timezone.utc)
    now = loop.now if loop.now.tzinfo is not None else loop.now.replace(tzinfo=timezone.utc)
    now_ns = (now - epoch) // timedelta(microseconds=1) * 1000
    extra = {"DaemonSet": loop.daemonsets, "Job": loop.jobs, **(controllers or {})}
    if not loop.settings.flag("scale-down-enabled"):
        return untried([n.name for n in loop.nodes], loop.groups, loop.group_members)
    return run_scale_down(snapshot, [n.name for n in loop.nodes], loop.groups, loop.group_members, loop.settings,
                          now_ns, controllers=extra, in_cooldown=scale_up_result in COOLDOWN_AFTER,
                          last_index=last_index)


def untried(node_names: Sequence[str], groups: Sequence[NodeGroup],
            members: Mapping[str, Sequence[str]]) -> ScaleDownOutcome:
    """A loop with --scale-down-enabled=false: the status stays ScaleDownNotTried, no node looked at."""
    owner = {name: g.name for g in groups for name in members.get(g.name, ())}
    return ScaleDownOutcome(NOT_TRIED, nodes=tuple(NodeVerdict(n, owner.get(n, ""), False, False) for n in node_names))


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


__all__ = ["run_scale_down", "loop_scale_down", "scale_down_json", "ca_placer", "ca_cluster", "untried", "NOT_TRIED"]
