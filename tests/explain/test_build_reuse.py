"""build_cluster: the same stored nodes and pods built twice (the scheduler's cluster, then CA's)
give the first snapshot's nodes and indexes, with the other objects given and without what its
plugins cached; other nodes or pods, never."""
from __future__ import annotations

import copy

from kexplain.errors import Source
from kexplain.explain.inputs import build_cluster


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
