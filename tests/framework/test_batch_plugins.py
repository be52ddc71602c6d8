"""A plugin's own batch methods (`filter_nodes`, `score_nodes`) must say exactly what its
per-node `filter`/`score` says, node for node: the runner always calls the batch.
The conformance cases serve as the corpus (every plugin, many shapes of cluster and pod)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.conformance_support import cases_under, request_for
from kexplain.errors import FrameworkError, KexplainError
from kexplain.explain.inputs import load_inputs
from kexplain.explain.run import framework_for
from kexplain.framework.cycle_state import CycleState
from kexplain.framework.interface import FilterPlugin, ScorePlugin
from kexplain.framework.status import Code
from tests.support.paths import conformance_roots

CASES = [case for root in conformance_roots() for case in cases_under(root)]


def _as_tuple(status) -> tuple:
    return status.code, tuple(status.reasons)


def _check_case(case: Path) -> int:
    """Compare batch and per-node answers for one case; how many plugin runs were compared."""
    req = request_for(case)
    try:
        inputs = load_inputs(req)
        fw = framework_for(inputs, req)
    except KexplainError:
        return 0
    pod, nodes = inputs.pod, list(fw.snapshot.node_infos)
    state = CycleState()
    pre = fw.run_pre_filter(state, pod)
    if not pre.status.is_success:
        return 0
    compared = 0
    feasible = nodes
    for pl in fw.filter_plugins:
        if pl.name in state.skip_filter_plugins:
            continue
        one = [_as_tuple(pl.filter(state, pod, ni)) for ni in nodes]
        if type(pl).filter_nodes is not FilterPlugin.filter_nodes:     # the plugin has its own batch
            assert [_as_tuple(s) for s in pl.filter_nodes(state, pod, nodes)] == one, (case.name, pl.name)
            compared += 1
        feasible = [ni for ni, (code, _) in zip(nodes, one) if code is Code.SUCCESS and ni in feasible]
    # the runner's own batch: verdicts as the node-by-node runner gives them
    batch = fw.run_filter_nodes(state, pod, nodes, every=True)
    assert [_as_tuple(s) for s in batch.verdicts] == \
        [_as_tuple(fw.run_filter_plugins_with_nominated_pods(state, pod, ni)) for ni in nodes], case.name
    assert [_as_tuple(s) for s in fw.run_filter_nodes(state, pod, nodes).verdicts] == \
        [_as_tuple(s) for s in batch.verdicts], case.name
    if len(feasible) < 2 or not fw.score_plugins:
        return compared
    if not fw.run_pre_score(state, pod, feasible).is_success:
        return compared
    for pl in fw.score_plugins:
        if pl.name in state.skip_score_plugins or type(pl).score_nodes is ScorePlugin.score_nodes:
            continue
        assert _outcome(lambda: pl.score_nodes(state, pod, feasible)) == \
            _outcome(lambda: [int(pl.score(state, pod, ni)) for ni in feasible]), (case.name, pl.name)
        compared += 1
    return compared


def _outcome(run) -> object:
    """What a run answers, or the error it raises (a plugin's error ends the cycle either way)."""
    try:
        return run()
    except FrameworkError as err:
        return ("error", str(err))


def _chunks(items: list[Path], n: int) -> list[list[Path]]:
    return [items[i::n] for i in range(n)]


@pytest.mark.parametrize("chunk", _chunks(CASES, 16), ids=lambda c: f"{len(c)}-cases")
def test_batch_methods_agree_with_per_node(chunk: list[Path]) -> None:
    assert sum(_check_case(case) for case in chunk) > 0
