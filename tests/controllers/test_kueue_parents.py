"""The controllers that make what Kueue manages, read without Kueue: the CronJob controller's
Job, the JobSet controller's Jobs for any JobSet (`with_jobset_jobs`), and the kinds Kueue
manages by default that kexplain does not model (`queued.held`)."""
from __future__ import annotations

from kexplain.controllers.cronjob import cronjob_job
from kexplain.controllers.jobset import JOB_KEY, PRIORITY, with_jobset_jobs
from kexplain.controllers.queued import UNMODELLED, held

TEMPLATE = {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}


def test_the_cronjob_controllers_job() -> None:
    cj = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "nightly", "namespace": "ops",
                                                                   "labels": {"team": "ops"}},
          "spec": {"schedule": "@daily", "jobTemplate": {
              "metadata": {"labels": {"kueue.x-k8s.io/queue-name": "q"}, "annotations": {"a": "b"}},
              "spec": {"parallelism": 2, "template": TEMPLATE}}}}
    job = cronjob_job(cj)
    assert job["metadata"]["name"] == "nightly-scheduled" and job["metadata"]["namespace"] == "ops"
    assert job["metadata"]["labels"] == {"kueue.x-k8s.io/queue-name": "q"}      # the template's, not the CronJob's
    assert job["metadata"]["annotations"] == {"a": "b"}
    [owner] = job["metadata"]["ownerReferences"]
    assert (owner["kind"], owner["name"], owner["controller"]) == ("CronJob", "nightly", True)
    assert job["spec"] == {"parallelism": 2, "template": TEMPLATE}
    job["spec"]["parallelism"] = 5
    assert cj["spec"]["jobTemplate"]["spec"]["parallelism"] == 2          # a copy


def test_every_jobset_becomes_its_jobs_in_place() -> None:
    jobset = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
              "metadata": {"name": "js", "namespace": "ml"},
              "spec": {"replicatedJobs": [{"name": "w", "replicas": 2, "template": {"spec": {"template": {
                  "spec": {"priorityClassName": "high", **TEMPLATE["spec"]}}}}}]}}
    other = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}}
    pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 7}
    out = with_jobset_jobs([(other, "a"), (jobset, "b")], [(pc, "c")])
    assert [o["metadata"]["name"] for o, _ in out] == ["s", "js-w-0", "js-w-1"]
    assert [s for _, s in out] == ["a", "b", "b"]
    job = out[1][0]
    assert job["spec"]["suspend"] is False and job["spec"]["completionMode"] == "Indexed"
    labels = job["spec"]["template"]["metadata"]["labels"]
    assert labels[PRIORITY] == "7" and JOB_KEY in labels
    assert with_jobset_jobs([(other, "a")]) == [(other, "a")]


def test_held_says_of_a_labelled_unmodelled_kind_and_of_an_operators_job_not_made_alone() -> None:
    def obj(api: str, kind: str, labels: dict) -> dict:
        return {"apiVersion": api, "kind": kind, "metadata": {"name": "x", "labels": labels}}
    queue = {"kueue.x-k8s.io/queue-name": "q"}
    assert "kubeflow.org/mpijob integration" in held(obj("kubeflow.org/v2beta1", "MPIJob", queue))
    assert held(obj("kubeflow.org/v2beta1", "MPIJob", {})) == ""       # its operator's objects: kexplain makes them
    assert held(obj("ray.io/v1", "RayJob", {})).startswith("KubeRay makes its pods; kexplain models RayJob only "
                                                            "through Kueue")
    assert held(obj("example.com/v1", "MPIJob", queue)) == ""
    assert held(obj("batch/v1", "Job", queue)) == ""
    assert ("trainer.kubeflow.org", "TrainJob") in UNMODELLED and ("workload.codeflare.dev", "AppWrapper") in UNMODELLED


def test_volume_claim_policies_make_claims_and_volumes() -> None:
    """addVolumes and createPVCsIfNecessary: a claim `<template>-<jobset>` per template, a volume
    of it in each Job whose containers mount it by name, none in the others."""
    def rj(name: str, mounts: list[str]) -> dict:
        container = {"name": "c", "image": "busybox", "volumeMounts": [{"name": m, "mountPath": f"/{m}"} for m in mounts]}
        return {"name": name, "template": {"spec": {"template": {"spec": {"containers": [container]}}}}}
    jobset = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "t", "namespace": "ml"},
              "spec": {"volumeClaimPolicies": [{"templates": [
                  {"metadata": {"name": "data", "labels": {"a": "b"}},
                   "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]}],
                  "replicatedJobs": [rj("init", ["data"]), rj("other", [])]}}
    out = [o for o, _ in with_jobset_jobs([(jobset, "s")])]
    assert [(o["kind"], o["metadata"]["name"]) for o in out] == [
        ("PersistentVolumeClaim", "data-t"), ("Job", "t-init-0"), ("Job", "t-other-0")]
    claim = out[0]
    assert claim["metadata"]["namespace"] == "ml" and claim["spec"]["resources"]["requests"]["storage"] == "1Gi"
    assert claim["metadata"]["labels"] == {"a": "b", "jobset.sigs.k8s.io/jobset-name": "t"}
    assert out[1]["spec"]["template"]["spec"]["volumes"] == [
        {"name": "data", "persistentVolumeClaim": {"claimName": "data-t"}}]
    assert "volumes" not in out[2]["spec"]["template"]["spec"]
