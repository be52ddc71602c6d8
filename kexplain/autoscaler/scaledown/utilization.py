"""A node's utilization as CA's scale-down measures it (simulator/utilization).

Per resource: the sum of the pods' requests over the node's allocatable, as float64 of the
two milli-values. DaemonSet pods (with ignoreDaemonSetsUtilization) and mirror pods (with
--ignore-mirror-pods-utilization) are taken out of both sides; pods deleted longer ago than
their grace period are left out. A GPU node is measured by its GPU alone; any other node by the
larger of cpu and memory (memory on a tie).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping

from kexplain.apimachinery.quantity import milli_value
from kexplain.autoscaler.cloudprovider.provider import TEST, CloudProvider
from kexplain.autoscaler.gpu import GpuConfig, node_gpu_config
from kexplain.autoscaler.scaledown.pods import is_daemonset_pod, is_long_terminating, is_mirror_pod
from kexplain.model.nodeinfo import NodeInfo
from kexplain.model.pod import PodFacts, PodInfo
from kexplain.model.resources import ResourceList, pod_requests, resource_list

CPU, MEMORY = "cpu", "memory"


class UtilizationError(ValueError):
    """A resource the node does not offer (missing or zero allocatable)."""


@dataclass(frozen=True)
class Utilization:
    """utilization.Info: the ratios, the resource that decides and its ratio."""

    cpu: float = 0.0
    memory: float = 0.0
    gpu: float = 0.0
    resource_name: str = ""
    utilization: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"cpu": go_number(self.cpu), "memory": go_number(self.memory), "gpu": go_number(self.gpu),
                "resourceName": self.resource_name, "utilization": go_number(self.utilization)}


def go_number(x: float) -> float | int:
    """A float64 as Go's encoding/json writes it: a whole number without a fraction (0, not 0.0)."""
    return int(x) if math.isfinite(x) and x.is_integer() and abs(x) < 1e21 else x


def _allocatable(node: Mapping[str, Any]) -> Mapping[str, Fraction]:
    return resource_list((node.get("status") or {}).get("allocatable"))


def gpu_resource(node: Mapping[str, Any], provider: CloudProvider = TEST) -> str | None:
    """The GPU resource a GPU node (provider's GPU label or a vendor resource allocatable) is measured by
    (GetNodeGpuConfig); None for another node or one whose GPUs come through DRA."""
    config = node_gpu_config(node, provider)
    return config.resource if config is not None and not config.via_dra else None


class Requested:
    """One shape's requests (PodRequests), shared by every pod of that shape; hashed by identity, so a
    node's pods are counted by shape and each shape's requests are added once per node. `milli`: each
    amount in thousandths where that is a whole number (nearly every quantity written), read once per
    shape: a node's sum of them is an exact integer, added without a Fraction."""

    __slots__ = ("amounts", "milli")

    def __init__(self, amounts: ResourceList) -> None:
        self.amounts = amounts
        self.milli: dict[str, int] = {}
        for name, amount in amounts.items():
            scaled = amount * 1000
            if scaled.denominator == 1:
                self.milli[name] = int(scaled)


class PodRequests:
    """The requests of a loop's pods, worked out once per `PodFacts` (the snapshot shares one per shape:
    equal facts read equal requests), not once per pod and resource: utilization reads every candidate's
    pods, 150,000 of them at 5,000 nodes, in a few hundred shapes."""

    def __init__(self) -> None:
        self._by_facts: dict[PodFacts, Requested] = {}
        self.worked_out = 0         # how many times PodRequests ran (one per shape)

    def of(self, pod: PodInfo) -> Requested:
        facts = pod.facts
        found = self._by_facts.get(facts)
        if found is None:
            found = self._by_facts[facts] = Requested(pod_requests(pod.obj))
            self.worked_out += 1
        return found


@dataclass(frozen=True)
class Tally:
    """A node's pods by shape: those that count, and those taken out of both sides (DaemonSet, mirror)."""

    counted: Mapping[Requested, int]
    left_out: Mapping[Requested, int]


def tally(node_info: NodeInfo, skip_daemonsets: bool, skip_mirror: bool, now_ns: int,
          requests: PodRequests | None = None) -> Tally:
    """The node's pods sorted as CalculateUtilizationOfResource's loop sorts them, counted by shape."""
    requests = requests if requests is not None else PodRequests()
    known, of = requests._by_facts, requests.of       # (150,000 pods at 5,000 nodes: a shape seen is looked up here)
    counted: dict[Requested, int] = {}
    left_out: dict[Requested, int] = {}
    for pod in node_info.pods:
        if (skip_daemonsets and is_daemonset_pod(pod)) or (skip_mirror and is_mirror_pod(pod)):
            into = left_out
        elif pod.deletion_timestamp is not None and is_long_terminating(pod, now_ns):
            continue
        else:
            into = counted
        found = known.get(pod.facts) or of(pod)
        into[found] = into.get(found, 0) + 1
    return Tally(counted, left_out)


def _milli_sum(counts: Mapping[Requested, int], resource: str) -> int:
    """`milli_value` of the exact sum of the pods' requests of `resource` (each shape's times its pod count):
    the shapes' whole thousandths (`Requested.milli`) added up, exact, so nothing to round; a shape with
    a finer amount sends the sum to `_exact_milli_sum`."""
    total = 0
    for found, n in counts.items():
        milli = found.milli.get(resource)
        if milli is None:
            if resource in found.amounts:
                return _exact_milli_sum(counts, resource)
            continue
        total += milli * n
    return total


def _exact_milli_sum(counts: Mapping[Requested, int], resource: str) -> int:
    """`_milli_sum` of any amounts: added up in integers per denominator (quantities have a few), then over
    their least common multiple and rounded up in integers: no Fraction made for each sum, the same number."""
    by_denominator: dict[int, int] = {}
    for found, n in counts.items():
        amount = found.amounts.get(resource)
        if amount is not None:
            den = amount.denominator
            by_denominator[den] = by_denominator.get(den, 0) + amount.numerator * n
    if not by_denominator:
        return 0
    common = math.lcm(*by_denominator)
    total = sum(num * (common // den) for den, num in by_denominator.items())
    return -(-total * 1000 // common)           # ceil(total / common * 1000), exactly


def resource_utilization(node_info: NodeInfo, resource: str, skip_daemonsets: bool, skip_mirror: bool,
                         now_ns: int, pods: Tally | Callable[[], Tally] | None = None,
                         offers: Mapping[str, Fraction] | None = None) -> float:
    """CalculateUtilizationOfResource: requests of the pods that count over allocatable (`pods`: the
    node's tally, or what makes it once the allocatable is found; None: made here; `offers`: the node's
    allocatable as read, else read here)."""
    offers = offers if offers is not None else _allocatable(node_info.node.obj)
    allocatable = offers.get(resource)
    if allocatable is None:
        raise UtilizationError(f"failed to get {resource} from {node_info.name}")
    offered = milli_value(allocatable)
    if offered == 0:
        raise UtilizationError(f"{resource} is 0 at {node_info.name}")
    if pods is None:
        pods = tally(node_info, skip_daemonsets, skip_mirror, now_ns)
    elif not isinstance(pods, Tally):
        pods = pods()
    requested, left_out = _milli_sum(pods.counted, resource), _milli_sum(pods.left_out, resource)
    return _go_divide(float(requested), float(offered - left_out))


def _go_divide(a: float, b: float) -> float:
    """float64 division as Go does it: by zero gives an infinity (or NaN for 0/0)."""
    if b == 0:
        return float("nan") if a == 0 else math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


_UNREAD: Any = object()      # (`calculate`'s GPU configuration not given: read there)


def calculate(node_info: NodeInfo, skip_daemonsets: bool, skip_mirror: bool, now_ns: int,
              provider: CloudProvider = TEST, requests: PodRequests | None = None,
              gpu_config: "GpuConfig | None" = _UNREAD) -> Utilization:
    """utilization.Calculate (UtilizationError where CA's returns an error); `requests`: the loop's
    requests by shape (a fresh one without), the node's pods tallied once for every resource and its
    allocatable read once; `gpu_config`: the node's `node_gpu_config` where the caller read it."""
    made: list[Tally] = []

    def pods() -> Tally:
        if not made:
            made.append(tally(node_info, skip_daemonsets, skip_mirror, now_ns, requests))
        return made[0]

    if gpu_config is _UNREAD:
        gpu_config = node_gpu_config(node_info.node.obj, provider)
    gpu = gpu_config.resource if gpu_config is not None and not gpu_config.via_dra else None
    offers = _allocatable(node_info.node.obj)
    if gpu is not None:
        try:
            ratio = resource_utilization(node_info, gpu, skip_daemonsets, skip_mirror, now_ns, pods, offers)
        except UtilizationError:
            return Utilization(resource_name=gpu)       # an unready GPU: counted as idle
        return Utilization(gpu=ratio, resource_name=gpu, utilization=ratio)
    cpu = resource_utilization(node_info, CPU, skip_daemonsets, skip_mirror, now_ns, pods, offers)
    mem = resource_utilization(node_info, MEMORY, skip_daemonsets, skip_mirror, now_ns, pods, offers)
    if cpu > mem:
        return Utilization(cpu, mem, 0.0, CPU, cpu)
    return Utilization(cpu, mem, 0.0, MEMORY, mem)
