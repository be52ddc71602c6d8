"""CA's binpacking estimator (estimator/): how many new nodes of a group the pods need, pod groups
by decreasing score, each pod onto the new nodes so far, else a fresh template copy while the
limiter allows; the snapshot forked and reverted (docs/internals/autoscaler.md)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from kexplain.apimachinery.gosort import go_sort
from kexplain.autoscaler.simulator import ClusterSim
from kexplain.autoscaler.templates import HOSTNAME, renamed_csi_node, renamed_pod
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import PodInfo

SPREAD_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"


@dataclass
class Limiter:
    """The threshold-based limiter: at most `max_nodes` new nodes (0: no limit, -1: none)."""

    max_nodes: int
    added: int = 0

    @classmethod
    def of(cls, limits: Sequence[int]) -> "Limiter":
        """The tightest of `limits` (getMinLimit: a negative one forbids, 0 is no limit)."""
        out = 0
        for limit in limits:
            if out < 0 or limit < 0:
                out = -1
            elif (out == 0 or out > limit) and limit > 0:
                out = limit
        return cls(out)

    def permission_to_add_node(self) -> bool:
        if self.max_nodes < 0 or (self.max_nodes > 0 and self.added >= self.max_nodes):
            return False
        self.added += 1
        return True


def group_limit(max_size: int, target_size: int) -> int:
    """The room left in a group (sngCapacityThreshold's share of one group)."""
    return max(max_size - target_size, 0)


def estimator_limits(max_nodes_per_scaleup: int, group_room: int, max_nodes_total: int, current_nodes: int,
                     binpacking_duration: float = 0.0) -> Limiter:
    """The default limiter's thresholds: static, similar node groups' capacity, cluster capacity.
    The static threshold's duration (--max-nodegroup-binpacking-duration) is a wall-clock budget
    that never runs out here, but a negative one forbids every node, as getMinLimit makes it -1."""
    if binpacking_duration < 0:
        return Limiter(-1)
    sng = group_room if group_room > 0 else -1
    if max_nodes_total == 0:
        cluster = 0
    elif max_nodes_total <= current_nodes:
        cluster = -1
    else:
        cluster = max_nodes_total - current_nodes
    return Limiter.of([max_nodes_per_scaleup, sng, cluster])


def pod_score(pod: PodInfo, template: NodeInfo) -> float:
    """The decreasing pod orderer's score of a group by its first pod."""
    req = pod.resource.resource
    alloc = template.node.allocatable
    score = 0.0
    if alloc.milli_cpu > 0:
        score += req.milli_cpu / alloc.milli_cpu
    if alloc.memory > 0:
        score += req.memory / alloc.memory
    return score


@dataclass
class Estimate:
    node_count: int
    pods: list[PodInfo] = field(default_factory=list)


def _uses_hostname_spread(pod: PodInfo) -> bool:
    return any(isinstance(c, dict) and c.get("topologyKey") == HOSTNAME
               for c in pod.spec.get("topologySpreadConstraints") or ())


def estimate(sim: ClusterSim, groups: Sequence[Sequence[PodInfo]], template: NodeInfo, limiter: Limiter,
             csi_node: Mapping[str, Any] | None = None) -> Estimate:
    """The node count and the pods placed for `groups` (equivalent pods each) on new nodes from `template`
    (BinpackingNodeEstimator.Estimate); each new node gets a copy of `csi_node` under its name."""
    scored = [(pod_score(g[0], template), list(g)) for g in groups]
    go_sort(scored, lambda a, b: a[0] > b[0])
    sim.fork()
    try:
        return _estimate(sim, [g for _, g in scored], template, limiter, csi_node)
    finally:
        sim.revert()


def _estimate(sim: ClusterSim, groups: list[list[PodInfo]], template: NodeInfo, limiter: Limiter,
              csi_node: Mapping[str, Any] | None) -> Estimate:
    new_nodes: list[int] = []      # their indexes in the snapshot's node list
    with_pods: dict[str, None] = {}
    placed: list[PodInfo] = []
    last = ""
    index = 0
    available = True

    def track(pod: PodInfo, node: str) -> None:
        with_pods[node] = None
        placed.append(pod)

    for pods in groups:
        i = 0
        while i < len(pods):
            node = sim.schedule_anywhere(pods[i], new_nodes)
            if node is None:
                break
            track(pods[i], node)
            i += 1
        if not available:
            continue
        for pod in pods[i:]:
            found = False
            if last:
                failed = sim.schedule(pod, last)
                if failed is None:
                    found = True
                    track(pod, last)
                elif _uses_hostname_spread(pod) and SPREAD_CONSTRAINTS_NOT_MATCH in failed.reasons:
                    # any node of the snapshot (existing ones too) but the last new one
                    skip = new_nodes[-1]
                    node = sim.schedule_anywhere(pod, [i for i in range(len(sim.snapshot.node_infos)) if i != skip])
                    if node is not None:
                        found = True
                        track(pod, node)
            if found:
                continue
            if last and last not in with_pods:
                break          # a fresh node took nothing: no new node will
            if not limiter.permission_to_add_node():
                available = False
                break
            last = _add_node(sim, template, index, csi_node)
            index += 1
            new_nodes.append(len(sim.snapshot.node_infos) - 1)
            if sim.schedule(pod, last) is not None:
                break
            track(pod, last)
    return Estimate(len(with_pods), placed)


def _add_node(sim: ClusterSim, template: NodeInfo, index: int, csi_node: Mapping[str, Any] | None) -> str:
    """A copy of the template named `<template>-e-<index>`, its pods renamed and its CSINode
    copied under the new name (SanitizedNodeInfo)."""
    name = f"{template.name}-e-{index}"
    obj = dict(template.node.obj)
    meta = dict(obj.get("metadata") or {})
    meta["name"] = name
    meta["labels"] = {**(meta.get("labels") or {}), HOSTNAME: name}
    obj["metadata"] = meta
    info = NodeInfo(Node.from_obj(obj))
    pods = [renamed_pod(pod, name, f"e-{index}") for pod in template.pods]
    if pods:
        info.add_pods(pods)
    sim.add_node(info, renamed_csi_node(csi_node, name) if csi_node is not None else None)
    return name
