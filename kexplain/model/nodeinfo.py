"""NodeInfo: one node with the pods bound to it and what they add up to.

Built once per snapshot; preemption works on `clone()`s, so the shared
snapshot is never changed by a what-if.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from kexplain.model.pod import HostPort, PodInfo, stored_pod_info
from kexplain.apimachinery.quantity import parse_quantity
from kexplain.model.resources import Amount, Resource, resource_list
from kexplain.model.shapes import shape_key

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
        labels = meta.get("labels") or {}
        try:        # text already (joining them is the check, in C): copied as they are
            if type(labels) is not dict:
                raise TypeError
            "".join(labels)
            "".join(labels.values())
            labels = dict(labels)
        except TypeError:
            labels = {str(k): str(v) for k, v in labels.items()}
        return cls(obj, meta.get("name") or "", labels, tuple(spec.get("taints") or ()),
                   bool(spec.get("unschedulable")), _allocatable(status.get("allocatable")))

    @property
    def images(self) -> list[dict[str, Any]]:
        return (self.obj.get("status") or {}).get("images") or []


_ALLOCATABLE: dict[bytes, Resource] = {}        # `shape_key` of a status.allocatable -> what it adds up to
_ALLOCATABLE_MAX = 4096


def _allocatable(raw: Any) -> Resource:
    """The Resource of a node's status.allocatable; nodes of one instance type have equal ones,
    worked out once (a copy each: a Resource is not shared)."""
    key = shape_key(raw)
    known = _ALLOCATABLE.get(key) if key is not None else None
    if known is None:
        known = Resource.from_list(resource_list(raw))
        if key is not None and len(_ALLOCATABLE) < _ALLOCATABLE_MAX:
            _ALLOCATABLE[key] = known
    return known.clone()


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
    _pods: list[PodInfo] = field(default_factory=list)     # (`pods`)
    pods_with_affinity: list[PodInfo] = field(default_factory=list)
    pods_with_required_anti_affinity: list[PodInfo] = field(default_factory=list)
    requested: Resource = field(default_factory=Resource)
    non_zero_requested: Resource = field(default_factory=Resource)
    used_ports: HostPortInfo = field(default_factory=HostPortInfo)
    pvc_ref_counts: dict[str, int] = field(default_factory=dict)
    name: str = field(init=False, repr=False)       # the node's; read per plugin per node
    # a dump's stored pods not made `PodInfo`s yet (`add_stored`), in place of `_pods`
    _stored: list[Any] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.name = self.node.name

    @property
    def pods(self) -> list[PodInfo]:
        """Its pods, a snapshot's stored ones made `PodInfo`s on first read: most nodes' pods are never read one
        by one when one pod is explained."""
        stored = self._stored
        if stored is not None:
            self._stored = None
            self._pods = list(map(stored_pod_info, stored))
        return self._pods

    @property
    def pod_count(self) -> int:
        """`len(pods)`, without making them."""
        stored = self._stored
        return len(self._pods) if stored is None else len(stored)

    @property
    def allocatable(self) -> Resource:
        return self.node.allocatable

    def add_pod(self, pod: PodInfo) -> None:
        self.add_pods((pod,))

    def add_pods(self, pods: Sequence[PodInfo]) -> None:
        """`add_pod` of each in turn, with requests counted per `PodFacts.amount` and multiplied once; only
        pods with affinity, host ports or volumes looked at one by one."""
        counts: dict[Amount, int] = {}       # in order of first use
        looked_at = []
        for pod in pods:
            facts = pod.facts
            amount = facts.amount
            counts[amount] = counts.get(amount, 0) + 1
            if facts.indexed or pod.may_claim:
                looked_at.append(pod)
        self.add_counted(pods, counts, looked_at)

    def add_counted(self, pods: Sequence[PodInfo], counts: dict[Amount, int], looked_at: Sequence[PodInfo]) -> None:
        """`add_pods(pods)` given the counts per `PodFacts.amount` (in order of first use: the scalars' key
        order) and the pods to look at one by one, which a snapshot's build finds while it reads the pods."""
        self.pods.extend(pods)
        for pod in looked_at:
            facts = pod.facts
            if facts.has_affinity:
                facts.index_terms()
                self.pods_with_affinity.append(pod)
            if facts.has_required_anti_affinity:
                self.pods_with_required_anti_affinity.append(pod)
            for hp in facts.host_ports:
                self.used_ports.add(hp, 1)
            if pod.may_claim:
                self._count_claims(pod, 1)
        self._add_amounts(counts)

    def add_stored(self, stored: list[Any], counts: dict[Amount, int], claiming: Sequence[PodInfo] = ()) -> None:
        """`add_counted` of a node without pods of a dump's stored pods (`StoredPod`s), made `PodInfo`s only
        when `pods` is read; none has affinity or host ports, and `claiming` are those that may name claims."""
        self._stored = stored
        for pod in claiming:
            self._count_claims(pod, 1)
        self._add_amounts(counts)

    def _add_amounts(self, counts: dict[Amount, int]) -> None:
        requested, non_zero = self.requested, self.non_zero_requested
        for amount, n in counts.items():
            res = amount.resource
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
        if pod.may_claim:
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
