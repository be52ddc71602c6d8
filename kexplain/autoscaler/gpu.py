"""GPUs as CA counts them (utils/gpu, processors/customresources/gpu_processor.go, GetNodeGpuConfig):
GPU nodes by the provider's label or a vendor resource, counted for --gpu-total under the label's
type, and a labelled node without GPU allocatable listed unready (FilterOutNodesWithUnreadyResources)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

from kexplain.apimachinery.quantity import value
from kexplain.autoscaler.cloudprovider.provider import TEST, CloudProvider
from kexplain.autoscaler.readiness import RESOURCE_UNREADY, is_ready_and_schedulable, unready_copy
from kexplain.model.resources import pod_requests, resource_list
from kexplain.autoscaler.cloudprovider.gce import DRA_GPU_DRIVER

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.pod import PodInfo

# GPUVendorResourceNames, in CA's order
GPU_RESOURCES = ("nvidia.com/gpu", "habana.ai/gaudi", "gpu.intel.com/xe", "amd.com/gpu", "microsoft.com/directx")


def _status_list(node: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    return resource_list((node.get("status") or {}).get(key))


def gpu_allocatable(node: Mapping[str, Any]) -> int | None:
    """NodeHasGpuAllocatable: the first vendor resource allocatable and not zero, as an integer
    (rounded up); None without one."""
    allocatable = _status_list(node, "allocatable")
    for name in GPU_RESOURCES:
        amount = allocatable.get(name)
        if amount:
            return value(amount)
    return None


def _labels(node: Mapping[str, Any]) -> Mapping[str, Any]:
    return (node.get("metadata") or {}).get("labels") or {}


def gpu_type(node: Mapping[str, Any], provider: CloudProvider = TEST) -> str | None:
    """The node's GPU type: its provider GPU label's value, None without the label."""
    found = _labels(node).get(provider.gpu_label)
    return found if isinstance(found, str) else None


@dataclass(frozen=True)
class GpuConfig:
    """cloudprovider.GpuConfig: a GPU node's type (the label's value, "" without it) and the
    resource its GPUs are (`resource`, "" when they come through DRA: `dra_driver`)."""

    type: str
    resource: str
    dra_driver: str = ""

    @property
    def via_dra(self) -> bool:
        return bool(self.dra_driver)


def node_gpu_config(node: Mapping[str, Any], provider: CloudProvider = TEST) -> GpuConfig | None:
    """GetNodeGpuConfig: None without the GPU label and GPUs allocatable; else the first vendor resource
    allocatable (nvidia.com/gpu when none is); on gce a DRA GPU driver label means GPUs through DRA."""
    labels = _labels(node)
    has_label = provider.gpu_label in labels
    if not has_label and gpu_allocatable(node) is None:
        return None
    allocatable = _status_list(node, "allocatable")
    resource = next((r for r in GPU_RESOURCES if allocatable.get(r)), GPU_RESOURCES[0])
    kind = str(labels.get(provider.gpu_label) or "")
    if provider.dra_gpu_label and labels.get(provider.dra_gpu_label) == "true":
        return GpuConfig(kind, "", DRA_GPU_DRIVER)
    return GpuConfig(kind, resource)


def _via_dra(node: Mapping[str, Any], provider: CloudProvider) -> bool:
    config = node_gpu_config(node, provider)
    return config is not None and config.via_dra


def gpu_target(node: Mapping[str, Any], provider_template: Mapping[str, Any] | None,
               provider: CloudProvider = TEST) -> tuple[str, int] | None:
    """GetNodeGpuTarget: (GPU type, count) of a node with the GPU label, None for one without, one whose GPUs
    come through DRA, or one whose GPUs cannot be told (no allocatable, and no provider template giving a
    capacity). `provider_template`: the node's group's TemplateNodeInfo node (nodegroups.yaml's `template`)."""
    kind = gpu_type(node, provider)
    if kind is None or _via_dra(node, provider):
        return None
    found = gpu_allocatable(node)
    if found is not None:
        return kind, found
    if provider_template is not None:
        capacity = _status_list(provider_template, "capacity")
        for name in GPU_RESOURCES:
            if name in capacity:
                return kind, value(capacity[name])
    return None


def listed_gpu_ready(node: Mapping[str, Any], provider: CloudProvider = TEST) -> Mapping[str, Any]:
    """FilterOutNodesWithUnreadyResources for one node of CA's list: a ready, schedulable node with the GPU
    label and no GPU allocatable (not through DRA) becomes its unready copy."""
    if provider.gpu_label not in _labels(node) or not is_ready_and_schedulable(node):
        return node
    if _via_dra(node, provider) or gpu_allocatable(node) is not None:
        return node
    return unready_copy(node, RESOURCE_UNREADY)


def pod_requests_gpu(pod: "PodInfo") -> bool:
    """PodRequestsGpu: the pod's requests (init containers and overhead counted, as PodRequests
    sums them) name a GPU vendor resource."""
    requests = pod_requests(pod.obj)
    return any(name in requests for name in GPU_RESOURCES)
