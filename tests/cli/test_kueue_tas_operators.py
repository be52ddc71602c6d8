"""TAS for an operator's pod sets through the chain (`kexplain FILE --nodes CLUSTER` with a Topology):
a PyTorchJob admitted on one block, each pod the training operator makes pinned by Kueue's topology
ungater to the domain of its rank (its replica index): its node selector holds that host, so one
node passes the scheduler's filters, the one Kueue's assignment gave that rank."""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.support.cli_helpers import run_cli as kexplain
from tests.support.paths import FIXTURES

CLUSTER = ["--nodes", str(FIXTURES / "kueue" / "tas" / "cluster.yaml")]


def _replica(count: int) -> dict:
    return {"replicas": count, "template": {
        "metadata": {"annotations": {"kueue.x-k8s.io/podset-required-topology": "cloud.example.com/topology-block"}},
        "spec": {"restartPolicy": "Never", "containers": [{"name": "pytorch", "image": "registry.example.com/t:1",
                                                           "resources": {"requests": {"cpu": "8", "memory": "64Gi",
                                                                                      "nvidia.com/gpu": "8"},
                                                                         "limits": {"nvidia.com/gpu": "8"}}}]}}}


PYTORCHJOB = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
              "metadata": {"name": "ddp", "namespace": "default", "uid": "2b1c7d4e-5f6a-4b8c-9d0e-1f2a3b4c5d6e",
                           "labels": {"kueue.x-k8s.io/queue-name": "user-queue"}},
              "spec": {"pytorchReplicaSpecs": {"Master": _replica(1), "Worker": _replica(3)}}}


def test_each_operator_pod_goes_to_the_domain_of_its_rank(tmp_path: Path) -> None:
    path = tmp_path / "ddp.yaml"
    path.write_text(yaml.safe_dump(PYTORCHJOB))
    code, out, err = kexplain(str(path), *CLUSTER, "-o", "json")
    assert code == 0, err
    placements = json.loads(out)["placements"]
    assert [p["object"]["name"] for p in placements] == ["ddp-master-0", "ddp-worker-0", "ddp-worker-1", "ddp-worker-2"]
    by_set = {ps["name"]: [d["values"][0] for d in ps["topology"]["domains"] for _ in range(d["count"])]
              for ps in placements[0]["kueue"]["podSets"]}
    assert len(by_set["worker"]) == 3
    for p in placements:
        rank = int(p["object"]["name"].rsplit("-", 1)[1])
        [pod] = p["pods"]
        assert pod["node"] == by_set[p["kueue"]["podSet"]][rank]
        assert pod["summary"]["search"]["numFilterSuccess"] == 1      # pinned to its own host, not any of them


def _jobset() -> dict:
    template = _replica(1)["template"]
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": "shard", "namespace": "default", "uid": "6a1f0c2e-8b3d-4e5f-9a7b-0c1d2e3f4a5b",
                         "labels": {"kueue.x-k8s.io/queue-name": "user-queue"}},
            "spec": {"replicatedJobs": [{"name": "workers", "replicas": 2, "template": {"spec": {
                "parallelism": 2, "completions": 2, "template": template}}}]}}


def test_a_jobsets_pods_go_to_the_domain_of_their_rank(tmp_path: Path) -> None:
    """A JobSet's Job j, pod of completion index i: rank i + j x 2, the Job controller's pods pinned."""
    path = tmp_path / "shard.yaml"
    path.write_text(yaml.safe_dump(_jobset()))
    code, out, err = kexplain(str(path), *CLUSTER, "-o", "json")
    assert code == 0, err
    placements = json.loads(out)["placements"]
    [workers] = placements[0]["kueue"]["podSets"]
    by_rank = [d["values"][0] for d in workers["topology"]["domains"] for _ in range(d["count"])]
    assert len(by_rank) == 4
    for job, placement in enumerate(placements):
        assert placement["object"]["name"] == f"shard-workers-{job}"
        for pod in placement["pods"]:
            index = int(pod["name"].split("-")[3])      # shard-workers-JOB-INDEX-xxxxx
            assert pod["node"] == by_rank[index + job * 2] and pod["summary"]["search"]["numFilterSuccess"] == 1


def test_a_nonindexed_jobs_pods_fill_the_domains_in_order() -> None:
    code, out, err = kexplain(str(FIXTURES / "kueue" / "tas" / "jobs.yaml"), *CLUSTER, "-o", "json")
    assert code == 0, err
    train = json.loads(out)["placements"][0]
    [main] = train["kueue"]["podSets"]
    assert [p["node"] for p in train["pods"]] == [d["values"][0] for d in main["topology"]["domains"]]
    assert all(p["summary"]["search"]["numFilterSuccess"] == 1 for p in train["pods"])
