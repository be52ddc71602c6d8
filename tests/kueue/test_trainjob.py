"""A TrainJob's Workload as Kueue v0.17.8's trainjob integration builds it (pkg/controller/jobs/trainjob,
getChildJobSet over Kubeflow Trainer v2.2.0's runtime framework): the pod sets of the JobSet its
runtime's template makes, with the TrainJob's numNodes, resourcesPerNode, image and runtime patches;
the Workload's name (kind-name-hash); a runtime that is not there refused in Kueue's webhook's words."""
from __future__ import annotations

import copy
import hashlib
from datetime import datetime, timezone

import pytest

from kexplain.errors import AdmissionRejected, InputError
from kexplain.kueue.controller.jobframework.reconciler import reconcile
from kexplain.kueue.controller.jobs import integration_for, trainjob
from kexplain.kueue.inputs import inputs_of

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
UID = "0c7e9a52-1f3b-4d6e-8a9c-2b4d6f8a0c1e"
ANCESTOR = "trainer.kubeflow.org/trainjob-ancestor-step"


def _rjob(name: str, ancestor: str, cpu: str = "1", replicas: int | None = None, **job_spec) -> dict:
    container = {"name": "node" if ancestor == "trainer" else ancestor, "image": "img:1",
                 "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}
    out = {"name": name, "template": {"metadata": {"labels": {ANCESTOR: ancestor}},
                                      "spec": {**job_spec, "template": {"spec": {"containers": [container]}}}}}
    if replicas is not None:
        out["replicas"] = replicas
    return out


def _runtime(kind: str = "ClusterTrainingRuntime", policy: dict | None = None, **meta) -> dict:
    jobs = [_rjob("dataset-initializer", "dataset-initializer", replicas=2), _rjob("node", "trainer")]
    spec = {"template": {"spec": {"replicatedJobs": jobs}}}
    if policy is not None:
        spec["mlPolicy"] = policy
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": kind, "metadata": {"name": "torch", **meta},
            "spec": spec}


def _trainjob(trainer: dict | None = None, ref: dict | None = None, **spec) -> dict:
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
            "metadata": {"name": "llm", "namespace": "team-a", "uid": UID,
                         "labels": {"kueue.x-k8s.io/queue-name": "a-queue"}},
            "spec": {"runtimeRef": ref or {"name": "torch"}, **({"trainer": trainer} if trainer else {}), **spec}}


def _outcome(job: dict, *runtimes: dict):
    [read] = inputs_of([(job, None)], [(r, None) for r in runtimes]).jobs
    return reconcile(read, {}, NOW, {}, {})


def _sets(outcome) -> list[tuple[str, int]]:
    return [(ps.name, ps.count) for ps in outcome.workload.spec.pod_sets]


def _node(outcome) -> dict:
    return outcome.workload.spec.pod_sets[-1].spec["containers"][0]


def test_a_trainjob_is_the_pod_sets_of_its_runtimes_jobset_with_its_overrides() -> None:
    assert integration_for("TrainJob", "trainer.kubeflow.org/v1alpha1") is trainjob
    resources = {"requests": {"cpu": "4", "memory": "8Gi"}, "limits": {"nvidia.com/gpu": "1"}}
    outcome = _outcome(_trainjob({"numNodes": 4, "resourcesPerNode": resources, "image": "mine:2",
                                  "env": [{"name": "A", "value": "1"}]}), _runtime(policy={"numNodes": 2, "torch": {}}))
    digest = hashlib.sha1(f"TrainJob\ntrainer.kubeflow.org\nllm\n{UID}".encode()).hexdigest()[:5]
    assert outcome.workload.meta.name == f"trainjob-llm-{digest}"
    # the initializer runs one replica (the runtime's 2 overridden); the trainer numNodes pods
    assert _sets(outcome) == [("dataset-initializer", 1), ("node", 4)]
    node = _node(outcome)
    assert node["resources"] == resources and node["image"] == "mine:2" and node["env"] == [{"name": "A", "value": "1"}]
    child = outcome.job.child
    assert child["kind"] == "JobSet" and child["metadata"]["name"] == "llm"
    assert child["metadata"]["ownerReferences"][0]["kind"] == "TrainJob"
    assert [(r["replicas"], r["template"]["spec"]["parallelism"], r["template"]["spec"]["completions"])
            for r in child["spec"]["replicatedJobs"]] == [(1, 1, 1), (1, 4, 4)]


def test_the_runtimes_numnodes_counts_when_the_trainjob_gives_none() -> None:
    assert _sets(_outcome(_trainjob(), _runtime(policy={"numNodes": 3, "torch": {}}))) == [
        ("dataset-initializer", 1), ("node", 3)]
    # no mlPolicy: the trainer step's parallelism (1 when not set)
    assert _sets(_outcome(_trainjob(), _runtime())) == [("dataset-initializer", 1), ("node", 1)]
    assert _sets(_outcome(_trainjob({"numNodes": 2}), _runtime())) == [("dataset-initializer", 1), ("node", 2)]


def test_an_mpi_runtime_counts_the_job_named_node_less_the_launcher_as_node() -> None:
    runtime = _runtime(policy={"numNodes": 1, "mpi": {"runLauncherAsNode": True}})
    runtime["spec"]["template"]["spec"]["replicatedJobs"] = [_rjob("launcher", "trainer"), _rjob("node", "x")]
    assert _sets(_outcome(_trainjob({"numNodes": 4}), runtime)) == [("launcher", 1), ("node", 3)]
    runtime = copy.deepcopy(runtime)
    runtime["spec"]["mlPolicy"]["mpi"] = {}
    assert _sets(_outcome(_trainjob({"numNodes": 4}), runtime)) == [("launcher", 1), ("node", 4)]


def test_runtime_patches_merge_into_their_replicated_job() -> None:
    patch = {"manager": "someone", "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [
        {"name": "node", "template": {"spec": {"template": {"spec": {
            "nodeSelector": {"pool": "gpu"}, "containers": [{"name": "node", "env": [{"name": "B", "value": "2"}]}]}}}}}]}}}}
    outcome = _outcome(_trainjob(runtimePatches=[patch]), _runtime())
    node = outcome.workload.spec.pod_sets[1].spec
    assert node["nodeSelector"] == {"pool": "gpu"}
    assert node["containers"][0]["env"] == [{"name": "B", "value": "2"}]
    assert node["containers"][0]["resources"]["requests"]["cpu"] == "1"      # (the runtime's, kept)
    assert outcome.workload.spec.pod_sets[0].spec.get("nodeSelector") is None


def test_a_namespaced_runtime_is_the_trainjobs_namespaces() -> None:
    ref = {"name": "torch", "kind": "TrainingRuntime", "apiGroup": "trainer.kubeflow.org"}
    assert _sets(_outcome(_trainjob(ref=ref), _runtime("TrainingRuntime", namespace="team-a")))[1] == ("node", 1)
    with pytest.raises(AdmissionRejected) as err:
        _outcome(_trainjob(ref=ref), _runtime("TrainingRuntime", namespace="team-b"), _runtime())
    assert str(err.value) == ('TrainJob team-a/llm: admission webhook "vtrainjob.kb.io" denied the request: '
                              "runtime 'torch' not found")


def test_a_missing_or_unsupported_runtime_is_refused_by_kueues_webhook() -> None:
    with pytest.raises(AdmissionRejected, match="denied the request: runtime 'torch' not found$"):
        _outcome(_trainjob())
    with pytest.raises(AdmissionRejected, match="denied the request: unsupported runtime: Other.example.com$"):
        _outcome(_trainjob(ref={"name": "torch", "kind": "Other", "apiGroup": "example.com"}), _runtime())


def test_a_runtime_without_a_pod_template_is_a_one_line_error_on_the_runtime() -> None:
    runtime = _runtime()
    del runtime["spec"]["template"]["spec"]["replicatedJobs"][1]["template"]["spec"]["template"]
    with pytest.raises(InputError) as err:
        _outcome(_trainjob(), runtime)
    assert err.value.field == "spec.template.spec.replicatedJobs[1]"
    assert "ClusterTrainingRuntime torch" in str(err.value)
    with pytest.raises(InputError, match="spec.trainer.numNodes"):
        _outcome(_trainjob({"numNodes": -1}), _runtime())
    runtime = _runtime()
    runtime["spec"]["template"]["spec"]["replicatedJobs"][1]["replicas"] = "two"
    with pytest.raises(InputError) as err:
        _outcome(_trainjob(), runtime)
    assert err.value.field == "spec.template.spec.replicatedJobs[1].replicas" and "ClusterTrainingRuntime" in str(err.value)


def test_the_runtimes_are_read_not_ignored() -> None:
    inputs = inputs_of([(_trainjob(), None)], [(_runtime(), None)])
    assert inputs.ignored == [] and len(inputs.jobs) == 1
