"""The kubelet's local storage limits (`localStorageEviction`: emptyDir size limits, the pod's
ephemeral-storage limit, each container's), checked on every pass before any threshold, whatever
the node's pressure: each pod over a limit is evicted at once (grace period 1 s)."""
from __future__ import annotations

from typing import Callable, Mapping, Optional, Sequence

from kexplain.apimachinery.quantity import Quantity, QuantityError, add, must_parse
from kexplain.eviction.kubelet import message as msg
from kexplain.eviction.kubelet import signals as sig
from kexplain.eviction.kubelet.rank import Candidate

EPHEMERAL_STORAGE = "ephemeral-storage"
# evict(candidate, message) -> bool: the manager's evictPod (False: a critical pod, not evicted)
Evict = Callable[[Candidate, str], bool]


def _quantity(raw: object) -> Optional[Quantity]:
    if raw is None:
        return None
    try:
        return must_parse(str(raw))
    except QuantityError:
        return None


def _limit(container: Mapping) -> Optional[Quantity]:
    return _quantity(((container.get("resources") or {}).get("limits") or {}).get(EPHEMERAL_STORAGE))


def _sum(a: Optional[Quantity], b: Optional[Quantity]) -> Optional[Quantity]:
    """addResourceList: the first kept as written, a sum printed canonically."""
    if b is None:
        return a
    return b if a is None else add(a, b)


def pod_limit(pod: Mapping) -> Optional[Quantity]:
    """resourcehelper.PodLimits(pod)[ephemeral-storage]: the containers' (and sidecars') limits
    summed, at least any init container's, plus the overhead; None when no container sets one."""
    spec = pod.get("spec") or {}
    total: Optional[Quantity] = None
    for c in spec.get("containers") or ():
        total = _sum(total, _limit(c))
    sidecars: Optional[Quantity] = None
    init_max: Optional[Quantity] = None
    for c in spec.get("initContainers") or ():
        if c.get("restartPolicy") == "Always":
            total = _sum(total, _limit(c))
            sidecars = _sum(sidecars, _limit(c))
            candidate = sidecars
        else:
            candidate = _sum(_limit(c), sidecars) if _limit(c) is not None else None
        if candidate is not None and (init_max is None or candidate.value > init_max.value):
            init_max = candidate
    if init_max is not None and (total is None or init_max.value > total.value):
        total = init_max
    overhead = _quantity((spec.get("overhead") or {}).get(EPHEMERAL_STORAGE))
    return add(total, overhead) if total is not None and overhead is not None else total


def empty_dir(c: Candidate, stats: Mapping, evict: Evict) -> bool:
    """emptyDirLimitEviction: the first emptyDir volume used beyond its size limit."""
    used = {v.get("name"): sig.used_bytes(v) for v in stats.get("volume") or ()
            if isinstance(v, Mapping) and v.get("usedBytes") is not None}
    for volume in (c.pod.get("spec") or {}).get("volumes") or ():
        source = volume.get("emptyDir")
        if not isinstance(source, Mapping):
            continue
        size = _quantity(source.get("sizeLimit"))
        amount = used.get(volume.get("name"))
        if amount is not None and size is not None and size.value > 0 and amount > size.value:
            return evict(c, msg.EMPTY_DIR.format(msg.go_quote(str(volume.get("name"))), msg.go_quote(str(size))))
    return False


def pod_ephemeral_storage(c: Candidate, stats: Mapping, evict: Evict) -> bool:
    """podEphemeralStorageLimitEviction: the pod's ephemeral storage beyond its containers' limits."""
    limit = pod_limit(c.pod)
    if limit is None:
        return False
    usage = sig.used_bytes(stats.get("ephemeral-storage"))
    if usage > limit.value:
        return evict(c, msg.POD_EPHEMERAL_STORAGE.format(limit))
    return False


def container_ephemeral_storage(c: Candidate, stats: Mapping, evict: Evict, dedicated_image_fs: bool) -> bool:
    """containerEphemeralStorageLimitEviction: a container's logs (and writable layer, when the
    images are not on their own filesystem) beyond its limit."""
    limits = {}
    for container in (c.pod.get("spec") or {}).get("containers") or ():
        limit = _limit(container)
        if limit is not None and limit.value != 0:
            limits[container.get("name")] = limit
    for cstats in stats.get("containers") or ():
        used = sig.used_bytes(cstats.get("logs"))
        if not dedicated_image_fs:
            used += sig.used_bytes(cstats.get("rootfs"))
        limit = limits.get(cstats.get("name"))
        if limit is not None and limit.value < used:
            return evict(c, msg.CONTAINER_EPHEMERAL_STORAGE.format(cstats.get("name"), msg.go_quote(str(limit))))
    return False


def local_storage_evictions(candidates: Sequence[Candidate], evict: Evict, dedicated_image_fs: bool) -> list[Candidate]:
    """localStorageEviction: every pod with stats over one of its limits, the checks in the
    kubelet's order (a critical pod refused by one is checked by the next)."""
    evicted = []
    for c in candidates:
        if c.stats is None:
            continue
        if empty_dir(c, c.stats, evict) or pod_ephemeral_storage(c, c.stats, evict) \
                or container_ephemeral_storage(c, c.stats, evict, dedicated_image_fs):
            evicted.append(c)
    return evicted


