"""A Deployment applied with its HorizontalPodAutoscaler (issue 39): the HPA controller raises it
to minReplicas at once, and kexplain explains that many pods. The workload's `placements` entry
(`-o json`) and lint's verdict say which HPA set the count and why (before: only a warning on
stderr, and a JSON that explained 6 pods of a Deployment written without replicas)."""
from __future__ import annotations

import json
from pathlib import Path

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment

NODES = """\
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-1-17.ec2.internal
  labels: {kubernetes.io/hostname: ip-10-0-1-17.ec2.internal, topology.kubernetes.io/zone: us-east-1a}
status:
  capacity: {cpu: "8", memory: 32Gi, pods: "110"}
"""
APP = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: frontend, namespace: web}
spec:
  selector: {matchLabels: {app: frontend}}
  template:
    metadata: {labels: {app: frontend}}
    spec:
      containers:
      - name: frontend
        image: public.ecr.aws/acme/frontend:1.8.2
        resources: {requests: {cpu: 500m, memory: 512Mi}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: frontend-hpa, namespace: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: frontend}
  minReplicas: 6
  maxReplicas: 30
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}
"""
EXPECTED = {"namespace": "web", "name": "frontend-hpa", "from": 1, "to": 6,
            "reason": "Current number of replicas below Spec.MinReplicas",
            "message": "Deployment web/frontend: HorizontalPodAutoscaler web/frontend-hpa sets spec.replicas from 1 "
                       "to 6 at once (SuccessfulRescale: New size: 6; reason: Current number of replicas below "
                       "Spec.MinReplicas); its pods are explained at 6 replicas"}


def _run(tmp_path: Path, *argv: str) -> tuple[int, str]:
    (tmp_path / "app.yaml").write_text(APP)
    (tmp_path / "nodes.yaml").write_text(NODES)
    env = TestEnvironment(width=200)
    paths = [str(tmp_path / "app.yaml"), "--nodes", str(tmp_path / "nodes.yaml")]
    code = main([*argv[:1], *paths, *argv[1:]] if argv[:1] == ("lint",) else [*paths, *argv], env=env)
    return code, env.out


def test_the_placements_entry_names_the_hpa(tmp_path: Path) -> None:
    code, out = _run(tmp_path, "-o", "json")
    [placement] = json.loads(out)["placements"]
    assert code == 0 and placement["replicas"] == 6
    assert placement["horizontalPodAutoscaler"] == EXPECTED


def test_lint_says_it_with_the_verdict(tmp_path: Path) -> None:
    code, out = _run(tmp_path, "lint", "-f", "json")
    [finding] = json.loads(out)["findings"]
    assert code == 0 and finding["rule"] == "fits" and finding["details"]["replicas"] == 6
    assert finding["details"]["horizontalPodAutoscaler"] == EXPECTED
