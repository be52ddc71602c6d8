"""A closed output pipe (`kexplain ... | head -1`), in a real subprocess whose stdout is a pipe
the test closes after the first line: the run ends quietly with the code of its verdicts when
every one was reached, else 141 (as SIGPIPE), never 1 for pods that all fit."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from kexplain.cli.exit_codes import ExitStatus
from tests.support.paths import FIXTURES

CLUSTER = str(FIXTURES / "cluster.yaml")
NODE = """apiVersion: v1
kind: Node
metadata: {name: node-1, labels: {kubernetes.io/hostname: node-1}}
status:
  capacity: {cpu: "64", memory: 256Gi, pods: "110"}
"""


def deployment(name: str, replicas: int) -> str:
    return f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers:
      - name: c
        image: nginx
        resources: {{requests: {{cpu: 100m}}}}
"""


def head_1(*args: str, lines: int = 1) -> tuple[int, str, str]:
    """`kexplain ARGS | head -1`: the first line, then the pipe closed; (exit code, line, stderr).
    `lines=0`: the pipe closed at once, before kexplain (still loading) writes anything."""
    proc = subprocess.Popen([sys.executable, "-m", "kexplain", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline() if lines else ""
    proc.stdout.close()
    err = proc.stderr.read()
    return proc.wait(timeout=300), first, err


def test_one_pod_that_fits_ends_0(tmp_path: Path):
    code, first, err = head_1(str(FIXTURES / "pod-web.yaml"), "--nodes", CLUSTER)
    assert first.startswith("Pod default/web") and "Scheduled" in first
    assert (code, err) == (ExitStatus.SUCCESS, "")


def test_one_pod_that_does_not_fit_ends_1():
    code, first, err = head_1(str(FIXTURES / "pod-too-big.yaml"), "--nodes", CLUSTER)
    assert "Unschedulable" in first
    assert (code, err) == (ExitStatus.UNSCHEDULABLE, "")


def test_replicas_that_all_fit_never_end_1(tmp_path: Path):
    (tmp_path / "nodes.yaml").write_text(NODE)
    (tmp_path / "web.yaml").write_text(deployment("web", 3))
    for output in ("table", "json"):
        code, first, err = head_1(str(tmp_path / "web.yaml"), "--nodes", str(tmp_path / "nodes.yaml"), "-o", output)
        assert first.strip()
        assert err == ""
        # the table's heading comes once every copy is placed: the verdict, 0; json streams each
        # copy's trace as it comes: 0 when the last copy was placed before the pipe closed, else 141
        assert code in ((ExitStatus.SUCCESS,) if output == "table" else (ExitStatus.SUCCESS, ExitStatus.CLOSED_PIPE))


def test_a_batch_cut_short_ends_141(tmp_path: Path):
    (tmp_path / "nodes.yaml").write_text(NODE)
    (tmp_path / "apps.yaml").write_text("---\n".join(deployment(f"app-{i}", 1) for i in range(40)))
    code, first, err = head_1(str(tmp_path / "apps.yaml"), "--nodes", str(tmp_path / "nodes.yaml"))
    assert first.startswith("=== Deployment default/app-0")
    assert (code, err) == (ExitStatus.CLOSED_PIPE, "") and code == 141


def test_lint_ends_with_its_report_code(tmp_path: Path):
    (tmp_path / "nodes.yaml").write_text(NODE)
    (tmp_path / "apps.yaml").write_text("---\n".join(deployment(f"app-{i}", 1) for i in range(40)))
    for fmt in ("text", "json"):
        code, _, err = head_1("lint", "-v", "-o", fmt, str(tmp_path / "apps.yaml"), "--nodes",
                              str(tmp_path / "nodes.yaml"), lines=0)
        assert (code, err) == (ExitStatus.SUCCESS, "")
    (tmp_path / "big.yaml").write_text(deployment("big", 1).replace("cpu: 100m", "cpu: 100"))
    code, _, err = head_1("lint", str(tmp_path / "big.yaml"), "--nodes", str(tmp_path / "nodes.yaml"), lines=0)
    assert (code, err) == (ExitStatus.FINDINGS, "")
