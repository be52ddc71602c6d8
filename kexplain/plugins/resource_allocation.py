"""The scoring core NodeResourcesFit and NodeResourcesBalancedAllocation share: the use of each
resource if the pod landed there, differing in which requests count (Fit's non-zero defaults
keep request-less pods from piling onto one node) and how the pairs become one number. Resources
the node lacks or the pod does not request take no part; arithmetic as kube-scheduler v1.35.4's."""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

from kexplain.apimachinery.display import format_quantity
from kexplain.apimachinery.quantity import milli_value, value
from kexplain.framework.interface import MAX_NODE_SCORE
from kexplain.model.nodeinfo import NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.resources import (CPU, DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST, EPHEMERAL_STORAGE,
                               MEMORY, Resource, is_scalar_resource, pod_requests)
from kexplain.plugins.helper.normalize_score import go_div

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"

# Shape scores are configured on a 0..10 scale (MaxCustomPriorityScore) and scaled
# to the scheduler's 0..100 node scores before use.
MAX_CUSTOM_PRIORITY_SCORE = 10
MAX_UTILIZATION = 100

# Scores a list of (requested, allocatable) pairs, one per configured resource;
# pairs with allocatable 0 are the resources left out.
Scorer = Callable[[Sequence[int], Sequence[int]], int]
# Scores (requested with the pod, requested without it, allocatable), per configured resource.
ChangeScorer = Callable[[Sequence[int], Sequence[int], Sequence[int]], int]


@dataclass(frozen=True)
class ResourceSpec:
    name: str
    weight: int = 1


def _default_specs() -> tuple[ResourceSpec, ...]:
    return (ResourceSpec(CPU, 1), ResourceSpec(MEMORY, 1))


def resource_specs(raw: object) -> tuple[ResourceSpec, ...]:
    """Configured `[{name, weight}]`; the v1 defaults (cpu, memory, weight 1) when empty.
    A weight of 0 or none means 1, as v1 defaulting does."""
    if not isinstance(raw, (list, tuple)) or not raw:
        return _default_specs()
    return tuple(ResourceSpec(str(r.get("name") or ""), int(r.get("weight") or 1)) for r in raw)


# --- Go arithmetic --------------------------------------------------------------------

def go_round(x: float) -> int:
    """Go's math.Round: halves away from zero."""
    t = math.trunc(x)
    if abs(x - t) >= 0.5:
        t += 1 if x > 0 else -1
    return int(t)


# --- strategies -----------------------------------------------------------------------

def least_requested_score(requested: int, capacity: int) -> int:
    """Free share of the resource on a 0..100 scale; 0 when over-committed."""
    if capacity == 0 or requested > capacity:
        return 0
    return go_div((capacity - requested) * MAX_NODE_SCORE, capacity)


def most_requested_score(requested: int, capacity: int) -> int:
    """Used share on a 0..100 scale; over-commitment (non-zero defaults) counts as full."""
    if capacity == 0:
        return 0
    requested = min(requested, capacity)
    return go_div(requested * MAX_NODE_SCORE, capacity)


def _weighted_mean(specs: Sequence[ResourceSpec], per_resource: Callable[[int, int], int]) -> Scorer:
    def score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        node_score = weight_sum = 0
        for spec, req, alloc in zip(specs, requested, allocatable):
            if alloc == 0:
                continue
            node_score += per_resource(req, alloc) * spec.weight
            weight_sum += spec.weight
        return go_div(node_score, weight_sum) if weight_sum else 0
    return score


def least_allocated(specs: Sequence[ResourceSpec]) -> Scorer:
    return _weighted_mean(specs, least_requested_score)


def most_allocated(specs: Sequence[ResourceSpec]) -> Scorer:
    return _weighted_mean(specs, most_requested_score)


def scaled_shape(shape: Sequence[Mapping[str, Any]]) -> tuple[tuple[int, int], ...]:
    """(utilization, score) points with scores moved from the 0..10 to the 0..100 scale."""
    factor = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
    return tuple((int(p.get("utilization") or 0), int(p.get("score") or 0) * factor) for p in shape)


def broken_linear(shape: Sequence[tuple[int, int]]) -> Callable[[int], int]:
    """f(p): the first point's score below it, the last point's above it, linear (integer
    arithmetic) between neighbouring points."""
    if not shape:
        raise ValueError("RequestedToCapacityRatio needs at least one shape point")

    def f(p: int) -> int:
        for i, (util, score) in enumerate(shape):
            if p <= util:
                if i == 0:
                    return score
                prev_util, prev_score = shape[i - 1]
                return prev_score + go_div((score - prev_score) * (p - prev_util), util - prev_util)
        return shape[-1][1]
    return f


def requested_to_capacity_ratio(specs: Sequence[ResourceSpec], shape: Sequence[Mapping[str, Any]]) -> Scorer:
    """Weighted mean of shape(utilization %) over the resources, rounded; a resource whose
    shape score is 0 drops out of the mean entirely (its weight is not counted)."""
    raw = broken_linear(scaled_shape(shape))

    def per_resource(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw(MAX_UTILIZATION)
        return raw(go_div(requested * MAX_UTILIZATION, capacity))

    def score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        node_score = weight_sum = 0
        for spec, req, alloc in zip(specs, requested, allocatable):
            if alloc == 0:
                continue
            s = per_resource(req, alloc)
            if s > 0:
                node_score += s * spec.weight
                weight_sum += spec.weight
        if weight_sum == 0:
            return 0
        return go_round(float(node_score) / float(weight_sum))
    return score


def balanced_resource_score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    """(1 - standard deviation of the used fractions, each at most 1) x 100, truncated: |f1 - f2| / 2
    for two resources; one resource or none is perfectly balanced (100)."""
    if len(requested) == 2:         # (cpu and memory, the default: the same arithmetic without lists)
        a0, a1 = allocatable
        if a0 == 0 or a1 == 0:      # one resource or none
            return int(float(MAX_NODE_SCORE))
        r0, r1 = requested
        f0, f1 = min(float(r0) / float(a0), 1.0), min(float(r1) / float(a1), 1.0)
        return int((1 - abs((f0 - f1) / 2)) * float(MAX_NODE_SCORE))
    fractions: list[float] = []
    total = 0.0
    for req, alloc in zip(requested, allocatable):
        if alloc == 0:
            continue
        f = min(float(req) / float(alloc), 1.0)
        total += f
        fractions.append(f)
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total / len(fractions)
        acc = 0.0
        for f in fractions:
            acc = acc + (f - mean) * (f - mean)
        std = math.sqrt(acc / len(fractions))
    return int((1 - std) * float(MAX_NODE_SCORE))


def balance_change_score(requested: Sequence[int], allocated: Sequence[int], allocatable: Sequence[int]) -> int:
    """BalancedAllocation from 1.36: how the pod changes the node's balance, the difference of two balances
    in 50..100 brought back to 50..100 (about 75 when it hardly changes, towards 100 when it improves)."""
    with_pod = balanced_resource_score(requested, allocatable)
    without_pod = balanced_resource_score(allocated, allocatable)
    return MAX_NODE_SCORE // 2 + go_div(MAX_NODE_SCORE // 2 + with_pod - without_pod, 2)


def fit_scorer(strategy: Mapping[str, Any] | None) -> tuple[tuple[ResourceSpec, ...], Scorer]:
    """The configured resources and the strategy's scorer from NodeResourcesFit's
    `scoringStrategy` (LeastAllocated with cpu/memory when absent)."""
    strategy = strategy or {}
    specs = resource_specs(strategy.get("resources"))
    kind = strategy.get("type") or LEAST_ALLOCATED
    if kind == LEAST_ALLOCATED:
        return specs, least_allocated(specs)
    if kind == MOST_ALLOCATED:
        return specs, most_allocated(specs)
    if kind == REQUESTED_TO_CAPACITY_RATIO:
        rtcr = strategy.get("requestedToCapacityRatio") or {}
        return specs, requested_to_capacity_ratio(specs, rtcr.get("shape") or ())
    raise ValueError(f"scoring strategy {kind} is not supported")


# --- requested / allocatable ----------------------------------------------------------

_NON_ZERO_DEFAULTS = {CPU: Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000), MEMORY: Fraction(DEFAULT_MEMORY_REQUEST)}


class ResourceAllocationScorer:
    """Scores nodes for one plugin's configured resources with one strategy: real requests with
    `use_requested` (BalancedAllocation), else non-zero ones (Fit); `change_scorer` (BalancedAllocation
    from 1.36) scores the change the pod makes."""

    def __init__(self, specs: Sequence[ResourceSpec], scorer: Scorer, use_requested: bool,
                 change_scorer: ChangeScorer | None = None) -> None:
        self.specs = tuple(specs)
        self.scorer = scorer
        self.use_requested = use_requested
        self.change_scorer = change_scorer

    def pod_requests(self, pod: PodInfo) -> tuple[int, ...]:
        """The pod's request for each configured resource (cpu in millicores), overhead and
        pod-level requests included; non-zero defaults per container unless use_requested."""
        reqs = pod_requests(pod.obj, None if self.use_requested else _NON_ZERO_DEFAULTS)
        out = []
        for spec in self.specs:
            q = reqs.get(spec.name, Fraction(0))
            out.append(milli_value(q) if spec.name == CPU else value(q))
        return tuple(out)

    def allocatable_and_requested(self, node_info: NodeInfo, name: str, pod_request: int) -> tuple[int, int]:
        """(node allocatable, node requested + pod request) for one resource; (0, 0) for a
        resource that takes no part: a scalar the pod does not request or the node lacks."""
        if pod_request == 0 and is_scalar_resource(name):
            return 0, 0
        alloc: Resource = node_info.allocatable
        used: Resource = node_info.requested if self.use_requested else node_info.non_zero_requested
        if name == CPU:
            return alloc.milli_cpu, used.milli_cpu + pod_request
        if name == MEMORY:
            return alloc.memory, used.memory + pod_request
        if name == EPHEMERAL_STORAGE:
            return alloc.ephemeral_storage, node_info.requested.ephemeral_storage + pod_request
        if name in alloc.scalar:
            return alloc.scalar[name], node_info.requested.scalar.get(name, 0) + pod_request
        return 0, 0

    def score(self, node_info: NodeInfo, pod_requests: Sequence[int]) -> int:
        requested = [0] * len(self.specs)
        allocatable = [0] * len(self.specs)
        for i, spec in enumerate(self.specs):
            alloc, req = self.allocatable_and_requested(node_info, spec.name, pod_requests[i])
            if alloc == 0:
                continue
            allocatable[i] = alloc
            requested[i] = req
        if self.change_scorer is not None:
            return self.change_scorer(requested, [r - p for r, p in zip(requested, pod_requests)], allocatable)
        return self.scorer(requested, allocatable)

    def score_nodes(self, nodes: Sequence[NodeInfo], pod_requests: Sequence[int]) -> list[int]:
        """`score` for many nodes; for cpu and memory (the default resources) without a call per
        node and resource (the change scorer too: BalancedAllocation from 1.36)."""
        if any(spec.name not in (CPU, MEMORY) for spec in self.specs):
            return [self.score(ni, pod_requests) for ni in nodes]
        plan = [(spec.name == CPU, pod_requests[i]) for i, spec in enumerate(self.specs)]
        n, scorer, use_requested = len(plan), self.scorer, self.use_requested
        change = self.change_scorer
        out = []
        for ni in nodes:
            alloc = ni.node.allocatable
            used = ni.requested if use_requested else ni.non_zero_requested
            requested, allocatable = [0] * n, [0] * n
            for i, (is_cpu, req) in enumerate(plan):
                a = alloc.milli_cpu if is_cpu else alloc.memory
                if a:
                    allocatable[i] = a
                    requested[i] = (used.milli_cpu if is_cpu else used.memory) + req
            if change is None:
                out.append(scorer(requested, allocatable))
            else:
                out.append(change(requested, [r - p for r, p in zip(requested, pod_requests)], allocatable))
        return out

    def usage(self, node_info: NodeInfo, pod_requests: Sequence[int]) -> list[dict[str, Any]]:
        """What the score is computed from, per configured resource the node offers: requested with the pod,
        allocatable and the percentage in use (kexplain's explanations; JSON-ready)."""
        out: list[dict[str, Any]] = []
        for i, spec in enumerate(self.specs):
            alloc, req = self.allocatable_and_requested(node_info, spec.name, pod_requests[i])
            if alloc == 0:
                continue
            out.append({"name": spec.name, "weight": spec.weight, "requested": format_quantity(spec.name, req),
                        "allocatable": format_quantity(spec.name, alloc), "percent": req * 100 // alloc})
        return out


def is_best_effort(pod_requests: Sequence[int]) -> bool:
    """No request for any configured resource."""
    return all(r == 0 for r in pod_requests)
