"""`kexplain volcano [FILE...] --nodes CLUSTER`: Volcano Jobs (`batch.volcano.sh/v1alpha1`) made into
their PodGroups and pods as Volcano's webhooks and job controller make them (`app.volcano_jobs`), the
session run over them and the answer grouped per Job; the scheduler's configuration read from a
ConfigMap among the inputs or given, as Volcano reads it (`volcano.conf`)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import ROOT

JOBS = ROOT / "fixtures" / "volcano" / "job.yaml"
CLUSTER = ROOT / "fixtures" / "volcano" / "job-cluster.yaml"
TRAIN_PG = "default/train-4d1c5f0e-0000-4000-8000-000000000001"
SWEEP_PG = "default/sweep-4d1c5f0e-0000-4000-8000-000000000002"


def run(*args: str) -> tuple[int, str, str]:
    env = TestEnvironment()
    code = main(list(args), env)
    return code, env.out, env.err


def jobs() -> list[dict[str, Any]]:
    return list(yaml.safe_load_all(JOBS.read_text()))


def write(tmp_path: Path, name: str, objects: list[dict[str, Any]]) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(objects))
    return str(path)


def doc_of(*args: str) -> tuple[int, dict[str, Any], str]:
    code, out, err = run("volcano", *args, "-o", "json")
    return code, json.loads(out), err


def test_a_job_file_becomes_its_podgroup_and_pods_answered_per_job() -> None:
    # train (ps 1 cpu, two workers of 2 cpu, minAvailable 3) is enqueued and placed; sweep (two 3-cpu
    # trials) finds the cluster overused once train is in: enqueue leaves its PodGroup Pending, and the
    # job controller has not created its pods.
    code, doc, err = doc_of(str(JOBS), "--nodes", str(CLUSTER))
    assert code == 1, err
    train, sweep = doc["jobs"]
    assert (train["name"], train["podGroup"], train["phase"], train["podsCreated"]) == (
        "default/train", TRAIN_PG, "Inqueue", True)
    assert [[p["name"] for p in t["pods"]] for t in train["tasks"]] == [
        ["default/train-ps-0"], ["default/train-worker-0", "default/train-worker-1"]]
    assert all(p.get("boundTo") for t in train["tasks"] for p in t["pods"])
    assert train["submitted"] is True and train["source"].endswith("job.yaml: document 1")
    assert (sweep["phase"], sweep["podsCreated"]) == ("Pending", False)
    assert sweep["tasks"][0]["podNames"] == ["default/sweep-trial-0", "default/sweep-trial-1"]
    assert "Normal Unschedulable: resource in cluster is overused: overused cpu" in sweep["events"]
    # a waiting Job's PodGroup answered as Volcano answers it: without pods (not "2 Pending")
    assert ("Warning Unschedulable: 0/0 tasks in gang unschedulable: pod group is not ready, 2 minAvailable"
            in sweep["events"])
    assert not any(p["name"].startswith("default/sweep-") for p in doc["pods"])
    pg = next(g for g in doc["podGroups"] if g["name"] == TRAIN_PG)
    assert pg["minMember"] == 3 and pg["queue"] == "research"


def test_the_text_groups_the_answer_per_job() -> None:
    code, out, _ = run("volcano", str(JOBS), "--nodes", str(CLUSTER))
    assert code == 1
    assert out.startswith("Volcano Jobs (2), as Volcano's webhooks and job controller make them:\n")
    assert f"Job default/sweep (queue research, minAvailable 2): PodGroup {SWEEP_PG} Pending -> Pending\n" in out
    assert "    pods not created yet: sweep-trial-0, sweep-trial-1\n" in out
    assert "  task worker (2 replicas, minAvailable 2)\n" in out


def test_a_job_the_webhook_refuses_is_said_and_the_rest_runs(tmp_path: Path) -> None:
    train, sweep = jobs()
    train["spec"]["minAvailable"] = 5
    code, doc, err = doc_of(write(tmp_path, "jobs.yaml", [train, sweep]), "--nodes", str(CLUSTER))
    assert code == 1, err
    refused = doc["jobs"][0]
    assert refused["refused"] == "job 'minAvailable' should not be greater than total replicas in tasks;"
    assert "podGroup" not in refused and "tasks" not in refused
    assert doc["jobs"][1]["phase"] == "Inqueue"
    assert [g["name"] for g in doc["podGroups"]] == [SWEEP_PG]


def test_a_job_with_a_bad_field_is_a_clear_error(tmp_path: Path) -> None:
    train, _ = jobs()
    train["spec"]["tasks"][0]["replicas"] = "one"
    code, out, err = run("volcano", write(tmp_path, "jobs.yaml", [train]), "--nodes", str(CLUSTER))
    assert code == 2
    assert err.strip().endswith("jobs.yaml: document 1: Job default/train: spec.tasks[0].replicas: must be a "
                                "non-negative integer, not 'one'")
    assert "Traceback" not in err and out == ""


def test_a_podgroup_and_pods_already_there_are_updated_not_made_again(tmp_path: Path) -> None:
    # createOrUpdatePodGroup finds the PodGroup; the pod the controller created is the cluster's.
    train, _ = jobs()
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "train-ps-0", "namespace": "default",
                        "annotations": {"scheduling.k8s.io/group-name": TRAIN_PG.split("/")[1],
                                        "volcano.sh/task-spec": "ps"}},
           "spec": {"schedulerName": "volcano", "nodeName": "node-a",
                    "containers": [{"name": "ps", "image": "x", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]},
           "status": {"phase": "Running"}}
    group = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
             "metadata": {"name": TRAIN_PG.split("/")[1], "namespace": "default"},
             "spec": {"minMember": 1, "queue": "research"}, "status": {"phase": "Running"}}
    cluster = write(tmp_path, "cluster.yaml", [*yaml.safe_load_all(CLUSTER.read_text()), pod, group])
    code, doc, err = doc_of(write(tmp_path, "job.yaml", [train]), "--nodes", cluster)
    assert code == 0, err
    # the cluster's, not made again, updated (shouldUpdateExistingPodGroup): minMember the Job's, status kept
    assert [(g["minMember"], g["phaseBefore"]) for g in doc["podGroups"]] == [(3, "Running")]
    assert [p["name"] for p in doc["pods"]].count("default/train-ps-0") == 1
    ps = doc["jobs"][0]["tasks"][0]["pods"][0]
    assert (ps["name"], ps["nodeBefore"]) == ("default/train-ps-0", "node-a")


CONF = 'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: gang\n  - name: mine\n- plugins:\n  - name: predicates\n'


def configmap(text: str, name: str = "volcano-scheduler-configmap") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "volcano-system"},
            "data": {"volcano-scheduler.conf": text}}


def test_the_schedulers_configmap_among_the_inputs_is_read(tmp_path: Path) -> None:
    cluster = write(tmp_path, "cluster.yaml", [*yaml.safe_load_all(CLUSTER.read_text()), configmap(CONF)])
    code, doc, err = doc_of(str(JOBS), "--nodes", cluster)
    assert doc["config"]["actions"] == ["enqueue", "allocate"]
    assert doc["config"]["tiers"] == [["gang", "mine"], ["predicates"]]
    assert doc["config"]["unknownPlugins"] == ["mine"]
    assert doc["config"]["source"].endswith("cluster.yaml: document 4: ConfigMap volcano-system/volcano-scheduler-configmap")


def test_scheduler_conf_takes_the_configmap_itself(tmp_path: Path) -> None:
    conf = write(tmp_path, "cm.yaml", [configmap(CONF)])
    code, doc, err = doc_of(str(JOBS), "--nodes", str(CLUSTER), "--scheduler-conf", conf)
    assert doc["config"]["actions"] == ["enqueue", "allocate"], err


def test_a_configuration_volcano_finds_invalid_leaves_its_default_said(tmp_path: Path) -> None:
    # loadSchedulerConf: "Scheduler config ... is invalid", the previous (at start, default) one kept.
    conf = tmp_path / "conf.yaml"
    conf.write_text('actions: "enqueue, juggle"\n')
    code, doc, err = doc_of(str(JOBS), "--nodes", str(CLUSTER), "--scheduler-conf", str(conf))
    assert doc["config"]["actions"] == ["enqueue", "allocate", "backfill"]
    assert (f"warning: Scheduler config {conf} is invalid: failed to find Action  juggle; Volcano keeps its "
            "previous configuration (at start, its default), which kexplain runs") in err


def test_volcano_version_is_checked() -> None:
    code, _, err = run("volcano", "--nodes", str(CLUSTER), "--volcano-version", "1.14")
    assert code == 2
    assert "--volcano-version 1.14: not a Volcano release kexplain follows (it follows 1.15 (v1.15.1))" in err
    code, doc, _ = doc_of(str(JOBS), "--nodes", str(CLUSTER), "--volcano-version", "1.15")
    assert doc["volcano"].startswith("v1.15.1 ")


def test_a_pod_the_api_server_refuses_is_not_created_and_the_gang_waits(tmp_path: Path) -> None:
    # A ResourceQuota of two pods: the controller's third pod is refused (its FailedCreate), the gang
    # of three cannot start.
    quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "pods", "namespace": "default"},
             "spec": {"hard": {"pods": "2"}}}
    cluster = write(tmp_path, "cluster.yaml", [*yaml.safe_load_all(CLUSTER.read_text()), quota])
    code, doc, err = doc_of(str(JOBS), "--nodes", cluster)
    assert code == 1, err
    pods = [p for t in doc["jobs"][0]["tasks"] for p in t["pods"]]
    assert pods[2] == {"name": "default/train-worker-1",
                       "notCreated": 'pods "train-worker-1" is forbidden: exceeded quota: pods, requested: pods=1, '
                                     'used: pods=2, limited: pods=2'}
    assert not any(p.get("boundTo") for p in pods)
    assert "default/train-worker-1" not in {p["name"] for p in doc["pods"]}
