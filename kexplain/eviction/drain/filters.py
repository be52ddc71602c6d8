"""kubectl drain's pod filters (filters.go `makeFilters`), one function each, in kubectl's order.
Each answers delete-or-not with a reason (Okay, Skip, Warning, Error) and kubectl's message; the
first filter that says "do not delete" ends the pod's pass, and otherwise the last one's answer
stands (so a local-storage warning is dropped by the unreplicated filter after it, as in kubectl).
Beside kubectl's answer each carries the filter's name and the flag that overrides (or allowed) it."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Optional

from kexplain.eviction.versions import DrainRules
from kexplain.model.owners import controller_ref, is_mirror_pod
from kexplain.model.pod import PodInfo

OKAY, SKIP, WARNING, ERROR = "Okay", "Skip", "Warning", "Error"

DAEMONSET_FATAL = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)"
DAEMONSET_WARNING = "ignoring DaemonSet-managed Pods"
LOCAL_STORAGE_FATAL = "Pods with local storage (use --delete-emptydir-data to override)"
LOCAL_STORAGE_WARNING = "deleting Pods with local storage"
UNMANAGED_WARNING = "deleting Pods that declare no controller"
# unmanagedFatal differs by minor: `DrainRules.unmanaged_fatal`

IGNORE_DAEMONSETS, DELETE_EMPTYDIR_DATA, FORCE = "--ignore-daemonsets", "--delete-emptydir-data", "--force"
_FINISHED = ("Succeeded", "Failed")


@dataclass(frozen=True)
class Helper:
    """The part of kubectl's drain.Helper the filters read: the flags, and the DaemonSets the API
    server holds ((namespace, name) pairs) for the DaemonSet filter's lookup."""

    rules: DrainRules
    daemonsets: frozenset[tuple[str, str]]
    ignore_daemonsets: bool = False
    delete_emptydir_data: bool = False
    force: bool = False
    skip_wait_for_delete_timeout: int = 0       # --skip-wait-for-delete-timeout (kubectl's default 0)
    now: Optional[datetime] = None


@dataclass(frozen=True)
class PodDeleteStatus:
    """A filter's answer (kubectl's PodDeleteStatus), with the filter that gave it and the flag that
    overrides it (an Error) or that allowed it (a Warning that deletes)."""

    delete: bool
    reason: str
    message: str = ""
    filter: str = ""
    flag: str = ""


def okay(name: str) -> PodDeleteStatus:
    return PodDeleteStatus(True, OKAY, filter=name)


def skip_deleted(pod: PodInfo, helper: Helper) -> PodDeleteStatus:
    """skipDeletedFilter: a pod deleted longer ago than --skip-wait-for-delete-timeout is skipped."""
    name = "skipDeletedFilter"
    stamp = pod.deletion_timestamp
    if helper.skip_wait_for_delete_timeout > 0 and stamp and helper.now is not None:
        deleted = datetime.fromisoformat(str(stamp).replace("Z", "+00:00"))
        if int((helper.now - deleted).total_seconds()) > helper.skip_wait_for_delete_timeout:
            return PodDeleteStatus(False, SKIP, filter=name)
    return okay(name)


def daemonset(pod: PodInfo, helper: Helper) -> PodDeleteStatus:
    """daemonSetFilter: a DaemonSet's pod (controller apps/v1 DaemonSet) is never deleted: an error
    without --ignore-daemonsets, a warning with it; a finished one goes; one whose DaemonSet is gone
    is deleted with --force and otherwise refused with the API's NotFound."""
    name = "daemonSetFilter"
    ref = controller_ref(pod)
    if ref is None or ref.get("kind") != "DaemonSet" or ref.get("apiVersion") != "apps/v1":
        return okay(name)
    if pod.status.get("phase") in _FINISHED:
        return okay(name)
    if (pod.namespace, str(ref.get("name") or "")) not in helper.daemonsets:
        missing = f'daemonsets.apps "{ref.get("name") or ""}" not found'
        if helper.force:
            return PodDeleteStatus(True, WARNING, missing, name, FORCE)
        return PodDeleteStatus(False, ERROR, missing, name, FORCE)
    if not helper.ignore_daemonsets:
        return PodDeleteStatus(False, ERROR, DAEMONSET_FATAL, name, IGNORE_DAEMONSETS)
    return PodDeleteStatus(False, WARNING, DAEMONSET_WARNING, name, IGNORE_DAEMONSETS)


def mirror(pod: PodInfo, helper: Helper) -> PodDeleteStatus:
    """mirrorPodFilter: a static pod's mirror (the kubelet's config.mirror annotation) is skipped."""
    if is_mirror_pod(pod):
        return PodDeleteStatus(False, SKIP, filter="mirrorPodFilter")
    return okay("mirrorPodFilter")


def has_local_storage(pod: PodInfo) -> bool:
    """hasLocalStorage: an emptyDir volume."""
    return any(isinstance(v, dict) and v.get("emptyDir") is not None for v in pod.spec.get("volumes") or ())


def local_storage(pod: PodInfo, helper: Helper) -> PodDeleteStatus:
    """localStorageFilter: a running pod with an emptyDir loses its data: refused without
    --delete-emptydir-data."""
    name = "localStorageFilter"
    if not has_local_storage(pod) or pod.status.get("phase") in _FINISHED:
        return okay(name)
    if not helper.delete_emptydir_data:
        return PodDeleteStatus(False, ERROR, LOCAL_STORAGE_FATAL, name, DELETE_EMPTYDIR_DATA)
    return PodDeleteStatus(True, WARNING, LOCAL_STORAGE_WARNING, name, DELETE_EMPTYDIR_DATA)


def unreplicated(pod: PodInfo, helper: Helper) -> PodDeleteStatus:
    """unreplicatedFilter: a running pod without a controller is not recreated: refused without --force."""
    name = "unreplicatedFilter"
    if pod.status.get("phase") in _FINISHED or controller_ref(pod) is not None:
        return okay(name)
    if helper.force:
        return PodDeleteStatus(True, WARNING, UNMANAGED_WARNING, name, FORCE)
    return PodDeleteStatus(False, ERROR, helper.rules.unmanaged_fatal, name, FORCE)


PodFilter = Callable[[PodInfo, Helper], PodDeleteStatus]
# makeFilters: kubectl's order (kubectl drain adds no AdditionalFilters)
FILTERS: tuple[PodFilter, ...] = (skip_deleted, daemonset, mirror, local_storage, unreplicated)


def filter_pod(pod: PodInfo, helper: Helper, filters: tuple[PodFilter, ...] = FILTERS) -> PodDeleteStatus:
    """filterPods for one pod: the filters in order, short-circuited at the first "do not delete"."""
    status = okay("")
    for check in filters:
        status = check(pod, helper)
        if not status.delete:
            break
    return status
