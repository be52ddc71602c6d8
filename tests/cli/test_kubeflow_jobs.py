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


def _step(name: str, ancestor: str, cpu: str, mounts: bool = False) -> dict[str, Any]:
    container = _container("node" if ancestor == "trainer" else name, cpu)
    if mounts:
        container["volumeMounts"] = [{"name": "initializer", "mountPath": "/workspace"}]
    return {"name": name, "template": {"metadata": {"labels": {ANCESTOR: ancestor}},
                                       "spec": {"template": {"spec": {"containers": [container]}}}}}


def runtime(name: str = "torch-distributed", kind: str = "ClusterTrainingRuntime", claims: bool = False,
            namespace: str = "") -> dict[str, Any]:
    """Shaped as the trainer's charts' runtimes (torch-distributed; torchtune's with `claims`)."""
    jobs = ([_step("dataset-initializer", "dataset-initializer", "500m", claims)] if claims else []) + \
        [_step("node", "trainer", "1", claims)]
    spec: dict[str, Any] = {"replicatedJobs": jobs}
    if claims:
        spec["volumeClaimPolicies"] = [{"templates": [{"metadata": {"name": "initializer"}, "spec": {
            "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "20Gi"}}}}]}]
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": kind, "metadata": meta,
            "spec": {"mlPolicy": {"numNodes": 1, "torch": {}}, "template": {"spec": spec}}}


def trainjob(name: str, runtime_name: str = "torch-distributed", kind: str = "ClusterTrainingRuntime",
             namespace: str = "team-a", labels: dict | None = None, nodes: int = 2) -> dict[str, Any]:
    """Shaped as Kubeflow Trainer's examples/yaml (01-multi-node: numNodes, a command)."""
    meta = {"name": name, "namespace": namespace, **({"labels": labels} if labels else {})}
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": meta,
            "spec": {"runtimeRef": {"apiGroup": "trainer.kubeflow.org", "kind": kind, "name": runtime_name},
                     "trainer": {"numNodes": nodes, "command": ["torchrun", "train.py"]}}}


STORAGE_CLASS = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                 "metadata": {"name": "standard", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
                 "provisioner": "ebs.csi.aws.com", "volumeBindingMode": "WaitForFirstConsumer"}


def test_a_folder_names_every_trainjob_and_mpijob_made_or_left_out(tmp_path: Path) -> None:
    folder = tmp_path / "examples"
    folder.mkdir()
    _write(folder, trainjob("multi-node"), name="01-multi-node.yaml")      # its runtime is the cluster's
    _write(folder, runtime("torch-with-init", kind="TrainingRuntime", namespace="team-a"),
           trainjob("multi-step", "torch-with-init", kind="TrainingRuntime"), name="05-multi-step.yaml")
    _write(folder, mpijob(), name="pi.yaml")
    code, doc, err = _json(str(folder), *NODES)
    names = [p["object"]["name"] for p in doc["placements"]]
    assert names == ["multi-step-node-0", "pi-worker-0", "pi-worker-1", "pi-launcher"]
    assert [p["replicas"] for p in doc["placements"]][0] == 2           # numNodes: the trainer's Job's pods
    assert all(p["pods"][0]["node"] for p in doc["placements"])
    assert "TrainJob team-a/multi-node: Kubeflow Trainer makes its JobSet from its runtime, and its runtime " \
           "ClusterTrainingRuntime torch-distributed is not among the objects" in " ".join(err.split())
    assert code == 2        # (an object left out)
    code, doc, err = _json(str(folder / "01-multi-node.yaml"), *NODES, "--nodes", _write(tmp_path, runtime()))
    assert code == 0 and [p["object"]["name"] for p in doc["placements"]] == ["multi-node-node-0"], err


def test_an_operators_job_kexplain_does_not_make_alone_is_named(tmp_path: Path) -> None:
    job = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "pt", "namespace": "team-a"},
           "spec": {"pytorchReplicaSpecs": {"Master": {"template": {"spec": {"containers": [_container("c", "1")]}}}}}}
    code, out, err = kexplain(_write(tmp_path, job), *NODES)
    assert code == 2 and out == ""
    assert "PyTorchJob team-a/pt: the training operator makes its pods; kexplain models PyTorchJob only " \
           "through Kueue" in " ".join(err.split()) and "no Pod or workload" not in err


def test_an_mpijob_the_operator_refuses_is_said_with_its_event(tmp_path: Path) -> None:
    job = mpijob()
    job["spec"]["mpiReplicaSpecs"]["Worker"]["restartPolicy"] = "Always"
    code, out, err = kexplain(_write(tmp_path, job), *NODES)
    assert code == 2 and out == ""
    assert ('MPIJob team-a/pi: the MPI operator creates nothing (its ValidationError event: Found validation errors: '
            'spec.mpiReplicaSpecs[Worker].restartPolicy: Unsupported value: "Always"') in " ".join(err.split())


def test_a_trainjobs_volume_claim_policy_makes_its_claim_as_a_jobsets(tmp_path: Path) -> None:
    # torchtune's runtimes: every step mounts the `initializer` claim the JobSet controller creates
    plain = _write(tmp_path, runtime("torchtune", claims=True), trainjob("tune", "torchtune", nodes=1), STORAGE_CLASS)
    code, doc, err = _json(plain, *NODES)
    assert code == 0, err
    assert [(p["object"]["name"], p["pods"][0]["status"]) for p in doc["placements"]] == [
        ("tune-dataset-initializer-0", "Scheduled"), ("tune-node-0", "Scheduled")]
    held = _write(tmp_path, runtime("torchtune", claims=True),
                  trainjob("tune", "torchtune", labels=QUEUE, nodes=1), STORAGE_CLASS, name="kueue.yaml")
    code, doc, err = _json(held, *CLUSTER)
    assert code == 0, err
    assert [(p["object"]["name"], p["kueue"]["verdict"], p["pods"][0]["status"]) for p in doc["placements"]] == [
        ("tune-dataset-initializer-0", "Admitted", "Scheduled"), ("tune-node-0", "Admitted", "Scheduled")]


def test_a_leaderworkersets_workloads_have_an_owner_not_a_controller(tmp_path: Path) -> None:
    # Kueue's LeaderWorkerSet reconciler: controllerutil.SetOwnerReference, no controller: true
    template = {"spec": {"containers": [_container("c", "500m")]}}
    lws = {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
           "metadata": {"name": "serve", "namespace": "team-a", "labels": QUEUE},
           "spec": {"replicas": 2, "leaderWorkerTemplate": {"size": 2, "workerTemplate": template}}}
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "eval", "namespace": "team-a", "labels": QUEUE},
           "spec": {"template": {"spec": {"restartPolicy": "Never", **template["spec"]}}}}
    code, out, err = kexplain("kueue", _write(tmp_path, lws, job), "--nodes", str(CASE / "cluster.yaml"), "-o", "json")
    workloads = json.loads(out)["workloads"]
    owners = sorted((w["name"].rsplit("-", 1)[0], w.get("owner")) for w in workloads
                    if w["name"].startswith(("job-eval-", "leaderworkerset-")))     # (the cluster's own besides)
    assert owners == [("job-eval", "Job/eval"), ("leaderworkerset-serve-0", None), ("leaderworkerset-serve-1", None)]


def _appwrapper(component: dict[str, Any], pod_sets: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    wrapped = {"template": component, **({"podSets": pod_sets} if pod_sets else {})}
    return {"apiVersion": "workload.codeflare.dev/v1beta2", "kind": "AppWrapper",
            "metadata": {"name": "wrapped", "namespace": "team-a", "labels": QUEUE},
            "spec": {"components": [wrapped]}}


def test_an_admitted_appwrapper_around_an_operators_job_is_its_operators_pods(tmp_path: Path) -> None:
    template = {"spec": {"restartPolicy": "Never", "containers": [_container("pytorch", "500m")]}}
    pytorch = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "train"},
               "spec": {"pytorchReplicaSpecs": {"Master": {"replicas": 1, "template": template},
                                                "Worker": {"replicas": 2, "template": template}}}}
    code, doc, err = _json(_write(tmp_path, _appwrapper(pytorch)), *CLUSTER)     # (its pod sets inferred)
    assert code == 0, err
    placed = [(p["object"]["kind"], p["object"]["name"], p["kueue"]["verdict"]) for p in doc["placements"]]
    assert placed == [("Pod", "train-master-0", "Admitted"), ("Pod", "train-worker-0", "Admitted"),
                      ("Pod", "train-worker-1", "Admitted")]
    # Kueue's flavor in each pod (on-demand's node label): the component's templates merged
    assert {p["pods"][0]["node"] for p in doc["placements"]} <= {"od-1", "od-2"}
    lws = {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet", "metadata": {"name": "serve"},
           "spec": {"replicas": 2, "leaderWorkerTemplate": {"size": 2, "workerTemplate": template}}}
    declared = [{"path": "template.spec.leaderWorkerTemplate.workerTemplate", "replicas": 4}]
    code, doc, err = _json(_write(tmp_path, _appwrapper(lws, declared)), *CLUSTER)
    assert code == 0, err
    assert [p["object"]["name"] for p in doc["placements"]] == ["serve-0", "serve-0-1", "serve-1", "serve-1-1"]
    assert {p["kueue"]["verdict"] for p in doc["placements"]} == {"Admitted"}
