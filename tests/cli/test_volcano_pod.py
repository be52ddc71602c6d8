"""`kexplain POD --nodes CLUSTER` for a pod Volcano schedules (`spec.schedulerName: volcano`): Volcano's
session answers it (`kexplain.app.volcano_pod`), not kube-scheduler's default profile (which has no
profile "volcano": exit 2 before). Its entries are `kexplain volcano`'s for the same cluster; exit 0
when it binds, 1 when it stays pending."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment


def node(name: str, cpu: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"capacity": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}}


def pod(name: str, group: str | None, cpu: str, at: int) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default", "uid": f"uid-{name}",
                            "creationTimestamp": f"2026-01-01T00:00:{at:02d}Z"}
    if group:
        meta["annotations"] = {"scheduling.k8s.io/group-name": group}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"schedulerName": "volcano",
                     "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}]}}


def group(name: str, min_member: int) -> dict[str, Any]:
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "default", "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"minMember": min_member}}


def write(tmp_path: Path, name: str, objects: list[dict[str, Any]]) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(objects))
    return str(path)


def run(*args: str) -> tuple[int, str, str]:
    env = TestEnvironment()
    code = main(list(args), env)
    return code, env.out, env.err


GANG = [node("n1", "4"), node("n2", "5"), group("train", 3), pod("train-0", "train", "3", 1),
        pod("train-1", "train", "3", 2)]


def test_a_pending_gang_pod_gets_volcanos_answer_as_kexplain_volcano_gives_it(tmp_path: Path) -> None:
    # Three tasks of 3 cpu on nodes of 4 and 5 cpu: one each; the gang (minMember 3) cannot start; train-2 fits no node.
    cluster = write(tmp_path, "cluster.yaml", GANG)
    target = write(tmp_path, "pod.yaml", [pod("train-2", "train", "3", 3)])
    code, out, err = run(target, "--nodes", cluster, "-o", "json")
    assert code == 1, err
    trace = json.loads(out)
    vc = trace["volcano"]
    assert vc["scheduler"].startswith("Scheduled by Volcano (v1.15.1), not kube-scheduler: ")
    assert trace["result"]["status"] == "Unschedulable"
    assert trace["result"]["message"] == "0/2 nodes are unavailable: 2 Insufficient cpu."
    assert vc["nodes"] == [{"node": "n1", "reasons": ["Insufficient cpu"]},
                           {"node": "n2", "reasons": ["Insufficient cpu"]}]
    # the same cluster through `kexplain volcano`: the same entries for the pod and its PodGroup
    whole = write(tmp_path, "whole.yaml", [*GANG, pod("train-2", "train", "3", 3)])
    code_all, out_all, _ = run("volcano", "--nodes", whole, "-o", "json")
    doc = json.loads(out_all)
    assert code_all == 1
    assert vc["pod"] == next(p for p in doc["pods"] if p["name"] == "default/train-2")
    assert vc["podGroup"] == doc["podGroups"][0]
    assert vc["podGroup"]["conditions"][0]["message"].startswith("1/3 tasks in gang unschedulable")
    assert {e["object"] for e in vc["events"]} == {"Pod default/train-2", "PodGroup default/train"}


def test_the_text_says_who_answers(tmp_path: Path) -> None:
    cluster = write(tmp_path, "cluster.yaml", GANG)
    target = write(tmp_path, "pod.yaml", [pod("train-2", "train", "3", 3)])
    code, out, _ = run(target, "--nodes", cluster)
    flat = " ".join(out.split())
    assert code == 1
    assert "Scheduled by Volcano (v1.15.1), not kube-scheduler" in flat
    assert "PodGroup default/train (queue default, minMember 3): Pending -> Inqueue" in flat
    assert "n1: Insufficient cpu" in flat
    code, out, _ = run(target, "--nodes", cluster, "--node", "n2")
    assert "Node n2: Insufficient cpu" in " ".join(out.split()) and code == 1


def test_a_pod_without_a_podgroup_gets_the_one_volcanos_controller_makes_and_binds(tmp_path: Path) -> None:
    cluster = write(tmp_path, "cluster.yaml", [node("n1", "4")])
    target = write(tmp_path, "pod.yaml", [pod("solo", None, "1", 1)])
    code, out, err = run(target, "--nodes", cluster, "-o", "json")
    assert code == 0, err
    trace = json.loads(out)
    vc = trace["volcano"]
    assert trace["result"]["status"] == "Scheduled" and trace["result"]["selectedNodes"] == ["n1"]
    assert vc["podGroup"]["name"] == "default/podgroup-uid-solo"
    assert (vc["podGroup"]["minMember"], vc["podGroup"]["queue"]) == (1, "default")
    assert "makes PodGroup default/podgroup-uid-solo" in vc["podGroupMade"]


def test_a_podgroup_in_the_pod_file_is_read(tmp_path: Path) -> None:
    cluster = write(tmp_path, "cluster.yaml", [node("n1", "4")])
    target = write(tmp_path, "pod.yaml", [pod("a", "g", "1", 1), group("g", 1)])
    code, out, err = run(target, "--nodes", cluster, "-o", "json")
    assert code == 0, err
    assert json.loads(out)["volcano"]["podGroup"]["name"] == "default/g"


def test_a_pod_whose_podgroup_does_not_exist_waits(tmp_path: Path) -> None:
    cluster = write(tmp_path, "cluster.yaml", [node("n1", "4")])
    target = write(tmp_path, "pod.yaml", [pod("a", "gone", "1", 1)])
    code, out, _ = run(target, "--nodes", cluster, "-o", "json")
    assert code == 1
    assert json.loads(out)["result"]["message"].startswith("PodGroup default/gone does not exist")


def test_the_page_says_what_the_text_says(tmp_path: Path) -> None:
    cluster = write(tmp_path, "cluster.yaml", GANG)
    target = write(tmp_path, "pod.yaml", [pod("train-2", "train", "3", 3)])
    page = tmp_path / "page.html"
    code, _, err = run(target, "--nodes", cluster, "--html", str(page))
    assert code == 1, err
    text = page.read_text()
    assert "Scheduled by Volcano (v1.15.1), not kube-scheduler" in text
    assert "filter and score pipeline" not in text       # not kube-scheduler's page
    assert "<td>n1</td><td>Insufficient cpu</td>" in text
