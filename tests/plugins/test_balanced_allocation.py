"""NodeResourcesBalancedAllocation against kube-scheduler v1.35.4 and v1.36.3: PreScore Skip, the
score (1.35: the balance with the pod; 1.36: 50 + (50 + with - without) / 2, Go's integer
division, how the pod changes the balance)."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from kexplain.framework.cycle_state import CycleState
from kexplain.framework.interface import PreFilterExtensions, ScoreExtensions
from kexplain.features import KubeVersion
from kexplain.framework.status import Code
from kexplain.plugins import plugin_class
from kexplain.plugins.balanced_allocation import NodeResourcesBalancedAllocation
from kexplain.plugins.resource_allocation import balanced_resource_score

from tests.support.resources_helpers import node_info, pod, used

CPU_MEM_GPU = {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
                             {"name": "example.com/gpu", "weight": 1}]}
CPU_MEM_EPH = {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
                             {"name": "ephemeral-storage", "weight": 1}]}


def test_registry_and_extension_points():
    assert plugin_class("NodeResourcesBalancedAllocation") is NodeResourcesBalancedAllocation
    assert NodeResourcesBalancedAllocation.extension_points == {"preScore", "score"}
    assert not issubclass(NodeResourcesBalancedAllocation, PreFilterExtensions)
    assert not issubclass(NodeResourcesBalancedAllocation, ScoreExtensions)


PRE_SCORE_CASES = [
    ("no-requests", None, pod(None), Code.SKIP),
    ("two-empty-containers", None, pod(None, {}), Code.SKIP),
    ("explicit-zero", None, pod({"cpu": "0", "memory": "0"}), Code.SKIP),
    # only resources outside the configured list: still best effort for this plugin
    ("only-unconfigured-extended", None, pod({"example.com/gpu": "1"}), Code.SKIP),
    ("only-unconfigured-ephemeral", None, pod({"ephemeral-storage": "1Gi"}), Code.SKIP),
    ("configured-extended", CPU_MEM_GPU, pod({"example.com/gpu": "1"}), Code.SUCCESS),
    ("memory-only", None, pod({"memory": "1Gi"}), Code.SUCCESS),
    ("overhead-only", None, pod(None, overhead={"cpu": "100m"}), Code.SUCCESS),
    ("pod-level-only", None, pod(None, pod_level={"memory": "1Gi"}), Code.SUCCESS),
]


@pytest.mark.parametrize("args,p,code", [c[1:] for c in PRE_SCORE_CASES], ids=[c[0] for c in PRE_SCORE_CASES])
def test_pre_score_skips_best_effort_pods(args, p, code):
    pl = NodeResourcesBalancedAllocation(args, None)
    state = CycleState()
    assert pl.pre_score(state, p, []).code is code
    assert ("PreScoreNodeResourcesBalancedAllocation" in state) is (code is Code.SUCCESS)


N4 = {"cpu": "4", "memory": "8Gi", "pods": "110"}
MINORS = ("1.35", "1.36")


def plugin(args, minor: str | None) -> NodeResourcesBalancedAllocation:
    """The plugin as `minor`'s scheduler runs it (None: the default version)."""
    return NodeResourcesBalancedAllocation(args, SimpleNamespace(kube=KubeVersion(minor)) if minor else None)

SCORE_CASES = [
    # id, args, pod, bound pods, allocatable, expected {1.35, 1.36}; "with" and "without": the
    # balance with the pod and without it (1.36's score: 50 + (50 + with - without) / 2)
    # with: cpu 2/4 = 0.5, memory 2/8 = 0.25: std = 0.125 -> int(87.5) = 87;
    # without: 0.25, 0.125 -> 93; 50 + 44 / 2 = 72
    ("two-resources", None, pod({"cpu": "1", "memory": "1Gi"}), [used({"cpu": "1", "memory": "1Gi"})], N4, (87, 72)),
    # with 100, without 100: 50 + 50 / 2 = 75
    ("equal-fractions", None, pod({"cpu": "1", "memory": "2Gi"}), [used({"cpu": "1", "memory": "2Gi"})], N4,
     (100, 75)),
    # real requests, no defaults: cpu 1/4 = 0.25, memory 0 -> 87 (with the 100m/200Mi defaults it would be 88);
    # without: nothing used, 100; 50 + 37 / 2 = 68
    ("no-default-requests", None, pod({"cpu": "1"}), [used(None)], N4, (87, 68)),
    # a fraction above 1 counts as 1: cpu 1.0, memory 0.5 -> std 0.25 -> 75; without 100: 50 + 25 / 2 = 62
    ("fraction-capped", None, pod({"cpu": "3", "memory": "4Gi"}), [], {"cpu": "2", "memory": "8Gi"}, (75, 62)),
    # three resources 0.2, 0.4, 0.6: std = sqrt(0.08/3) = 0.1633 -> 83; without 100: 50 + 33 / 2 = 66
    ("three-resources", CPU_MEM_EPH, pod({"cpu": "1", "memory": "4Gi", "ephemeral-storage": "6Gi"}), [],
     {"cpu": "5", "memory": "10Gi", "ephemeral-storage": "10Gi"}, (83, 66)),
    # memory allocatable 0: only cpu is left, one fraction is perfectly balanced (with and without)
    ("zero-allocatable-ignored", None, pod({"cpu": "1", "memory": "1Gi"}), [], {"cpu": "4"}, (100, 75)),
    # extended: 0.25, 0.25, 0.5 -> std = sqrt(1/72) = 0.1179 -> 88; without: 0, 0, 0.25 -> the same
    # deviation, 88: 50 + 50 / 2 = 75
    ("extended", CPU_MEM_GPU, pod({"cpu": "1", "memory": "1Gi", "example.com/gpu": "1"}),
     [used({"example.com/gpu": "1"})], {"cpu": "4", "memory": "4Gi", "example.com/gpu": "4"}, (88, 75)),
    # node without the extended resource: cpu and memory only -> 100 (without: 100)
    ("extended-node-lacks", CPU_MEM_GPU, pod({"cpu": "1", "memory": "1Gi", "example.com/gpu": "1"}), [],
     {"cpu": "4", "memory": "4Gi"}, (100, 75)),
    # pod not requesting the extended resource: skipped even where the node uses it (without: 100)
    ("extended-not-requested", CPU_MEM_GPU, pod({"cpu": "1", "memory": "1Gi"}), [used({"example.com/gpu": "3"})],
     {"cpu": "4", "memory": "4Gi", "example.com/gpu": "4"}, (100, 75)),
    # bound pods' overhead counts: cpu (1+1+0.5)/5 = 0.5, memory 2/8 = 0.25 -> 87;
    # without: cpu 1.5/5 = 0.3, memory 0.125 -> std 0.0875 -> 91; 50 + 46 / 2 = 73
    ("overhead", None, pod({"cpu": "1", "memory": "1Gi"}),
     [pod({"cpu": "1", "memory": "1Gi"}, overhead={"cpu": "500m"}, node_name="n1")],
     {"cpu": "5", "memory": "8Gi"}, (87, 73)),
]


@pytest.mark.parametrize("minor", MINORS)
@pytest.mark.parametrize("args,p,bound,alloc,want", [c[1:] for c in SCORE_CASES], ids=[c[0] for c in SCORE_CASES])
def test_score(args, p, bound, alloc, want, minor):
    pl = plugin(args, minor)
    state = CycleState()
    assert pl.pre_score(state, p, []).is_success
    assert pl.score(state, p, node_info(alloc, *bound)) == want[MINORS.index(minor)]


@pytest.mark.parametrize(("minor", "want"), [("1.35", 87), ("1.36", 72), (None, 72)])
def test_score_without_pre_score_state(minor, want):
    """As "two-resources" above; without a version, the default's (1.36) score."""
    pl = plugin(None, minor)
    ni = node_info(N4, used({"cpu": "1", "memory": "1Gi"}))
    assert pl.score(CycleState(), pod(None), ni) == 0
    assert pl.score(CycleState(), pod({"cpu": "1", "memory": "1Gi"}), ni) == want


@pytest.mark.parametrize("requested,allocatable,want", [
    ((), (), 100),
    ((1, 0), (2, 0), 100),
    ((1, 1), (2, 4), 87),
    ((9, 1), (10, 10), 60),
    ((1, 2, 3), (10, 10, 10), 91),   # 0.1, 0.2, 0.3: std 0.0816 -> 91
])
def test_balanced_resource_score(requested, allocatable, want):
    assert balanced_resource_score(requested, allocatable) == want
