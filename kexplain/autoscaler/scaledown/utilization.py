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
from typing import Any, Mapping

from kexplain.apimachinery.quantity import milli_value
from kexplain.autoscaler.cloudprovider.provider import TEST, CloudProvider
from kexplain.autoscaler.gpu import node_gpu_config
from kexplain.autoscaler.scaledown.pods import is_daemonset_pod, is_long_terminating, is_mirror_pod
from kexplain.model.nodeinfo import NodeInfo
from kexplain.model.resources import pod_requests, resource_list

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


def resource_utilization(node_info: NodeInfo, resource: str, skip_daemonsets: bool, skip_mirror: bool,
                         now_ns: int) -> float:
    """CalculateUtilizationOfResource: requests of the pods that count over allocatable."""
    allocatable = _allocatable(node_info.node.obj).get(resource)
    if allocatable is None:
        raise UtilizationError(f"failed to get {resource} from {node_info.name}")
    if milli_value(allocatable) == 0:
        raise UtilizationError(f"{resource} is 0 at {node_info.name}")
    requested = Fraction(0)
    left_out = Fraction(0)
    for pod in node_info.pods:
        amount = pod_requests(pod.obj).get(resource, Fraction(0))
        if (skip_daemonsets and is_daemonset_pod(pod)) or (skip_mirror and is_mirror_pod(pod)):
            left_out += amount
            continue
        if is_long_terminating(pod, now_ns):
            continue
        requested += amount
    return _go_divide(float(milli_value(requested)), float(milli_value(allocatable) - milli_value(left_out)))


def _go_divide(a: float, b: float) -> float:
    """float64 division as Go does it: by zero gives an infinity (or NaN for 0/0)."""
    if b == 0:
        return float("nan") if a == 0 else math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def calculate(node_info: NodeInfo, skip_daemonsets: bool, skip_mirror: bool, now_ns: int,
              provider: CloudProvider = TEST) -> Utilization:
    """utilization.Calculate (UtilizationError where CA's returns an error)."""
    gpu = gpu_resource(node_info.node.obj, provider)
    if gpu is not None:
        try:
            ratio = resource_utilization(node_info, gpu, skip_daemonsets, skip_mirror, now_ns)
        except UtilizationError:
            return Utilization(resource_name=gpu)       # an unready GPU: counted as idle
        return Utilization(gpu=ratio, resource_name=gpu, utilization=ratio)
    cpu = resource_utilization(node_info, CPU, skip_daemonsets, skip_mirror, now_ns)
    mem = resource_utilization(node_info, MEMORY, skip_daemonsets, skip_mirror, now_ns)
    if cpu > mem:
        return Utilization(cpu, mem, 0.0, CPU, cpu)
    return Utilization(cpu, mem, 0.0, MEMORY, mem)
