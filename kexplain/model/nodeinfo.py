"""NodeInfo: one node with the pods bound to it and what they add up to.

Built once per snapshot; preemption works on `clone()`s, so the shared
snapshot is never changed by a what-if.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from kexplain.model.pod import HostPort, PodInfo
from kexplain.apimachinery.quantity import parse_quantity
from kexplain.model.resources import Resource, resource_list

WILDCARD_IP = "0.0.0.0"


@dataclass(frozen=True)
class Node:
    """The parts of a Node object the plugins read, parsed once."""

    obj: dict[str, Any]
    name: str
    labels: dict[str, str]
    taints: tuple[dict[str, Any], ...]
    unschedulable: bool
    allocatable: Resource

    @classmethod
    def from_obj(cls, obj: dict[str, Any]) -> "Node":
        meta = obj.get("metadata") or {}
        spec = obj.get("spec") or {}
        status = obj.get("status") or {}
        labels = {str(k): str(v) for k, v in (meta.get("labels") or {}).items()}
        return cls(obj, meta.get("name") or "", labels, tuple(spec.get("taints") or ()),
                   bool(spec.get("unschedulable")), Resource.from_list(resource_list(status.get("allocatable"))))

    @property
    def images(self) -> list[dict[str, Any]]:
        return (self.obj.get("status") or {}).get("images") or []


class HostPortInfo:
    """Used host ports per IP, with the 0.0.0.0 wildcard rule of the scheduler."""

    __slots__ = ("_by_ip",)

    def __init__(self) -> None:
        self._by_ip: dict[str, dict[tuple[str, int], int]] = {}

    def clone(self) -> "HostPortInfo":
        c = HostPortInfo()
        c._by_ip = {ip: dict(m) for ip, m in self._by_ip.items()}
        return c

    def add(self, p: HostPort, sign: int = 1) -> None:
        # A set, as in the scheduler: removing one of two pods on the same port frees it.
        m = self._by_ip.setdefault(p.ip or WILDCARD_IP, {})
        key = (p.protocol or "TCP", p.port)
        if sign > 0:
            m[key] = 1
        else:
            m.pop(key, None)
            if not m:
                self._by_ip.pop(p.ip or WILDCARD_IP, None)

    def conflicts(self, p: HostPort) -> bool:
        key = (p.protocol or "TCP", p.port)
        ip = p.ip or WILDCARD_IP
        if ip == WILDCARD_IP:
            return any(key in m for m in self._by_ip.values())
        return any(key in self._by_ip.get(k, {}) for k in (WILDCARD_IP, ip))

    def __len__(self) -> int:
        return sum(len(m) for m in self._by_ip.values())


@dataclass
class NodeInfo:
    """A node and its bound pods, as the scheduler's cache aggregates them."""

    node: Node
    pods: list[PodInfo] = field(default_factory=list)
    pods_with_affinity: list[PodInfo] = field(default_factory=list)
    pods_with_required_anti_affinity: list[PodInfo] = field(default_factory=list)
    requested: Resource = field(default_factory=Resource)
    non_zero_requested: Resource = field(default_factory=Resource)
    used_ports: HostPortInfo = field(default_factory=HostPortInfo)
    pvc_ref_counts: dict[str, int] = field(default_factory=dict)
    name: str = field(init=False, repr=False)       # the node's; read per plugin per node

    def __post_init__(self) -> None:
        self.name = self.node.name

    @property
    def allocatable(self) -> Resource:
        return self.node.allocatable

    def add_pod(self, pod: PodInfo) -> None:
        self.add_pods((pod,))

    def add_pods(self, pods: Sequence[PodInfo]) -> None:
        """`add_pod` of each in turn (the same lists, sums and key orders). Pods of one shape
        share their `PodInfo.facts`, so requests are counted per shape and multiplied once, and
        only pods with pod (anti-)affinity or host ports are looked at one by one: a snapshot's
        build adds each node's pods at once."""
        self.pods.extend(pods)
        counts: dict[int, list[Any]] = {}      # id of a PodFacts -> [it, how many pods]
        for pod in pods:
            facts = pod.facts
            seen = counts.get(id(facts))
            if seen is None:
                counts[id(facts)] = [facts, 1]
            else:
                seen[1] += 1
            if facts.indexed:
                if facts.has_affinity:
                    facts.index_terms()
                    self.pods_with_affinity.append(pod)
                if facts.has_required_anti_affinity:
                    self.pods_with_required_anti_affinity.append(pod)
                for hp in facts.host_ports:
                    self.used_ports.add(hp, 1)
            if "volumes" in pod.spec:           # no claims without volumes
                self._count_claims(pod, 1)
        requested, non_zero = self.requested, self.non_zero_requested
        for facts, n in counts.values():        # in order of first use: the scalars' key order
            res = facts.resource
            requested.add(res.resource, n)
            non_zero.milli_cpu += n * res.non0_cpu
            non_zero.memory += n * res.non0_mem

    def remove_pod(self, pod: PodInfo) -> None:
        for lst in (self.pods, self.pods_with_affinity, self.pods_with_required_anti_affinity):
            for i, p in enumerate(lst):
                if p.key == pod.key:
                    # The scheduler swaps the last pod into the hole; keep its order.
                    lst[i] = lst[-1]
                    lst.pop()
                    break
        self._update(pod, -1)

    def _update(self, pod: PodInfo, sign: int) -> None:
        res = pod.resource
        self.requested.add(res.resource, sign)
        non_zero = self.non_zero_requested
        non_zero.milli_cpu += sign * res.non0_cpu
        non_zero.memory += sign * res.non0_mem
        for hp in pod.host_ports:
            self.used_ports.add(hp, sign)
        if "volumes" in pod.spec:               # no claims without volumes
            self._count_claims(pod, sign)

    def _count_claims(self, pod: PodInfo, sign: int) -> None:
        for claim in pod.pvc_names:
            key = f"{pod.namespace}/{claim}"
            n = self.pvc_ref_counts.get(key, 0) + sign
            if n > 0:
                self.pvc_ref_counts[key] = n
            else:
                self.pvc_ref_counts.pop(key, None)

    def clone(self) -> "NodeInfo":
        return NodeInfo(self.node, list(self.pods), list(self.pods_with_affinity),
                        list(self.pods_with_required_anti_affinity), self.requested.clone(),
                        self.non_zero_requested.clone(), self.used_ports.clone(), dict(self.pvc_ref_counts))


__all__ = ["Node", "NodeInfo", "HostPortInfo", "parse_quantity"]
