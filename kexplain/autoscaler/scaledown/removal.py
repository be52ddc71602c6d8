"""The removal simulation: could every pod of a node run elsewhere if the node went away?

CA's SimulateNodeRemoval: the drainability rules pick the pods to move (or the pod that
blocks); those pods come off the node, the node becomes a tainted ghost, and the pods are
placed one by one, in the node's order, on the allowed destinations (the first that fails ends
it). A removable node's result is kept (its pods stay where they were placed and the ghost is
gone: CA's Commit); an unremovable node leaves the snapshot as it was (Revert).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import AbstractSet

from kexplain.autoscaler.scaledown.cluster import unbound, with_ghost, without_node, without_pods
from kexplain.autoscaler.scaledown.drainability import BlockingPod, DrainContext, pods_to_move
from kexplain.autoscaler.simulator import ClusterSim
from kexplain.model.pod import PodInfo

BLOCKED_BY_POD = "BlockedByPod"
NO_PLACE_TO_MOVE_PODS = "NoPlaceToMovePods"
NO_NODE_INFO = "NoNodeInfo"


@dataclass(frozen=True)
class Removable:
    """NodeToBeRemoved: the node and the pods its removal reschedules."""

    node: str
    pods: tuple[PodInfo, ...]
    daemonset_pods: tuple[PodInfo, ...] = ()
    on_completion_pods: tuple[PodInfo, ...] = ()
    risky: bool = False
    placements: tuple[tuple[str, str], ...] = ()    # (pod key, destination node), in placing order


@dataclass(frozen=True)
class Unremovable:
    node: str
    reason: str
    blocking: BlockingPod | None = None


def simulate_removal(sim: ClusterSim, node: str, destinations: AbstractSet[str],
                     ctx: DrainContext) -> Removable | Unremovable:
    """SimulateNodeRemoval of `node` onto `destinations` (names; `node` itself never counts).
    A removable node's simulation stays in `sim`'s snapshot; any other leaves it unchanged."""
    before = sim.snapshot
    info = before.get(node)
    if info is None:
        return Unremovable(node, NO_NODE_INFO)
    moves = pods_to_move(ctx, info.pods)
    if moves.blocking is not None:
        return Unremovable(node, BLOCKED_BY_POD, moves.blocking)
    sim.snapshot = with_ghost(without_pods(before, node, moves.pods), node, ctx.now_ns)

    acceptable = [i for i, ni in enumerate(sim.snapshot.node_infos) if ni.name != node and ni.name in destinations]
    placements = []
    for pod in moves.pods:
        target = sim.schedule_anywhere(unbound(pod), acceptable)
        if target is None:
            sim.snapshot = before
            return Unremovable(node, NO_PLACE_TO_MOVE_PODS)
        placements.append((pod.key, target))
    sim.snapshot = without_node(sim.snapshot, node)
    return Removable(node, moves.pods, moves.daemonset_pods, moves.on_completion_pods, placements=tuple(placements))
