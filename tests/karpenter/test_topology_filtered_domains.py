"""`Counted.filtered_domains`: the domains a spread constraint's node filter admits among the state
nodes, worked out once for the same Nodes and NodeClaims and an equal filter (a suggestion's pass run
again over the cluster), each topology registering exactly what it would have found itself."""
from __future__ import annotations

import pytest

from kexplain.karpenter.provisioning.scheduling import topology as topo
from kexplain.karpenter.provisioning.scheduling.topology import new_topology

from tests.karpenter.test_topology import ZONE, Cluster, instance_type, node, node_pool, pod, spread


class StateNode:
    """A state node as the cluster state holds it: its Node and NodeClaim (none here)."""

    def __init__(self, n: dict) -> None:
        self.node, self.node_claim = n, None

    def labels(self) -> dict:
        return self.node["metadata"]["labels"]


TAINT = [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]
NODES = [node("n1", "test-zone-1"), node("n2", "test-zone-2", taints=TAINT), node("n3", "test-zone-3")]


def honoring(name: str, tolerations: list | None = None):
    return pod(name, topologySpreadConstraints=[spread(nodeTaintsPolicy="Honor")],
               **({"tolerations": tolerations} if tolerations else {}))


def domains(cluster: Cluster, nodes: list, pods: list) -> list[dict]:
    topology, err = new_topology(cluster, [StateNode(n) for n in nodes], [node_pool(zones=["test-zone-1"])],
                                 {"default": [instance_type(zones=("test-zone-1",))]}, pods)
    assert err is None
    return [dict(tg.domains) for tg in topology.topology_groups.values()]


@pytest.fixture
def computed(monkeypatch):
    calls = []
    work = topo.Counted._domains_of

    def count(self, tg, state_nodes):
        calls.append(tg.key)
        return work(self, tg, state_nodes)
    monkeypatch.setattr(topo.Counted, "_domains_of", count)
    return calls


def test_the_same_nodes_and_filter_are_read_once(computed):
    cluster = Cluster([pod("bound", node="n1")], NODES)
    first = domains(cluster, NODES, [honoring("p1")])
    again = domains(cluster, NODES, [honoring("p2")])
    assert len(computed) == 1
    assert first == again == [{"test-zone-1": 1, "test-zone-3": 0}]    # (n2's taint is not tolerated)


def test_what_is_kept_is_what_each_topology_finds_itself(computed):
    cluster = Cluster([pod("bound", node="n1")], NODES)
    tolerating = honoring("p2", [{"key": "dedicated", "operator": "Exists"}])
    kept = [domains(cluster, NODES, [honoring("p1")]), domains(cluster, NODES, [tolerating])]
    fresh = [domains(Cluster([pod("bound", node="n1")], NODES), NODES, [p]) for p in (honoring("p1"), tolerating)]
    assert kept == fresh
    assert kept[1] == [{"test-zone-1": 1, "test-zone-2": 0, "test-zone-3": 0}]   # (another filter: its own)


def test_other_nodes_are_read_again(computed):
    cluster = Cluster([pod("bound", node="n1")], NODES)
    domains(cluster, NODES, [honoring("p1")])
    replaced = [*NODES[:2], node("n3", "test-zone-1")]
    assert domains(cluster, replaced, [honoring("p2")]) == [{"test-zone-1": 1}]
    assert len(computed) == 2
