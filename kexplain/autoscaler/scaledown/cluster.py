"""CA's cluster snapshot during the removal simulation, and the scheduler run on it.

`SimCluster` is the snapshot's node list in CA's order (cluster.yaml order; a node the
simulation adds goes last) over kexplain's `Snapshot`. Every change returns a new
`SimCluster`, so forking is keeping the old one and reverting is going back to it.

`Placer` is CA's SchedulePodOnAnyNodeMatching with one predicate worker: PreFilter once, then
Filter node by node, starting after the node that took the previous pod (CA's default
`lastIndexOrderMapping` with offset 1, whose last match outlives a simulation that is
reverted), skipping unschedulable and unacceptable nodes; the first node that passes takes it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from kexplain.config import Profile
from kexplain.framework.cycle_state import CycleState
from kexplain.framework.runtime import Framework
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot
from kexplain.plugins import plugin_class

TO_BE_DELETED_TAINT = "ToBeDeletedByClusterAutoscaler"


@dataclass(frozen=True)
class SimCluster:
    """Nodes with their pods, in CA's snapshot order."""

    snapshot: Snapshot

    @classmethod
    def of(cls, node_infos: Sequence[NodeInfo], like: Snapshot) -> "SimCluster":
        """The nodes in the given order, with `like`'s namespaces and other objects."""
        return cls(Snapshot(list(node_infos), like.namespaces, like.objects))

    @property
    def node_infos(self) -> list[NodeInfo]:
        return self.snapshot.node_infos

    def get(self, name: str) -> NodeInfo | None:
        return self.snapshot.get(name)

    def _with_infos(self, infos: list[NodeInfo]) -> "SimCluster":
        return SimCluster(Snapshot(infos, self.snapshot.namespaces, self.snapshot.objects))

    def without_pods(self, node: str, pods: Sequence[PodInfo]) -> "SimCluster":
        """`pods` taken off `node` (UnschedulePod each)."""
        if not pods:
            return self
        changed = self.snapshot.get(node).clone()
        for pod in pods:
            changed.remove_pod(pod)
        return self._with_infos([changed if ni.name == node else ni for ni in self.node_infos])

    def without_node(self, node: str) -> "SimCluster":
        return self._with_infos([ni for ni in self.node_infos if ni.name != node])

    def with_ghost(self, node: str, now_ns: int) -> "SimCluster":
        """`node` replaced by a copy without pods that carries CA's ToBeDeleted NoSchedule taint,
        listed last (replaceWithTaintedGhostNode: the node still counts as a topology domain)."""
        obj = self.snapshot.get(node).node.obj
        spec = dict(obj.get("spec") or {})
        spec["taints"] = [*(spec.get("taints") or ()),
                          {"key": TO_BE_DELETED_TAINT, "value": str(now_ns // 10**9), "effect": "NoSchedule"}]
        ghost = NodeInfo(Node.from_obj({**obj, "spec": spec}))
        return self._with_infos([*(ni for ni in self.node_infos if ni.name != node), ghost])

    def with_pod_on(self, pod: PodInfo, node: str) -> "SimCluster":
        bound = PodInfo(_with_node_name(pod.obj, node))
        return SimCluster(self.snapshot.with_pod_bound(bound))


def _with_node_name(obj: dict[str, Any], node: str) -> dict[str, Any]:
    return {**obj, "spec": {**(obj.get("spec") or {}), "nodeName": node}}


class Placer:
    """The scheduler CA embeds (one profile), placing pods on a `SimCluster` one by one."""

    def __init__(self, profile: Profile, last_index: int = 0) -> None:
        self.profile = profile
        self.registry = {name: plugin_class(name) for names in profile.plugins.values() for name in names}
        self.last_index = last_index      # the node list index of the last match (shared, as in CA)

    def place(self, cluster: SimCluster, pod: PodInfo, acceptable: Callable[[NodeInfo], bool]) -> str | None:
        """The name of the node `pod` goes to, or None when PreFilter fails or no node passes."""
        pending = PodInfo(_with_node_name(pod.obj, ""))
        framework = Framework(self.profile, self.registry, cluster.snapshot)
        state = CycleState()
        pre = framework.run_pre_filter(state, pending)
        if not pre.status.is_success:
            return None
        allowed = None if pre.result is None or pre.result.all_nodes else pre.result.node_names
        nodes = cluster.node_infos
        n = len(nodes)
        for i in range(n):
            index = (i + 1 + self.last_index) % n
            ni = nodes[index]
            if allowed is not None and ni.name not in allowed:
                continue
            if ni.node.unschedulable or not acceptable(ni):
                continue
            if framework.run_filter_plugins(state, pending, ni).is_success:
                self.last_index = index
                return ni.name
        return None
