"""utils/tpu ClearTPURequests, CA's first pod list processor (core/podlistprocessor
clear_tpu_request.go): each unschedulable pod whose containers request a `cloud-tpus.google.com/*`
resource is replaced, for the rest of the loop, by a copy without those requests, so that TPUs
do not interfere with its simulations. Only `spec.containers`' requests are cleared: init
containers, limits and the pod itself are left as they are."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from kexplain.model.pod import PodInfo

RESOURCE_TPU_PREFIX = "cloud-tpus.google.com/"


def _requests(container: Any) -> Mapping[str, Any]:
    resources = container.get("resources") if isinstance(container, Mapping) else None
    requests = resources.get("requests") if isinstance(resources, Mapping) else None
    return requests if isinstance(requests, Mapping) else {}


def tpu_requests(pod: PodInfo) -> list[str]:
    """The TPU resources the pod's containers request, each once, sorted (what clearing takes away)."""
    return sorted({str(name) for container in pod.spec.get("containers") or () for name in _requests(container)
                   if str(name).startswith(RESOURCE_TPU_PREFIX)})


def has_tpu_request(pod: PodInfo) -> bool:
    """hasTPURequest: a container requests a resource named with the TPU prefix."""
    return bool(tpu_requests(pod))


def clear_tpu_request(pod: PodInfo) -> PodInfo:
    """clearTPURequest: a copy of `pod` whose containers request no TPU resource."""
    containers = []
    for container in pod.spec.get("containers") or ():
        requests = _requests(container)
        if any(str(name).startswith(RESOURCE_TPU_PREFIX) for name in requests):
            kept = {name: value for name, value in requests.items() if not str(name).startswith(RESOURCE_TPU_PREFIX)}
            container = {**container, "resources": {**container["resources"], "requests": kept}}
        containers.append(container)
    return PodInfo({**pod.obj, "spec": {**pod.spec, "containers": containers}})


def clear_tpu_requests(pods: Sequence[PodInfo]) -> list[PodInfo]:
    """ClearTPURequests: the pods, each that requests a TPU replaced by its cleared copy."""
    return [clear_tpu_request(pod) if has_tpu_request(pod) else pod for pod in pods]
