"""`kexplain POD --nodes CLUSTER` with a file of several pods, some Volcano's (`spec.schedulerName:
volcano`): those answered by ONE session of Volcano's scheduler with all of them
(`app.volcano.answer_pods`), never the default profile's "profile not found" (before: a note each,
and exit 2 when every pod was Volcano's)."""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import ROOT

CLUSTER = str(ROOT / "fixtures" / "volcano" / "gang-cluster.yaml")
POD = ROOT / "fixtures" / "volcano" / "gang-pod.yaml"


def run(*args: str) -> tuple[int, str, str]:
    env = TestEnvironment()
    code = main(list(args), env)
    return code, env.out, env.err


def pods(tmp_path: Path, *changes: dict) -> str:
    base = yaml.safe_load(POD.read_text())
    out = []
    for change in changes:
        pod = json.loads(json.dumps(base))
        pod["metadata"]["name"] = change["name"]
        pod["spec"]["schedulerName"] = change.get("scheduler", "volcano")
        out.append(pod)
    path = tmp_path / "pods.yaml"
    path.write_text(yaml.safe_dump_all(out))
    return str(path)


def test_several_volcano_pods_are_answered_by_one_session(tmp_path: Path) -> None:
    code, out, err = run(pods(tmp_path, {"name": "train-2"}, {"name": "train-3"}), "--nodes", CLUSTER, "-o", "json")
    assert code == 1, err
    assert "profile not found" not in err
    doc = json.loads(out)
    assert doc["kind"] == "SchedulingTraceList"
    assert [(i["pod"]["name"], i["profile"], i["result"]["status"]) for i in doc["items"]] == [
        ("train-2", "volcano", "Unschedulable"), ("train-3", "volcano", "Unschedulable")]
    # one session with both: the gang counts four pending tasks
    assert doc["items"][1]["volcano"]["podGroup"]["conditions"][0]["message"].startswith(
        "1/4 tasks in gang unschedulable: pod group is not ready, 3 minAvailable, 4 Pending")


def test_a_volcano_pod_among_kube_schedulers_gets_volcanos_answer(tmp_path: Path) -> None:
    path = pods(tmp_path, {"name": "web", "scheduler": "default-scheduler"}, {"name": "train-2"})
    code, out, err = run(path, "--nodes", CLUSTER, "-o", "json")
    assert code == 1, err
    assert "profile not found" not in err
    items = json.loads(out)["items"]
    assert [(i["pod"]["name"], i.get("profile")) for i in items] == [("web", "default-scheduler"), ("train-2", "volcano")]
    assert items[1]["result"]["message"] == "0/2 nodes are unavailable: 2 Insufficient cpu."
    code, text, _ = run(path, "--nodes", CLUSTER)
    assert "\n\nPod default/train-2 (Volcano): Unschedulable\nScheduled by Volcano (v1.15.1), not kube-scheduler" in text


def conf_file(tmp_path: Path, text: str, name: str = "conf.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_scheduler_conf_is_followed_for_one_volcano_pod_and_several(tmp_path: Path) -> None:
    # enqueue alone: the PodGroup is enqueued, no task is allocated (no predicates ran: no fit error)
    conf = conf_file(tmp_path, 'actions: "enqueue"\ntiers:\n- plugins:\n  - name: gang\n')
    code, out, err = run(str(POD), "--nodes", CLUSTER, "--scheduler-conf", conf, "-o", "json")
    trace = json.loads(out)
    assert trace["volcano"]["config"]["actions"] == ["enqueue"], err
    assert "nodes" not in trace["volcano"]
    code, out, err = run(pods(tmp_path, {"name": "train-2"}, {"name": "train-3"}), "--nodes", CLUSTER,
                         "--scheduler-conf", conf, "-o", "json")
    assert [i["volcano"]["config"]["actions"] for i in json.loads(out)["items"]] == [["enqueue"], ["enqueue"]]


def test_the_configmap_among_the_inputs_is_read_and_an_invalid_one_said(tmp_path: Path) -> None:
    cm = {"apiVersion": "v1", "kind": "ConfigMap",
          "metadata": {"name": "volcano-scheduler-configmap", "namespace": "volcano-system"},
          "data": {"volcano-scheduler.conf": 'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: gang\n'}}
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(Path(CLUSTER).read_text() + "\n---\n" + yaml.safe_dump(cm))
    code, out, err = run(str(POD), "--nodes", str(cluster), "-o", "json")
    assert json.loads(out)["volcano"]["config"]["actions"] == ["enqueue", "allocate"], err
    bad = conf_file(tmp_path, 'actions: "enqueue, juggle"\n')
    code, out, err = run(str(POD), "--nodes", CLUSTER, "--scheduler-conf", bad, "-o", "json")
    vc = json.loads(out)["volcano"]
    assert vc["notes"][0] == (f"Scheduler config {bad} is invalid: failed to find Action  juggle; Volcano keeps its "
                              "previous configuration (at start, its default), which kexplain runs")
    assert vc["config"]["actions"] == ["enqueue", "allocate", "backfill"]
    code, out, err = run(str(POD), "--nodes", CLUSTER, "--scheduler-conf", bad)
    assert "note: Scheduler config" in out


def test_volcano_version_is_checked_for_a_volcano_pod() -> None:
    code, _, err = run(str(POD), "--nodes", CLUSTER, "--volcano-version", "1.9")
    assert code == 2
    assert "--volcano-version 1.9: not a Volcano release kexplain follows (it follows 1.15 (v1.15.1))" in err
    code, out, _ = run(str(POD), "--nodes", CLUSTER, "--volcano-version", "1.15", "-o", "json")
    assert json.loads(out)["volcano"]["version"].startswith("v1.15.1 ")
