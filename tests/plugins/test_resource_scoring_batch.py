"""Scoring many nodes at once (`ResourceAllocationScorer.score_nodes`) gives each node's `score`, BalancedAllocation's
change scorer (1.36) included, without a call per node; the two-resource balance is the general one's arithmetic."""
from __future__ import annotations

import itertools

import pytest

from kexplain.framework.cycle_state import CycleState
from kexplain.plugins.resource_allocation import ResourceAllocationScorer, balanced_resource_score

from tests.plugins.test_balanced_allocation import CPU_MEM_EPH, MINORS, SCORE_CASES, plugin
from tests.support.resources_helpers import node_info, pod, used

NODES = [({"cpu": "4", "memory": "8Gi"}, ()), ({"cpu": "4"}, ()), ({"memory": "8Gi"}, ()), ({}, ()),
         ({"cpu": "2", "memory": "8Gi"}, ({"cpu": "1", "memory": "7Gi"},)),
         ({"cpu": "3", "memory": "5Gi"}, ({"cpu": "2500m", "memory": "1Gi"}, {"cpu": "1", "memory": "3Gi"}))]


def _nodes():
    return [node_info(alloc, *(used(r) for r in bound), name=f"n{i}") for i, (alloc, bound) in enumerate(NODES)]


@pytest.mark.parametrize("minor", MINORS)
@pytest.mark.parametrize("args", [None, CPU_MEM_EPH])
@pytest.mark.parametrize("p", [c[2] for c in SCORE_CASES], ids=[c[0] for c in SCORE_CASES])
def test_score_nodes_is_each_nodes_score(args, p, minor):
    pl = plugin(args, minor)
    state = CycleState()
    if not pl.pre_score(state, p, []).is_success:
        return
    nodes = _nodes()
    assert pl.score_nodes(state, p, nodes) == [pl.score(state, p, ni) for ni in nodes]


def test_change_scorer_scores_many_nodes_without_a_call_per_node(monkeypatch):
    pl = plugin(None, "1.36")
    assert pl.scorer.change_scorer is not None
    state = CycleState()
    p = pod({"cpu": "1", "memory": "1Gi"})
    assert pl.pre_score(state, p, []).is_success
    nodes = _nodes()
    want = [pl.score(state, p, ni) for ni in nodes]

    def one_by_one(*_):
        raise AssertionError("scored node by node")
    monkeypatch.setattr(ResourceAllocationScorer, "score", one_by_one)
    assert pl.score_nodes(state, p, nodes) == want


def test_two_resources_balance_is_the_general_arithmetic():
    values = (0, 1, 3, 7, 1000, 2047, 4096, 8191)
    for r0, r1, a0, a1 in itertools.product(values, repeat=4):
        # (a third resource the node lacks takes no part, and sends it down the general path)
        assert balanced_resource_score((r0, r1), (a0, a1)) == balanced_resource_score((r0, r1, 5), (a0, a1, 0))
