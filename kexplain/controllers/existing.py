"""What a workload's controller still creates when some of its objects exist already (ReplicaSet
manageReplicas, Job manageJob, StatefulSet's ordinals, the Deployment's ReplicaSets), so that a
namespace dump's workload is explained by the pods still to come and nothing is counted twice.
Ownership and what is left as written: docs/internals/controllers.md.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable

from kexplain.controllers.workloads import replica_count

_RECONCILED = frozenset({"Deployment", "ReplicaSet", "ReplicationController", "Job", "StatefulSet"})
_TERMINAL = frozenset({"Succeeded", "Failed"})


@dataclass(frozen=True)
class ToCreate:
    """What the controller still creates: `copies` pods, a StatefulSet's from the ordinal
    `skip` places after its first (`spec.ordinals.start`)."""

    copies: int
    skip: int = 0


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _key(obj: dict[str, Any]) -> tuple[str, str, str]:
    meta = _meta(obj)
    return (str(obj.get("kind")), str(meta.get("namespace") or "default"), str(meta.get("name") or ""))


def _controller_ref(obj: dict[str, Any]) -> dict[str, Any] | None:
    refs = _meta(obj).get("ownerReferences")
    for ref in refs if isinstance(refs, list) else ():
        if isinstance(ref, dict) and ref.get("controller") is True:
            return ref
    return None


class Children:
    """The file's objects by the workload controlling them (`of`)."""

    def __init__(self, objs: Iterable[dict[str, Any]]) -> None:
        self._by_owner: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
        for obj in objs:
            ref = _controller_ref(obj)
            if ref is not None and ref.get("kind") in _RECONCILED:
                owner = (str(ref.get("kind")), str(_meta(obj).get("namespace") or "default"), str(ref.get("name") or ""))
                self._by_owner[owner].append(obj)

    def of(self, workload: dict[str, Any], kind: str | None = None) -> list[dict[str, Any]]:
        """The objects (of `kind`, if given) `workload` controls."""
        uid = _meta(workload).get("uid")
        out = []
        for child in self._by_owner.get(_key(workload), ()):
            ref_uid = (_controller_ref(child) or {}).get("uid")
            if uid and ref_uid and ref_uid != uid:
                continue        # another object of that name, since deleted
            if kind is None or child.get("kind") == kind:
                out.append(child)
        return out


def _active(pods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [p for p in pods if (p.get("status") or {}).get("phase") not in _TERMINAL
            and not _meta(p).get("deletionTimestamp")]


def _running_and_ready(pod: dict[str, Any]) -> bool:
    status = pod.get("status") if isinstance(pod.get("status"), dict) else {}
    ready = any(isinstance(c, dict) and c.get("type") == "Ready" and c.get("status") == "True"
                for c in status.get("conditions") or ())
    return status.get("phase") == "Running" and ready


def _ordinal(sts_name: str, pod: dict[str, Any]) -> int | None:
    name = str(_meta(pod).get("name") or "")
    tail = name[len(sts_name) + 1:] if name.startswith(sts_name + "-") else ""
    return int(tail) if tail.isdigit() else None


def statefulset_to_create(sts: dict[str, Any], pods: list[dict[str, Any]]) -> ToCreate:
    """The StatefulSet controller's next pods given its existing ones (its missing ordinals)."""
    spec = sts.get("spec") if isinstance(sts.get("spec"), dict) else {}
    ordinals = spec.get("ordinals") if isinstance(spec.get("ordinals"), dict) else {}
    start = ordinals.get("start") if isinstance(ordinals.get("start"), int) else 0
    name = str(_meta(sts).get("name") or "")
    have = {o for o in (_ordinal(name, p) for p in pods) if o is not None}
    missing = [o for o in range(start, start + replica_count(sts)) if o not in have]
    if not missing:
        return ToCreate(0)
    parallel = spec.get("podManagementPolicy") == "Parallel"
    if not parallel and not all(_running_and_ready(p) for p in pods):
        return ToCreate(0)      # OrderedReady: waits for every existing pod to be Running and Ready
    run = 1
    while parallel and run < len(missing) and missing[run] == missing[0] + run:
        run += 1                # copies are consecutive ordinals: the first run of missing ones
    return ToCreate(run, missing[0] - start)


def still_to_create(workload: dict[str, Any], children: Children) -> ToCreate | None:
    """What `workload`'s controller still creates given its existing `children`; None when
    none of them exists (the workload is explained as written)."""
    kind = workload.get("kind")
    if kind not in _RECONCILED:
        return None
    if kind == "Deployment":
        return ToCreate(0) if children.of(workload, "ReplicaSet") else None
    pods = children.of(workload, "Pod")
    if not pods:
        return None
    if kind == "StatefulSet":
        return statefulset_to_create(workload, pods)
    return ToCreate(max(0, replica_count(workload) - len(_active(pods))))
