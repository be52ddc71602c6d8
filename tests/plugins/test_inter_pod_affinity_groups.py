"""InterPodAffinity's counts of the existing pods' terms (`Scores`, `ExistingAnti`) made from the pods grouped
by their term tuples (`helper/term_groups.py`): the same counts as a scan of every existing pod, on the
snapshot as built and after binds, and the pods are walked once per snapshot, not once per incoming pod."""
from __future__ import annotations

import random
from typing import Any

from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot
from kexplain.plugins.helper.term_groups import AffinityGroups, AntiAffinityGroups, affinity_groups, \
    anti_affinity_groups
from kexplain.plugins.inter_pod_affinity import ExistingAnti, Scores, existing_anti_keys, existing_score_adds

HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
RACK = "rack"
NAMESPACES = {"default": {"kubernetes.io/metadata.name": "default"},
              "team-x": {"kubernetes.io/metadata.name": "team-x", "team": "x"}}


def node(name: str, **labels: str) -> NodeInfo:
    return NodeInfo(Node.from_obj({"metadata": {"name": name, "labels": labels}}))


# zoned, host-only, racked, and one without any label
NODES = [node("a1", **{HOST: "a1", ZONE: "a"}), node("a2", **{HOST: "a2", ZONE: "a", RACK: "r1"}),
         node("b1", **{HOST: "b1", ZONE: "b", RACK: "r1"}), node("h1", **{HOST: "h1"}), node("bare")]


def term(app: str, key: str, ns_selector: dict | None = None) -> dict[str, Any]:
    t: dict[str, Any] = {"topologyKey": key, "labelSelector": {"matchLabels": {"app": app}}}
    if ns_selector is not None:
        t["namespaceSelector"] = ns_selector
    return t


# A few term sets (the pods sharing one share its tuples), several with the same topology key twice.
APPS = ["web", "db", "cache"]


def random_affinity(rnd: random.Random) -> dict[str, Any] | None:
    if rnd.random() < 0.2:
        return None

    def terms(n: int) -> list[dict]:
        return [term(rnd.choice(APPS), rnd.choice([HOST, ZONE, RACK]),
                     rnd.choice([None, None, {}, {"matchLabels": {"team": "x"}}])) for _ in range(n)]

    def weighted(n: int) -> list[dict]:
        return [{"weight": rnd.choice([1, 5, 50]), "podAffinityTerm": t} for t in terms(n)]
    out: dict[str, Any] = {}
    if rnd.random() < 0.6:
        out["podAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": terms(rnd.randint(0, 2)),
                              "preferredDuringSchedulingIgnoredDuringExecution": weighted(rnd.randint(0, 2))}
    if rnd.random() < 0.7:
        out["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": terms(rnd.randint(0, 2)),
                                  "preferredDuringSchedulingIgnoredDuringExecution": weighted(rnd.randint(0, 1))}
    return out


def pod(name: str, rnd: random.Random, node_name: str = "", kinds: list | None = None) -> PodInfo:
    spec: dict[str, Any] = {"containers": [{"name": "c"}]}
    if node_name:
        spec["nodeName"] = node_name
    aff = rnd.choice(kinds) if kinds else random_affinity(rnd)
    if aff:
        spec["affinity"] = aff
    return PodInfo({"metadata": {"name": name, "namespace": rnd.choice(list(NAMESPACES)),
                                 "labels": {"app": rnd.choice(APPS)}}, "spec": spec})


def cluster(rnd: random.Random, n: int) -> tuple[Snapshot, list]:
    kinds = [random_affinity(rnd) for _ in range(6)]        # a few workloads' terms, many pods each
    infos = [NodeInfo(ni.node) for ni in NODES]
    for i in range(n):
        ni = rnd.choice(infos)
        ni.add_pod(pod(f"e{i}", rnd, ni.name, kinds))
    return Snapshot(infos, dict(NAMESPACES)), kinds


# -- what a scan of every existing pod counts ----------------------------------------------------

def scanned_scores(snap: Snapshot, incoming: PodInfo, hard_weight: int) -> dict[str, dict[str, int]]:
    ns_labels = snap.namespace_labels(incoming.namespace)
    score: dict[str, dict[str, int]] = {}
    for ni in snap.node_infos:
        labels = ni.node.labels
        for existing in ni.pods_with_affinity:
            for key, amount in existing_score_adds(existing, incoming, ns_labels, hard_weight):
                if key in labels:
                    by_value = score.setdefault(key, {})
                    by_value[labels[key]] = by_value.get(labels[key], 0) + amount
    return score


def scanned_anti(snap: Snapshot, incoming: PodInfo) -> dict[tuple[str, str], int]:
    ns_labels = snap.namespace_labels(incoming.namespace)
    counts: dict[tuple[str, str], int] = {}
    for ni in snap.node_infos:
        for existing in ni.pods_with_required_anti_affinity:
            for key in existing_anti_keys(existing, incoming, ns_labels):
                if key in ni.node.labels:
                    pair = (key, ni.node.labels[key])
                    counts[pair] = counts.get(pair, 0) + 1
    return counts


def check(snap: Snapshot, incoming: list[PodInfo]) -> None:
    for p in incoming:
        for hard_weight in (0, 1, 7):
            assert Scores.build(p, (), hard_weight, snap).score == scanned_scores(snap, p, hard_weight)
        assert dict(ExistingAnti.build(p, snap).counts) == scanned_anti(snap, p)


def groups_of(tally) -> dict:
    return {key: (g.keys, g.counts) for key, g in tally.groups.items()}


def test_grouped_counts_equal_a_scan_of_every_pod():
    rnd = random.Random(94)
    for trial in range(20):
        snap, _ = cluster(rnd, 60)
        check(snap, [pod(f"p{i}", rnd) for i in range(6)])


def test_grouped_counts_followed_through_binds_equal_a_scan():
    rnd = random.Random(7)
    for trial in range(10):
        snap, kinds = cluster(rnd, 40)
        incoming = [pod(f"p{i}", rnd) for i in range(4)]
        check(snap, incoming)                   # the groups made on this snapshot, then patched by each bind
        for i in range(12):
            target = rnd.choice(NODES).name
            snap = snap.with_pod_bound(pod(f"n{i}", rnd, target, kinds if rnd.random() < 0.7 else None))
            check(snap, incoming)
        fresh = Snapshot(list(snap.node_infos), dict(NAMESPACES))
        assert groups_of(affinity_groups(snap)) == groups_of(AffinityGroups.build(
            fresh.have_pods_with_affinity, lambda ni: ni.pods_with_affinity))
        assert groups_of(anti_affinity_groups(snap)) == groups_of(AntiAffinityGroups.build(
            fresh.have_pods_with_required_anti_affinity, lambda ni: ni.pods_with_required_anti_affinity))


def test_existing_pods_are_walked_once_per_snapshot(monkeypatch):
    rnd = random.Random(3)
    snap, _ = cluster(rnd, 50)
    walked = {"affinity": 0, "anti": 0}
    with_affinity = Snapshot.have_pods_with_affinity.fget
    with_anti = Snapshot.have_pods_with_required_anti_affinity.fget

    def counted(kind: str, read):
        def get(self):
            walked[kind] += 1
            return read(self)
        return property(get)
    monkeypatch.setattr(Snapshot, "have_pods_with_affinity", counted("affinity", with_affinity))
    monkeypatch.setattr(Snapshot, "have_pods_with_required_anti_affinity", counted("anti", with_anti))
    for i in range(5):
        p = pod(f"p{i}", rnd)
        Scores.build(p, (), 1, snap)
        ExistingAnti.build(p, snap)
    assert walked == {"affinity": 1, "anti": 1}
