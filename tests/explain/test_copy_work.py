"""A copy's work is what the bind before it changed: counted, not timed.

Placing a workload's copies one after another, each copy after the first must not count the
cluster's pods again (the counts of the incoming pod's own terms, of the existing pods' terms and
of spread selectors are patched by each bind), and node-local plugins must not judge a node
again unless the bind changed it (the NodeInfo of the node bound to). Measured on the
benchmark generator's `wide` cluster (preferences and spread over label groups many pods share),
with percentageOfNodesToScore 100 so that every copy filters every node.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest

from kexplain.explain.carryover import Carryover
from kexplain.explain.inputs import load
from kexplain.explain.placement import iter_placements
from kexplain.explain.request import Request, RunOptions
from kexplain.model import pod_index
from kexplain.plugins import inter_pod_affinity as ipa
from kexplain.plugins.node_affinity import NodeAffinity
from kexplain.plugins.node_resources_fit import NodeResourcesFit
from kexplain.plugins.taint_toleration import TaintToleration
from tests.support.generated import generated_cluster

COPIES = 6


@pytest.fixture(scope="module")
def wide(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return generated_cluster(tmp_path_factory.mktemp("wide"), "wide", nodes=40)


class Counter:
    """Calls and nodes seen by wrapped functions, per copy."""

    def __init__(self) -> None:
        self.copies: list[dict[str, int]] = [{}]

    def add(self, what: str, n: int = 1) -> None:
        self.copies[-1][what] = self.copies[-1].get(what, 0) + n

    def wrap(self, monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, nodes_arg: int | None = None) -> None:
        original: Callable[..., Any] = getattr(owner, name)
        label = f"{getattr(owner, '__name__', owner)}.{name}"

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.add(label, len(args[nodes_arg]) if nodes_arg is not None else 1)
            return original(*args, **kwargs)
        monkeypatch.setattr(owner, name, counted)


@pytest.mark.parametrize("role", ["pod", "pod-plain"])
def test_after_the_first_copy_only_the_bound_node_is_judged_again(wide: dict[str, Path], role: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    count = Counter()
    # node-local plugins: (self, state, pod, nodes)
    for cls, name in ((NodeResourcesFit, "filter_nodes"), (NodeResourcesFit, "score_nodes"),
                      (TaintToleration, "filter_nodes"), (NodeAffinity, "filter_nodes")):
        count.wrap(monkeypatch, cls, name, nodes_arg=3)
    # counting bound pods from scratch
    for name in ("matches_per_node", "count_per_node"):
        count.wrap(monkeypatch, pod_index.PodIndex, name)
    for cls in (ipa.IncomingCounts, ipa.ExistingAnti, ipa.Scores):
        count.wrap(monkeypatch, cls, "build")

    req = Request(str(wide[role]), (str(wide["json"]),), config_path=str(wide["config-100"]))
    inputs = load(req).single
    assert inputs is not None
    nodes = len(inputs.snapshot.node_infos)
    placed = []
    for placement in iter_placements(inputs, RunOptions(), COPIES, carry=Carryover()):
        placed.append(placement.node)
        count.copies.append({})
    assert len(placed) == COPIES and None not in placed
    first, later = count.copies[0], count.copies[1:COPIES]
    assert first["NodeResourcesFit.filter_nodes"] == nodes          # the first copy judges every node
    assert first.get("Scores.build")                 # its own or the existing pods' terms over the groups
    if role == "pod":
        assert first.get("PodIndex.matches_per_node") and first.get("PodIndex.count_per_node")
        assert first.get("IncomingCounts.build")
    for i, work in enumerate(later, start=1):
        # the one node whose NodeInfo the bind replaced, nothing else
        assert work.get("NodeResourcesFit.filter_nodes", 0) <= 1, (i, work)
        assert work.get("TaintToleration.filter_nodes", 0) <= 1, (i, work)
        assert work.get("NodeAffinity.filter_nodes", 0) <= 1, (i, work)
        assert work.get("NodeResourcesFit.score_nodes", 0) <= 1, (i, work)
        # no pod of the cluster counted again: every count was patched by the bind
        assert not any(k.startswith(("PodIndex.", "IncomingCounts.", "ExistingAnti.", "Scores."))
                       for k in work), (i, work)
