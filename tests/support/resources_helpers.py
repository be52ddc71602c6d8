"""Small constructors for NodeResourcesFit / BalancedAllocation tests: pods and nodes as
plain dicts, wrapped the way the scheduler sees them."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import PodInfo

_counter = iter(range(1_000_000))


def container(requests: Mapping[str, Any] | None = None, name: str | None = None,
              restart_policy: str | None = None) -> dict[str, Any]:
    c: dict[str, Any] = {"name": name or f"c{next(_counter)}", "image": "busybox"}
    if requests is not None:
        c["resources"] = {"requests": dict(requests)}
    if restart_policy:
        c["restartPolicy"] = restart_policy
    return c


def pod(*requests: Mapping[str, Any] | None, init: tuple[dict[str, Any], ...] = (),
        overhead: Mapping[str, Any] | None = None, pod_level: Mapping[str, Any] | None = None,
        name: str | None = None, node_name: str = "") -> PodInfo:
    """A pod with one container per `requests` entry (None: a container without requests)."""
    spec: dict[str, Any] = {"containers": [container(r) for r in (requests or (None,))]}
    if init:
        spec["initContainers"] = list(init)
    if overhead:
        spec["overhead"] = dict(overhead)
    if pod_level:
        spec["resources"] = {"requests": dict(pod_level)}
    if node_name:
        spec["nodeName"] = node_name
    return PodInfo({"apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": name or f"p{next(_counter)}", "namespace": "default"},
                    "spec": spec})


def node_info(allocatable: Mapping[str, Any], *pods: PodInfo, name: str = "n1") -> NodeInfo:
    ni = NodeInfo(Node.from_obj({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
                                 "status": {"allocatable": dict(allocatable),
                                            "capacity": dict(allocatable)}}))
    for p in pods:
        ni.add_pod(p)
    return ni


def used(requests: Mapping[str, Any] | None) -> PodInfo:
    """A bound pod with a single container requesting `requests`."""
    return pod(requests, node_name="n1")
