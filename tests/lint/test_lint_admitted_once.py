"""`kexplain lint --nodes` with an autoscaler's pass (rule no-node-group with --node-groups,
no-nodepool with NodePools among the objects) admits the cluster once: the pass reads the
linter's one cluster state (`GroupsRequest.state`, `NodePoolsRequest.state`), never the --nodes
objects read and admitted again. Counted as tests/autoscaler/test_admitted_once.py counts them:
the calls of admission (`admission.admit`) and of kubectl's checks (`load.manifests.check_objects`)
handed the cluster's Nodes."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import kexplain.autoscaler.pending  # noqa: F401  (every reader of the cluster loaded: their names patched)
import kexplain.karpenter.pending  # noqa: F401
import kexplain.lint.linter  # noqa: F401
import kexplain.state.cluster  # noqa: F401
from kexplain.admission import pipeline
from kexplain.cli.app import main
from kexplain.load import manifests
from tests.lint.test_lint_node_groups import OBJECTS      # a Pod and workloads no node group takes
from tests.support.admissions import counting
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

CA = FIXTURES / "autoscaler"
KARPENTER = FIXTURES / "karpenter"
CASES = {
    "node-groups": (["--nodes", str(CA / "cluster.yaml"), "--node-groups",
                     str(CA / "nodegroups.yaml"), "--kubernetes-version", "1.35"], "no-node-group"),
    "node-pools": ([str(KARPENTER / "pod.yaml"), str(KARPENTER / "trainer-untolerating.yaml"), "--nodes",
                    str(KARPENTER / "cluster.yaml"), "--nodes", str(KARPENTER / "nodepools.yaml")], "no-nodepool"),
}



@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
@pytest.mark.parametrize("counted", [(pipeline, "admit"), (manifests, "check_objects")],
                         ids=["admit", "check_objects"])
def test_the_cluster_is_admitted_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: tuple[list[str], str],
                                      counted: tuple[Any, str]) -> None:
    args, rule = case
    if rule == "no-node-group":
        (tmp_path / "objects.yaml").write_text(OBJECTS)
        args = [str(tmp_path / "objects.yaml"), *args]
    module, name = counted
    calls = counting(monkeypatch, getattr(module, name), name)
    env = TestEnvironment(width=200)
    code = main(["lint", *args, "-o", "json"], env=env)
    assert code in (0, 1), env.err
    assert any(f["rule"] == rule for f in json.loads(env.out)["findings"])     # the autoscaler's pass ran
    assert len(calls) == 1, calls
