"""CA's cluster snapshot as the removal simulation changes it (on the loop's `ClusterSim`, its node
order and search position kept): each change returns a new `Snapshot`, so keeping the old one is
CA's Fork and going back to it its Revert."""
from __future__ import annotations

from typing import Sequence

from kexplain.autoscaler.taints import TO_BE_DELETED as TO_BE_DELETED_TAINT
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot


def without_pods(snapshot: Snapshot, node: str, pods: Sequence[PodInfo]) -> Snapshot:
    """`pods` taken off `node` (UnschedulePod each)."""
    if not pods:
        return snapshot
    changed = snapshot.get(node).clone()
    for pod in pods:
        changed.remove_pod(pod)
    return snapshot.with_node_infos([changed if ni.name == node else ni for ni in snapshot.node_infos])


def without_node(snapshot: Snapshot, node: str) -> Snapshot:
    return snapshot.with_node_infos([ni for ni in snapshot.node_infos if ni.name != node])


def with_ghost(snapshot: Snapshot, node: str, now_ns: int) -> Snapshot:
    """`node` replaced by a copy without pods carrying CA's ToBeDeleted taint, listed last
    (replaceWithTaintedGhostNode; the README's "Order": what the simulation adds goes after the rest)."""
    obj = snapshot.get(node).node.obj
    spec = dict(obj.get("spec") or {})
    spec["taints"] = [*(spec.get("taints") or ()),
                      {"key": TO_BE_DELETED_TAINT, "value": str(now_ns // 10**9), "effect": "NoSchedule"}]
    ghost = NodeInfo(Node.from_obj({**obj, "spec": spec}))
    return snapshot.with_node_infos([*(ni for ni in snapshot.node_infos if ni.name != node), ghost])


def unbound(pod: PodInfo) -> PodInfo:
    """The pod as the simulation hands it to the scheduler: a copy without spec.nodeName."""
    return PodInfo({**pod.obj, "spec": {**pod.spec, "nodeName": ""}})
