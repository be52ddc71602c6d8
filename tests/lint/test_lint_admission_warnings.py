"""The API server's warnings are lint findings (issue 39): a node agent applied to a namespace
whose Pod Security warn level it breaks is admitted, with the warning `kubectl apply` prints;
lint says it as a warning on the DaemonSet (rule admission-warning), so `--fail-on warning`
fails and SARIF carries it. Before: only on stderr and in the report's top-level warnings."""
from __future__ import annotations

import json
from pathlib import Path

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment

NODES = """\
apiVersion: v1
kind: Node
metadata:
  name: worker-1
  labels: {kubernetes.io/hostname: worker-1}
status:
  capacity: {cpu: "8", memory: 32Gi, pods: "110"}
"""
AGENT = """\
apiVersion: v1
kind: Namespace
metadata:
  name: observability
  labels:
    pod-security.kubernetes.io/warn: baseline
    pod-security.kubernetes.io/audit: restricted
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: log-shipper, namespace: observability}
spec:
  selector: {matchLabels: {app: log-shipper}}
  template:
    metadata: {labels: {app: log-shipper}}
    spec:
      hostPID: true
      containers:
      - name: shipper
        image: fluent/fluent-bit:3.1
        volumeMounts: [{name: varlog, mountPath: /var/log}]
      volumes:
      - name: varlog
        hostPath: {path: /var/log}
"""
WARNING = ('Warning: would violate PodSecurity "baseline:latest": host namespaces (hostPID=true), hostPath volumes '
           '(volume "varlog")')


def _lint(tmp_path: Path, *args: str) -> tuple[int, str]:
    (tmp_path / "agent.yaml").write_text(AGENT)
    (tmp_path / "nodes.yaml").write_text(NODES)
    env = TestEnvironment(width=300)
    code = main(["lint", str(tmp_path / "agent.yaml"), "--nodes", str(tmp_path / "nodes.yaml"), *args], env=env)
    return code, env.out


def test_the_warning_is_a_finding_on_the_daemonset(tmp_path: Path) -> None:
    code, out = _lint(tmp_path, "-o", "json", "--fail-on", "warning")
    report = json.loads(out)
    assert code == 1 and report["warnings"] == []
    [warned] = [f for f in report["findings"] if f["rule"] == "admission-warning"]
    assert (warned["severity"], warned["object"]["kind"], warned["object"]["name"], warned["message"]) == (
        "warning", "DaemonSet", "log-shipper", WARNING)
    assert report["summary"]["warnings"] == 1
    code, out = _lint(tmp_path)
    assert code == 0 and f"warning [admission-warning] DaemonSet observability/log-shipper: {WARNING}" in out


def test_sarif_carries_it(tmp_path: Path) -> None:
    code, out = _lint(tmp_path, "-o", "sarif")
    run = json.loads(out)["runs"][0]
    [result] = [r for r in run["results"] if r["ruleId"] == "admission-warning"]
    assert result["level"] == "warning" and WARNING in result["message"]["text"]
    assert "admission-warning" in [r["id"] for r in run["tool"]["driver"]["rules"]]
