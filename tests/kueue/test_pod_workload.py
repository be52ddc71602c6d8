"""A live pod linked to the stored Workload of the job that made it (kexplain/kueue/pod_workload.py):
by Kueue's workload annotation, the prebuilt-workload label, its ownerReferences (through the owners
among the objects read) and the labels each operator puts on its pods."""
from __future__ import annotations

from typing import Any

import pytest

from kexplain.kueue.pod_workload import Workloads


def workload(name: str, kind: str, owner: str, uid: str = "", annotations: dict[str, str] | None = None) -> dict:
    ref = {"apiVersion": "x/v1", "kind": kind, "name": owner, "controller": True, **({"uid": uid} if uid else {})}
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": name, "namespace": "ml", "ownerReferences": [ref],
                         **({"annotations": annotations} if annotations else {})}}


def pod(labels: dict[str, str] | None = None, owner: tuple[str, str, str] | None = None,
        annotations: dict[str, str] | None = None) -> dict:
    meta: dict[str, Any] = {"name": "p", "namespace": "ml", "labels": labels or {}, "annotations": annotations or {}}
    if owner is not None:
        meta["ownerReferences"] = [{"apiVersion": "x/v1", "kind": owner[0], "name": owner[1], "uid": owner[2],
                                    "controller": True}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {}}


STORED = [workload("job-train-1", "Job", "train", "u-train"), workload("jobset-pre-2", "JobSet", "pre"),
          workload("rayjob-tune-3", "RayJob", "tune"), workload("raycluster-solo-4", "RayCluster", "solo"),
          workload("lws-0", "LeaderWorkerSet", "serve", annotations={"kueue.x-k8s.io/component-workload-index": "0"}),
          workload("lws-1", "LeaderWorkerSet", "serve", annotations={"kueue.x-k8s.io/component-workload-index": "1"}),
          workload("pytorchjob-pt-5", "PyTorchJob", "pt"), workload("mpijob-mpi-6", "MPIJob", "mpi"),
          workload("appwrapper-aw-7", "AppWrapper", "aw"), workload("trainjob-tj-8", "TrainJob", "tj")]


@pytest.mark.parametrize("asked, found, by", [
    (pod(owner=("Job", "train", "u-train")), "job-train-1", "Job/train"),
    (pod({"jobset.sigs.k8s.io/jobset-name": "pre"}, owner=("Job", "pre-workers-0", "u-j")), "jobset-pre-2", "JobSet/pre"),
    (pod({"ray.io/cluster": "tune-raycluster-x", "ray.io/originated-from-crd": "RayJob",
          "ray.io/originated-from-cr-name": "tune"}, owner=("RayCluster", "tune-raycluster-x", "u-rc")),
     "rayjob-tune-3", "RayJob/tune"),
    (pod({"ray.io/cluster": "solo"}), "raycluster-solo-4", "RayCluster/solo"),
    (pod({"leaderworkerset.sigs.k8s.io/name": "serve", "leaderworkerset.sigs.k8s.io/group-index": "1"}),
     "lws-1", "LeaderWorkerSet/serve"),
    (pod({"training.kubeflow.org/job-name": "pt"}, owner=("PyTorchJob", "pt", "")), "pytorchjob-pt-5", "PyTorchJob/pt"),
    (pod({"training.kubeflow.org/job-name": "mpi"}), "mpijob-mpi-6", "MPIJob/mpi"),
    (pod({"workload.codeflare.dev/appwrapper": "aw"}), "appwrapper-aw-7", "AppWrapper/aw"),
    (pod({"jobset.sigs.k8s.io/jobset-name": "tj"}), "trainjob-tj-8", "TrainJob/tj"),
    (pod(annotations={"kueue.x-k8s.io/workload": "lws-0"}), "lws-0", "kueue.x-k8s.io/workload"),
    (pod({"kueue.x-k8s.io/prebuilt-workload-name": "lws-1"}), "lws-1", "kueue.x-k8s.io/prebuilt-workload-name"),
])
def test_a_pod_is_linked_to_its_jobs_workload(asked: dict, found: str, by: str) -> None:
    link = Workloads(STORED).link(asked)
    assert link is not None and (link.workload["metadata"]["name"], link.by) == (found, by)


@pytest.mark.parametrize("asked", [
    pod(owner=("Job", "train", "u-other")),         # a Job of the same name made again: not its Workload
    pod({"batch.kubernetes.io/job-name": "train"}, owner=("Job", "train", "u-other")),   # (its label no less)
    pod(owner=("Job", "other", "u-x")),             # a Job Kueue does not manage
    pod({"leaderworkerset.sigs.k8s.io/name": "serve", "leaderworkerset.sigs.k8s.io/group-index": "2"}),
    pod(annotations={"kueue.x-k8s.io/workload": "gone"}),      # its Workload not stored (nor its owner's)
    pod(),
])
def test_a_pod_without_a_stored_workload_is_not_linked(asked: dict) -> None:
    assert Workloads(STORED).link(asked) is None


def test_an_owner_read_leads_on_to_its_own_controller() -> None:
    """A pod of a ReplicaSet (read live) whose controller is a Kueue-managed kind: followed."""
    replica_set = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
                   "metadata": {"name": "rs", "namespace": "ml",
                                "ownerReferences": [{"kind": "Job", "name": "train", "uid": "u-train", "controller": True}]}}
    index = Workloads(STORED, [(replica_set, None)])
    link = index.link(pod(owner=("ReplicaSet", "rs", "u-rs")))
    assert link is not None and link.workload["metadata"]["name"] == "job-train-1"
    assert Workloads(STORED).link(pod(owner=("ReplicaSet", "rs", "u-rs"))) is None


def test_why_a_pod_kueue_started_is_not_linked() -> None:
    """Only a pod Kueue started (its workload annotation) is said unlinked, naming the owners looked for."""
    index = Workloads(STORED)
    started = pod({"jobset.sigs.k8s.io/jobset-name": "x"}, annotations={"kueue.x-k8s.io/workload": "gone"})
    assert "Workload ml/gone" in index.unlinked(started) and "JobSet ml/x, TrainJob ml/x" in index.unlinked(started)
    assert index.unlinked(pod(owner=("Job", "other", "u"))) == ""
