"""build_cluster: the same stored nodes and pods built twice (the scheduler's cluster, then CA's)
give the first snapshot's nodes and indexes, with the other objects given and without what its
plugins cached; other nodes or pods, never."""
from __future__ import annotations

import copy

from kexplain.errors import Source
from kexplain.state.build import build_cluster


def objects() -> list[tuple[dict, Source]]:
    src = Source("cluster.yaml")
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"zone": "a"}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "i"}]}}
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default", "labels": {"team": "x"}}}
    return [(node, src), (pod, src), (ns, src)]


def test_the_same_objects_give_the_same_nodes_without_the_plugins_caches():
    cluster = objects()
    first, _ = build_cluster(cluster)
    first.cached("some/plugin", dict)["k"] = 1
    again = [(o, s) if o["kind"] != "Namespace" else (copy.deepcopy(o), s) for o, s in cluster]
    again[2][0]["metadata"]["labels"] = {"team": "y"}
    second, _ = build_cluster(again)
    assert second.node_infos is first.node_infos
    assert second.cached("some/plugin", dict) == {}
    assert second.namespace_labels("default") == {"team": "y"}          # the objects given
    assert first.namespace_labels("default") == {"team": "x"}


def test_other_objects_are_built_anew():
    first, _ = build_cluster(objects())
    other = objects()              # equal, but not the same node and pod objects
    second, _ = build_cluster(other)
    assert second.node_infos is not first.node_infos
    changed = objects()
    build_cluster(changed)
    changed[1] = ({**changed[1][0], "spec": {**changed[1][0]["spec"], "nodeName": "elsewhere"}}, changed[1][1])
    third, _ = build_cluster(changed)
    assert [len(ni.pods) for ni in third.node_infos] == [0]
    fewer, _ = build_cluster(changed[:1])
    assert [len(ni.pods) for ni in fewer.node_infos] == [0]


def test_pending_pods_left_out_still_share_the_build_and_each_build_nominates_its_own():
    """The explanation's cluster holds the cluster's pending pods; CA's loop leaves them out of
    its own (they are what it scales for): the bound pods decide, the nominated pods are each
    build's."""
    cluster = objects()
    src = cluster[0][1]
    pending = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "q", "namespace": "default"},
               "spec": {"containers": [{"name": "c", "image": "i"}]}, "status": {"nominatedNodeName": "n1"}}
    first, nominated = build_cluster([*cluster, (pending, src)])
    assert [p.name for p in nominated["n1"]] == ["q"]
    second, nominated = build_cluster(cluster)
    assert second.node_infos is first.node_infos
    assert nominated == {}
    bound_elsewhere = {**pending, "spec": {**pending["spec"], "nodeName": "n1"}}
    third, _ = build_cluster([*cluster, (bound_elsewhere, src)])
    assert third.node_infos is not first.node_infos and [len(ni.pods) for ni in third.node_infos] == [2]


def test_a_few_pods_replaced_on_their_nodes_are_patched_into_the_build():
    """The victims of a preemption, marked terminating, replace their pods in CA's cluster: the
    first build is patched (the other nodes shared), and holds what a build from nothing does."""
    from kexplain.explain.carryover import preempted
    from kexplain.model.snapshot import Snapshot

    cluster = objects()
    src = cluster[0][1]
    node2 = {**copy.deepcopy(cluster[0][0]), "metadata": {"name": "n2", "labels": {"zone": "b"}}}
    other = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "r", "namespace": "default"},
             "spec": {"nodeName": "n2", "containers": [{"name": "c", "image": "i",
                                                        "resources": {"requests": {"cpu": "1"}}}]}}
    cluster = [cluster[0], (node2, src), cluster[1], (other, src), cluster[2]]
    first, _ = build_cluster(cluster)
    victim = preempted(other)
    marked = [(victim, s) if o is other else (o, s) for o, s in cluster]
    second, _ = build_cluster(marked)
    assert second.node_infos[0] is first.node_infos[0]             # n1: untouched, shared
    [on_n2] = second.get("n2").pods
    assert on_n2.obj is victim and on_n2.deletion_timestamp
    fresh = Snapshot.build([(o, s) for o, s in marked if o["kind"] == "Node"], [o for o, _ in marked if o["kind"] == "Pod"])
    assert [(ni.name, [p.obj for p in ni.pods], ni.requested.milli_cpu) for ni in second.node_infos] == \
        [(ni.name, [p.obj for p in ni.pods], ni.requested.milli_cpu) for ni in fresh.node_infos]
    assert sorted(id(p.obj) for p, _ in second.pods_by_namespace["default"]) == \
        sorted(id(p.obj) for p, _ in fresh.pods_by_namespace["default"])
    assert [p.obj for p in first.get("n2").pods] == [other]          # the first build as it was
