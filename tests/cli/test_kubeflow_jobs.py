"""Kubeflow's jobs as their operators make them: an MPIJob as the MPI operator defaults it and makes
its launcher Job and workers (through Kueue's chain and without Kueue), a TrainJob as the JobSet the
trainer makes from its runtime (its volume claim policies' claims created as for any JobSet), and a
job kexplain cannot make named as left out, never dropped in silence."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tests.support.cli_helpers import run_cli as kexplain
from tests.support.paths import FIXTURES

CASE = FIXTURES / "kueue"
CLUSTER = ["--nodes", str(CASE / "cluster.yaml"), "--nodes", str(CASE / "nodes.yaml")]
NODES = ["--nodes", str(CASE / "nodes.yaml")]
QUEUE = {"kueue.x-k8s.io/queue-name": "a-queue"}
ANCESTOR = "trainer.kubeflow.org/trainjob-ancestor-step"


def _container(name: str, cpu: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "image": "registry.example.com/t:1", **extra,
            "resources": {"limits": {"cpu": cpu, "memory": "1Gi"}}}


def mpijob(name: str = "pi", namespace: str = "team-a", labels: dict | None = None, **spec: Any) -> dict[str, Any]:
    """Shaped as mpi-operator's examples/v2beta1/pi/pi.yaml: no restartPolicy anywhere."""
    meta = {"name": name, "namespace": namespace, **({"labels": labels} if labels else {})}
    return {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": meta,
            "spec": {"slotsPerWorker": 1, "runPolicy": {"cleanPodPolicy": "Running", "ttlSecondsAfterFinished": 60},
                     "sshAuthMountPath": "/home/mpiuser/.ssh", **spec,
                     "mpiReplicaSpecs": {
                         "Launcher": {"replicas": 1, "template": {"spec": {"containers": [
                             _container("mpi-launcher", "500m", command=["mpirun"])]}}},
                         "Worker": {"replicas": 2, "template": {"spec": {"containers": [
                             _container("mpi-worker", "1", command=["/usr/sbin/sshd"])]}}}}}}


def _write(tmp_path: Path, *objs: dict[str, Any], name: str = "job.yaml") -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(objs))
    return str(path)


def _json(*args: str) -> tuple[int, dict[str, Any], str]:
    code, out, err = kexplain(*args, "-o", "json")
    assert out, err
    return code, json.loads(out), err


def test_an_admitted_mpijobs_launcher_is_the_operators_job_restarting_on_failure(tmp_path: Path) -> None:
    code, doc, err = _json(_write(tmp_path, mpijob(labels=QUEUE)), *CLUSTER)
    assert code == 0 and "Unsupported value" not in err, err
    placed = {p["object"]["name"]: p for p in doc["placements"]}
    assert list(placed) == ["pi-launcher", "pi-worker-0", "pi-worker-1"]
    assert all(p["kueue"]["verdict"] == "Admitted" and p["pods"][0]["node"] for p in placed.values())
    code, text, _ = kexplain(_write(tmp_path, mpijob(labels=QUEUE)), *CLUSTER, "-o", "yaml")
    assert "Unsupported value" not in text and code == 0
