"""The cluster is checked and admitted once: `kexplain POD --node-groups` reads it into a cluster
state (`kexplain.state.ClusterState`) for the scheduler, and CA's loop reads that state
(`inputs.loop_of_state`), its overlays copy-on-write, instead of checking and admitting the
cluster's objects again. Counted: how many calls of admission (`admission.admit`) and of
kubectl's checks (`load.manifests.check_objects`) are handed the cluster's Nodes."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable

import pytest

import kexplain.autoscaler.pending  # noqa: F401  (every reader of the cluster loaded: their names patched)
import kexplain.cli.explain  # noqa: F401
import kexplain.explain.inputs  # noqa: F401
import kexplain.state.cluster  # noqa: F401
from kexplain.admission import pipeline
from kexplain.cli.app import main
from kexplain.load import manifests
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import DATA, FIXTURES

CASE = FIXTURES / "autoscaler"
DEPLOYMENT = (DATA / "autoscaler" / "worker-deployment.yaml").read_text()   # 3 replicas: a batch
TWO_PODS = (CASE / "pod.yaml").read_text() + "\n---\n" + (CASE / "pod.yaml").read_text().replace(
    "name: ", "name: second-", 1)


def _counting(monkeypatch: pytest.MonkeyPatch, original: Callable[..., Any], name: str) -> list[int]:
    """Every module's `name` that is `original`, wrapped to count the calls handed a Node of
    the cluster (their number, one entry per such call)."""
    calls: list[int] = []

    def counted(objs: Any, *args: Any, **kw: Any) -> Any:
        objs = list(objs)
        nodes = sum(1 for o, _ in objs if o.get("kind") == "Node")
        if nodes:
            calls.append(nodes)
        return original(objs, *args, **kw)

    for module in list(sys.modules.values()):
        if module is not None and getattr(module, name, None) is original:
            monkeypatch.setattr(module, name, counted)
    return calls


@pytest.mark.parametrize("pods", [DEPLOYMENT, TWO_PODS], ids=["deployment", "two-pods"])
@pytest.mark.parametrize("counted", [(pipeline, "admit"), (manifests, "check_objects")],
                         ids=["admit", "check_objects"])
def test_the_cluster_is_admitted_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pods: str,
                                      counted: tuple[Any, str]) -> None:
    module, name = counted
    calls = _counting(monkeypatch, getattr(module, name), name)
    path = tmp_path / "pods.yaml"
    path.write_text(pods)
    env = TestEnvironment(width=100)
    code = main([str(path), "--nodes", str(CASE / "cluster.yaml"), "--node-groups", str(CASE / "nodegroups.yaml"),
                 "--kubernetes-version", "1.35", "--no-suggestions", "-o", "json"], env=env)
    assert code in (0, 1), env.err
    assert '"autoscaler"' in env.out          # CA's loop ran
    assert len(calls) == 1, calls
