"""CA's cluster snapshot as the removal simulation changes it, and the scheduler run on it.

The simulation runs on the loop's `ClusterSim` (kexplain.autoscaler.simulator): its snapshot
lists the nodes in CA's order (cluster.yaml order; a node the loop adds goes last; a node it
changes, or removes and adds back within one fork, keeps its place) and its
node search starts after the node of the last match, a position the scale-down inherits from
the scale-up part and keeps through simulations that are reverted, as CA's one plugin runner
does. The functions here are the snapshot changes the simulation makes; each returns a new
`Snapshot`, so keeping the old one is CA's Fork and going back to it its Revert.
"""
from __future__ import annotations

from typing import Sequence

from kexplain.autoscaler.inputs import CA_KUBERNETES
from kexplain.autoscaler.simulator import ClusterSim
from kexplain.config import load_config
from kexplain.features import KubeVersion
from kexplain.framework.runtime import Framework
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot
from kexplain.plugins import implements, known, plugin_class

TO_BE_DELETED_TAINT = "ToBeDeletedByClusterAutoscaler"
DEFAULT_SCHEDULER = "default-scheduler"


def ca_sim(snapshot: Snapshot) -> ClusterSim:
    """A new `ClusterSim` over `snapshot` with the scheduler CA embeds (its version's default
    profile), for a scale-down run on its own."""
    profile = load_config(None, implements=implements, known=known,
                          kube=KubeVersion(CA_KUBERNETES)).profile_for(DEFAULT_SCHEDULER)
    registry = {name: plugin_class(name) for names in profile.plugins.values() for name in names}
    return ClusterSim(snapshot, Framework(profile, registry, snapshot))


def _replaced(snapshot: Snapshot, infos: list[NodeInfo]) -> Snapshot:
    return Snapshot(infos, snapshot.namespaces, snapshot.objects)


def without_pods(snapshot: Snapshot, node: str, pods: Sequence[PodInfo]) -> Snapshot:
    """`pods` taken off `node` (UnschedulePod each)."""
    if not pods:
        return snapshot
    changed = snapshot.get(node).clone()
    for pod in pods:
        changed.remove_pod(pod)
    return _replaced(snapshot, [changed if ni.name == node else ni for ni in snapshot.node_infos])


def without_node(snapshot: Snapshot, node: str) -> Snapshot:
    return _replaced(snapshot, [ni for ni in snapshot.node_infos if ni.name != node])


def with_ghost(snapshot: Snapshot, node: str, now_ns: int) -> Snapshot:
    """`node` replaced, in its place in the list, by a copy without pods that carries CA's
    ToBeDeleted NoSchedule taint (replaceWithTaintedGhostNode: the node still counts as a
    topology domain). CA removes the node and adds the copy within one fork, which its delta
    snapshot records as a change of that node, so the copy keeps the node's position."""
    obj = snapshot.get(node).node.obj
    spec = dict(obj.get("spec") or {})
    spec["taints"] = [*(spec.get("taints") or ()),
                      {"key": TO_BE_DELETED_TAINT, "value": str(now_ns // 10**9), "effect": "NoSchedule"}]
    ghost = NodeInfo(Node.from_obj({**obj, "spec": spec}))
    return _replaced(snapshot, [ghost if ni.name == node else ni for ni in snapshot.node_infos])


def unbound(pod: PodInfo) -> PodInfo:
    """The pod as the simulation hands it to the scheduler: a copy without spec.nodeName."""
    return PodInfo({**pod.obj, "spec": {**pod.spec, "nodeName": ""}})
