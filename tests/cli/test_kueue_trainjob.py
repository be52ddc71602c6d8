"""The chain for a TrainJob Kueue manages (`kexplain FILE --nodes CLUSTER` with Kueue's objects and the
training runtime): admitted, the JobSet its trainer makes, that JobSet's Jobs (one per replicated job,
each naming its pod set) and their pods with the flavor's node labels; held, the Jobs suspended; a
TrainJob whose runtime is not there refused in Kueue's webhook's words (exit 2, one line); `kexplain
kueue` in text and JSON."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import yaml

from tests.support.cli_helpers import run_cli as kexplain
from tests.support.paths import FIXTURES

CASE = FIXTURES / "kueue"
CLUSTER = ["--nodes", str(CASE / "cluster.yaml"), "--nodes", str(CASE / "nodes.yaml")]
UID = "3d9b2c41-7e6f-4a58-9b0c-1d2e3f4a5b6c"
# GetWorkloadNameForOwnerWithGVK: kind-name-hash, sha1 over kind, group, name and uid
WORKLOAD = "team-a/trainjob-llm-" + hashlib.sha1(f"TrainJob\ntrainer.kubeflow.org\nllm\n{UID}".encode()).hexdigest()[:5]
ANCESTOR = "trainer.kubeflow.org/trainjob-ancestor-step"


def _step(name: str, ancestor: str) -> dict:
    container = {"name": "node" if ancestor == "trainer" else name, "image": "registry.example.com/t:1",
                 "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}
    return {"name": name, "template": {"metadata": {"labels": {ANCESTOR: ancestor}}, "spec": {
        "template": {"spec": {"restartPolicy": "Never", "containers": [container]}}}}}


RUNTIME = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
           "metadata": {"name": "torch-distributed"},
           "spec": {"mlPolicy": {"numNodes": 1, "torch": {"numProcPerNode": "auto"}},
                    "template": {"spec": {"replicatedJobs": [_step("dataset-initializer", "dataset-initializer"),
                                                             _step("node", "trainer")]}}}}


def _trainjob(queue: str = "a-queue", runtime: str = "torch-distributed") -> dict:
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
            "metadata": {"name": "llm", "namespace": "team-a", "uid": UID,
                         "labels": {"kueue.x-k8s.io/queue-name": queue}},
            "spec": {"runtimeRef": {"name": runtime},
                     "trainer": {"numNodes": 3, "resourcesPerNode": {"requests": {"cpu": "1", "memory": "2Gi"}}}}}


def _write(tmp_path: Path, *objs: dict) -> str:
    path = tmp_path / "train.yaml"
    path.write_text(yaml.safe_dump_all(objs))
    return str(path)


def test_an_admitted_trainjob_is_its_jobsets_jobs_and_their_pods(tmp_path: Path) -> None:
    code, out, err = kexplain(_write(tmp_path, RUNTIME, _trainjob()), *CLUSTER, "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    placed = {p["object"]["name"]: p for p in doc["placements"]}
    assert list(placed) == ["llm-dataset-initializer-0", "llm-node-0"]
    node = placed["llm-node-0"]
    assert node["kueue"]["object"] == {"kind": "TrainJob", "namespace": "team-a", "name": "llm"}
    assert node["kueue"]["workload"] == WORKLOAD and node["kueue"]["verdict"] == "Admitted"
    assert node["kueue"]["podSet"] == "node" and placed["llm-dataset-initializer-0"]["kueue"]["podSet"] == \
        "dataset-initializer"
    assert [(s["name"], s["count"]) for s in node["kueue"]["podSets"]] == [("dataset-initializer", 1), ("node", 3)]
    assert node["replicas"] == 3 and node["fit"] == 3       # numNodes pods, on the on-demand flavor's nodes
    assert set(node["nodes"]) <= {"od-1", "od-2"}
    code, text, _ = kexplain(_write(tmp_path, RUNTIME, _trainjob()), *CLUSTER)
    assert code == 0 and "=== Job team-a/llm-node-0" in text and WORKLOAD in " ".join(text.split())
    assert "the TrainJob is unsuspended, its pods as Kueue sets them" in " ".join(text.split())


def test_a_held_trainjobs_jobs_stay_suspended(tmp_path: Path) -> None:
    code, out, _ = kexplain(_write(tmp_path, RUNTIME, _trainjob(queue="no-such-queue")), *CLUSTER, "-o", "json")
    doc = json.loads(out)
    assert [p["object"]["name"] for p in doc["placements"]] == ["llm-dataset-initializer-0", "llm-node-0"]
    assert all(p["idle"].startswith("spec.suspend is true") for p in doc["placements"])
    assert {p["kueue"]["verdict"] for p in doc["placements"]} != {"Admitted"}
    _, text, _ = kexplain(_write(tmp_path, RUNTIME, _trainjob(queue="no-such-queue")), *CLUSTER)
    assert "the TrainJob stays suspended (the trainer's JobSet stays suspended)" in " ".join(text.split())


def test_a_trainjob_whose_runtime_is_not_there_is_refused_in_one_line(tmp_path: Path) -> None:
    code, out, err = kexplain(_write(tmp_path, RUNTIME, _trainjob(runtime="other")), *CLUSTER)
    assert code == 2 and out == ""
    assert err.strip().endswith('TrainJob team-a/llm: admission webhook "vtrainjob.kb.io" denied the request: '
                                "runtime 'other' not found") and "Traceback" not in err


def test_kueue_says_the_trainjobs_workload(tmp_path: Path) -> None:
    path = _write(tmp_path, RUNTIME, _trainjob())
    code, out, _ = kexplain("kueue", path, "--nodes", str(CASE / "cluster.yaml"), "-o", "json")
    assert code == 0
    [job] = json.loads(out)["jobs"]
    assert job == {"kind": "TrainJob", "namespace": "team-a", "name": "llm", "queueName": "a-queue",
                   "workload": WORKLOAD.split("/")[1]}
    code, out, _ = kexplain("kueue", path, "--nodes", str(CASE / "cluster.yaml"))
    assert code == 0 and f"{WORKLOAD}   a-queue" in out and "1 job submitted" in " ".join(out.split())
