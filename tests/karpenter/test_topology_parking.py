"""A node a topology group refused a pod's shape on is parked in that shape's scan of the existing
nodes (`scheduler._ShapeScan.park_refused`) until the node or the group changes: the next pod of the
shape does not ask it again, and once a pod the group counts lands, the parked nodes are tried again
in their place. Every pod's verdict is the one of a scan that asks each node every time."""
from __future__ import annotations

from typing import Any

from kexplain.karpenter.provisioning.scheduling import existingnode, scheduler
from tests.suggest.test_karpenter import GENERAL, NODE_CLASS, WORLD, pod, write
from tests.suggest.test_karpenter_rerun import node

ZONE = "topology.kubernetes.io/zone"
NEAR_DB = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"topologyKey": ZONE, "labelSelector": {"matchLabels": {"app": "db"}}}]}}
NODES = 8


def _inputs(tmp_path):
    from kexplain.features import KubeVersion
    from kexplain.karpenter.inputs import load_pass

    nodes = [node(f"node-a{i}", "us-west-2a") for i in range(1, 7)] + [node("node-b1", "us-west-2b"),
                                                                        node("node-b2", "us-west-2b")]
    followers = [pod(f"follower-{i}", "2", "512Mi", affinity=NEAR_DB) for i in range(3)]
    db = pod("db-0", "500m", "256Mi", node_selector={ZONE: "us-west-2b"})     # tried last: the smallest
    db["metadata"]["labels"] = {"app": "db"}
    cluster = write(tmp_path, "cluster.yaml", [*nodes, GENERAL, NODE_CLASS])
    return load_pass(write(tmp_path, "pending.yaml", [*followers, db]), (cluster,), None, KubeVersion("1.35"),
                     max_bytes=1 << 22, max_objects=10_000)


def asked_names(monkeypatch) -> list[str]:
    """The names of the pods `ExistingNode.can_add` is asked about, in order (the tests of the scan's reuse)."""
    asked: list[str] = []
    real = existingnode.ExistingNode.can_add

    def counting(self: Any, p: Any, *args: Any, **kwargs: Any) -> Any:
        asked.append(p.name)
        return real(self, p, *args, **kwargs)

    monkeypatch.setattr(existingnode.ExistingNode, "can_add", counting)
    return asked


def _run(tmp_path):
    from kexplain.suggest.karpenter_pass import run

    done = run(_inputs(tmp_path), WORLD)
    return {k: (p.result, p.node) for k, p in done.placements.items()}


def test_a_refused_shape_is_not_asked_again_until_the_group_changes(tmp_path, monkeypatch):
    asked = asked_names(monkeypatch)
    placed = _run(tmp_path)
    before_db = asked[:asked.index("db-0")]
    assert before_db == ["follower-0"] * NODES          # the first follower asks each node, the others none
    # the db pod lands in zone b: the group changed, its nodes are tried again and take followers
    assert any(where == ("ExistingNode", "node-b1") for key, where in placed.items() if "follower" in key)

    asked.clear()
    monkeypatch.setattr(scheduler._ShapeScan, "park_refused", lambda self, i, version, err: False)
    every = _run(tmp_path)          # each node asked every time
    assert asked[:asked.index("db-0")] == [f"follower-{i}" for i in range(3) for _ in range(NODES)]
    assert every == placed
