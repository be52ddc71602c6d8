"""The bundled fixtures: each renders in every output format and on an 80-column
non-terminal, and says what docs/fixtures.md says it says (the shown outputs of the README and
the docs pages are checked by tests/docs)."""
from __future__ import annotations

import json
import re

import pytest
import yaml

from kexplain.cli.app import main
from tests.support.render_helpers import FIXTURES, ROOT, fixture_paths

FIXTURES_PAGE = (ROOT / "docs" / "fixtures.md").read_text()

# name -> (exit code, what the trace says: the FailedScheduling message's first sentence, or
# the node the pod goes to)
EXPECTED = {
    "dra": (1, "0/3 nodes are available: 3 cannot allocate all claims."),
    "pod-web": (0, "node-2"),
    "pod-too-big": (1, "0/6 nodes are available: 1 node(s) were unschedulable, 2 node(s) had untolerated "
                       "taint(s), 3 Insufficient cpu."),
    "resources": (1, "0/3 nodes are available: 1 Too many pods, 2 Insufficient memory."),
    "taints": (1, "0/4 nodes are available: 1 Insufficient cpu, 3 node(s) had untolerated taint(s)."),
    "node-affinity": (1, "0/4 nodes are available: 1 node(s) were unschedulable, 3 node(s) didn't match Pod's "
                         "node affinity/selector."),
    "pod-affinity": (1, "0/4 nodes are available: 2 node(s) didn't match pod affinity rules, 2 node(s) didn't "
                        "match pod anti-affinity rules."),
    "spread": (1, "0/4 nodes are available: 2 Insufficient cpu, 2 node(s) didn't match pod topology spread "
                  "constraints."),
    "ports": (1, "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't have free ports "
                 "for the requested pod ports."),
    "volume-zone": (1, "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't match "
                       "PersistentVolume's node affinity."),
    "volume-binding": (1, "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't find available "
                          "persistent volumes to bind."),
    "preemption": (1, "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient cpu."),
    # a StatefulSet's claim names a StorageClass the cluster does not have
    "storage-class": (1, "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims."),
    "large-cluster": (0, "node-001"),
    # a StatefulSet of three replicas: two fit; what is said is about the third, db-2
    "statefulset": (1, "0/3 nodes are available: 1 node(s) didn't find available persistent volumes to bind, "
                       "2 Insufficient cpu."),
    # with its node groups (docs/autoscaler.md): CA would add a compute node
    "autoscaler": (1, "0/2 nodes are available: 2 Insufficient cpu."),
    # with its NodePools (docs/karpenter.md): no NodePool declares the label either
    "karpenter": (1, "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector."),
    # where the default version, 1.36, places it (1.35 picks node-3: docs/versions.md)
    "upgrade": (0, "node-1"),
    # a namespace's LimitRange and ResourceQuota: 3 of cart's 4 pods created, the third does not fit
    "admission": (1, "0/2 nodes are available: 2 Insufficient cpu."),
}
FORMATS = ["table", "wide", "json", "yaml"]
# Fixtures of another command, checked by its own tests: fixtures/kueue (kexplain kueue: docs/kueue.md),
# fixtures/lint (kexplain lint's rules: docs/lint.md), fixtures/karpenter-disruption (kexplain karpenter
# --disruption: docs/karpenter.md, tests/karpenter/test_disruption.py), fixtures/reapply (a workload applied
# again onto the cluster that runs it: docs/many-pods.md, tests/explain/test_reapplied.py).
OTHER_COMMANDS = {"kueue", "eviction", "lint", "karpenter-disruption", "volcano", "reapply", "cluster"}


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_every_fixture_is_listed():
    dirs = {p.name for p in FIXTURES.iterdir() if p.is_dir()} - OTHER_COMMANDS
    files = {p.stem for p in FIXTURES.glob("pod-*.yaml")}
    assert dirs | files == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
@pytest.mark.parametrize("fmt", FORMATS)
def test_fixture_renders(capsys, name, fmt):
    pod, cluster = fixture_paths(name)
    code, out, err = run(capsys, str(pod), "--nodes", str(cluster), "-o", fmt)
    want_code, says = EXPECTED[name]
    assert code == want_code, err
    assert err == ""
    if fmt in ("json", "yaml"):
        trace = json.loads(out) if fmt == "json" else yaml.safe_load(out)
        if trace["kind"] == "SchedulingTraceList":     # replicas: the last copy placed says it
            trace = trace["items"][-1]
        assert trace["kind"] == "SchedulingTrace"
        if want_code == 0:
            assert trace["result"]["suggestedHost"] == says
        else:
            assert trace["result"]["message"].startswith(says)
        return
    for line in out.splitlines():          # an 80-column non-terminal: plain text that fits
        assert "\x1b[" not in line
        if not line.startswith("  Warning  FailedScheduling  "):
            assert len(line) <= 80, line
    if want_code == 0:
        assert f"Would be bound to {says} " in out
    else:
        assert f"  Warning  FailedScheduling  default-scheduler  {says}" in out


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_fixtures_page_says_what_the_fixture_says(name):
    """Each fixture has a line in docs/fixtures.md: `fixtures/<name>...`, then in backticks what
    kexplain says."""
    pod, _ = fixture_paths(name)
    path = pod.relative_to(ROOT).as_posix() if pod.name != "pod.yaml" else f"fixtures/{name}/"
    lines = FIXTURES_PAGE.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith(f"- `{path}")), None)
    assert start is not None, f"no docs/fixtures.md line for {path}"
    line = lines[start]
    for more in lines[start + 1:]:          # the bullet's continuation lines
        if not more.startswith("  "):
            break
        line += " " + more.strip()
    _, says = EXPECTED[name]
    quoted = re.findall(r"`([^`]*)`", line)
    assert any(says in q for q in quoted[1:]), line
