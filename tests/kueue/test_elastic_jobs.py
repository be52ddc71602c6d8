"""An elastic Ray job (annotation kueue.x-k8s.io/elastic-job: "true") may use in-tree autoscaling
when ElasticJobsViaWorkloadSlices is on (workloadslicing.Enabled): Beta and on by default in
v0.19.2, Alpha and off in v0.17.8 unless the Configuration turns it on. Its Workload is named with
the job's generation (newWorkloadName) and marked as the first slice (prepareWorkloadSlice)."""
from __future__ import annotations

import copy
import hashlib
from datetime import datetime, timezone

import pytest

from kexplain.cli.app import main
from kexplain.errors import AdmissionRejected
from kexplain.kueue import versions
from kexplain.kueue.controller.jobframework.reconciler import Management, reconcile
from kexplain.kueue.inputs import inputs_of
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
UID = "7f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b"
ELASTIC = {"kueue.x-k8s.io/elastic-job": "true"}
REFUSAL = ("spec.rayClusterSpec.enableInTreeAutoscaling: Invalid value: true: a kueue managed job should only use "
           "autoscaling when workload slicing is enabled")


def _spec(cpu: str) -> dict:
    return {"containers": [{"name": "c", "image": "rayproject/ray:2.9.0",
                            "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}]}


def _cluster_spec() -> dict:
    return {"enableInTreeAutoscaling": True, "headGroupSpec": {"rayStartParams": {}, "template": {"spec": _spec("1")}},
            "workerGroupSpecs": [{"groupName": "workers", "replicas": 2, "minReplicas": 1, "maxReplicas": 4,
                                  "rayStartParams": {}, "template": {"spec": _spec("2")}}]}


def _job(kind: str = "RayJob", annotations: dict | None = None, **meta) -> dict:
    metadata = {"name": "rj", "namespace": "team-a", "uid": UID, "labels": {"kueue.x-k8s.io/queue-name": "a-queue"},
                "annotations": dict(ELASTIC if annotations is None else annotations), **meta}
    if kind == "RayCluster":
        return {"apiVersion": "ray.io/v1", "kind": kind, "metadata": metadata, "spec": _cluster_spec()}
    spec = {"rayClusterSpec": _cluster_spec()}
    if kind == "RayJob":
        spec.update(entrypoint="python x.py", shutdownAfterJobFinishes=True)
    return {"apiVersion": "ray.io/v1", "kind": kind, "metadata": metadata, "spec": spec}


def _configuration(gate: bool) -> dict:
    return {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
            "featureGates": {"ElasticJobsViaWorkloadSlices": gate}}


def _outcome(obj: dict, version: str, cluster: list | None = None):
    read = inputs_of([(obj, None)], [(o, None) for o in cluster or []], version=versions.resolve(version))
    [job] = read.jobs
    return reconcile(job, {}, NOW, {}, {}, Management(read.config))


def _name(kind: str, extra: str) -> str:
    digest = hashlib.sha1(f"{kind}\nray.io\nrj\n{UID}\n{extra}".encode()).hexdigest()
    return f"{kind.lower()}-rj-{digest[:5]}"


@pytest.mark.parametrize("kind", ["RayJob", "RayService", "RayCluster"])
def test_v0_19_admits_an_elastic_autoscaling_ray_job(kind) -> None:
    outcome = _outcome(_job(kind), "0.19")
    wl = outcome.workload
    assert outcome.created and wl.meta.name == _name(kind, "1")
    assert wl.meta.annotations == {**ELASTIC, "kueue.x-k8s.io/workload-slice-name": wl.meta.name}


def test_the_name_counts_the_generation_and_the_ray_cluster_generation() -> None:
    obj = _job(annotations={**ELASTIC, "kueue.x-k8s.io/raycluster-generation": "3"}, generation=2)
    assert _outcome(obj, "0.19").workload.meta.name == _name("RayJob", "2_3")


@pytest.mark.parametrize("kind", ["RayJob", "RayService"])
def test_not_elastic_or_gate_off_it_is_refused(kind) -> None:
    with pytest.raises(AdmissionRejected, match=REFUSAL):
        _outcome(_job(kind, annotations={}), "0.19")                     # no annotation
    with pytest.raises(AdmissionRejected, match=REFUSAL):
        _outcome(_job(kind, annotations={"kueue.x-k8s.io/elastic-job": "True"}), "0.19")   # only "true" counts
    with pytest.raises(AdmissionRejected, match=REFUSAL):
        _outcome(_job(kind), "0.17")                                   # Alpha, off in v0.17.8
    with pytest.raises(AdmissionRejected, match=REFUSAL):
        _outcome(_job(kind), "0.19", [_configuration(False)])          # turned off by the Configuration


def test_the_configuration_turns_it_on_in_v0_17() -> None:
    outcome = _outcome(_job(), "0.17", [_configuration(True)])
    assert outcome.workload.meta.name == _name("RayJob", "1")


def test_a_job_not_elastic_keeps_its_plain_name() -> None:
    obj = _job(annotations={})
    obj["spec"]["rayClusterSpec"]["enableInTreeAutoscaling"] = False
    digest = hashlib.sha1(f"RayJob\nray.io\nrj\n{UID}".encode()).hexdigest()
    wl = _outcome(obj, "0.19").workload
    assert wl.meta.name == f"rayjob-rj-{digest[:5]}" and "kueue.x-k8s.io/elastic-job" not in wl.meta.annotations


def test_the_cli_admits_it_under_0_19(tmp_path) -> None:
    import yaml
    obj = copy.deepcopy(yaml.safe_load((FIXTURES / "kueue" / "rayjob.yaml").read_text()))
    obj["metadata"]["annotations"] = dict(ELASTIC)
    obj["spec"]["rayClusterSpec"]["enableInTreeAutoscaling"] = True
    path = tmp_path / "rayjob.yaml"
    path.write_text(yaml.safe_dump(obj))
    args = [str(path), "--nodes", str(FIXTURES / "kueue" / "cluster.yaml"), "--nodes",
            str(FIXTURES / "kueue" / "nodes.yaml"), "--no-suggestions"]
    env = TestEnvironment(width=200)
    # admitted; its worker then fits no node of the fixture's (exit 1: see fixtures/kueue/rayjob.yaml)
    assert main([*args, "--kueue-version", "0.19"], env) == 1
    assert "is admitted in ClusterQueue team-a-cq" in " ".join(env.out.split())
    env = TestEnvironment(width=200)
    assert main([*args, "--kueue-version", "0.17"], env) == 2
    assert REFUSAL in env.err
