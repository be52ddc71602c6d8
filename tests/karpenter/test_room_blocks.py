"""The existing nodes' room by blocks (`scheduling.roomblocks.RoomBlocks`): a scan passes over a block only
when each of its nodes would refuse the pod for room, so every pod lands where the node-by-node scan puts
it, on clusters whose workloads each request their own amounts (each pod shape scanning from the first node)."""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from kexplain.karpenter.provisioning.scheduling import roomblocks
from kexplain.karpenter.provisioning.scheduling.roomblocks import SHIFT, RoomBlocks
from kexplain.karpenter.utils import resources
from tests.support.paths import ROOT

NAMES = ("cpu", "memory", "pods", "example.com/gpu")


def _nodes(rng: random.Random, count: int) -> list[Any]:
    """Nodes whose rooms list some resources (others count 0), some overcommitted (a negative room)."""
    return [SimpleNamespace(remaining_resources={name: rng.randint(-2, 8) for name in rng.sample(NAMES, rng.randint(0, 4))})
            for _ in range(count)]


def test_a_block_is_roomless_exactly_when_no_node_of_it_has_the_room() -> None:
    rng = random.Random(11)
    for _ in range(400):
        nodes = _nodes(rng, rng.randint(1, 100))
        blocks = RoomBlocks(nodes)
        for _ in range(5):
            need = {name: rng.randint(0, 9) for name in rng.sample(NAMES, rng.randint(0, 3))}
            for block in range(len(blocks.tops)):
                members = nodes[block << SHIFT:(block + 1) << SHIFT]
                fitting = [n for n in members if resources.fits_nanos(need, n.remaining_resources)]
                if blocks.roomless(block, need):
                    assert not fitting, (need, [n.remaining_resources for n in members])
                elif all(v <= max((n.remaining_resources.get(k, 0) for n in members)) for k, v in need.items()):
                    pass        # (a block with the room per resource: its nodes are each asked)
                else:
                    pytest.fail(f"block {block} not passed over for {need}")


def test_a_block_follows_its_nodes_as_they_take_pods() -> None:
    rng = random.Random(5)
    nodes = _nodes(rng, 90)
    blocks = RoomBlocks(nodes)
    for _ in range(200):
        i = rng.randrange(len(nodes))
        room = nodes[i].remaining_resources = dict(nodes[i].remaining_resources)
        for name in rng.sample(NAMES, rng.randint(1, 2)):
            room[name] = room.get(name, 0) - rng.randint(0, 3)
        blocks.changed(i)
        assert blocks.tops == RoomBlocks(nodes).tops


def _pass(case: Path, aws: Path) -> str:
    from kexplain.cli.app import main
    from tests.support.cli_helpers import TestEnvironment

    env = TestEnvironment()
    code = main(["karpenter", "--disruption", "--nodes", str(case), "--aws-data", str(aws),
                 "--now", "2026-01-01T12:00:00Z", "-o", "json"], env)
    assert code in (0, 1), env.err
    return env.out


def test_a_pass_places_each_pod_where_the_node_by_node_scan_does(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Every workload its own requests over a cluster of nodes filled unevenly: the same document with the
    blocks as without them (each block asked node by node), and fewer nodes asked for room."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import disruption_bench as bench

    base = bench.SHAPES["standard"]
    shape = bench.Shape(base.types, 400, 5000, 10, 4, base.app_pods, base.cpu_millis)
    rng = random.Random(3)
    items = bench.cluster(shape, 3)
    own: dict[str, dict[str, str]] = {}
    for obj in items:
        app = obj["metadata"].get("labels", {}).get("app") if obj["kind"] == "Pod" else None
        if app is not None:
            requests = own.setdefault(app, {"cpu": f"{rng.randint(20, 900)}m", "memory": f"{rng.randint(64, 3000)}Mi"})
            obj["spec"]["containers"][0]["resources"]["requests"] = dict(requests)
    case = tmp_path / "cluster.json"
    case.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    aws = ROOT / "tests" / "karpenter" / "cases" / "sched-aws"

    asked = [0]
    fits = resources.fits_nanos

    def counted(need: Any, room: Any) -> bool:
        asked[0] += 1
        return fits(need, room)
    monkeypatch.setattr(resources, "fits_nanos", counted)
    with_blocks, by_blocks = _pass(case, aws), asked[0]
    monkeypatch.setattr(roomblocks.RoomBlocks, "roomless", lambda self, block, need: False)
    asked[0] = 0
    node_by_node = _pass(case, aws)
    assert with_blocks == node_by_node
    doc = json.loads(with_blocks)
    assert any(m["commands"] for m in doc["methods"]) or doc["summary"]["candidates"] > 0
    assert by_blocks * 3 < asked[0] * 2, (by_blocks, asked[0])     # (the room asked elsewhere too: CanAdd, NodeClaims)
