"""CA's predicate snapshot: nodes added by the simulation, checks, binds and the search order."""
from __future__ import annotations

from kexplain.autoscaler.simulator import ClusterSim, SimMemo, bound
from kexplain.config import load_config
from kexplain.features import KubeVersion
from kexplain.framework.runtime import Framework
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.shapes import pending_key
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


def sim(*nodes: Node, memo: SimMemo | None = None) -> ClusterSim:
    snapshot = Snapshot([NodeInfo(n) for n in nodes])
    profile = load_config(None, implements=implements, known=known, kube=KubeVersion("1.36")).profile_for(
        "default-scheduler")
    registry = {n: plugin_class(n) for names in profile.plugins.values() for n in names}
    return ClusterSim(snapshot, Framework(profile, registry, snapshot), memo)


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


def test_pods_alike_share_a_key_their_identity_aside():
    a, b = pod("p1", "z"), pod("p2", "z")
    assert pending_key(a) is not None and pending_key(a) == pending_key(b)
    assert pending_key(pod("p3", "other")) != pending_key(a)            # labels are read (selectors)
    assert pending_key(pod("p4", "z", cpu="2")) != pending_key(a)
    claimed = pod("p5", "z")
    claimed.obj["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "c"}]
    assert pending_key(PodInfo(claimed.obj)) is None                     # a claim is reserved for one pod
    nominated = PodInfo({**a.obj, "status": {"nominatedNodeName": "a"}})
    assert pending_key(nominated) is None


def test_a_pod_alike_gets_the_answers_of_the_first_on_the_same_snapshot_only():
    s = sim(node("a", cpu="1"), node("b", cpu="1"))
    seen = _filtered_names(s)
    assert s.schedule_anywhere(pod("p1", "z", cpu="2")) is None
    assert seen
    seen.clear()
    assert s.schedule_anywhere(pod("p2", "z", cpu="2")) is None         # alike: not searched again
    assert s.check(pod("p3", "z", cpu="2"), "a").plugin == "NodeResourcesFit"
    assert s.check(pod("p4", "z", cpu="2"), "a") == s.check(pod("p5", "z", cpu="2"), "a")
    assert not seen
    s.add_node(NodeInfo(node("c", cpu="4")))                             # another snapshot: searched again
    assert s.schedule_anywhere(pod("p6", "z", cpu="2")) == "c"
    assert seen


def test_a_loop_run_again_with_the_same_memo_replays_its_searches():
    nodes = (node("a", cpu="2"), node("b", cpu="2"), node("c", cpu="2"))
    pods = [pod(f"p{i}", "z") for i in range(5)]
    memo = SimMemo()
    first = sim(*nodes, memo=memo)
    start = first.snapshot
    got = [first.schedule_anywhere(p) for p in pods]
    again = ClusterSim(start, first.framework, memo)      # the same snapshot, pods and configuration
    seen = _filtered_names(again)
    assert [again.schedule_anywhere(p) for p in pods] == got == ["b", "c", "a", "b", "c"]
    assert not seen                                       # each search replayed
    assert again.snapshot is first.snapshot
    fresh = sim(*nodes)
    assert [fresh.schedule_anywhere(p) for p in pods] == got     # as without the memo


def test_a_new_nodes_spread_domains_are_those_of_the_longer_node_list():
    zone = "topology.kubernetes.io/zone"

    def zoned(name: str, z: str, **extra: str) -> Node:
        return Node.from_obj({"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, zone: z, **extra}},
                              "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
    spread = pod("web", "web")
    spread.obj["spec"]["topologySpreadConstraints"] = [
        {"maxSkew": 1, "topologyKey": zone, "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": {"matchLabels": {"app": "web"}}, "nodeAffinityPolicy": "Honor"}]
    spread.obj["spec"]["nodeSelector"] = {"pool": "p"}
    spread = PodInfo(spread.obj)
    s = sim(zoned("a", "z1", pool="p"), zoned("b", "z2", pool="p"), zoned("x", "z4"))
    s.schedule(pod("w1", "web"), "a")
    s.check(spread, "a")                                                  # the domains worked out, cached
    new = NodeInfo(zoned("t", "z3", pool="p"))
    s.add_node(new)
    plain = sim(zoned("a", "z1", pool="p"), zoned("b", "z2", pool="p"), zoned("x", "z4"))
    plain.schedule(pod("w1", "web"), "a")
    plain.add_node(NodeInfo(zoned("t", "z3", pool="p")))        # its domains worked out over the longer list
    for name in ("a", "b", "x", "t"):
        assert s.check(spread, name) == plain.check(spread, name)
    assert s.check(spread, "b") is None and s.check(spread, "t") is None and s.check(spread, "a") is not None


class _Read(list):
    """A snapshot's node list that counts the nodes a search reads."""

    read = 0

    def __getitem__(self, i):
        type(self).read += 1
        return super().__getitem__(i)


def test_a_search_reads_only_the_nodes_its_chunks_filter():
    s = sim(*(node(f"n{i}") for i in range(200)))
    s.snapshot.node_infos = _Read(s.snapshot.node_infos)
    _Read.read = 0
    assert s.schedule_anywhere(pod("p", "z")) == "n1"
    assert _Read.read < 40          # the first chunk's eight nodes (and the match), not the 200
