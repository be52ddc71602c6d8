"""`kexplain lint --node-groups`: rule no-node-group, a Pod or workload no node group could take
(rejected on every group's template, even when it fits the pool today; or, for pods that do not
fit, every group rejected or skipped by CA's loop), each group named with its reason; add-node
suggestions give way. On fixtures/autoscaler, Kubernetes 1.35 pinned."""
from __future__ import annotations

import json
from pathlib import Path

from kexplain.cli.app import main
from kexplain.features import KubeVersion
from kexplain.lint.linter import RULES, LintOptions, Linter, Severity, default_suggester
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

CASE = FIXTURES / "autoscaler"
OBJECTS = """apiVersion: apps/v1
kind: Deployment
metadata: {name: legacy}
spec:
  replicas: 2
  selector: {matchLabels: {app: legacy}}
  template:
    metadata: {labels: {app: legacy}}
    spec:
      nodeSelector: {node.kubernetes.io/instance-type: m5.xlarge}
      containers: [{name: c, image: legacy:1.0, resources: {requests: {cpu: "1", memory: 1Gi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: tiny-arm}
spec:
  nodeSelector: {kubernetes.io/arch: arm64, disktype: ssd}
  containers: [{name: c, image: x:1, resources: {requests: {cpu: 100m}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: legacy-big}
spec:
  replicas: 3
  selector: {matchLabels: {app: legacy-big}}
  template:
    metadata: {labels: {app: legacy-big}}
    spec:
      nodeSelector: {node.kubernetes.io/instance-type: m5.xlarge}
      containers: [{name: c, image: legacy:1.0, resources: {requests: {cpu: 1500m, memory: 1Gi}}}]
"""


def lint(path: Path, groups: bool = True):
    options = LintOptions(paths=(str(path),), node_paths=(str(CASE / "cluster.yaml"),), kube=KubeVersion("1.35"),
                          node_groups=str(CASE / "nodegroups.yaml") if groups else None)
    return Linter(options, suggester=default_suggester()).run()


def test_the_rule_is_a_warning_in_the_table():
    assert RULES["no-node-group"].severity is Severity.WARNING


def test_findings(tmp_path: Path):
    path = tmp_path / "objects.yaml"
    path.write_text(OBJECTS)
    report = lint(path)
    found = {(f.obj.name, f.rule): f for f in report.findings}
    # legacy fits the pool and the template of general takes its pods: no finding
    assert ("legacy", "no-node-group") not in found and ("legacy", "fits") in found
    # tiny-arm: no group has the labels it selects (nor does any node)
    arm = found[("tiny-arm", "no-node-group")]
    assert arm.message.startswith("no node group could ever take its pods: general (NodeAffinity: ")
    assert set(arm.details["nodeGroups"]) == {"general", "gpu", "arm", "compute"}
    assert arm.details["nodeGroups"]["gpu"].startswith("TaintToleration: node(s) had untolerated taint(s) and "
                                                      "NodeAffinity")
    # legacy-big: general's template would take its copies, but general is at its max size
    big = found[("legacy-big", "no-node-group")]
    assert big.message.startswith("the Cluster Autoscaler would add no node for the pods that do not fit: "
                                  "general (skipped: max node group size reached)")
    assert big.details["nodeGroups"]["compute"] == "NodeAffinity: node(s) didn't match Pod's node affinity/selector"
    assert ("legacy-big", "unschedulable") in found     # legacy took the room it would have had
    assert not any("add a node like" in s for f in report.findings for s in f.suggestions)
    assert all(f.rule != "no-node-group" for f in lint(path, groups=False).findings)


def test_a_pod_that_fits_today_but_no_group_could_take(tmp_path: Path):
    path = tmp_path / "pod.yaml"
    path.write_text("""apiVersion: v1
kind: Pod
metadata: {name: pinned-zone}
spec:
  nodeSelector: {topology.kubernetes.io/zone: us-east-1a, node.kubernetes.io/instance-type: m5.xlarge}
  tolerations: [{key: nvidia.com/gpu, operator: Exists}]
  containers: [{name: c, image: x:1, resources: {requests: {cpu: 100m}}}]
""")
    rules = {f.rule for f in lint(path).findings}
    assert rules == {"fits"}      # general's template (from general-1, us-east-1a) takes it
    path.write_text(path.read_text().replace("us-east-1a", "us-east-1c"))
    found = {f.rule: f for f in lint(path).findings}
    assert "no-node-group" in found and "unschedulable" in found


def test_cli(tmp_path: Path):
    path = tmp_path / "objects.yaml"
    path.write_text(OBJECTS)
    env = TestEnvironment()
    code = main(["lint", str(path), "--nodes", str(CASE / "cluster.yaml"), "--node-groups",
                 str(CASE / "nodegroups.yaml"), "--kubernetes-version", "1.35", "-o", "json"], env=env)
    assert code == 1
    rules = [f["rule"] for f in json.loads(env.out)["findings"]]
    assert rules.count("no-node-group") == 2
    env = TestEnvironment()
    assert main(["lint", str(path), "--node-groups", str(CASE / "nodegroups.yaml")], env=env) == 2
    assert env.err == "error: --node-groups checks the scheduling against the pool: give the pool with --nodes\n"
    env = TestEnvironment()
    assert main(["lint", str(path), "--nodes", "-", "--node-groups", str(CASE / "nodegroups.yaml")], env=env) == 2
    assert env.err.startswith("error: --node-groups reads the pool of --nodes a second time")


def test_a_workloads_own_copies_do_not_count_against_it(tmp_path: Path):
    """Two copies, one per zone (required zone anti-affinity among themselves), both fit the
    pool: every template's zone then holds a copy, but a template is judged against the cluster
    as the objects before it left it, never against the object's own copies."""
    path = tmp_path / "spread.yaml"
    path.write_text("""apiVersion: apps/v1
kind: Deployment
metadata: {name: spread}
spec:
  replicas: 2
  selector: {matchLabels: {app: spread}}
  template:
    metadata: {labels: {app: spread}}
    spec:
      nodeSelector: {kubernetes.io/arch: amd64}
      tolerations: [{key: nvidia.com/gpu, operator: Exists}]
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {matchLabels: {app: spread}}
            topologyKey: topology.kubernetes.io/zone
      containers: [{name: c, image: x:1, resources: {requests: {cpu: 500m}}}]
""")
    found = {f.rule: f for f in lint(path).findings}
    assert set(found) == {"fits"}
    # a third copy has no zone left: the loop over the pending copy finds no group for it
    path.write_text(path.read_text().replace("replicas: 2", "replicas: 3"))
    found = {f.rule: f for f in lint(path).findings}
    assert found["no-node-group"].message.startswith("the Cluster Autoscaler would add no node for the pods that "
                                                     "do not fit: ")
