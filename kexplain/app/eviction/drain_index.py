"""The cluster's objects as a drain reads them, split once: the PodDisruptionBudgets, the DaemonSets,
the workload controllers and the pods by namespace. A fix's drain takes the index with only the
objects it changes replaced (`replaced`), so a drain again costs what changed, not the cluster."""
from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Iterable, Mapping, Optional, Sequence

from kexplain.controllers.disruption import KIND, NamespacePods, controllers_of
from kexplain.model.pod import PodInfo

WORKLOADS = ("Deployment", "ReplicaSet", "StatefulSet", "ReplicationController")
Key = tuple[str, str, str]


def key_of(obj: Mapping[str, Any]) -> Key:
    """(kind, namespace, name)."""
    meta = obj.get("metadata") or {}
    return str(obj.get("kind")), meta.get("namespace") or "default", str(meta.get("name") or "")


@dataclass(frozen=True)
class DrainIndex:
    """The objects a drain reads, by what it reads them for (in the order they were read)."""

    pdbs: tuple[dict, ...]
    daemonsets: tuple[dict, ...]
    workloads: Mapping[Key, dict]                    # the first of each key, as the finders take it
    pods: Mapping[str, NamespacePods]                # every pod, by namespace (their labels indexed)

    @classmethod
    def of(cls, objects: Iterable[Mapping[str, Any]], by_namespace: Optional[Mapping[str, NamespacePods]] = None
           ) -> "DrainIndex":
        """The index of `objects`, in one pass (a stored pod asked only its kind and view); `by_namespace`:
        their pods indexed already (the cluster state's, `ClusterState.budget_pods`), taken as they are."""
        pdbs: list[dict] = []
        daemonsets: list[dict] = []
        workloads: dict[Key, dict] = {}
        pods: dict[str, list[PodInfo]] = {}
        for obj in objects:
            kind = obj.get("kind")
            if kind == "Pod":
                if by_namespace is None:
                    info = PodInfo(obj)
                    pods.setdefault(info.namespace, []).append(info)
            elif kind == KIND:
                pdbs.append(obj)        # type: ignore[arg-type]
            elif kind == "DaemonSet":
                daemonsets.append(obj)  # type: ignore[arg-type]
            elif kind in WORKLOADS:
                workloads.setdefault(key_of(obj), obj)      # type: ignore[arg-type]
        return cls(tuple(pdbs), tuple(daemonsets), workloads,
                   dict(by_namespace) if by_namespace is not None else {ns: NamespacePods(p) for ns, p in pods.items()})

    @property
    def daemonset_keys(self) -> frozenset[tuple[str, str]]:
        return frozenset(key_of(o)[1:] for o in self.daemonsets)

    @cached_property
    def controllers(self) -> Any:
        """The controllers the disruption controller's finders look a pod's owner up in: made once for
        the cluster's index; a fix's index reads its parent's (made when first asked, by either), or,
        with a few workloads replaced (a scale fix), a copy of them with those put in place, not a pass
        over every workload of the cluster again."""
        parent = self.__dict__.get("_parent")
        if parent is None:
            return controllers_of(self.workloads.values())
        if parent.workloads is self.workloads:
            return parent.controllers
        # (the finders' table is the workloads by key, as `workloads` holds them: the same keys, the
        # first object of each)
        out = copy.copy(parent.controllers)
        out.by_key = dict(self.workloads)
        return out

    @cached_property
    def _workload_keys(self) -> dict[int, Key]:
        """The key of each workload object this index holds, by the object's identity (its parent's,
        when it holds the same)."""
        parent = self.__dict__.get("_parent")
        if parent is not None and parent.workloads is self.workloads:
            return parent._workload_keys
        return {id(o): k for k, o in self.workloads.items()}

    def pods_in(self, namespace: str) -> Sequence[PodInfo]:
        return self.pods.get(namespace, ())

    @cached_property
    def pdbs_by_key(self) -> Mapping[str, dict]:
        """The budgets by namespace/name (made once per index: every fix candidate reads it; read only)."""
        return {f"{key_of(o)[1]}/{key_of(o)[2]}": o for o in self.pdbs}

    def replaced(self, changes: Mapping[int, Optional[dict]], added: Sequence[dict] = ()) -> "DrainIndex":
        """This index with each object whose id `changes` names replaced by its value (None: removed),
        and `added` (pods) after the rest; only the parts holding a changed object are made again."""
        def swap(objs: Iterable[Any]) -> tuple:
            return tuple(n for n in (changes.get(id(o), o) for o in objs) if n is not None)

        pdbs = swap(self.pdbs) if any(id(o) in changes for o in self.pdbs) else self.pdbs
        daemonsets = swap(self.daemonsets) if any(id(o) in changes for o in self.daemonsets) else self.daemonsets
        workloads = self._workloads_replaced(changes, swap)
        pods = dict(self.pods)
        by_namespace: dict[str, list[PodInfo]] = {}
        for info in (PodInfo(p) for p in added):
            by_namespace.setdefault(info.namespace, []).append(info)
        for namespace, infos in by_namespace.items():
            pods[namespace] = pods.get(namespace, NamespacePods()).with_added(infos)
        out = DrainIndex(pdbs, daemonsets, workloads, pods)
        out.__dict__["_parent"] = self      # (what `controllers` and `_workload_keys` read of it)
        return out

    def _workloads_replaced(self, changes: Mapping[int, Optional[dict]], swap: Any) -> Mapping[Key, dict]:
        """The workloads with `changes` made: those replaced by an object of the same key put in their
        place (found by identity, not by a pass over the cluster's workloads); any other change, the
        table made again in order."""
        keys = self._workload_keys
        hits = [(keys[i], new) for i, new in changes.items() if i in keys]
        if not hits:
            return self.workloads
        if all(new is not None and key_of(new) == key for key, new in hits):
            workloads = dict(self.workloads)
            for key, new in hits:
                workloads[key] = new        # type: ignore[assignment]
            return workloads
        rebuilt: dict[Key, dict] = {}
        for obj in swap(self.workloads.values()):
            rebuilt.setdefault(key_of(obj), obj)
        return rebuilt
