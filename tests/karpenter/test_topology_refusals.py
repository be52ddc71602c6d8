"""One pod's scan of the existing nodes asks the topology once per requirement the nodes have on the
key of the group that refused it (`existingnode.TopologyRefusals`): nodes of the same zone as one
the pod's required zone affinity refused are refused alike, without their requirements built with
the pod's again; the node chosen, and every pod's verdict, are those of a scan that asks each node."""
from __future__ import annotations

from typing import Any

from kexplain.karpenter.provisioning.scheduling import existingnode, scheduler
from kexplain.karpenter.provisioning.scheduling.topology import Topology
from kexplain.suggest.karpenter_pass import run
from tests.suggest.test_karpenter import GENERAL, NODE_CLASS, WORLD, pod, write
from tests.suggest.test_karpenter_rerun import bound, node

ZONE = "topology.kubernetes.io/zone"
NEAR_DB = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"topologyKey": ZONE, "labelSelector": {"matchLabels": {"app": "db"}}}]}}


def _inputs(tmp_path):
    from kexplain.features import KubeVersion
    from kexplain.karpenter.inputs import load_pass

    nodes = [node(f"node-a{i}", "us-west-2a") for i in range(1, 7)] + [node("node-b1", "us-west-2b"),
                                                                        node("node-b2", "us-west-2b")]
    pods = [bound("db-0", "node-b2", "3")]
    pending = [pod(f"follower-{i}", "500m", "512Mi", affinity=NEAR_DB) for i in range(3)]
    cluster = write(tmp_path, "cluster.yaml", [*nodes, *pods, GENERAL, NODE_CLASS])
    return load_pass(write(tmp_path, "pending.yaml", pending), (cluster,), None, KubeVersion("1.35"),
                     max_bytes=1 << 22, max_objects=10_000)


def _counted(monkeypatch) -> list[str]:
    asked: list[str] = []
    real = Topology.add_requirements

    def counting(self: Topology, pod: Any, *args: Any, **kwargs: Any) -> Any:
        asked.append(pod.name)
        return real(self, pod, *args, **kwargs)

    monkeypatch.setattr(Topology, "add_requirements", counting)
    return asked


def test_a_zone_refused_once_per_scan_and_the_same_node_chosen(tmp_path, monkeypatch):
    asked = _counted(monkeypatch)
    done = run(_inputs(tmp_path), WORLD)
    placed = {k: (p.result, p.node) for k, p in done.placements.items()}
    assert set(placed.values()) == {("ExistingNode", "node-b1")}       # the first node of the db's zone
    # zone a asked once (node-a1; its nodes then parked for the shape: `test_topology_parking`), then
    # node-b1 for each pod, which takes it
    assert len(asked) == 1 + len(placed)

    asked.clear()
    monkeypatch.setattr(existingnode.TopologyRefusals, "refusal", lambda self, requirements: None)
    monkeypatch.setattr(scheduler._ShapeScan, "park_refused", lambda self, i, version, err: False)
    every = run(_inputs(tmp_path), WORLD)       # each node asked
    assert {k: (p.result, p.node) for k, p in every.placements.items()} == placed
    assert len(asked) == 7 * len(placed)
