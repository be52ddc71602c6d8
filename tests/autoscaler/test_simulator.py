"""CA's predicate snapshot: nodes added by the simulation, checks, binds and the search order."""
from __future__ import annotations

from kexplain.autoscaler.simulator import ClusterSim, bound
from kexplain.config import load_config
from kexplain.features import KubeVersion
from kexplain.framework.runtime import Framework
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot
from kexplain.plugins import implements, known, plugin_class


def node(name: str, cpu: str = "4") -> Node:
    return Node.from_obj({"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
                          "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}})


def pod(name: str, app: str, cpu: str = "1", avoid: str | None = None) -> PodInfo:
    spec: dict = {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}]}
    if avoid:
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": avoid}}, "topologyKey": "kubernetes.io/hostname"}]}}
    return PodInfo({"kind": "Pod", "metadata": {"name": name, "namespace": "default", "uid": name,
                                                "labels": {"app": app}}, "spec": spec})


def sim(*nodes: Node) -> ClusterSim:
    snapshot = Snapshot([NodeInfo(n) for n in nodes])
    profile = load_config(None, implements=implements, known=known, kube=KubeVersion("1.36")).profile_for(
        "default-scheduler")
    registry = {n: plugin_class(n) for names in profile.plugins.values() for n in names}
    return ClusterSim(snapshot, Framework(profile, registry, snapshot))


def test_a_new_nodes_pods_count_for_the_next_checks():
    s = sim(node("a"))
    s.schedule(pod("warm", "y"), "a")          # fills the pod index before the node is added
    new = NodeInfo(node("e-0"))
    new.add_pods([bound(pod("guard", "x", avoid="y"), "e-0")])
    s.add_node(new)
    failed = s.check(pod("p", "y"), "e-0")
    assert failed is not None and failed.plugin == "InterPodAffinity"
    assert s.check(pod("p", "y"), "a") is None


def test_fork_and_revert():
    s = sim(node("a"))
    s.fork()
    s.add_node(NodeInfo(node("b")))
    assert [ni.name for ni in s.snapshot.node_infos] == ["a", "b"]
    s.revert()
    assert [ni.name for ni in s.snapshot.node_infos] == ["a"]


def test_the_search_starts_after_the_last_match():
    s = sim(node("a"), node("b"), node("c"))
    assert s.schedule_anywhere(pod("p1", "z")) == "b"      # CA's node ordering starts at offset 1
    assert s.schedule_anywhere(pod("p2", "z")) == "c"
    assert s.schedule_anywhere(pod("p3", "z")) == "a"
    assert s.schedule_anywhere(pod("big", "z", cpu="5")) is None
    assert s.schedule_anywhere(pod("p4", "z"), among=[0, 2]) == "c"   # after a: b is not acceptable
    failed = s.check(pod("big", "z", cpu="5"), "a")
    assert failed.plugin == "NodeResourcesFit" and failed.reasons == ("Insufficient cpu",)
