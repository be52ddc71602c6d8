"""The filesystem layout inferred from the stats Summary when --filesystems does not say it
(`eviction.kubelet.layout`: HasDedicatedImageFs / HasDedicatedContainerFs as the Summary's
filesystems tell them, `equalFileSystems` for "the same device"); said with what it was inferred
from; --filesystems overrides (issue 77, item 6)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kexplain.cli.app import main
from kexplain.eviction.kubelet.layout import infer
from tests.support.cli_helpers import TestEnvironment

GI = 1 << 30
T = "2026-01-01T00:00:00Z"


def fs(capacity: int, available: int) -> dict:
    return {"time": T, "availableBytes": available, "capacityBytes": capacity, "usedBytes": capacity - available,
            "inodesFree": 10**6, "inodes": 2 * 10**6, "inodesUsed": 10**6}


def summary(layout: str) -> dict:
    """node.fs 100Gi (8Gi free: nodefs.available<10% met); an image disk of 200Gi (50Gi free)."""
    node_fs, image = fs(100 * GI, 8 * GI), fs(200 * GI, 50 * GI)
    runtime = {"shared": {"imageFs": dict(node_fs), "containerFs": dict(node_fs)},
               "imagefs": {"imageFs": image, "containerFs": dict(image)},
               "split": {"imageFs": image, "containerFs": dict(node_fs)}}[layout]

    def pod(name: str, ns: str, uid: str, rootfs: int, volume: int) -> dict:
        out = {"podRef": {"name": name, "namespace": ns, "uid": uid}, "memory": {"time": T, "workingSetBytes": GI},
               "containers": [{"name": "a", "rootfs": {"time": T, "usedBytes": rootfs},
                               "logs": {"time": T, "usedBytes": GI}}]}
        if volume:
            out["volume"] = [{"name": "scratch", "time": T, "usedBytes": volume}]
        return out
    return {"node": {"nodeName": "n1", "memory": {"time": T, "availableBytes": 4 * GI, "workingSetBytes": 4 * GI},
                     "fs": node_fs, "runtime": runtime},
            "pods": [pod("web", "shop", "u1", 30 * GI, 0), pod("tmp-writer", "batch", "u2", GI, 20 * GI)]}


def cluster() -> list[dict]:
    def pod(ns: str, name: str, uid: str, volumes: list) -> dict:
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns, "uid": uid},
                "spec": {"nodeName": "n1", "containers": [{"name": "a", "image": "x"}], "volumes": volumes},
                "status": {"phase": "Running"}}
    return [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
             "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                        "conditions": [{"type": "Ready", "status": "True"}]}},
            pod("shop", "web", "u1", []), pod("batch", "tmp-writer", "u2", [{"name": "scratch", "emptyDir": {}}])]


@pytest.mark.parametrize("layout", ["shared", "imagefs", "split"])
def test_the_layout_the_summary_shows(layout):
    assert infer(summary(layout)).layout == layout


def test_no_image_filesystem_in_the_summary_is_shared():
    doc = summary("imagefs")
    del doc["node"]["runtime"]
    assert infer(doc).layout == "shared"


def pressure(tmp_path: Path, layout: str, *extra: str) -> tuple[dict, str]:
    (tmp_path / "cluster.yaml").write_text("\n---\n".join(json.dumps(o) for o in cluster()))
    (tmp_path / "stats.json").write_text(json.dumps(summary(layout)))
    argv = ["evict", "pressure", "n1", "--nodes", str(tmp_path / "cluster.yaml"), "--stats",
            str(tmp_path / "stats.json"), "--now", T, *extra]
    env, text = TestEnvironment(), TestEnvironment()
    main([*argv, "-o", "json"], env)
    main(argv, text)
    return json.loads(env.out), " ".join(text.out.split())


def test_a_dedicated_image_disk_is_ranked_as_one(tmp_path):
    doc, text = pressure(tmp_path, "imagefs")
    assert doc["filesystems"] == {"dedicatedImageFs": True, "splitContainerFs": False}
    told = doc["filesystemsFrom"]
    assert (told["layout"], told["from"]) == ("imagefs", "stats Summary")
    assert "capacity 200Gi" in told["why"] and "capacity 100Gi" in told["why"]
    # nodefs ranks by local volumes and logs on a dedicated image filesystem: the emptyDir writer
    assert doc["reclaimSignal"] == "nodefs.available" and doc["evicted"][0]["pod"] == "batch/tmp-writer"
    assert not doc.get("nodeLevelReclaim") and "unused images deleted" not in text
    assert "Filesystem layout imagefs (a dedicated image filesystem), inferred from the stats Summary" in text


def test_filesystems_overrides_the_inference(tmp_path):
    doc, text = pressure(tmp_path, "imagefs", "--filesystems", "shared")
    assert doc["filesystemsFrom"] == {"layout": "shared", "from": "--filesystems"}
    assert doc["evicted"][0]["pod"] == "shop/web" and doc["nodeLevelReclaim"] == ["containers", "images"]
    assert "inferred" not in text


def test_split_is_inferred(tmp_path):
    doc, _ = pressure(tmp_path, "split")
    assert doc["filesystems"] == {"dedicatedImageFs": True, "splitContainerFs": True}
    assert doc["nodeLevelReclaim"] == ["containers"]


def test_an_evicted_pods_ranking_now_follows_the_inferred_layout(tmp_path):
    objects = cluster()
    gone = objects[2]
    gone["status"] = {"phase": "Failed", "reason": "Evicted",
                      "message": "The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, "
                                 "available: 8Gi. "}
    other = json.loads(json.dumps(gone).replace("tmp-writer", "tmp-writer-2").replace('"u2"', '"u3"'))
    other["status"] = {"phase": "Running"}
    (tmp_path / "cluster.yaml").write_text("\n---\n".join(json.dumps(o) for o in [*objects[:2], other]))
    (tmp_path / "pod.yaml").write_text(json.dumps(gone))
    stats = summary("imagefs")
    stats["pods"][1] = json.loads(json.dumps(stats["pods"][1]).replace("tmp-writer", "tmp-writer-2")
                                  .replace('"u2"', '"u3"'))
    (tmp_path / "stats.json").write_text(json.dumps(stats))
    env = TestEnvironment()
    main([str(tmp_path / "pod.yaml"), "--stored", "--nodes", str(tmp_path / "cluster.yaml"), "--stats",
          str(tmp_path / "stats.json"), "-o", "json"], env)
    now = json.loads(env.out)["eviction"]["now"]
    assert now["filesystemsFrom"]["layout"] == "imagefs"
    assert [r["pod"] for r in now["ranking"]] == ["batch/tmp-writer-2", "shop/web"]
