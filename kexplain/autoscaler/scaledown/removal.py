"""The removal simulation: could every pod of a node run elsewhere if the node went away?

CA's SimulateNodeRemoval: the drainability rules pick the pods to move (or the pod that
blocks); those pods come off the node, the node becomes a tainted ghost, and the pods are
placed one by one, in the node's order, on the allowed destinations (the first that fails ends
it). A removable node's result is kept (its pods stay where they were placed and the ghost is
gone); an unremovable node leaves the cluster as it was.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import AbstractSet

from kexplain.autoscaler.scaledown.cluster import Placer, SimCluster
from kexplain.autoscaler.scaledown.drainability import BlockingPod, DrainContext, pods_to_move
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


@dataclass(frozen=True)
class Simulated:
    """One node's simulation: the cluster after it, and either outcome."""

    cluster: SimCluster
    removable: Removable | None = None
    unremovable: Unremovable | None = None


def simulate_removal(cluster: SimCluster, node: str, destinations: AbstractSet[str], placer: Placer,
                     ctx: DrainContext) -> Simulated:
    """SimulateNodeRemoval of `node` onto `destinations` (names; `node` itself never counts)."""
    info = cluster.get(node)
    if info is None:
        return Simulated(cluster, unremovable=Unremovable(node, NO_NODE_INFO))
    moves = pods_to_move(ctx, info.pods)
    if moves.blocking is not None:
        return Simulated(cluster, unremovable=Unremovable(node, BLOCKED_BY_POD, moves.blocking))
    trial = cluster.without_pods(node, moves.pods).with_ghost(node, ctx.now_ns)

    def acceptable(ni) -> bool:
        return ni.name != node and ni.name in destinations

    placements = []
    for pod in moves.pods:
        target = placer.place(trial, pod, acceptable)
        if target is None:
            return Simulated(cluster, unremovable=Unremovable(node, NO_PLACE_TO_MOVE_PODS))
        trial = trial.with_pod_on(pod, target)
        placements.append((pod.key, target))
    return Simulated(trial.without_node(node), Removable(node, moves.pods, moves.daemonset_pods,
                                                        moves.on_completion_pods, placements=tuple(placements)))
