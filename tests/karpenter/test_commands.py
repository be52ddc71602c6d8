"""Every command that takes pods takes a workload the same way (`kexplain.explain.pods_file_pass`):
`kexplain karpenter PODS` passes Karpenter the pods `kexplain PODS` does, for Pods and for every
kind of workload, the claims of generic ephemeral volumes created as their controller creates
them; a pod the input gives twice (a StatefulSet's ordinal, and that pod as `kubectl get
statefulset,pods` gives it) is one pending pod. On fixtures/karpenter."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

CASE = FIXTURES / "karpenter"
CLUSTER = ["--nodes", str(CASE / "cluster.yaml"), "--nodes", str(CASE / "nodepools.yaml")]
KUBE = ["--kubernetes-version", "1.35"]      # the version `kexplain karpenter` takes: the same pod names
TEMPLATE = {"metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": "nginx",
                                     "resources": {"requests": {"cpu": "1", "memory": "2Gi"}}}]}}
SELECTOR = {"matchLabels": {"app": "web"}}
JOB_TEMPLATE = {**TEMPLATE, "spec": {**TEMPLATE["spec"], "restartPolicy": "Never"}}
EPHEMERAL = {"name": "data", "ephemeral": {"volumeClaimTemplate": {"spec": {
    "accessModes": ["ReadWriteOnce"], "storageClassName": "gp3", "resources": {"requests": {"storage": "10Gi"}}}}}}
GP3 = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "gp3"},
       "provisioner": "ebs.csi.aws.com", "volumeBindingMode": "WaitForFirstConsumer"}


def meta(name: str = "web") -> dict:
    return {"name": name, "namespace": "default"}


WORKLOADS = {
    "Pod": [{"apiVersion": "v1", "kind": "Pod", "metadata": meta(), "spec": TEMPLATE["spec"]}],
    "Deployment": [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta(),
                    "spec": {"replicas": 3, "selector": SELECTOR, "template": TEMPLATE}}],
    "ReplicaSet": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": meta(),
                    "spec": {"replicas": 2, "selector": SELECTOR, "template": TEMPLATE}}],
    "StatefulSet": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": meta(),
                     "spec": {"replicas": 2, "serviceName": "web", "podManagementPolicy": "Parallel",
                              "selector": SELECTOR, "template": TEMPLATE}}],
    "Job": [{"apiVersion": "batch/v1", "kind": "Job", "metadata": meta(),
             "spec": {"parallelism": 2, "completions": 2, "template": JOB_TEMPLATE}}],
    "CronJob": [{"apiVersion": "batch/v1", "kind": "CronJob", "metadata": meta(),
                 "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": JOB_TEMPLATE}}}}],
    # its copy the nearly full node cannot take: Karpenter leaves a DaemonSet's pods to their nodes
    "DaemonSet": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": meta(),
                   "spec": {"selector": SELECTOR, "template": TEMPLATE}}],
    # a pod with a generic ephemeral volume: its claim, of a class the cluster has, is created at once
    "ephemeral": [{"apiVersion": "v1", "kind": "Pod", "metadata": meta(),
                   "spec": {**TEMPLATE["spec"], "volumes": [EPHEMERAL]}}, GP3],
    "Deployment with ephemeral volumes": [
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta(),
         "spec": {"replicas": 2, "selector": SELECTOR,
                  "template": {**TEMPLATE, "spec": {**TEMPLATE["spec"], "volumes": [EPHEMERAL]}}}}, GP3],
}


def run(*argv: str) -> tuple[int, dict, str]:
    env = TestEnvironment()
    code = main([*argv, "-o", "json"], env)
    return code, json.loads(env.out) if env.out.strip() else {}, env.err


def answers(doc: dict) -> list[tuple[str, str, str]]:
    return [(p["pod"], p["result"], p.get("error", "")) for p in doc["pods"]]


@pytest.mark.parametrize("kind", list(WORKLOADS))
def test_karpenter_takes_the_pods_kexplain_pod_takes(tmp_path: Path, kind: str) -> None:
    pods = tmp_path / "pods.yaml"
    pods.write_text(yaml.safe_dump_all(WORKLOADS[kind]))
    code, doc, err = run("karpenter", str(pods), *CLUSTER)
    assert code == 0, err
    _, explained, _ = run(str(pods), *CLUSTER, *KUBE)
    assert answers(doc) == answers(explained["karpenter"])
    assert doc["pods"] and {p["result"] for p in doc["pods"]} == {"NotProvisionable" if kind == "DaemonSet"
                                                                   else "NewNodeClaim"}
    if kind in ("Pod", "ephemeral"):        # Pods alone: Karpenter's input as given, no pass to describe
        assert "pendingPass" not in doc
    else:                                   # the pods `kexplain POD` has, each standing for the workload
        assert list(doc["pendingPass"]["pods"]) == list(explained["karpenter"]["pendingPass"]["pods"])
        assert {p["standsFor"] for p in doc["pendingPass"]["pods"].values()} == {f"{kind.split()[0]} default/web"}


def test_a_deployment_is_no_false_all_clear() -> None:
    """The bundled web.yaml: three replicas the nearly full node cannot take, on one new NodeClaim."""
    code, doc, _ = run("karpenter", str(CASE / "web.yaml"), *CLUSTER)
    assert code == 0
    assert doc["summary"] == {"pods": {"NewNodeClaim": 3}, "newNodeClaims": 1}
    assert [c["pods"] for c in doc["nodeClaims"]] == [[p["pod"] for p in doc["pods"]]]


@pytest.mark.parametrize("command", [[], ["karpenter"]])
def test_a_statefulset_with_its_own_pod_is_one_pod(command: list[str]) -> None:
    """`kubectl get statefulset,pods -o yaml` of a namespace: db-0 is the StatefulSet's pod."""
    code, doc, err = run(*command, str(CASE / "shop.yaml"), *CLUSTER)
    assert code in (0, 1), err
    karpenter = doc if command else doc["karpenter"]
    assert [p["pod"] for p in karpenter["pods"]] == ["shop/db-0", "shop/web-1", "shop/web-2"]
    assert [e["object"] for e in karpenter["events"]] == ["Pod shop/db-0", "Pod shop/web-1", "Pod shop/web-2"]


def test_lint_reports_every_pod_of_a_statefulset_with_its_own_pod() -> None:
    env = TestEnvironment()
    code = main(["lint", str(CASE / "shop.yaml"), *CLUSTER, "-o", "json"], env)
    assert code == 1, env.err
    objects = {(f["object"]["kind"], f["object"]["name"]) for f in json.loads(env.out)["findings"]}
    assert {("StatefulSet", "db"), ("Pod", "db-0"), ("Pod", "web-1"), ("Pod", "web-2")} <= objects
