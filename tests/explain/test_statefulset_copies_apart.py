"""The copies of a StatefulSet differ (each its own claims): with podManagementPolicy Parallel its
controller creates every pod at once (allowsBurst), so a copy pinned by its existing volume to a
zone without a node does not stop the next, whose new claim is provisioned where it runs (issue
70, item 15). With OrderedReady its controller creates an ordinal only once the one before it is
Running and Ready (stateful_set_control.go, processReplica): the first that does not fit is the
last pod created, as before."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kexplain.cli.app import main
from kexplain.controllers.workloads import Copies
from kexplain.lint.linter import LintOptions, lint
from tests.support.cli_helpers import TestEnvironment, node_yaml

CLUSTER = node_yaml("a1", "a", "4", "8Gi", allocatable=False) + """\
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: std
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-db-0}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: std
  claimRef: {namespace: default, name: data-db-0}
  csi: {driver: ebs.csi.aws.com, volumeHandle: vol-0}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [c]}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data-db-0, namespace: default, annotations: {pv.kubernetes.io/bind-completed: "yes"}}
spec: {accessModes: [ReadWriteOnce], storageClassName: std, volumeName: pv-db-0, resources: {requests: {storage: 1Gi}}}
"""
STATEFULSET = """\
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  replicas: 2%s
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: c, image: "db:2", resources: {requests: {cpu: 100m}}}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
"""
PARALLEL = "\n  podManagementPolicy: Parallel"
AFFINITY = "0/1 nodes are available: 1 node(s) didn't match PersistentVolume's node affinity."


def files(tmp_path: Path, policy: str) -> tuple[str, str]:
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "db.yaml").write_text(STATEFULSET % policy)
    return str(tmp_path / "db.yaml"), str(tmp_path / "cluster.yaml")


def explained(manifest: str, cluster: str) -> tuple[int, dict]:
    env = TestEnvironment()
    code = main([manifest, "--nodes", cluster, "-o", "json", "--no-suggestions"], env=env)
    (placement,) = json.loads(env.out)["placements"]
    return code, placement


def test_a_parallel_statefulsets_copy_is_placed_though_the_one_before_does_not_fit(tmp_path):
    manifest, cluster = files(tmp_path, PARALLEL)
    code, placement = explained(manifest, cluster)
    assert code == 1
    assert (placement["podManagementPolicy"], placement["replicas"], placement["fit"]) == ("Parallel", 2, 1)
    assert [(p["name"], p["node"]) for p in placement["pods"]] == [("db-0", None), ("db-1", "a1")]
    assert "notCreatedPods" not in placement
    (finding,) = lint(LintOptions((manifest,), (cluster,))).findings
    assert finding.rule == "replicas"
    assert finding.message.startswith(f"fits only 1 of 2 replicas (a1); replica db-0: {AFFINITY}")


def test_an_ordered_ready_statefulset_stops_at_the_first_copy_that_does_not_fit(tmp_path):
    manifest, cluster = files(tmp_path, "")
    code, placement = explained(manifest, cluster)
    assert code == 1
    assert (placement["podManagementPolicy"], placement["replicas"], placement["fit"]) == ("OrderedReady", 2, 0)
    assert [(p["name"], p["node"]) for p in placement["pods"]] == [("db-0", None)]      # db-1 is never created
    assert placement["notCreatedPods"] == {"pods": ["db-1"], "message": (
        "with podManagementPolicy OrderedReady (the default) the StatefulSet's controller creates each pod only "
        "once the one before it is Running and Ready, and db-0 is pending")}
    (finding,) = lint(LintOptions((manifest,), (cluster,))).findings
    assert finding.rule == "unschedulable" and finding.message.startswith(f"none of the 2 replicas fits: {AFFINITY}")


@pytest.mark.parametrize("spec, apart", [
    ({"podManagementPolicy": "Parallel", "volumeClaimTemplates": [{"metadata": {"name": "d"}}]}, True),
    ({"podManagementPolicy": "OrderedReady", "volumeClaimTemplates": [{"metadata": {"name": "d"}}]}, False),
    ({"volumeClaimTemplates": [{"metadata": {"name": "d"}}]}, False),        # OrderedReady, the default
    ({"podManagementPolicy": "Parallel"}, False),       # alike copies: the next would not fit either
])
def test_which_copies_are_placed_each_on_its_own(spec, apart):
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"}, "spec": spec}
    assert Copies("db", statefulset=sts).each_on_its_own is apart
    assert Copies("web").each_on_its_own is False
