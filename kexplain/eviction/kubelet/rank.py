"""The kubelet's ranking of pods for eviction (`helpers.go`): comparators composed in order
(`orderedBy`), each a small named function whose per-pod key is kept, so the explanation shows
every pod's keys in the order the kubelet compared them. Memory pressure ranks by whether usage
exceeds the request, then priority, then usage minus request; PID pressure by priority, then
process count; disk pressure as memory, over the filesystem stats the signal measures
(`buildSignalToRankFunc`). A pod without stats goes first in every comparison."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping, Optional, Sequence

from kexplain.apimachinery.gosort import go_sort
from kexplain.apimachinery.labels import ANNOTATION_MIRROR_POD
from kexplain.eviction.kubelet import signals as sig
from kexplain.eviction.kubelet import thresholds as th
from kexplain.model.resources import pod_requests, resource_list

SYSTEM_CRITICAL_PRIORITY = 2000000000
CONFIG_SOURCE_ANNOTATION = "kubernetes.io/config.source"
API_SERVER_SOURCE = "api"

FS_ROOT, FS_LOGS, FS_LOCAL_VOLUMES, FS_IMAGES = "root", "logs", "localVolumeSource", "images"
ALL_FS = (FS_IMAGES, FS_ROOT, FS_LOGS, FS_LOCAL_VOLUMES)


@dataclass(frozen=True)
class Candidate:
    """An active pod as the ranking sees it: the object and its stats (None: not in the Summary)."""

    pod: Mapping[str, Any]
    stats: Optional[Mapping[str, Any]]

    @property
    def name(self) -> str:
        meta = self.pod.get("metadata") or {}
        return f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}"


@dataclass(frozen=True)
class Comparator:
    """A cmpFunc: `key` is what it reads of one pod (kept for the explanation), `cmp` orders two
    keys (-1: the first is evicted before the second)."""

    name: str
    key: Callable[[Candidate], Any]
    cmp: Callable[[Any, Any], int]


def cmp_bool(a: bool, b: bool) -> int:
    """cmpBool: true before false."""
    return 0 if a == b else (-1 if a else 1)


# -- what a pod is (kubetypes, corev1helpers, v1resource) ------------------------------------------
def priority_of(pod: Mapping) -> int:
    """corev1helpers.PodPriority: spec.priority, 0 when unset."""
    value = (pod.get("spec") or {}).get("priority")
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else 0


def is_critical(pod: Mapping) -> bool:
    """kubetypes.IsCriticalPod: a static pod, a mirror pod, or priority of at least
    system-cluster-critical's."""
    annotations = (pod.get("metadata") or {}).get("annotations") or {}
    source = annotations.get(CONFIG_SOURCE_ANNOTATION)
    if source is not None and source != API_SERVER_SOURCE:
        return True
    if ANNOTATION_MIRROR_POD in annotations:
        return True
    priority = (pod.get("spec") or {}).get("priority")
    return isinstance(priority, int) and priority >= SYSTEM_CRITICAL_PRIORITY


def request_of(pod: Mapping, resource: str) -> Fraction:
    """v1resource.GetResourceRequestQuantity: the pod's effective request, the overhead added
    only to a non-zero request."""
    total = pod_requests(pod).get(resource, Fraction(0))
    overhead = resource_list((pod.get("spec") or {}).get("overhead")).get(resource, Fraction(0))
    base = total - overhead
    return base + overhead if base != 0 else base


# -- the comparators ---------------------------------------------------------------------------------
def _found_first(inner: Callable[[Any, Any], int]) -> Callable[[Any, Any], int]:
    """Every stats comparator starts so: a pod without stats before one with."""
    def cmp(a: Any, b: Any) -> int:
        if a is None or b is None:
            return cmp_bool(a is None, b is None)
        return inner(a, b)
    return cmp


def _larger_first(a: Any, b: Any) -> int:
    return (b > a) - (b < a)


def priority() -> Comparator:
    """priority: the lower priority first."""
    return Comparator("priority", lambda c: priority_of(c.pod), lambda a, b: (a > b) - (a < b))


def exceed_memory_requests() -> Comparator:
    """exceedMemoryRequests: a pod whose working set exceeds its memory request first."""
    def key(c: Candidate) -> Optional[bool]:
        if c.stats is None:
            return None
        return sig.working_set(c.stats.get("memory")) > request_of(c.pod, th.RESOURCE_MEMORY)
    return Comparator("exceedsRequest", key, _found_first(lambda a, b: cmp_bool(a, b)))


def memory() -> Comparator:
    """memory: the larger working set above the request first."""
    def key(c: Candidate) -> Optional[Fraction]:
        if c.stats is None:
            return None
        return sig.working_set(c.stats.get("memory")) - request_of(c.pod, th.RESOURCE_MEMORY)
    return Comparator("usageOverRequest", key, _found_first(_larger_first))


def process() -> Comparator:
    """process: the larger process count first."""
    def key(c: Candidate) -> Optional[int]:
        return None if c.stats is None else sig.process_count(c.stats)
    return Comparator("processes", key, _found_first(_larger_first))


def local_volume_names(pod: Mapping) -> list[str]:
    """localVolumeNames: hostPath volumes and local ephemeral ones (IsLocalEphemeralVolume: emptyDir
    on disk, gitRepo, configMap; not downwardAPI)."""
    out = []
    for v in (pod.get("spec") or {}).get("volumes") or ():
        empty_dir = v.get("emptyDir")
        if v.get("hostPath") is not None or v.get("gitRepo") is not None or v.get("configMap") is not None \
                or (isinstance(empty_dir, Mapping) and not empty_dir.get("medium")):
            out.append(v.get("name"))
    return out


def disk_usage(c: Candidate, measured: Sequence[str], resource: str) -> int:
    """podDiskUsage: bytes (ephemeral-storage) or inodes over the measured stats."""
    read = sig.used_bytes if resource == th.RESOURCE_EPHEMERAL_STORAGE else sig.inodes_used
    stats = c.stats or {}
    total = 0
    for container in stats.get("containers") or ():
        if FS_ROOT in measured:
            total += read(container.get("rootfs"))
        if FS_LOGS in measured:
            total += read(container.get("logs"))
    if FS_LOCAL_VOLUMES in measured:
        volumes = stats.get("volume") or ()
        for name in local_volume_names(c.pod):
            found = next((v for v in volumes if isinstance(v, Mapping) and v.get("name") == name), None)
            if found is not None:
                total += read(found)
    return total


def exceed_disk_requests(measured: Sequence[str], resource: str) -> Comparator:
    """exceedDiskRequests: a pod whose usage exceeds its request of the resource first."""
    def key(c: Candidate) -> Optional[bool]:
        if c.stats is None:
            return None
        return disk_usage(c, measured, resource) > request_of(c.pod, resource)
    return Comparator("exceedsRequest", key, _found_first(lambda a, b: cmp_bool(a, b)))


def disk(measured: Sequence[str], resource: str) -> Comparator:
    """disk: the larger usage above the ephemeral-storage request first (inodes too: the kubelet
    subtracts the bytes requested)."""
    def key(c: Candidate) -> Optional[Fraction]:
        if c.stats is None:
            return None
        return disk_usage(c, measured, resource) - request_of(c.pod, th.RESOURCE_EPHEMERAL_STORAGE)
    return Comparator("usageOverRequest", key, _found_first(_larger_first))


# -- the rank functions ------------------------------------------------------------------------------
def memory_pressure() -> tuple[Comparator, ...]:
    """rankMemoryPressure."""
    return exceed_memory_requests(), priority(), memory()


def pid_pressure() -> tuple[Comparator, ...]:
    """rankPIDPressure."""
    return priority(), process()


def disk_pressure(measured: Sequence[str], resource: str) -> tuple[Comparator, ...]:
    """rankDiskPressureFunc."""
    return exceed_disk_requests(measured, resource), priority(), disk(measured, resource)


def measured_stats(signal: str, image_fs: bool, split: bool) -> tuple[str, ...]:
    """The filesystem stats a disk signal's ranking measures (buildSignalToRankFunc)."""
    node = signal in (th.NODEFS_AVAILABLE, th.NODEFS_INODES_FREE)
    image = signal in (th.IMAGEFS_AVAILABLE, th.IMAGEFS_INODES_FREE)
    if image_fs and not split:
        return (FS_LOGS, FS_LOCAL_VOLUMES) if node else (FS_ROOT, FS_IMAGES)
    if image_fs and split:
        return (FS_IMAGES,) if image else (FS_LOGS, FS_LOCAL_VOLUMES, FS_ROOT)
    return ALL_FS


def rank_function(signal: str, image_fs: bool, split: bool) -> Optional[tuple[Comparator, ...]]:
    """signalToRankFunc[signal]."""
    if signal in (th.MEMORY_AVAILABLE, th.ALLOCATABLE_MEMORY_AVAILABLE):
        return memory_pressure()
    if signal == th.PID_AVAILABLE:
        return pid_pressure()
    if signal not in th.SIGNALS:
        return None
    return disk_pressure(measured_stats(signal, image_fs, split), th.SIGNALS[signal][1])


@dataclass(frozen=True)
class Ranked:
    """One pod in the order, with the key of each comparator, in the kubelet's order;
    `decided_by`: the comparator that put it before the next pod ("" for the last, or a tie)."""

    candidate: Candidate
    keys: tuple[tuple[str, Any], ...]
    decided_by: str = ""


def rank(candidates: Sequence[Candidate], comparators: Sequence[Comparator]) -> list[Ranked]:
    """orderedBy(comparators...).Sort: sort.Sort, Go's pdqsort (an insertion sort up to 12 pods, not
    stable beyond), the comparators in turn, the last deciding."""
    keyed = [(c, tuple(cmp.key(c) for cmp in comparators)) for c in candidates]

    def compare(a: tuple, b: tuple) -> int:
        for i, cmp in enumerate(comparators):
            result = cmp.cmp(a[1][i], b[1][i])
            if result:
                return result
        return 0

    ordered = list(keyed)
    go_sort(ordered, lambda a, b: compare(a, b) < 0)
    out = []
    for i, (c, keys) in enumerate(ordered):
        after = ordered[i + 1][1] if i + 1 < len(ordered) else None
        decided = next((cmp.name for k, cmp in enumerate(comparators)
                        if after is not None and cmp.cmp(keys[k], after[k])), "")
        out.append(Ranked(c, tuple((cmp.name, k) for cmp, k in zip(comparators, keys)), decided))
    return out
