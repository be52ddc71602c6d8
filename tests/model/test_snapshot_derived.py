"""A snapshot made from another's NodeInfos (`Snapshot.with_node_infos`: a suggestion's changed
cluster, CA's filtered or reordered one) takes the other's pods-by-namespace index where nothing
changed and indexes again only the namespaces a changed node has pods of. Whatever it shares,
each namespace must hold exactly the pods (with the Node each is on now) that a snapshot of the
same NodeInfos built from nothing holds."""
from __future__ import annotations

from dataclasses import replace

from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.snapshot import Snapshot

from tests.model.test_snapshot_build import cluster_pods, node


def built() -> Snapshot:
    snap = Snapshot.build([(node(n), None) for n in ("n1", "n2", "n3")], cluster_pods())
    assert snap._by_namespace is not None
    return snap


def members(snapshot: Snapshot) -> dict[str, list[tuple[int, int]]]:
    """Each namespace's (pod, node) pairs by identity, in a fixed order."""
    return {ns: sorted((id(p), id(n)) for p, n in entries)
            for ns, entries in snapshot.pods_by_namespace.items() if len(entries)}


def from_nothing(infos: list[NodeInfo]) -> Snapshot:
    return Snapshot(infos)


def test_nothing_changed_shares_the_whole_index():
    snap = built()
    reordered = snap.with_node_infos(list(reversed(snap.node_infos)))
    assert reordered._by_namespace is snap._by_namespace


def test_a_relabelled_node_a_removed_pod_a_new_and_a_dropped_node_index_as_a_build_does():
    snap = built()
    n1, n2, n3 = (snap.get(n) for n in ("n1", "n2", "n3"))
    relabelled = replace(n1.clone(), node=Node.from_obj({**n1.node.obj, "metadata": {
        "name": "n1", "labels": {"topology.kubernetes.io/zone": "b"}}}))
    lighter = n2.clone()
    gone = next(p for p in n2.pods if p.name == "two-1")
    lighter.remove_pod(gone)
    fresh = NodeInfo(Node.from_obj(node("n4")))
    infos = [relabelled, lighter, fresh]            # n3 dropped (it had no pods)
    derived = snap.with_node_infos(infos)
    assert members(derived) == members(from_nothing(infos))
    on_n1 = [n for p, n in derived.pods_by_namespace["team"] if p.node_name == "n1"]
    assert on_n1 and all(n is relabelled.node for n in on_n1)
    assert all(p is not gone for p, _ in derived.pods_by_namespace["team"])
    # the parent's index is left as it was
    assert any(p is gone for p, _ in snap.pods_by_namespace["team"])


def test_a_namespace_without_pods_on_changed_nodes_is_shared():
    snap = built()
    n1 = snap.get("n1")
    only_n2 = snap.get("n2").clone()
    only_n2.remove_pod(next(p for p in only_n2.pods if p.name == "web-2"))
    derived = snap.with_node_infos([n1, only_n2, snap.get("n3")])
    assert derived.pods_by_namespace["other"] is snap.pods_by_namespace["other"]     # web-3 is on n1
    assert members(derived) == members(from_nothing([n1, only_n2, snap.get("n3")]))


def test_a_dropped_node_takes_its_pods_out_of_the_index():
    snap = built()
    derived = snap.with_node_infos([snap.get("n2"), snap.get("n3")])
    assert members(derived) == members(from_nothing([snap.get("n2"), snap.get("n3")]))
    assert "other" not in members(derived)


def documented_order(parent: Snapshot, infos: list[NodeInfo]) -> dict[str, list[tuple[int, int]]]:
    """Each namespace's (pod, node) pairs in the order `with_node_infos` documents: the
    parent's order for pods still on their node (with the node each is on now), then the pods
    the parent's index lacked, node by node in `infos` order."""
    now = {ni.name: ni for ni in infos}
    on = {id(p): ni for ni in infos for p in ni.pods}
    out: dict[str, list[tuple[int, int]]] = {}
    seen: set[int] = set()
    for namespace, entries in parent.pods_by_namespace.items():
        for p, n in entries:
            ni = now.get(n.name)
            if ni is not None and on.get(id(p)) is ni:
                out.setdefault(namespace, []).append((id(p), id(ni.node)))
                seen.add(id(p))
    changed = [ni for ni in infos if parent.get(ni.name) is not ni]
    for ni in changed:
        for p in ni.pods:
            if id(p) not in seen:
                out.setdefault(p.namespace, []).append((id(p), id(ni.node)))
    return out


def test_random_changes_keep_the_documented_order():
    """Many nodes, namespaces spread over them, random pods removed, nodes relabelled, added
    and dropped, and a change made from a changed snapshot: each namespace's pods in the
    documented order, and the same pods as a build from nothing."""
    import random

    from tests.model.test_snapshot_build import container, pod

    for seed in range(40):
        rng = random.Random(seed)
        names = [f"n{k}" for k in range(12)]
        pods = [pod(f"p{k}", rng.choice(names), [container()], namespace=f"ns{rng.randrange(4)}")
                for k in range(150)]
        parent = Snapshot.build([(node(n), None) for n in names], pods)
        for _ in range(2):          # a change, then a change of the changed snapshot
            infos = []
            for ni in parent.node_infos:
                roll = rng.random()
                if roll < 0.1:
                    continue                        # dropped
                if roll < 0.4:
                    ni = ni.clone()
                    for p in [p for p in ni.pods if rng.random() < 0.3]:
                        ni.remove_pod(p)
                    if rng.random() < 0.5:
                        ni = replace(ni, node=Node.from_obj({**ni.node.obj, "metadata": {
                            "name": ni.name, "labels": {"zone": str(rng.random())}}}))
                infos.append(ni)
            if rng.random() < 0.5:
                infos.append(NodeInfo(Node.from_obj(node(f"new{seed}-{len(infos)}"))))
            rng.shuffle(infos)
            derived = parent.with_node_infos(infos)
            got = {ns: [(id(p), id(n)) for p, n in entries]
                   for ns, entries in derived.pods_by_namespace.items() if len(entries)}
            assert got == documented_order(parent, infos), seed
            assert members(derived) == members(from_nothing(infos)), seed
            parent = derived


def test_a_new_node_without_pods_shares_the_index_and_finds_no_slots():
    """A suggestion's added node (no pods) changes no namespace: the whole index is shared and the
    parent's slots (where each node's pods sit, 150,000 of them) are not worked out for it."""
    snap = built()
    infos = [*snap.node_infos, NodeInfo(Node.from_obj(node("n4")))]
    derived = snap.with_node_infos(infos)
    assert derived._by_namespace is snap._by_namespace
    assert "snapshot.slots" not in snap._cache
    assert members(derived) == members(from_nothing(infos))
