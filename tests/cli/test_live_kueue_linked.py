"""Live, a pod its job's operator made (no queue-name label) gets Kueue's answer from its stored
Workload (kexplain/kueue/pod_workload.py): held as the Workload is held, none when its owner has no
Workload; `kexplain pod NAME` and `--pending` say the same of it (fixtures/kueue/ai served by the
stand-in API server)."""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.support.fixture_cluster import serve
from tests.support.kueue_chain_facts import flat
from tests.support.live_server import isolate, recorded_api, run_cli
from tests.support.paths import DATA, FIXTURES

CASE = FIXTURES / "kueue" / "ai"
CA = ("--node-groups", str(CASE / "node-groups.yaml"), "--autoscaler-config", str(CASE / "autoscaler-config.yaml"))
HELD_WORKLOADS = DATA / "kueue-ai" / "held-workloads.yaml"
PENDING = {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                                               "message": "0/9 nodes are available: 9 Insufficient nvidia.com/gpu."}]}


def job_pod(name: str, job: str, uid: str) -> dict:
    """A pending GPU pod of Job `job` (its controller), as the Job controller makes it: no queue-name label."""
    return {"apiVersion": "v1", "kind": "Pod", "status": PENDING,
            "metadata": {"name": name, "namespace": "ml", "labels": {"batch.kubernetes.io/job-name": job},
                         "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": job, "uid": uid,
                                              "controller": True}]},
            "spec": {"restartPolicy": "Never", "containers": [{"name": "train", "image": "train:1.4", "resources": {
                "requests": {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": "8"}, "limits": {"nvidia.com/gpu": "8"}}}]}}


def served(tmp_path: Path, *objects: dict) -> Path:
    path = tmp_path / "objects.yaml"
    path.write_text(yaml.safe_dump_all(list(objects)))
    return path


def finetune_workload() -> dict:
    return next(w for w in yaml.safe_load_all(HELD_WORKLOADS.read_text()) if w["metadata"]["name"] == "job-finetune-182e2")


def test_a_pod_of_a_held_workload_is_said_held(tmp_path, capsys, monkeypatch) -> None:
    """The Job's Workload holds quota and waits for its check: its pod (made before, still pending) is
    said held by that Workload, alone and in the list, which does not list the Workload again."""
    isolate(monkeypatch, tmp_path / "home")
    workload = finetune_workload()
    uid = workload["metadata"]["ownerReferences"][0]["uid"]
    objects = served(tmp_path, workload, job_pod("finetune-abcde", "finetune", uid))
    with recorded_api(tmp_path) as api:
        serve(api, [CASE / "cluster.yaml", objects])
        code, out, err = run_cli(capsys, "pod", "finetune-abcde", "-n", "ml", "--kubeconfig", api.kubeconfig, *CA,
                                 "-o", "json")
        alone = json.loads(out)["kueue"]
        assert (alone["verdict"], alone["workload"], alone["clusterQueue"]) == \
            ("QuotaReserved", "ml/job-finetune-182e2", "provisioned-cq"), err
        assert alone["object"] == {"kind": "Job", "namespace": "ml", "name": "finetune"}
        assert alone["live"]["workload"] == "ml/job-finetune-182e2"
        code, out, err = run_cli(capsys, "pod", "--pending", "-n", "ml", "--kubeconfig", api.kubeconfig, *CA,
                                 "-o", "json")
        doc = json.loads(out)
        [trace] = doc["items"]
        assert {k: trace["kueue"][k] for k in ("verdict", "workload", "clusterQueue")} == \
            {k: alone[k] for k in ("verdict", "workload", "clusterQueue")}
        assert not doc.get("kueueHeld") and code == 1, err
        _, text, _ = run_cli(capsys, "pod", "finetune-abcde", "-n", "ml", "--kubeconfig", api.kubeconfig, *CA)
    assert ("Workload ml/job-finetune-182e2 holds quota in ClusterQueue provisioned-cq and waits for its "
            "admission checks") in flat(text)


def test_a_pod_whose_owner_has_no_workload_gets_no_kueue_line(tmp_path, capsys, monkeypatch) -> None:
    """Kueue's objects are there, but the pod's Job has no Workload (nor does the uid of the stored one
    match a Job of the same name made again): the scheduler's answer alone, no crash."""
    isolate(monkeypatch, tmp_path / "home")
    objects = served(tmp_path, finetune_workload(), job_pod("other-abcde", "other", "u-1"),
                     job_pod("finetune-fghij", "finetune", "u-made-again"))
    with recorded_api(tmp_path) as api:
        serve(api, [CASE / "cluster.yaml", objects])
        for name in ("other-abcde", "finetune-fghij"):
            code, out, err = run_cli(capsys, "pod", name, "-n", "ml", "--kubeconfig", api.kubeconfig, *CA, "-o", "json")
            assert "kueue" not in json.loads(out) and code in (0, 1), err
            _, text, _ = run_cli(capsys, "pod", name, "-n", "ml", "--kubeconfig", api.kubeconfig, *CA)
            assert "Kueue v0.17.8" not in text
        code, out, err = run_cli(capsys, "pod", "--pending", "-n", "ml", "--kubeconfig", api.kubeconfig, *CA,
                                 "-o", "json")
        doc = json.loads(out)
        assert [t.get("kueue") for t in doc["items"]] == [None, None], err
        assert [h["workload"] for h in doc["kueueHeld"]] == ["ml/job-finetune-182e2"]      # still held, no pod of it


LWS = DATA / "kueue-ai" / "lws.yaml"
LWS_ADMITTED = DATA / "kueue-ai" / "admitted-lws.yaml"


def test_a_leaderworkersets_pods_say_what_the_file_says(tmp_path, capsys, monkeypatch) -> None:
    """The LeaderWorkerSet's group admitted: its pods read live get Kueue's answer (the group's Workload
    admitted in tas-cq, its topology), as `kexplain lws.yaml -o json` gives it, alone and in the list."""
    from tests.support.cli_helpers import run_cli as file_cli
    isolate(monkeypatch, tmp_path / "home")
    _, out, _ = file_cli(str(LWS), "--nodes", str(CASE / "cluster.yaml"), "-o", "json")
    [want] = list({p["kueue"]["workload"]: p["kueue"] for p in json.loads(out)["placements"]}.values())
    domains = sorted(("/".join(d["values"]), d["count"]) for ps in want["podSets"] for d in ps["topology"]["domains"])
    with recorded_api(tmp_path) as api:
        serve(api, [CASE / "cluster.yaml", LWS_ADMITTED])
        code, out, err = run_cli(capsys, "pod", "--pending", "-n", "ml", "--kubeconfig", api.kubeconfig, "-o", "json")
        traces = json.loads(out)["items"]
        for name in ("serve-0", "serve-0-1"):
            _, alone, _ = run_cli(capsys, "pod", name, "-n", "ml", "--kubeconfig", api.kubeconfig, "-o", "json")
            traces.append(json.loads(alone))
            _, text, _ = run_cli(capsys, "pod", name, "-n", "ml", "--kubeconfig", api.kubeconfig)
            assert f"Workload {want['workload']} is admitted in ClusterQueue tas-cq" in flat(text)
    assert len(traces) == 4, err
    for trace in traces:
        answer = trace["kueue"]
        assert (answer["verdict"], answer["workload"], answer["clusterQueue"]) == \
            (want["verdict"], want["workload"], want["clusterQueue"])
        assert sorted(("/".join(d["values"]), d["count"]) for ps in answer["podSets"]
                      for d in ps["topology"]["domains"]) == domains


def test_a_pod_kueue_started_whose_workload_is_gone_is_a_note(tmp_path, capsys, monkeypatch) -> None:
    """Kueue's workload annotation names a Workload the cluster does not store (nor one of the pod's owners):
    no Kueue answer, and a note on stderr that says which Workload and which owners were looked for."""
    isolate(monkeypatch, tmp_path / "home")
    pod = job_pod("train-abcde", "train", "u-train")
    pod["metadata"]["annotations"] = {"kueue.x-k8s.io/workload": "job-train-gone1"}
    objects = served(tmp_path, finetune_workload(), pod)
    note = ("note: pod ml/train-abcde: Kueue started it for Workload ml/job-train-gone1 (its kueue.x-k8s.io/workload "
            "annotation), but the cluster stores neither that Workload nor one owned by Job ml/train: no Kueue answer "
            "for it")
    with recorded_api(tmp_path) as api:
        serve(api, [CASE / "cluster.yaml", objects])
        code, out, err = run_cli(capsys, "pod", "train-abcde", "-n", "ml", "--kubeconfig", api.kubeconfig, "-o", "json")
        assert "kueue" not in json.loads(out) and note in err.splitlines(), err
        _, out, err = run_cli(capsys, "pod", "--pending", "-n", "ml", "--kubeconfig", api.kubeconfig, "-o", "json")
        assert [t.get("kueue") for t in json.loads(out)["items"]] == [None] and note in err.splitlines()
