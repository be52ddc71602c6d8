"""GPUs as CA counts them (utils/gpu, processors/customresources/gpu_processor.go).

A node is a GPU node with the cloud provider's GPU label (the cases' test provider:
`TestGPULabel/accelerator`, whose value is the GPU type) or a GPU vendor's resource in its
allocatable. For the cluster-wide GPU limits (`--gpu-total TYPE:MIN:MAX`) a node counts, under
its label's GPU type, the GPUs it has allocatable, or failing that the capacity its group's
provider template gives (GPUs whose driver is not installed yet); a node without the label
counts none.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from kexplain.apimachinery.quantity import value
from kexplain.model.resources import pod_requests, resource_list

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.pod import PodInfo

GPU_LABEL = "TestGPULabel/accelerator"   # the test cloud provider's GPULabel()
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


def gpu_type(node: Mapping[str, Any]) -> str | None:
    """The node's GPU type: its GPU label's value, None without the label."""
    return ((node.get("metadata") or {}).get("labels") or {}).get(GPU_LABEL)


def gpu_target(node: Mapping[str, Any], provider_template: Mapping[str, Any] | None) -> tuple[str, int] | None:
    """GetNodeGpuTarget: (GPU type, count) of a node with the GPU label, None for one without
    or whose GPUs cannot be told (no allocatable, and no provider template giving a capacity).
    `provider_template`: the node's group's TemplateNodeInfo node (nodegroups.yaml's `template`)."""
    kind = gpu_type(node)
    if kind is None:
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


def pod_requests_gpu(pod: "PodInfo") -> bool:
    """PodRequestsGpu: the pod's requests (init containers and overhead counted, as PodRequests
    sums them) name a GPU vendor resource."""
    requests = pod_requests(pod.obj)
    return any(name in requests for name in GPU_RESOURCES)
