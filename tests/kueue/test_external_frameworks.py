"""integrations.externalFrameworks (kexplain/kueue/controller/jobframework/external.py): a job of a
kind the Configuration names is Kueue's, its Workload made by an external controller kexplain cannot
run; a Workload it owns is explained as any given Workload."""
from __future__ import annotations

import json

import yaml

from kexplain.kueue.controller.jobframework.external import external_job
from tests.kueue.builders import cluster_queue, flavor, local_queue
from tests.support.cli_helpers import run_cli

CONFIG = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
          "integrations": {"frameworks": ["batch/job"], "externalFrameworks": ["PipelineRun.v1.tekton.dev"]}}
RUN = {"apiVersion": "tekton.dev/v1", "kind": "PipelineRun",
       "metadata": {"name": "build", "namespace": "default", "uid": "pr-1",
                    "labels": {"kueue.x-k8s.io/queue-name": "q"}}, "spec": {"pipelineRef": {"name": "p"}}}
OWNED = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
         "metadata": {"name": "pipelinerun-build-abcde", "namespace": "default", "uid": "w-1",
                      "creationTimestamp": "2025-12-31T20:00:00Z",
                      "ownerReferences": [{"apiVersion": "tekton.dev/v1", "kind": "PipelineRun", "name": "build",
                                           "uid": "pr-1", "controller": True}]},
         "spec": {"queueName": "q", "podSets": [{"name": "main", "count": 1, "template": {"spec": {
             "restartPolicy": "Never", "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}}}]}}


def kueue(tmp_path, *submitted: dict, config: dict | None = CONFIG) -> tuple[int, dict]:
    cluster = [flavor("default"), cluster_queue("cq", {"default": {"cpu": "4"}}), local_queue("q", "cq"),
               *([yaml.safe_dump(config)] if config else [])]
    (tmp_path / "c.yaml").write_text("---\n".join(cluster))
    (tmp_path / "w.yaml").write_text(yaml.safe_dump_all(submitted))
    code, out, _ = run_cli("kueue", str(tmp_path / "w.yaml"), "--nodes", str(tmp_path / "c.yaml"),
                           "--now", "2026-01-01T00:00:00Z", "-o", "json")
    return code, json.loads(out)


def test_the_job_is_kueues_its_workload_an_external_controllers(tmp_path) -> None:
    code, doc = kueue(tmp_path, RUN)
    job, = doc["jobs"]
    assert (job["kind"], job["name"]) == ("PipelineRun", "build")
    assert job["error"] == ("its Workload is made by an external controller (integrations.externalFrameworks: "
                            "PipelineRun.v1.tekton.dev): kexplain explains the Workload, given or live, not the job")
    assert not any("PipelineRun" in note for note in doc.get("ignoredObjects") or ())
    assert code == 1        # no Workload holds quota for it


def test_a_workload_it_owns_is_explained_as_any_given_one(tmp_path) -> None:
    code, doc = kueue(tmp_path, RUN, OWNED)
    job, = doc["jobs"]
    assert job["workload"] == "pipelinerun-build-abcde" and "error" not in job
    wl, = doc["workloads"]
    assert wl["quotaReserved"] and wl["clusterQueue"] == "cq"
    assert code == 0


def test_without_the_configuration_the_kind_is_left_out(tmp_path) -> None:
    _, doc = kueue(tmp_path, RUN, config=None)
    assert doc["jobs"] == []
    assert any("PipelineRun default/build" in note for note in doc["ignoredObjects"])


def test_the_kind_is_matched_by_group_and_kind() -> None:
    frameworks = ("PipelineRun.v1.tekton.dev",)
    job = external_job(RUN, None, frameworks)
    assert job is not None and (job.kind, job.group, job.pod_sets()) == ("PipelineRun", "tekton.dev", ())
    assert external_job({**RUN, "apiVersion": "tekton.dev/v1beta1"}, None, frameworks) is not None
    assert external_job({**RUN, "kind": "TaskRun"}, None, frameworks) is None
