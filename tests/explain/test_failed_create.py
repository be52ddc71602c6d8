"""A workload the API server admits but whose controller's creates it refuses (issue 39): a
ResourceQuota that is full, Pod Security's enforce level, a LimitRange's bounds. The workload is
explained as what it is: its entry, how many of its pods were created (maybe none) of how many
it wants, and its controller's FailedCreate event, in the section, `-o json` and lint; exit code
1 (its pods do not all run), never the exit code 2 of bad input."""
from __future__ import annotations

import json
from pathlib import Path

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.copies import copy_names

NODES = """\
apiVersion: v1
kind: Node
metadata:
  name: gke-pool-1-a
  labels: {kubernetes.io/hostname: gke-pool-1-a, topology.kubernetes.io/zone: europe-west1-b}
status:
  capacity: {cpu: "4", memory: 16Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata:
  name: gke-pool-1-b
  labels: {kubernetes.io/hostname: gke-pool-1-b, topology.kubernetes.io/zone: europe-west1-c}
status:
  capacity: {cpu: "4", memory: 16Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: checkout-legacy, namespace: shop}
spec:
  nodeName: gke-pool-1-a
  containers: [{name: checkout, image: checkout:1.0}]
status: {phase: Running}
"""


def quota(pods: int, extra: str = "") -> str:
    return f"""\
apiVersion: v1
kind: ResourceQuota
metadata: {{name: shop-quota, namespace: shop}}
spec:
  hard: {{pods: "{pods}"{extra}}}
"""


def deployment(name: str = "cart", replicas: int = 2, spec: str = "") -> str:
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: shop}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:{spec}
      containers:
      - name: {name}
        image: registry.example.com/shop/{name}:2.4.0
        resources: {{requests: {{cpu: 250m, memory: 256Mi}}}}
"""


JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: reindex, namespace: shop}
spec:
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers: [{name: reindex, image: registry.example.com/shop/reindex:2.4.0}]
"""
RC = """\
apiVersion: v1
kind: ReplicationController
metadata: {name: legacy-web, namespace: shop}
spec:
  replicas: 1
  selector: {app: legacy-web}
  template:
    metadata: {labels: {app: legacy-web}}
    spec:
      containers: [{name: web, image: registry.example.com/shop/legacy-web:0.9}]
"""


def _run(tmp_path: Path, *docs: str, args: tuple[str, ...] = (), lint: bool = False) -> tuple[int, str, str]:
    (tmp_path / "app.yaml").write_text("---\n".join(docs))
    (tmp_path / "nodes.yaml").write_text(NODES)
    env = TestEnvironment(width=300)
    argv = [str(tmp_path / "app.yaml"), "--nodes", str(tmp_path / "nodes.yaml"), *args]
    code = main(["lint", *argv] if lint else argv, env=env)
    return code, env.out, env.err


CART_0 = copy_names(deployment(), 1)[0]         # cart-<pod-template-hash>-<5 characters>
FULL = (f'Error creating: pods "{CART_0}" is forbidden: exceeded quota: shop-quota, requested: pods=1, used: '
        'pods=1, limited: pods=1')


def test_a_full_quota_leaves_the_deployment_without_pods(tmp_path: Path) -> None:
    """The namespace's one pod runs already: the ReplicaSet controller's first create is
    refused, so no pod of the Deployment exists. Its entry says so (before: exit 2, nothing on
    stdout, `placements: []`)."""
    code, out, err = _run(tmp_path, quota(1), deployment(), args=("-o", "json"))
    assert code == 1 and "error:" not in err
    doc = json.loads(out)
    assert doc["items"] == []
    assert doc["placements"] == [{"object": {"kind": "Deployment", "namespace": "shop", "name": "cart"},
                                  "priority": 0, "replicas": 2, "fit": 0, "nodes": {}, "created": 0,
                                  "failedCreate": FULL, "pods": []}]
    code, out, err = _run(tmp_path, quota(1), deployment())
    assert code == 1 and err == ""
    assert out.splitlines() == ["=== Deployment shop/cart (priority 0): 0 of 2 replicas fit",
                                f"0 of 2 pods created (FailedCreate: {FULL})"]


def test_one_replica_refused_is_explained_too(tmp_path: Path) -> None:
    """A one-replica Deployment (explained on its own when it runs) whose pod is refused."""
    code, out, _ = _run(tmp_path, quota(1), deployment(replicas=1))
    assert code == 1
    assert f"0 of 1 pods created (FailedCreate: {FULL})" in out


def test_lint_names_the_workload_once(tmp_path: Path) -> None:
    code, out, _ = _run(tmp_path, quota(1), deployment(), args=("-o", "json"), lint=True)
    [finding] = [f for f in json.loads(out)["findings"] if f["rule"] != "fits"]
    assert code == 1 and finding["rule"] == "admission"
    assert finding["message"] == f"replicaset-controller creates 0 of 2 pods: FailedCreate: {FULL}"
    assert finding["details"] == {"replicas": 2, "created": 0, "failedCreate": FULL, "fit": 0, "nodes": []}


def test_a_job_and_a_replication_controller(tmp_path: Path) -> None:
    """Every controller stops at its first refused create: the Job's (the quota's two pods are
    the Deployment's) and the ReplicationController's, each in its own words."""
    code, out, err = _run(tmp_path, quota(3), deployment(), JOB, RC, args=("-o", "json"))
    assert code == 1 and "error:" not in err
    placements = {p["object"]["name"]: p for p in json.loads(out)["placements"]}
    assert [(p["replicas"], p.get("created"), p["fit"]) for p in placements.values()] == [
        (2, None, 2), (2, 0, 0), (1, 0, 0)]
    assert placements["reindex"]["failedCreate"] == (
        f'Error creating: pods "{copy_names(JOB, 1)[0]}" is forbidden: exceeded quota: shop-quota, requested: '
        'pods=1, used: pods=3, limited: pods=3')
    code, out, _ = _run(tmp_path, quota(3), deployment(), JOB, RC, lint=True)
    assert "Job shop/reindex: job-controller creates 0 of 2 pods: FailedCreate: Error creating:" in out
    assert "ReplicationController shop/legacy-web: replication-controller creates 0 of 1 pods: FailedCreate:" in out


def test_a_partial_create_is_said_in_the_section(tmp_path: Path) -> None:
    """Two pods left of the quota for a Deployment of three: the section says "2 of 3 pods
    created" with the FailedCreate (before: only on stderr, "2 of 2 replicas fit", JSON
    `replicas: 2`); `-o json` keeps the replicas asked, the pods created beside them."""
    code, out, err = _run(tmp_path, quota(3), deployment(replicas=3), args=("--no-suggestions",))
    event = (f'Error creating: pods "{copy_names(deployment(replicas=3), 3)[2]}" is forbidden: exceeded quota: '
             'shop-quota, requested: pods=1, used: pods=3, limited: pods=3')
    assert code == 1 and err == ""
    assert out.startswith("=== Deployment shop/cart (priority 0): 2 of 3 replicas fit\n"
                          f"2 of 3 pods created (FailedCreate: {event})\n")
    code, out, _ = _run(tmp_path, quota(3), deployment(replicas=3), args=("-o", "json"))
    [p] = json.loads(out)["placements"]
    assert (p["replicas"], p["created"], p["fit"], p["failedCreate"]) == (3, 2, 2, event)
    code, out, _ = _run(tmp_path, quota(3), deployment(replicas=3), args=("-o", "json"), lint=True)
    findings = json.loads(out)["findings"]
    assert [(f["rule"], f["message"].split(":")[0]) for f in findings] == [
        ("admission", "replicaset-controller creates 2 of 3 pods"), ("fits", "the 2 pods created (of 3 replicas) fit")]
    assert findings[1]["details"]["replicas"] == 3 and findings[1]["details"]["created"] == 2


PRIVILEGED_NS = """\
apiVersion: v1
kind: Namespace
metadata:
  name: shop
  labels:
    pod-security.kubernetes.io/enforce: baseline
    pod-security.kubernetes.io/enforce-version: v1.30
"""


def test_pod_security_refuses_the_pods_not_the_deployment(tmp_path: Path) -> None:
    spec = "\n      hostNetwork: true"
    code, out, err = _run(tmp_path, PRIVILEGED_NS, deployment(name="node-agent", spec=spec), args=("-o", "json"))
    assert code == 1 and "error:" not in err
    [p] = json.loads(out)["placements"]
    assert "priority" not in p           # its pod was refused before it was stored: not known
    first = copy_names(deployment(name="node-agent", spec=spec), 1)[0]
    assert (p["replicas"], p["created"], p["failedCreate"]) == (
        2, 0, f'Error creating: pods "{first}" is forbidden: violates PodSecurity "baseline:v1.30": host '
              'namespaces (hostNetwork=true)')
    code, out, _ = _run(tmp_path, PRIVILEGED_NS, deployment(name="node-agent", spec=spec))
    assert out.startswith("=== Deployment shop/node-agent: 0 of 2 replicas fit\n0 of 2 pods created (FailedCreate: ")


def test_versions_compared_do_not_differ_by_the_refused_pods_name(tmp_path: Path) -> None:
    """A Deployment's pods are named after its pod-template-hash, which each version computes:
    the same FailedCreate under 1.35 and 1.36 is no version-change (lint), and explain's
    --compare-versions says the refusal once, as for any input refused alike."""
    code, out, _ = _run(tmp_path, quota(1), deployment(), args=("--compare-versions", "1.35,1.36"), lint=True)
    assert code == 1 and "version-change" not in out and "[admission]" in out
    code, out, err = _run(tmp_path, quota(1), deployment(), args=("--compare-versions", "1.35,1.36"))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "replicaset-controller creates 0 of 1 pods: FailedCreate: Error creating: pods " in err
