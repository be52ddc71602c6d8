"""`kexplain lint --nodes` with Karpenter's NodePools among the objects: rule no-nodepool, a Pod
or workload no NodePool could take (Karpenter's pass over its pod alone, with no node, fails it on
every NodePool, even when it fits the pool today; or Karpenter's one pass over the set's pending
pods fails the copies that do not fit), each NodePool named with Karpenter's error; add-node
suggestions give way. On fixtures/karpenter."""
from __future__ import annotations

import json
from pathlib import Path

from kexplain.cli.app import main
from kexplain.lint.linter import RULES, Severity
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

CASE = FIXTURES / "karpenter"
CLUSTER = ["--nodes", str(CASE / "cluster.yaml"), "--nodes", str(CASE / "nodepools.yaml")]


def lint(*args: str) -> tuple[int, list[dict], str]:
    env = TestEnvironment(width=200)
    code = main(["lint", *args, "-o", "json"], env=env)
    return code, json.loads(env.out)["findings"], env.err


def of(findings: list[dict], rule: str) -> list[dict]:
    return [f for f in findings if f["rule"] == rule]


def test_the_rule_is_a_warning():
    assert RULES["no-nodepool"].severity is Severity.WARNING


def test_a_label_no_nodepool_declares_and_a_gpu_pod_no_nodepool_takes():
    # on an API server without ExtendedResourceToleration the untolerating trainer fits no NodePool
    code, findings, err = lint(str(CASE / "pod.yaml"), str(CASE / "trainer-untolerating.yaml"),
                               str(CASE / "trainer.yaml"), *CLUSTER, "--admission-plugins", "default")
    assert code == 1, err
    found = {f["object"]["name"]: f for f in of(findings, "no-nodepool")}
    assert set(found) == {"batch-job", "trainer-untolerating"}       # the tolerating trainer gets a NodeClaim
    batch = found["batch-job"]
    assert batch["message"].startswith("no Karpenter NodePool could ever take its pods: gpu (did not tolerate taint")
    assert batch["details"]["nodePools"]["general"] == \
        'incompatible requirements, label "workload" does not have known values'
    assert list(batch["details"]["nodePools"]) == ["gpu", "general"]      # Karpenter's order: weight first
    assert "no instance type has enough resources" in found["trainer-untolerating"]["details"]["nodePools"]["general"]


def test_on_eks_the_api_server_gives_the_gpu_pod_its_toleration():
    """The cluster's node is an EKS one (providerID aws://): its API server runs ExtendedResourceToleration,
    the trainer requesting nvidia.com/gpu tolerates the gpu NodePool's taint, and gets a NodeClaim."""
    code, findings, err = lint(str(CASE / "trainer-untolerating.yaml"), *CLUSTER)
    assert of(findings, "no-nodepool") == [], err
    env = TestEnvironment(width=200)
    main(["lint", str(CASE / "trainer-untolerating.yaml"), *CLUSTER, "--format", "json"], env=env)
    assert json.loads(env.out)["admissionPlugins"] == {"enabled": ["NodeRestriction", "ExtendedResourceToleration"],
                                                       "profile": "EKS", "from": "node providerIDs"}


def test_a_pod_that_fits_today_is_checked_all_the_same(tmp_path: Path):
    pod = (CASE / "pod.yaml").read_text().replace('cpu: "1", memory: 1Gi', "cpu: 100m, memory: 128Mi")
    (tmp_path / "small.yaml").write_text(pod.replace("nodeSelector: {workload: batch}", "nodeSelector: {}"))
    code, findings, err = lint(str(tmp_path / "small.yaml"), *CLUSTER)
    assert of(findings, "fits") or code == 0, err
    assert of(findings, "no-nodepool") == []
    labelled = tmp_path / "labelled.yaml"
    labelled.write_text(pod)        # fits nowhere today (no node has workload=batch) and never on a NodePool
    code, findings, err = lint(str(labelled), *CLUSTER)
    assert [f["object"]["name"] for f in of(findings, "no-nodepool")] == ["batch-job"]


def test_copies_the_pass_fails_though_one_alone_fits(tmp_path: Path):
    pools = (CASE / "nodepools.yaml").read_text().replace('cpu: "100"', 'cpu: "9"')
    (tmp_path / "nodepools.yaml").write_text(pools)
    (tmp_path / "big.yaml").write_text("""apiVersion: apps/v1
kind: Deployment
metadata: {name: big, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {app: big}}
  template:
    metadata: {labels: {app: big}}
    spec:
      containers: [{name: c, image: big, resources: {requests: {cpu: "3", memory: 1Gi}}}]
""")
    code, findings, err = lint(str(tmp_path / "big.yaml"), "--nodes", str(CASE / "cluster.yaml"), "--nodes",
                               str(tmp_path / "nodepools.yaml"))
    [found] = of(findings, "no-nodepool")
    assert found["message"].startswith("Karpenter would launch no node for the pods that do not fit: ")
    # the first copy gets a NodeClaim within the cpu limit of 9; what is left takes no 3-cpu copy
    assert found["details"]["nodePools"]["general"].startswith("no instance type has enough resources")


def test_without_nodepools_no_rule_and_add_node_stays():
    code, findings, err = lint(str(CASE / "pod.yaml"), "--nodes", str(CASE / "cluster.yaml"))
    assert of(findings, "no-nodepool") == []
    [unschedulable] = of(findings, "unschedulable")
    assert any("add a node like" in s for s in unschedulable.get("suggestions") or ())


def test_with_nodepools_add_node_gives_way():
    code, findings, err = lint(str(CASE / "pod.yaml"), *CLUSTER)
    [unschedulable] = of(findings, "unschedulable")
    assert not any("add a node like" in s for s in unschedulable.get("suggestions") or ())
