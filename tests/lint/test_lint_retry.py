"""lint judges where the scheduling queue's retry leaves the pods (issue 39, item 3): a web tier
whose required pod affinity names a cache applied after it is retried when the cache binds;
the finding, its details and its suggestions are those of the retry (the first attempt's verdict
kept in `details.firstAttempt`), whether the retry placed some of its pods or none."""
from __future__ import annotations

import json
from pathlib import Path

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.copies import copy_names

NODES = "".join(f"""---
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{kubernetes.io/hostname: {name}, topology.kubernetes.io/zone: {zone}}}
status:
  capacity: {{cpu: "4", memory: 16Gi, pods: "110"}}
""" for name, zone in (("aks-pool-0", "westeurope-1"), ("aks-pool-1", "westeurope-2")))


def web(replicas: int, cpu: str) -> str:
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web, namespace: store}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      affinity:
        podAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {{matchLabels: {{app: memcached}}}}
            topologyKey: kubernetes.io/hostname
      containers:
      - name: web
        image: registry.example.com/store/web:3.1
        resources: {{requests: {{cpu: {cpu}, memory: 1Gi}}}}
"""


CACHE = """\
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: memcached, namespace: store}
spec:
  replicas: 1
  serviceName: memcached
  selector: {matchLabels: {app: memcached}}
  template:
    metadata: {labels: {app: memcached}}
    spec:
      containers:
      - name: memcached
        image: memcached:1.6
        resources: {requests: {cpu: 500m, memory: 512Mi}}
"""
TRIGGER = "pod store/memcached-0 bound to aks-pool-0 (InterPodAffinity: Queue)"


def _lint(tmp_path: Path, manifest: str, *args: str) -> tuple[int, dict]:
    (tmp_path / "app.yaml").write_text(manifest)
    (tmp_path / "nodes.yaml").write_text(NODES)
    env = TestEnvironment(width=200)
    code = main(["lint", str(tmp_path / "app.yaml"), "--nodes", str(tmp_path / "nodes.yaml"), "-o", "json", *args],
                env=env)
    return code, json.loads(env.out)


def test_a_retry_that_places_no_pod_is_judged_on_its_own_message(tmp_path: Path) -> None:
    """3800m each: on the retry the cache's node has no room left (Insufficient cpu) and the
    other has no cache. The finding says so, not the first attempt's "2 node(s) didn't match
    pod affinity rules"; its suggestions are the retry's (dropping the affinity opens the
    other node only: the cache's node is full)."""
    code, report = _lint(tmp_path, web(2, "3800m") + "---\n" + CACHE)
    finding = report["findings"][0]
    assert code == 1 and finding["rule"] == "unschedulable"
    assert finding["message"].startswith("none of the 2 replicas fits: 0/2 nodes are available: 1 Insufficient cpu, "
                                         "1 node(s) didn't match pod affinity rules.")
    assert finding["message"].endswith(f"The scheduling queue retried it when {TRIGGER}: still unschedulable.")
    details = finding["details"]
    assert details["message"].startswith("0/2 nodes are available: 1 Insufficient cpu")
    assert [(r["pod"], r["node"]) for r in details["retried"]] == [(copy_names(web(2, "3800m"), 1)[0], None)]
    assert details["firstAttempt"]["message"].startswith(
        "none of the 2 replicas fits: 0/2 nodes are available: 2 node(s) didn't match pod affinity rules.")
    assert not any("opens 2 nodes" in s for s in finding["suggestions"])
    assert any("drop the required pod affinity term #1" in s and "aks-pool-1" in s for s in finding["suggestions"])


def test_a_retry_that_places_some_pods_is_a_replicas_finding(tmp_path: Path) -> None:
    """2 cpu each: the retry places web-0 beside the cache, web-1 no longer fits there: 1 of 3
    (before: "none of the 3 replicas fits", `fit: 0`)."""
    code, report = _lint(tmp_path, web(3, "2") + "---\n" + CACHE)
    finding = report["findings"][0]
    web_0, web_1 = copy_names(web(3, "2"), 2)
    assert code == 1 and finding["rule"] == "replicas"
    assert finding["message"].startswith(f"fits only 1 of 3 replicas (aks-pool-0); replica {web_1}: 0/2 nodes are "
                                         "available: 1 Insufficient cpu, 1 node(s) didn't match pod affinity rules.")
    assert finding["message"].endswith(f"The scheduling queue retried it when {TRIGGER}: {web_0} went to aks-pool-0.")
    assert (finding["details"]["fit"], finding["details"]["nodes"]) == (1, ["aks-pool-0"])
    assert [(r["pod"], r["node"]) for r in finding["details"]["retried"]] == [(web_0, "aks-pool-0"), (web_1, None)]
