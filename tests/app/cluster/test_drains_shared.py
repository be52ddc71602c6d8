"""The report's drains of nodes cordoned already share one cordoned cluster: a scale fix's new pods
are placed once per workload and count (not once per drain and round), and each drain's document
is still `kexplain evict drain NODE`'s, to the key."""
from __future__ import annotations

from pathlib import Path

from kexplain.app.cluster.report import report
from kexplain.app.eviction import drain_fixes
from kexplain.app.eviction.drain import document
from tests.app.cluster.helpers import SHOP, request

NODE_C = """- apiVersion: v1
  kind: Node
  metadata:
    name: node-c
    labels: {kubernetes.io/hostname: node-c, kubernetes.io/os: linux}
  spec:
    unschedulable: true
  status:
    allocatable: {cpu: "4", memory: 16Gi, pods: "110"}
    capacity: {cpu: "4", memory: 16Gi, pods: "110"}
    conditions:
    - {type: Ready, status: "True"}
"""
POD = """- apiVersion: v1
  kind: Pod
  metadata:
    name: web-6b7c9-NAME
    namespace: shop
    uid: 00000000-0000-4000-8000-0000000000UID
    labels: {app: web, pod-template-hash: 6b7c9}
    ownerReferences:
    - {apiVersion: apps/v1, kind: ReplicaSet, name: web-6b7c9, uid: 00000000-0000-4000-8000-000000000002, controller: true}
  spec:
    nodeName: node-c
    containers:
    - {name: web, image: nginx, resources: {requests: {cpu: "1", memory: 1Gi}}}
  status:
    phase: Running
    conditions:
    - {type: Ready, status: "True"}
"""


def two_cordoned(tmp_path: Path) -> Path:
    """The shop with node-c cordoned too, two more of web's pods on it, web's budget needing all four."""
    text = SHOP.read_text().replace("    minAvailable: 2\n", "    minAvailable: 4\n")
    text += NODE_C + POD.replace("NAME", "ccccc").replace("UID", "13") + POD.replace("NAME", "ddddd").replace("UID", "14")
    path = tmp_path / "shop.yaml"
    path.write_text(text)
    return path


def test_scale_fixes_are_placed_once_for_every_cordoned_drain(tmp_path, monkeypatch):
    placed = []
    place = drain_fixes.placements
    monkeypatch.setattr(drain_fixes, "placements", lambda *a, **k: placed.append(1) or place(*a, **k))
    cluster = two_cordoned(tmp_path)
    req = request(cluster, sections=("drains",))
    drains = report(req)["sections"][0]
    assert [r["node"] for r in drains["rows"]] == ["node-b", "node-c"]
    assert len(placed) == 1         # web's two new pods: the same for both drains, every round
    for row in drains["rows"]:
        assert any(f["fix"].startswith("scale Deployment shop/web to 4") for f in row["drain"]["fixes"])
        assert row["drain"] == document(req.evict_request(row["node"]))      # `kexplain evict drain NODE`'s
