"""NodeResourcesFit against kube-scheduler v1.35.4: PreFilter, Filter reasons and codes, scoring."""
from __future__ import annotations

from itertools import product
from types import SimpleNamespace

import pytest

from kexplain.framework.cycle_state import CycleState
from kexplain.framework.interface import PreFilterExtensions, ScoreExtensions
from kexplain.features import KubeVersion
from kexplain.framework.status import Code
from kexplain.plugins import plugin_class
from kexplain.plugins.node_resources_fit import PRE_FILTER_STATE_KEY, NodeResourcesFit, insufficient_resources
from kexplain.plugins.resource_allocation import broken_linear, go_div, go_round, scaled_shape

from tests.support.resources_helpers import container, node_info, pod, used

MI = 1024 * 1024
GI = 1024 * MI
U = Code.UNSCHEDULABLE
UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
OK = Code.SUCCESS


def run_filter(p, ni, args=None, minor=None):
    pl = NodeResourcesFit(args, SimpleNamespace(kube=KubeVersion(minor)) if minor else None)
    state = CycleState()
    result, status = pl.pre_filter(state, p, [ni])
    assert result is None and status.is_success
    return pl.filter(state, p, ni)


def run_score(p, nis, args=None):
    pl = NodeResourcesFit(args, None)
    state = CycleState()
    assert pl.pre_score(state, p, nis).is_success
    return [pl.score(state, p, ni) for ni in nis]


def strategy(kind, resources=None, shape=None):
    s = {"type": kind, "resources": resources or [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}
    if shape is not None:
        s["requestedToCapacityRatio"] = {"shape": [{"utilization": u, "score": sc} for u, sc in shape]}
    return {"scoringStrategy": s, "ignoredResources": [], "ignoredResourceGroups": []}


def test_registry_and_extension_points():
    assert plugin_class("NodeResourcesFit") is NodeResourcesFit
    assert NodeResourcesFit.extension_points == {"preFilter", "filter", "preScore", "score"}
    assert not issubclass(NodeResourcesFit, PreFilterExtensions)
    assert not issubclass(NodeResourcesFit, ScoreExtensions)


NODE = {"cpu": "2", "memory": "4Gi", "ephemeral-storage": "10Gi", "pods": "3",
        "example.com/gpu": "2", "hugepages-2Mi": "8Mi"}

FILTER_CASES = [
    # id, pod, bound pods, node allocatable, expected code, reasons
    ("fits", pod({"cpu": "1", "memory": "1Gi"}), [], NODE, OK, ()),
    ("fits-exactly", pod({"cpu": "500m"}), [used({"cpu": "1500m"})], NODE, OK, ()),
    ("cpu-used-by-others", pod({"cpu": "1"}), [used({"cpu": "1500m"})], NODE, U, ("Insufficient cpu",)),
    ("cpu-over-allocatable", pod({"cpu": "3"}), [], NODE, UU, ("Insufficient cpu",)),
    ("cpu-over-allocatable-with-others", pod({"cpu": "2001m"}), [used({"cpu": "1"})], NODE, UU,
     ("Insufficient cpu",)),
    ("memory-used-by-others", pod({"memory": "3Gi"}), [used({"memory": "2Gi"})], NODE, U,
     ("Insufficient memory",)),
    ("memory-over-allocatable", pod({"memory": "5Gi"}), [], NODE, UU, ("Insufficient memory",)),
    ("ephemeral-storage", pod({"ephemeral-storage": "6Gi"}), [used({"ephemeral-storage": "5Gi"})], NODE, U,
     ("Insufficient ephemeral-storage",)),
    # one unresolvable resource makes the whole status unresolvable; order cpu, memory
    ("cpu-whole-memory-others", pod({"cpu": "3", "memory": "3Gi"}), [used({"memory": "2Gi"})], NODE, UU,
     ("Insufficient cpu", "Insufficient memory")),
    ("cpu-others-memory-whole", pod({"cpu": "1", "memory": "5Gi"}), [used({"cpu": "1500m"})], NODE, UU,
     ("Insufficient cpu", "Insufficient memory")),
    ("both-used-by-others", pod({"cpu": "1", "memory": "3Gi"}), [used({"cpu": "1500m", "memory": "2Gi"})],
     NODE, U, ("Insufficient cpu", "Insufficient memory")),
    # the pod count comes first and is never unresolvable by itself
    ("too-many-pods", pod({"cpu": "100m"}), [used(None), used(None), used(None)], NODE, U, ("Too many pods",)),
    ("too-many-pods-no-requests", pod(None), [used(None), used(None), used(None)], NODE, U, ("Too many pods",)),
    ("too-many-pods-and-cpu-whole", pod({"cpu": "3"}), [used(None)] * 3, NODE, UU,
     ("Too many pods", "Insufficient cpu")),
    ("no-pods-allocatable", pod(None), [], {"cpu": "2"}, U, ("Too many pods",)),
    # a pod without requests only needs a pod slot
    ("no-requests-full-node", pod(None), [used({"cpu": "2", "memory": "4Gi"})], NODE, OK, ()),
    ("scalar-used-by-others", pod({"example.com/gpu": "1"}), [used({"example.com/gpu": "2"})], NODE, U,
     ("Insufficient example.com/gpu",)),
    ("scalar-over-allocatable", pod({"example.com/gpu": "3"}), [], NODE, UU,
     ("Insufficient example.com/gpu",)),
    ("scalar-node-lacks", pod({"vendor.io/fpga": "1"}), [], NODE, UU, ("Insufficient vendor.io/fpga",)),
    ("scalar-zero-request", pod({"vendor.io/fpga": "0"}), [], NODE, OK, ()),
    ("hugepages", pod({"hugepages-2Mi": "10Mi"}), [], NODE, UU, ("Insufficient hugepages-2Mi",)),
    ("scalars-sorted-after-native", pod({"zz.io/b": "1", "aa.io/a": "1", "memory": "5Gi"}), [], NODE, UU,
     ("Insufficient memory", "Insufficient aa.io/a", "Insufficient zz.io/b")),
    # sidecars add to everything after them; plain init containers take the max
    ("sidecar-adds", pod({"cpu": "1"}, init=(container({"cpu": "600m"}, restart_policy="Always"),)),
     [used({"cpu": "500m"})], NODE, U, ("Insufficient cpu",)),
    ("init-max", pod({"cpu": "500m"}, init=(container({"cpu": "2500m"}),)), [], NODE, UU, ("Insufficient cpu",)),
    ("init-below-containers", pod({"cpu": "1"}, init=(container({"cpu": "900m"}),)), [used({"cpu": "1"})], NODE,
     OK, ()),
    # overhead is part of the request
    ("overhead", pod({"cpu": "1"}, overhead={"cpu": "250m"}), [used({"cpu": "800m"})], NODE, U,
     ("Insufficient cpu",)),
    # pod-level requests replace the container sum for cpu/memory
    ("pod-level-bigger", pod({"cpu": "100m"}, pod_level={"cpu": "1500m"}), [used({"cpu": "1"})], NODE, U,
     ("Insufficient cpu",)),
    ("pod-level-smaller", pod({"cpu": "100m"}, {"cpu": "100m"}, pod_level={"cpu": "1", "memory": "1Gi"}),
     [used({"cpu": "1"})], NODE, OK, ()),
    # bound pods' overhead counts as used
    ("used-overhead", pod({"cpu": "1"}), [pod({"cpu": "500m"}, overhead={"cpu": "600m"}, node_name="n1")],
     NODE, U, ("Insufficient cpu",)),
]


@pytest.mark.parametrize("p,bound,alloc,code,reasons", [c[1:] for c in FILTER_CASES],
                         ids=[c[0] for c in FILTER_CASES])
def test_filter(p, bound, alloc, code, reasons):
    ni = node_info(alloc, *bound)
    s = run_filter(p, ni)
    assert s.code is code
    assert s.reasons == reasons


@pytest.mark.parametrize("p,bound,alloc,code,reasons", [c[1:] for c in FILTER_CASES],
                         ids=[c[0] for c in FILTER_CASES])
def test_filter_before_1_34_is_never_unresolvable(p, bound, alloc, code, reasons):
    """1.33's Filter says Unschedulable whatever is lacking, even a request bigger than the
    whole allocatable; the reasons are the same."""
    s = run_filter(p, node_info(alloc, *bound), minor="1.33")
    assert s.code is (U if code is UU else code)
    assert s.reasons == reasons


@pytest.mark.parametrize("minor", ["1.33", "1.35"])
def test_a_plain_request_is_checked_as_the_full_check_does(minor):
    """`filter_nodes` on a request of cpu, memory and ephemeral storage only (its shortcut) gives each node
    the code and reasons `insufficient_resources` gives, over every mix of what is short, exceeded or free."""
    levels = {"cpu": ("0", "500m", "1", "3"), "memory": ("0", "1Gi", "3Gi", "5Gi"),
              "ephemeral-storage": ("0", "1Gi", "6Gi", "11Gi")}
    nodes = [node_info(NODE, *[used(None)] * n, used({"cpu": "1500m", "memory": "2Gi", "ephemeral-storage": "5Gi"}))
             for n in (0, 2)] + [node_info({"cpu": "2", "memory": "4Gi", "ephemeral-storage": "10Gi", "pods": "9"})]
    pl = NodeResourcesFit(None, SimpleNamespace(kube=KubeVersion(minor)))
    for values in product(*levels.values()):
        p = pod({k: v for k, v in zip(levels, values) if v != "0"} or None)
        state = CycleState()
        pl.pre_filter(state, p, nodes)
        request = state.get(PRE_FILTER_STATE_KEY)
        for ni, got in zip(nodes, pl.filter_nodes(state, p, nodes)):
            lacking = insufficient_resources(request, ni)
            code = OK if not lacking else UU if pl.marks_unresolvable and any(r.unresolvable for r in lacking) else U
            assert (got.code, got.reasons) == (code, tuple(r.reason for r in lacking)), (values, ni.name)


def test_filter_unresolvable_from_1_34():
    s = run_filter(pod({"cpu": "3"}), node_info(NODE), minor="1.34")
    assert (s.code, s.reasons) == (UU, ("Insufficient cpu",))


IGNORE_CASES = [
    ("ignored-resource", {"ignoredResources": ["example.com/gpu"]}, pod({"example.com/gpu": "5"}), OK, ()),
    ("ignored-group", {"ignoredResourceGroups": ["example.com"]}, pod({"example.com/gpu": "5"}), OK, ()),
    ("other-group-checked", {"ignoredResourceGroups": ["example.org"]}, pod({"example.com/gpu": "5"}), UU,
     ("Insufficient example.com/gpu",)),
    # only extended resources can be ignored: hugepages are checked regardless
    ("hugepages-not-ignorable", {"ignoredResources": ["hugepages-2Mi"]}, pod({"hugepages-2Mi": "10Mi"}), UU,
     ("Insufficient hugepages-2Mi",)),
    ("ignored-but-cpu-checked", {"ignoredResources": ["example.com/gpu"]},
     pod({"example.com/gpu": "5", "cpu": "3"}), UU, ("Insufficient cpu",)),
]


@pytest.mark.parametrize("args,p,code,reasons", [c[1:] for c in IGNORE_CASES], ids=[c[0] for c in IGNORE_CASES])
def test_filter_ignored_resources(args, p, code, reasons):
    s = run_filter(p, node_info(NODE), args)
    assert s.code is code
    assert s.reasons == reasons


def test_pre_filter_never_skips_and_filter_without_state_errors():
    pl = NodeResourcesFit(None, None)
    state = CycleState()
    assert pl.pre_filter(state, pod(None), [])[1].code is OK
    other = CycleState()
    s = pl.filter(other, pod(None), node_info(NODE))
    assert s.code is Code.ERROR
    assert s.reasons == ('error reading "PreFilterNodeResourcesFit" from cycleState: not found',)


def test_pre_score_never_skips():
    pl = NodeResourcesFit(None, None)
    assert pl.pre_score(CycleState(), pod(None), []).code is OK


BIG = {"cpu": "3", "memory": "10Gi", "pods": "110"}

SCORE_CASES = [
    # id, args, pod, bound pods, allocatable, expected score
    # cpu (3000-1500)*100/3000 = 50, memory (10-3)*100/10 = 70 -> (50+70)/2 = 60
    ("least", None, pod({"cpu": "500m", "memory": "2Gi"}), [used({"cpu": "1", "memory": "1Gi"})], BIG, 60),
    # weights cpu 2, memory 1: (50*2 + 70)/3 = 56 (truncated)
    ("least-weights", strategy("LeastAllocated", [{"name": "cpu", "weight": 2}, {"name": "memory", "weight": 1}]),
     pod({"cpu": "500m", "memory": "2Gi"}), [used({"cpu": "1", "memory": "1Gi"})], BIG, 56),
    # request-less pods count as 100m / 200Mi per container: cpu 200/1000 -> 80, mem 400/1000Mi -> 60
    ("least-non-zero", None, pod(None), [used(None)], {"cpu": "1", "memory": "1000Mi", "pods": "10"}, 70),
    # two request-less containers: 200m + 100m (bound) = 300 -> 70; 400Mi+200Mi = 600 -> 40
    ("least-non-zero-per-container", None, pod(None, None), [used(None)],
     {"cpu": "1", "memory": "1000Mi", "pods": "10"}, 55),
    # an explicit zero is kept: cpu 0 + 100m -> 90, memory 200Mi+200Mi -> 60
    ("least-explicit-zero", None, pod({"cpu": "0"}), [used(None)], {"cpu": "1", "memory": "1000Mi"}, 75),
    # over-commitment scores 0 for that resource
    ("least-over", None, pod({"cpu": "4", "memory": "1Gi"}), [], BIG, 45),
    # most: cpu 1500*100/3000 = 50, memory 3*100/10 = 30 -> 40
    ("most", strategy("MostAllocated"), pod({"cpu": "500m", "memory": "2Gi"}),
     [used({"cpu": "1", "memory": "1Gi"})], BIG, 40),
    # most caps over-commitment at 100: cpu 100, memory 10 -> 55
    ("most-over", strategy("MostAllocated"), pod({"cpu": "4", "memory": "1Gi"}), [], BIG, 55),
    # a node without cpu allocatable drops cpu from the mean
    ("least-no-cpu", None, pod({"memory": "2Gi"}), [], {"memory": "10Gi"}, 80),
    # extended resource, weight 3: gpu (4-2)*100/4 = 50; cpu (3000-600)*100/3000 = 80 -> (80+150)/4 = 57
    ("least-extended", strategy("LeastAllocated", [{"name": "cpu", "weight": 1},
                                                   {"name": "example.com/gpu", "weight": 3}]),
     pod({"cpu": "500m", "example.com/gpu": "1"}), [used({"example.com/gpu": "1"})],
     {"cpu": "3", "example.com/gpu": "4"}, 57),
    # node without the extended resource: only cpu counts: (3000-500)*100/3000 = 83
    ("least-extended-node-lacks", strategy("LeastAllocated", [{"name": "cpu", "weight": 1},
                                                              {"name": "example.com/gpu", "weight": 3}]),
     pod({"cpu": "500m", "example.com/gpu": "1"}), [], {"cpu": "3"}, 83),
    # pod not requesting it: skipped even though the node has it -> cpu only
    ("least-extended-not-requested", strategy("LeastAllocated", [{"name": "cpu", "weight": 1},
                                                                 {"name": "example.com/gpu", "weight": 3}]),
     pod({"cpu": "500m"}), [used({"example.com/gpu": "4"})], {"cpu": "3", "example.com/gpu": "4"}, 80),
    # ephemeral-storage uses real requests: (10-4)*100/10 = 60
    ("least-ephemeral", strategy("LeastAllocated", [{"name": "ephemeral-storage", "weight": 1}]),
     pod({"ephemeral-storage": "3Gi"}), [used({"ephemeral-storage": "1Gi"})], {"ephemeral-storage": "10Gi"}, 60),
]


@pytest.mark.parametrize("args,p,bound,alloc,want", [c[1:] for c in SCORE_CASES], ids=[c[0] for c in SCORE_CASES])
def test_score(args, p, bound, alloc, want):
    assert run_score(p, [node_info(alloc, *bound)], args) == [want]


# The Kubernetes docs' "Resource Bin Packing" example: shape {0:0, 100:10}, weights foo 5,
# cpu 3, memory 1; pod requests foo 2, memory 256Mi, cpu 2. The docs score on 0..10
# (node 1: 5, node 2: 7). v1.35.4 scales the shape to {0:0, 100:100} and rounds the
# weighted mean of integer per-resource scores:
#   node 1: foo 3*100/4 = 75, memory 512*100/1024 = 50, cpu 3000*100/8000 = 37
#           round((75*5 + 50*1 + 37*3) / 9) = round(536/9 = 59.56) = 60
#   node 2: foo 4*100/8 = 50, memory 768*100/1024 = 75, cpu 8000*100/8000 = 100
#           round((50*5 + 75*1 + 100*3) / 9) = round(625/9 = 69.44) = 69
DOC_ARGS = strategy("RequestedToCapacityRatio",
                    [{"name": "intel.com/foo", "weight": 5}, {"name": "cpu", "weight": 3},
                     {"name": "memory", "weight": 1}], shape=[(0, 0), (100, 10)])


def test_requested_to_capacity_ratio_docs_example():
    p = pod({"intel.com/foo": "2", "memory": "256Mi", "cpu": "2"})
    n1 = node_info({"intel.com/foo": "4", "memory": "1Gi", "cpu": "8", "pods": "10"},
                   used({"intel.com/foo": "1", "memory": "256Mi", "cpu": "1"}), name="node1")
    n2 = node_info({"intel.com/foo": "8", "memory": "1Gi", "cpu": "8", "pods": "10"},
                   used({"intel.com/foo": "2", "memory": "512Mi", "cpu": "6"}), name="node2")
    assert run_score(p, [n1, n2], DOC_ARGS) == [60, 69]


RTCR_CASES = [
    # id, shape, resources, pod, bound, alloc, want
    # a resource scoring 0 drops out with its weight: cpu 0% -> 0 (ignored), memory 50% -> 50
    ("zero-score-excluded", [(0, 0), (100, 10)], None, pod({"cpu": "0", "memory": "5Gi"}), [],
     {"cpu": "3", "memory": "10Gi"}, 50),
    # all resources score 0 -> 0
    ("all-zero", [(0, 0), (100, 10)], None, pod({"cpu": "0", "memory": "0"}), [], {"cpu": "3", "memory": "10Gi"}, 0),
    # Go rounds halves away from zero: cpu 45, memory 50 -> 47.5 -> 48
    ("round-half-up", [(0, 0), (100, 10)], None, pod({"cpu": "1350m", "memory": "5Gi"}), [],
     {"cpu": "3", "memory": "10Gi"}, 48),
    # least-requested shape {0:10,100:0}: cpu 45% -> 55, memory 50% -> 50 -> 52.5 -> 53
    ("least-shape", [(0, 10), (100, 0)], None, pod({"cpu": "1350m", "memory": "5Gi"}), [],
     {"cpu": "3", "memory": "10Gi"}, 53),
    # over capacity -> shape(100)
    ("over-capacity", [(0, 0), (100, 10)], [{"name": "cpu", "weight": 1}], pod({"cpu": "4"}), [],
     {"cpu": "3"}, 100),
    # below the first point -> first score; above the last point -> last score
    ("below-first-point", [(20, 2), (80, 8)], [{"name": "cpu", "weight": 1}], pod({"cpu": "300m"}), [],
     {"cpu": "3"}, 20),
    ("above-last-point", [(20, 2), (80, 8)], [{"name": "cpu", "weight": 1}], pod({"cpu": "2700m"}), [],
     {"cpu": "3"}, 80),
    # non-zero defaults apply: request-less pod on an empty 1-cpu node: 10% -> 10
    ("non-zero-defaults", [(0, 0), (100, 10)], [{"name": "cpu", "weight": 1}], pod(None), [], {"cpu": "1"}, 10),
    # a descending segment truncates toward zero: {0:100, 30:0} at 10%: 100 + (-100*10)/30 = 100 - 33 = 67
    ("truncate-toward-zero", [(0, 10), (30, 0)], [{"name": "cpu", "weight": 1}], pod({"cpu": "300m"}), [],
     {"cpu": "3"}, 67),
]


@pytest.mark.parametrize("shape,resources,p,bound,alloc,want", [c[1:] for c in RTCR_CASES],
                         ids=[c[0] for c in RTCR_CASES])
def test_requested_to_capacity_ratio(shape, resources, p, bound, alloc, want):
    args = strategy("RequestedToCapacityRatio", resources, shape=shape)
    assert run_score(p, [node_info(alloc, *bound)], args) == [want]


@pytest.mark.parametrize("shape,p,want", [
    ([(0, 0), (100, 10)], 0, 0), ([(0, 0), (100, 10)], 37, 37), ([(0, 0), (100, 10)], 100, 100),
    ([(50, 5)], 10, 50), ([(50, 5)], 90, 50),
    ([(0, 10), (50, 0), (100, 10)], 25, 50), ([(0, 10), (50, 0), (100, 10)], 75, 50),
    ([(0, 10), (30, 0)], 10, 67), ([(0, 10), (30, 0)], 20, 34),
    ([(0, 0), (30, 10)], 10, 33),
])
def test_broken_linear(shape, p, want):
    assert broken_linear(scaled_shape([{"utilization": u, "score": s} for u, s in shape]))(p) == want


@pytest.mark.parametrize("a,b,want", [(7, 2, 3), (-7, 2, -3), (7, -2, -3), (-1000, 30, -33), (0, 5, 0)])
def test_go_div(a, b, want):
    assert go_div(a, b) == want


@pytest.mark.parametrize("x,want", [(0.5, 1), (1.5, 2), (2.5, 3), (59.56, 60), (69.44, 69), (-0.5, -1), (3.0, 3)])
def test_go_round(x, want):
    assert go_round(x) == want
