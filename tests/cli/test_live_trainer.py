"""Kubeflow Trainer's training runtimes read live beside Kueue's kinds (kexplain/load/live.py `KUEUE`:
ClusterTrainingRuntimes and TrainingRuntimes, what a TrainJob's pod sets are of): listed when the
cluster serves trainer.kubeflow.org, kept by `kexplain snapshot`, never asked for otherwise."""
from __future__ import annotations

import json

from kexplain.load.live import KUEUE
from tests.cli.test_live_kueue import api  # noqa: F401 (fixture)
from tests.support.live_server import isolated, run_cli  # noqa: F401 (isolated: autouse)

RUNTIMES = "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes"
RUNTIME = {"metadata": {"name": "torch-distributed", "uid": "rt-1", "resourceVersion": "1",
                        "creationTimestamp": "2025-11-01T08:00:00Z"},
           "spec": {"template": {"spec": {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {
               "spec": {"containers": [{"name": "node", "image": "pytorch/pytorch:2.7.1"}]}}}}}]}}}}


def test_the_runtimes_are_kueues_inputs_read_live() -> None:
    kinds = {(r.group, r.kind, r.namespaced) for r in KUEUE}
    assert {("trainer.kubeflow.org", "ClusterTrainingRuntime", False),
            ("trainer.kubeflow.org", "TrainingRuntime", True)} <= kinds


def test_snapshot_keeps_the_runtimes_a_cluster_serves(api, capsys, tmp_path) -> None:
    api.collections[RUNTIMES] = {"kind": "ClusterTrainingRuntimeList", "apiVersion": "trainer.kubeflow.org/v1alpha1",
                                 "metadata": {"resourceVersion": "1"}, "items": [RUNTIME]}
    snap = tmp_path / "cluster.json"
    code, _, err = run_cli(capsys, "snapshot", "-o", str(snap), "--kubeconfig", api.kubeconfig)
    assert code == 0, err
    [runtime] = [i for i in json.loads(snap.read_text())["items"] if i.get("kind") == "ClusterTrainingRuntime"]
    assert runtime["metadata"]["name"] == "torch-distributed" and RUNTIMES in api.paths()
    # (trainingruntimes are not served there: said once, the rest read)
    assert err.count("trainingruntimes are not served (trainer.kubeflow.org/v1alpha1: the TrainingRuntime CRD is "
                     "not installed): none read") == 1, err


def test_a_cluster_without_the_trainer_is_not_asked(api, capsys, tmp_path) -> None:
    code, _, err = run_cli(capsys, "snapshot", "-o", str(tmp_path / "cluster.json"), "--kubeconfig", api.kubeconfig)
    assert code == 0 and not [p for p in api.paths() if "trainer.kubeflow.org" in p] and "trainingruntimes" not in err
