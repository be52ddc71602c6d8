"""Resource accounting as the scheduler does it: `Resource`, and `pod_requests` as PodRequests computes
it (containers add up, init containers take the max, sidecars add, pod-level requests replace, overhead
added); the non-zero variant is what scoring sees, so request-less pods do not pile onto one node.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Mapping

from kexplain.apimachinery.names import is_label_key
from kexplain.apimachinery.quantity import milli_value, parse_quantity, value
from kexplain.model.shapes import requests_key

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"
HUGEPAGES_PREFIX = "hugepages-"
ATTACHABLE_VOLUMES_PREFIX = "attachable-volumes-"
DEFAULT_MILLI_CPU_REQUEST = 100          # 0.1 core
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024  # 200 MiB

ResourceList = dict[str, Fraction]


def is_native_resource(name: str) -> bool:
    """v1helper.IsNativeResource: unprefixed, or prefixed with a kubernetes.io domain."""
    return "/" not in name or "kubernetes.io/" in name


@lru_cache(maxsize=4096)   # resource names are few; the check runs for every request
def is_extended_resource(name: str) -> bool:
    """v1helper.IsExtendedResourceName: not native, not a quota name (`requests.`), and a
    qualified name once prefixed with `requests.`."""
    if is_native_resource(name) or name.startswith("requests."):
        return False
    return not is_label_key("requests." + name)


def is_hugepage(name: str) -> bool:
    return name.startswith(HUGEPAGES_PREFIX)


def is_scalar_resource(name: str) -> bool:
    """Extended resources, hugepages, prefixed native and attachable-volume counts."""
    return (is_extended_resource(name) or is_hugepage(name)
            or ("kubernetes.io/" in name) or name.startswith(ATTACHABLE_VOLUMES_PREFIX))


@dataclass
class Resource:
    """The scheduler's integer view of a ResourceList (cpu in millicores, the rest in units)."""

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    allowed_pod_number: int = 0
    scalar: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_list(cls, rl: Mapping[str, Fraction]) -> "Resource":
        r = cls()
        r.add_list(rl)
        return r

    def add_list(self, rl: Mapping[str, Fraction]) -> None:
        for name, q in rl.items():
            if name == CPU:
                self.milli_cpu += milli_value(q)
            elif name == MEMORY:
                self.memory += value(q)
            elif name == PODS:
                self.allowed_pod_number += value(q)
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage += value(q)
            elif is_scalar_resource(name):
                self.scalar[name] = self.scalar.get(name, 0) + value(q)

    def add(self, other: "Resource", times: int = 1) -> None:
        """`other` added `times` over (-1: taken away)."""
        self.milli_cpu += times * other.milli_cpu
        self.memory += times * other.memory
        self.ephemeral_storage += times * other.ephemeral_storage
        for name, q in other.scalar.items():
            self.scalar[name] = self.scalar.get(name, 0) + times * q

    def get(self, name: str) -> int:
        """The amount of one named resource (pods: the allowed pod count)."""
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory
        if name == EPHEMERAL_STORAGE:
            return self.ephemeral_storage
        if name == PODS:
            return self.allowed_pod_number
        return self.scalar.get(name, 0)

    def clone(self) -> "Resource":
        return Resource(self.milli_cpu, self.memory, self.ephemeral_storage,
                        self.allowed_pod_number, dict(self.scalar))


@dataclass(frozen=True)
class PodResource:
    """A pod's requests as NodeInfo accounts them, plus the non-zero cpu/memory used for scoring."""

    resource: Resource
    non0_cpu: int
    non0_mem: int


class Amount:
    """One per distinct value of `PodResource` (`amount_of`): what a NodeInfo adds up pods by, so a node's
    pods of many shapes but few request sizes are added once per size (hashed by identity, in C)."""

    __slots__ = ("resource",)

    def __init__(self, resource: PodResource) -> None:
        self.resource = resource


_AMOUNTS: dict[tuple[object, ...], Amount] = {}
_AMOUNTS_MAX = 65536


def amount_of(res: PodResource) -> Amount:
    """The `Amount` of `res`'s value (its scalars in their order: the order a node's sums take them in)."""
    r = res.resource
    key = (r.milli_cpu, r.memory, r.ephemeral_storage, r.allowed_pod_number, tuple(r.scalar.items()), res.non0_cpu,
           res.non0_mem)
    found = _AMOUNTS.get(key)
    if found is None:
        found = Amount(res)
        if len(_AMOUNTS) < _AMOUNTS_MAX:
            _AMOUNTS[key] = found
    return found


def resource_list(raw: object) -> ResourceList:
    """Parse a `{name: quantity}` mapping (already validated by admission)."""
    if not isinstance(raw, dict):
        return {}
    return {str(k): parse_quantity(v) for k, v in raw.items() if v is not None}


def _add(into: ResourceList, rl: Mapping[str, Fraction]) -> None:
    for k, v in rl.items():
        into[k] = into.get(k, 0) + v


def _max(into: ResourceList, rl: Mapping[str, Fraction]) -> None:
    for k, v in rl.items():
        if k not in into or v > into[k]:
            into[k] = v


def _is_pod_level_resource(name: str) -> bool:
    return name in (CPU, MEMORY) or is_hugepage(name)


def pod_level_requests_set(spec: Mapping) -> bool:
    res = spec.get("resources")
    if not isinstance(res, dict):
        return False
    return any(_is_pod_level_resource(k) for k in (res.get("requests") or {}))


def _status_requests(status: Mapping) -> dict[str, tuple[ResourceList, ResourceList]]:
    """Per container name: (actuated requests, allocated resources) from pod status,
    which in-place resize makes part of the effective request."""
    out: dict[str, tuple[ResourceList, ResourceList]] = {}
    for key in ("containerStatuses", "initContainerStatuses"):
        for cs in status.get(key) or ():
            if isinstance(cs, dict) and isinstance(cs.get("resources"), dict):
                out[cs.get("name", "")] = (resource_list(cs["resources"].get("requests")),
                                           resource_list(cs.get("allocatedResources")))
    return out


def _resize_infeasible(status: Mapping) -> bool:
    for cond in status.get("conditions") or ():
        if isinstance(cond, dict) and cond.get("type") == "PodResizePending":
            return cond.get("reason") == "Infeasible"
    return False


def _effective(spec_reqs: ResourceList, st: tuple[ResourceList, ResourceList] | None,
               infeasible: bool) -> ResourceList:
    if st is None:
        return spec_reqs
    actuated, allocated = st
    out: ResourceList = {} if infeasible else dict(spec_reqs)
    _max(out, actuated)
    _max(out, allocated)
    return out


def pod_requests(pod: Mapping, non_missing: Mapping[str, Fraction] | None = None) -> ResourceList:
    """The pod's effective requests (PodRequests with status resources and pod-level resources)."""
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    statuses = _status_requests(status)
    infeasible = _resize_infeasible(status) if statuses else False

    def container_reqs(c: Mapping, use_status: bool) -> ResourceList:
        reqs = resource_list((c.get("resources") or {}).get("requests"))
        if use_status:
            reqs = _effective(reqs, statuses.get(c.get("name", "")), infeasible)
        if non_missing:
            reqs = dict(reqs)
            for k, v in non_missing.items():
                if k not in reqs:
                    reqs[k] = v
        return reqs

    reqs: ResourceList = {}
    for c in spec.get("containers") or ():
        _add(reqs, container_reqs(c, True))
    sidecars: ResourceList = {}
    init_max: ResourceList = {}
    for c in spec.get("initContainers") or ():
        restartable = c.get("restartPolicy") == "Always"
        creqs = container_reqs(c, restartable)
        if restartable:
            _add(reqs, creqs)
            _add(sidecars, creqs)
            creqs = dict(sidecars)
        else:
            tmp: ResourceList = {}
            _add(tmp, creqs)
            _add(tmp, sidecars)
            creqs = tmp
        _max(init_max, creqs)
    _max(reqs, init_max)

    if pod_level_requests_set(spec):
        for k, v in resource_list(spec["resources"].get("requests")).items():
            if _is_pod_level_resource(k):
                reqs[k] = v
    _add(reqs, resource_list(spec.get("overhead")))
    return reqs


_SHAPE_CACHE: dict[bytes, PodResource] = {}
_SHAPE_CACHE_MAX = 65536


def pod_resource(pod: Mapping) -> PodResource:
    """What NodeInfo adds for the pod (CalculateResource). Pods of one shape share one
    (immutable by convention) result: a cluster of 150k pods has a few hundred shapes."""
    try:
        key = requests_key(pod.get("spec"), pod.get("status") or {})
    except AttributeError:      # not plain data: the slow path decides, and reports
        return _pod_resource(pod)
    if key is None:
        return _pod_resource(pod)
    cached = _SHAPE_CACHE.get(key)
    if cached is None:
        cached = _pod_resource(pod)
        if len(_SHAPE_CACHE) < _SHAPE_CACHE_MAX:
            _SHAPE_CACHE[key] = cached
    return cached


def _pod_resource(pod: Mapping) -> PodResource:
    reqs = pod_requests(pod)
    spec = pod.get("spec") or {}
    if pod_level_requests_set(spec):
        non_missing = {}
        if CPU not in reqs:
            non_missing[CPU] = Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000)
        if MEMORY not in reqs:
            non_missing[MEMORY] = Fraction(DEFAULT_MEMORY_REQUEST)
    else:
        non_missing = {CPU: Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000),
                       MEMORY: Fraction(DEFAULT_MEMORY_REQUEST)}
    non0 = pod_requests(pod, non_missing) if non_missing else reqs
    return PodResource(Resource.from_list(reqs), milli_value(non0.get(CPU, Fraction(0))),
                       value(non0.get(MEMORY, Fraction(0))))
