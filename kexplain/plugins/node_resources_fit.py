"""NodeResourcesFit: a pod goes only where the node's allocatable still has room for its requests,
scored by the configured strategy. A rejection is UnschedulableAndUnresolvable when a request
exceeds the whole allocatable (preemption cannot help), Unschedulable when pods hold the room."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kexplain.apimachinery.display import format_quantity
from kexplain.framework.cycle_state import CycleState
from kexplain.framework.interface import (Explainer, FilterPlugin, PreFilterPlugin, PreFilterResult, PreScorePlugin,
                                          ScorePlugin, SignPlugin)
from kexplain.framework import signers
from kexplain.framework.status import SUCCESS, Code, Status
from kexplain.model.nodeinfo import NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.resources import Resource, is_extended_resource, pod_requests
from kexplain.model.shapes import REQUEST_FIELDS
from kexplain.plugins import names
from kexplain.plugins.resource_allocation import ResourceAllocationScorer, fit_scorer
from kexplain.plugins.device_classes import extended_resource_classes

NAME = names.NODE_RESOURCES_FIT
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME

ERR_REASON_TOO_MANY_PODS = "Too many pods"
ERR_REASON_INSUFFICIENT_CPU = "Insufficient cpu"
ERR_REASON_INSUFFICIENT_MEMORY = "Insufficient memory"
ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE = "Insufficient ephemeral-storage"
ERR_REASON_INSUFFICIENT_FORMAT = "Insufficient {}"   # scalar resources: "Insufficient example.com/gpu"
ERR_STATE_NOT_FOUND = 'error reading "{}" from cycleState: not found'
# From 1.34 a request bigger than the node's whole allocatable is UnschedulableAndUnresolvable
# (InsufficientResource.Unresolvable); before, Filter said Unschedulable whatever was lacking.
UNRESOLVABLE_SINCE = "1.34"
DRA_EXTENDED_RESOURCE = "DRAExtendedResource"     # the feature gate (beta and on from 1.36)


@dataclass(frozen=True)
class InsufficientResource:
    """One resource the node lacks; `unresolvable` when the pod asks for more than the node has at all."""

    name: str
    reason: str
    requested: int
    used: int
    capacity: int
    unresolvable: bool = False


def pod_request_for_fit(pod: PodInfo) -> Resource:
    """The pod's requests as PreFilter sees them: from the spec only (a pending pod has no
    resized status to honour), pod-level requests and overhead included."""
    return Resource.from_list(pod_requests({"spec": pod.spec}))


def signed_request(pod: PodInfo) -> tuple[Any, ...]:
    """The pod's requests as OpportunisticBatching signs them (computePodResourceRequest)."""
    r = pod_request_for_fit(pod)
    return r.milli_cpu, r.memory, r.ephemeral_storage, r.allowed_pod_number, sorted(r.scalar.items())


def sign_requests(plugin: Any, pod: PodInfo) -> signers.Fragments | None:
    """Fit.SignPod and BalancedAllocation.SignPod: the pod's requests; None (never batched) when, with
    DRAExtendedResource on (1.36), it requests an extended resource a DeviceClass provides (shouldDelegateResourceToDRA
    without a node), whatever the nodes have of it."""
    signed = signed_request(pod)
    requested = [name for name, q in signed[4] if q]
    if requested and plugin.kube.enabled(DRA_EXTENDED_RESOURCE):
        backed = extended_resource_classes(plugin.handle.snapshot.of_kind("DeviceClass"))
        if any(name in backed for name in requested):
            return None
    return [(signers.RESOURCES, signed)]


def insufficient_resources(request: Resource, node_info: NodeInfo, ignored: frozenset[str] = frozenset(),
                           ignored_groups: frozenset[str] = frozenset()) -> list[InsufficientResource]:
    """Every resource the node cannot fit, in the scheduler's order: pod count, cpu, memory,
    ephemeral-storage, then scalar resources (sorted by name; Go visits them in map order)."""
    alloc, used = node_info.allocatable, node_info.requested
    out: list[InsufficientResource] = []
    pods = node_info.pod_count
    if pods + 1 > alloc.allowed_pod_number:
        out.append(InsufficientResource("pods", ERR_REASON_TOO_MANY_PODS, 1, pods, alloc.allowed_pod_number))

    if (request.milli_cpu == 0 and request.memory == 0 and request.ephemeral_storage == 0
            and not request.scalar):
        return out

    for name, reason, want, have, cap in (
            ("cpu", ERR_REASON_INSUFFICIENT_CPU, request.milli_cpu, used.milli_cpu, alloc.milli_cpu),
            ("memory", ERR_REASON_INSUFFICIENT_MEMORY, request.memory, used.memory, alloc.memory),
            ("ephemeral-storage", ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE, request.ephemeral_storage,
             used.ephemeral_storage, alloc.ephemeral_storage)):
        if want > 0 and want > cap - have:
            out.append(InsufficientResource(name, reason, want, have, cap, want > cap))

    for name in sorted(request.scalar):
        want = request.scalar[name]
        if want == 0:
            continue
        if is_extended_resource(name) and (name in ignored or name.split("/")[0] in ignored_groups):
            continue
        cap, have = alloc.scalar.get(name, 0), used.scalar.get(name, 0)
        if want > cap - have:
            out.append(InsufficientResource(name, ERR_REASON_INSUFFICIENT_FORMAT.format(name), want, have, cap,
                                            want > cap))
    return out


def fits(pod: PodInfo, node_info: NodeInfo) -> list[InsufficientResource]:
    """What the node lacks for the pod, without ignored resources (the scheduler's Fits)."""
    return insufficient_resources(pod_request_for_fit(pod), node_info)


# The reasons `insufficient_resources` gives, in its order, for a request without scalar resources.
_PLAIN_REASONS = (ERR_REASON_TOO_MANY_PODS, ERR_REASON_INSUFFICIENT_CPU, ERR_REASON_INSUFFICIENT_MEMORY,
                  ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE)


class NodeResourcesFit(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, Explainer, SignPlugin):
    name = NAME
    node_local = True      # reads only the pod and the node's NodeInfo (kexplain.framework.node_memo)
    pod_fields = REQUEST_FIELDS
    # PreFilterExtensions and ScoreExtensions are nil in v1.35.4: no AddPod/RemovePod, no NormalizeScore.

    def sign_pod(self, pod: PodInfo) -> signers.Fragments | None:
        """The pod's requests as PreFilter computes them (`sign_requests`)."""
        return sign_requests(self, pod)

    def __init__(self, args: Mapping[str, Any] | None, handle) -> None:
        super().__init__(args, handle)
        self.ignored_resources = frozenset(self.args.get("ignoredResources") or ())
        self.ignored_resource_groups = frozenset(self.args.get("ignoredResourceGroups") or ())
        specs, scorer = fit_scorer(self.args.get("scoringStrategy"))
        self.scorer = ResourceAllocationScorer(specs, scorer, use_requested=False)
        self.marks_unresolvable = self.kube.since(UNRESOLVABLE_SINCE)

    # -- filtering -----------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: PodInfo, nodes) -> tuple[PreFilterResult | None, Status]:
        state.write(PRE_FILTER_STATE_KEY, pod_request_for_fit(pod))
        return None, SUCCESS

    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status:
        return self.filter_nodes(state, pod, (node_info,))[0]

    def filter_nodes(self, state: CycleState, pod: PodInfo, nodes) -> list[Status]:
        """The full check (`insufficient_resources`, reasons in the scheduler's order) for a request with
        scalar resources; the common request of cpu, memory and ephemeral storage by `_filter_plain`."""
        request = state.get(PRE_FILTER_STATE_KEY)
        if request is None:
            return [Status.error(ERR_STATE_NOT_FOUND.format(PRE_FILTER_STATE_KEY))] * len(nodes)
        cpu, memory, storage = request.milli_cpu, request.memory, request.ephemeral_storage
        if not request.scalar:
            return self._filter_plain(nodes, max(cpu, 0), max(memory, 0), max(storage, 0))
        out: list[Status] = []
        for ni in nodes:
            lacking = insufficient_resources(request, ni, self.ignored_resources, self.ignored_resource_groups)
            if not lacking:
                out.append(SUCCESS)
                continue
            code = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE
                    if self.marks_unresolvable and any(r.unresolvable for r in lacking) else Code.UNSCHEDULABLE)
            out.append(Status(code, tuple(r.reason for r in lacking)))
        return out

    def _filter_plain(self, nodes, cpu: int, memory: int, storage: int) -> list[Status]:
        """`insufficient_resources` for a request of cpu, memory and ephemeral storage only, without a
        list per node: one Status per combination of what is lacking (and whether it exceeds the node)."""
        out: list[Status] = []
        made: dict[tuple[bool, ...], Status] = {}
        for ni in nodes:
            alloc, used = ni.allocatable, ni.requested
            key = (ni.pod_count >= alloc.allowed_pod_number,
                   0 < cpu and alloc.milli_cpu - used.milli_cpu < cpu,
                   0 < memory and alloc.memory - used.memory < memory,
                   0 < storage and alloc.ephemeral_storage - used.ephemeral_storage < storage)
            if not any(key):
                out.append(SUCCESS)
                continue
            key += (key[1] and alloc.milli_cpu < cpu, key[2] and alloc.memory < memory,
                    key[3] and alloc.ephemeral_storage < storage)
            status = made.get(key)
            if status is None:
                reasons = tuple(reason for reason, lacking in zip(_PLAIN_REASONS, key) if lacking)
                code = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE if self.marks_unresolvable and any(key[4:])
                        else Code.UNSCHEDULABLE)
                status = made[key] = Status(code, reasons)
            out.append(status)
        return out

    # -- scoring -------------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: PodInfo, nodes) -> Status:
        state.write(PRE_SCORE_STATE_KEY, self.scorer.pod_requests(pod))
        return SUCCESS

    def score(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> int:
        requests = state.get(PRE_SCORE_STATE_KEY)
        if requests is None:
            requests = self.scorer.pod_requests(pod)
        return self.scorer.score(node_info, requests)

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes) -> list[int]:
        requests = state.get(PRE_SCORE_STATE_KEY)
        if requests is None:
            requests = self.scorer.pod_requests(pod)
        return self.scorer.score_nodes(nodes, requests)

    # -- explanation (kexplain) ----------------------------------------------------------
    def explain(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> dict:
        """Per resource the pod requests, then the pod count: its request, the node's pods', allocatable, free
        and whether it fits (or exceeds the whole); when scored, each resource's share with the pod."""
        request: Resource = state.get(PRE_FILTER_STATE_KEY) or pod_request_for_fit(pod)
        lacking = {r.name: r for r in insufficient_resources(request, node_info, self.ignored_resources,
                                                             self.ignored_resource_groups)}
        alloc, used = node_info.allocatable, node_info.requested
        rows = []
        for name in ("cpu", "memory", "ephemeral-storage", *sorted(request.scalar)):
            want = request.get(name)
            if not want:
                continue
            have, cap = used.get(name), alloc.get(name)
            short = lacking.get(name)
            rows.append({"name": name, "podRequest": format_quantity(name, want),
                         "nodeRequested": format_quantity(name, have), "allocatable": format_quantity(name, cap),
                         "free": format_quantity(name, max(0, cap - have)), "fits": short is None,
                         "exceedsAllocatable": bool(short and short.unresolvable)})
        pods, limit = node_info.pod_count, alloc.allowed_pod_number
        rows.append({"name": "pods", "podRequest": "1", "nodeRequested": str(pods), "allocatable": str(limit),
                     "free": str(max(0, limit - pods)), "fits": "pods" not in lacking, "exceedsAllocatable": False})
        facts: dict[str, Any] = {"resources": rows}
        requests = state.get(PRE_SCORE_STATE_KEY)
        if requests is not None:
            strategy = (self.args.get("scoringStrategy") or {}).get("type") or "LeastAllocated"
            facts["score"] = {"strategy": strategy, "resources": self.scorer.usage(node_info, requests)}
        return facts
