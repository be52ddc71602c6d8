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


def _filtered_names(s: ClusterSim) -> list[list[str]]:
    """Record the node names each Filter pass of `s`'s framework is run on."""
    seen: list[list[str]] = []
    run = s.framework.run_filter_nodes

    def recording(state, p, nodes, every=False):
        seen.append([ni.name for ni in nodes])
        return run(state, p, nodes, every)
    s.framework.run_filter_nodes = recording
    return seen


def test_nodes_a_node_local_plugin_rejected_are_not_filtered_again_for_a_pod_like_it():
    s = sim(node("a", cpu="1"), node("b", cpu="1"), node("c", cpu="8"))
    seen = _filtered_names(s)
    assert s.schedule_anywhere(pod("p1", "z", cpu="2")) == "c"     # a and b: Insufficient cpu
    assert "a" in seen[0]
    seen.clear()
    assert s.schedule_anywhere(pod("p2", "z", cpu="2")) == "c"     # the same shape: a, b ruled out
    assert all(names == ["c"] for names in seen)
    seen.clear()
    assert s.schedule_anywhere(pod("q", "z", cpu="500m")) == "a"   # another shape: every node again
    assert seen[0][0] == "a"


def test_a_node_rebound_or_rejected_by_a_cluster_wide_plugin_is_filtered_again():
    s = sim(node("a"), node("b"))
    seen = _filtered_names(s)
    needs_y = pod("p1", "x")
    needs_y.obj["spec"]["affinity"] = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "y"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    assert s.schedule_anywhere(needs_y) is None          # InterPodAffinity: no y pod anywhere
    s.schedule(pod("y", "y"), "b")
    seen.clear()
    again = PodInfo({**needs_y.obj, "metadata": {**needs_y.metadata, "name": "p2", "uid": "p2"}})
    assert s.schedule_anywhere(again) == "b"             # not remembered: the y pod makes b fit
    assert sorted(n for names in seen for n in names) == ["a", "b"]


def test_the_acceptable_nodes_are_searched_from_after_the_last_match_round_the_list():
    s = sim(node("a"), node("b"), node("c"), node("d"))
    assert s.schedule_anywhere(pod("p1", "z")) == "b"
    assert s.schedule_anywhere(pod("p2", "z"), among=[3, 0, 1]) == "d"   # from c (index 2) on
    assert s.schedule_anywhere(pod("p3", "z"), among=[2, 1]) == "b"      # from a on, round to b
