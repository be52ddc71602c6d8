"""Each consolidation simulation schedules over copies of the state nodes (upstream: SimulateScheduling
takes Cluster.DeepCopyNodes, and NewExistingNode says the node "must be a deep copy ... as we modify
it"): the host ports and the volumes one simulation places on a node must not be there in the next
simulation of the pass. Here the multi-node simulation of A and B places b (port 8080, a claim) on X
and fails (a has nowhere to go); single-node consolidation must then still find X free for a and
delete A (with the leak, A was refused and B deleted)."""
from __future__ import annotations

from tests.karpenter.test_disruption import document, node, pod

A, B, X = 1, 2, 3


def _with_port(p: dict) -> dict:
    p["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 8080, "protocol": "TCP"}]
    return p


def _with_claim(p: dict, claim: str) -> dict:
    p["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]
    return p


def _pods(mark) -> list[dict]:
    """a on A; b (the larger, scheduled first) and b2 on B; three small pods on X (the costliest
    to disrupt: the candidates go A, B, X)."""
    return [mark(pod("a", A, cpu="300m"), "a"), mark(pod("b", B, cpu="600m"), "b"), pod("b2", B, cpu="100m"),
            *(pod(f"x{i}", X, cpu="100m") for i in range(3))]


def _decision(tmp_path, objects: list[dict]) -> tuple[str, list[str]]:
    doc = document(tmp_path, objects, types="m5.large")
    decision = doc["decision"]
    return decision["method"], [c["node"] for cmd in decision["commands"] for c in cmd["candidates"]]


def test_a_host_port_one_simulation_places_is_free_in_the_next(tmp_path):
    objects = [*node(A), *node(B), *node(X), *_pods(lambda p, _: _with_port(p))]
    assert _decision(tmp_path, objects) == ("SingleNodeConsolidation", ["ip-10-0-1-1.ec2.internal"])


def _volumes() -> list[dict]:
    """A claim each for a and b on EBS volumes, and one attachable EBS volume per node."""
    out: list[dict] = []
    for claim in ("a", "b"):
        out.append({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": f"pv-{claim}"},
                    "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                             "claimRef": {"namespace": "default", "name": claim},
                             "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": f"vol-{claim}"}},
                    "status": {"phase": "Bound"}})
        out.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                    "metadata": {"name": claim, "namespace": "default"},
                    "spec": {"accessModes": ["ReadWriteOnce"], "volumeName": f"pv-{claim}",
                             "resources": {"requests": {"storage": "1Gi"}}},
                    "status": {"phase": "Bound"}})
    for i in (A, B, X):
        out.append({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                    "metadata": {"name": f"ip-10-0-{i}-1.ec2.internal"},
                    "spec": {"drivers": [{"name": "ebs.csi.aws.com", "nodeID": f"i-{i}",
                                          "allocatable": {"count": 1}}]}})
    return out


def test_a_volume_one_simulation_places_does_not_count_in_the_next(tmp_path):
    objects = [*node(A), *node(B), *node(X), *_pods(_with_claim), *_volumes()]
    assert _decision(tmp_path, objects) == ("SingleNodeConsolidation", ["ip-10-0-1-1.ec2.internal"])


def test_the_state_node_keeps_its_usage_and_the_scheduler_node_sees_its_own():
    """ExistingNode.Add writes to the node's own copies (made at the first write): the state node
    (kept across the pass's simulations) keeps what the cluster holds."""
    from types import SimpleNamespace

    from kexplain.karpenter.provisioning.scheduling.existingnode import ExistingNode, NodeBases
    from kexplain.karpenter.scheduling.hostportusage import get_host_ports
    from kexplain.karpenter.utils import resources
    from kexplain.model.pod import PodInfo
    from tests.karpenter.test_existing_node_bases import _state, _Topology

    state, bases = _state(), NodeBases()
    state.volume_usage.add_limit("ebs.csi.aws.com", 1)
    placed = PodInfo(_with_port(pod("b", X)))
    first = ExistingNode(state, _Topology(), [], {}, bases.of(state))
    first.add(placed, SimpleNamespace(requests=resources.parse_list({"cpu": "100m"})), first.requirements,
              {"ebs.csi.aws.com": {"default/b"}})
    other = PodInfo(_with_port(pod("a", X)))
    assert first.host_port_usage.conflicts(other, get_host_ports(other)) is not None
    assert first.volume_usage.exceeds_limits({"ebs.csi.aws.com": {"default/a"}}) is not None
    assert state.host_port_usage.reserved == {} and state.volume_usage.volumes == {}
    second = ExistingNode(state, _Topology(), [], {}, bases.of(state))
    assert second.host_port_usage.conflicts(other, get_host_ports(other)) is None
    assert second.volume_usage.exceeds_limits({"ebs.csi.aws.com": {"default/a"}}) is None


def _room_pods() -> list[dict]:
    """a (700m) fits on X alone (B keeps 630m free, X 730m); the multi-node simulation of A and B
    places b1 (700m) on X and fails (a then needs a new node, of the same type, filtered out)."""
    return [pod("a", A, cpu="700m"), pod("b0", B, cpu="600m"), pod("b1", B, cpu="700m"),
            *(pod(f"x{i}", X, cpu="400m") for i in range(3))]


def test_the_room_one_simulation_takes_on_a_node_is_free_in_the_next(tmp_path):
    """Every simulation's node starts from one start per pass (`NodeBases.starts`): the room b1 took
    on X in the multi-node simulation must be X's again in single-node consolidation's, which moves a
    there and deletes A (with the room shared, a had nowhere to go and no command was made)."""
    objects = [*node(A), *node(B), *node(X), *_room_pods()]
    assert _decision(tmp_path, objects) == ("SingleNodeConsolidation", ["ip-10-0-1-1.ec2.internal"])


def test_a_pass_over_nodes_from_the_starts_is_the_pass_over_nodes_made_afresh(tmp_path, monkeypatch):
    """The whole document of a pass whose simulations place pods on the nodes later ones read (room,
    host ports, volumes) is the same with each simulation's nodes made afresh (no start kept)."""
    from kexplain.karpenter.provisioning.scheduling.existingnode import NodeBases

    cases = [[*node(A), *node(B), *node(X), *_room_pods()],
             [*node(A), *node(B), *node(X), *_pods(lambda p, _: _with_port(p))],
             [*node(A), *node(B), *node(X), *_volumes(), *_pods(_with_claim)]]
    shared = [document(tmp_path, objects, types="m5.large") for objects in cases]
    monkeypatch.setattr(NodeBases, "starts", lambda self, key: {})
    fresh = [document(tmp_path, objects, types="m5.large") for objects in cases]
    assert shared == fresh
    assert [d["decision"]["method"] for d in shared] == ["SingleNodeConsolidation"] * 3
