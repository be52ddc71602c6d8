"""The cluster state, read and admitted once (CA's ClusterSnapshot or an informer cache)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import compress, repeat
from operator import eq
from typing import Any

from kexplain.admission import admit
from kexplain.admission.pipeline import BUILTIN
from kexplain.admission.podsecurity import refused_namespaces
from kexplain.admission.shapes import ShapeIndex
from kexplain.apimachinery import columns
from kexplain.apimachinery.stored_pods import StoredPod
from kexplain.config import SchedulerConfig
from kexplain.controllers.disruption import (NamespacePods, Statuses, healthy_rule, notes as budget_notes,
                                             with_status as budgets_with_status)
from kexplain.controllers.persistentvolume import half_bound_notes, settle
from kexplain.errors import Source
from kexplain.features import KubeVersion
from kexplain.load.manifests import check_objects
from kexplain.load.problems import RAISE, Problems
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot
from kexplain.state.apply import admitting, cluster_with, left_out_namespaces
from kexplain.state.build import build_cluster, kubelets_admit
from kexplain.state.objects import (CLUSTER_KINDS, VOLUME_KINDS, Objects, admission_context, among_kinds, is_bound_pod,
                                    object_key, of_kinds)

@dataclass(frozen=True)
class _Applied:
    """A set applied to a state's objects (`ClusterState._applied`) and what admission said of it."""

    objects: Objects
    new: Objects
    admitted_new: Objects
    namespaces_created: Objects
    new_keys: set[Any]
    sources: set[int]
    absent: frozenset[str]
    warnings: list[str]


@dataclass
class ClusterState:
    """A cluster read, admitted and snapshotted once, to explain many pods and answer every autoscaler."""

    snapshot: Snapshot
    config: SchedulerConfig     # the scheduler's configuration (its version's API server admitted the objects)
    nominated: dict[str, list[PodInfo]] = field(default_factory=dict)
    admission_context: Objects = field(default_factory=list)
    pod_keys: frozenset[tuple[str, str]] = frozenset()
    warnings: list[str] = field(default_factory=list)
    _with_namespace: dict[str, Snapshot] = field(default_factory=dict, repr=False)
    objects: Objects = field(default_factory=list, repr=False)  # admitted, in order
    # The objects of kinds the scheduler does not read, as checked (Karpenter's NodePools, ...).
    other_kinds: Objects = field(default_factory=list, repr=False)
    # Namespaces the API server refused: what is created in them is refused (`admit`'s `absent`).
    absent_namespaces: frozenset[str] = frozenset()
    # The set's hand-bound pods their kubelet rejected: (namespace, name) -> its event (`kubelets_admit`).
    kubelet_rejected: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict, repr=False)
    # ... and those a critical pod's kubelet admitted by evicting pods: (namespace, name) -> evicted pods
    kubelet_evicted: dict[tuple[str, str], list[str]] = field(default_factory=dict, repr=False)
    # The set applied to the state (`extended`'s): an autoscaler with the same set takes them as held.
    applied: Objects = field(default_factory=list, repr=False)
    stored: bool = False        # read as stored (`--stored`): nothing was admitted
    # What kubectl's checks and admission said of the objects as they joined the state.
    said: list[str] = field(default_factory=list, repr=False)
    # A stored state's objects as read, every kind (nothing admitted): what CA's loop admits, once.
    read: Objects | None = field(default=None, repr=False)
    # The disruption controller's status of each budget of `objects` written without one (by the
    # budget's id: `disruption.known_status`), computed once as the state was read, with the one
    # countHealthyPods rule for its pods (`healthy_rule(stored)`): the notes, the snapshot and the
    # eviction commands read these. Derived: an extended or overlaid state has none of its own.
    budgets: Statuses = field(default_factory=dict, repr=False)
    # ... and every pod of `objects` by namespace, as those statuses read them ({}: none computed).
    budget_pods: dict[str, NamespacePods] = field(default_factory=dict, repr=False)

    @property
    def kube(self) -> KubeVersion:
        """The version the state was read as, whose API server admits what joins it."""
        return self.config.kube

    def extended(self, file_objects: Objects, created: Objects = (), *, stored: bool = False,
                 problems: Problems = RAISE, absent: frozenset[str] = frozenset()) -> "ClusterState":
        """This state with a file's objects applied (`cluster_with`), only the new ones admitted."""
        if not created and not of_kinds(file_objects, CLUSTER_KINDS):
            return self if not absent else replace(self, absent_namespaces=self.absent_namespaces | absent)
        applied = self._applied(file_objects, created, stored=stored, problems=problems, absent=absent)
        if applied is None:
            return self
        objects, new_keys, sources = applied.objects, applied.new_keys, applied.sources
        admitted_new, namespaces_created, absent = applied.admitted_new, applied.namespaces_created, applied.absent
        provisioned: list[str] = []
        if not stored and any(o.get("kind") in VOLUME_KINDS for o, _ in applied.new):   # the PV controller binds them
            settled = settle(objects, lambda o, s: id(s) in sources)
            objects = settled.objects
            provisioned = settled.notes
        added = admitted_new + namespaces_created
        objects += namespaces_created
        healthy = healthy_rule(stored)
        provisioned += budget_notes(objects, {id(o) for o, _ in admitted_new if o.get("kind") == "PodDisruptionBudget"},
                                    healthy=healthy)
        pods = [o for o, _ in added if o.get("kind") == "Pod"]
        replaced_pods = any(k is not None and k[0] == "Pod" for k in new_keys & {object_key(o) for o, _ in self.objects})
        rebuilt = any(o.get("kind") == "Node" for o, _ in added) or replaced_pods or len(pods) > 50
        if rebuilt:
            snapshot, nominated = build_cluster(objects, healthy=healthy)
        else:                      # the same nodes: the other objects, then the file's bound pods
            others: dict[str, list[dict[str, Any]]] = {}
            namespaces: dict[str, dict[str, str]] = {}
            for o, _ in objects:
                kind = o.get("kind", "")
                if kind in ("Node", "Pod"):
                    continue
                others.setdefault(kind, []).append(o)
                if kind == "Namespace":
                    meta = o.get("metadata") or {}
                    namespaces[meta.get("name", "")] = dict(meta.get("labels") or {})
            if "PodDisruptionBudget" in others:     # (the disruption controller's status, where none is written)
                others["PodDisruptionBudget"] = budgets_with_status(
                    others["PodDisruptionBudget"], [o for o, _ in objects if o.get("kind") == "Pod"], healthy=healthy)
            snapshot, nominated = self.snapshot.with_objects(namespaces, others), self.nominated
        snapshot, failed, said, evictions = kubelets_admit(snapshot, [(o, s) for o, s in added if o.get("kind") == "Pod"],
                                                            self.kube, rebuilt, stored)
        rejected = dict(self.kubelet_rejected)
        evicted = {**self.kubelet_evicted, **evictions}
        if failed:          # the kubelet set their phase: Failed pods, which take no room
            objects = [(failed[id(o)][0] if id(o) in failed else o, src) for o, src in objects]
            rejected.update({(PodInfo(o).namespace, PodInfo(o).name): why for o, why in failed.values()})
        keys = set(self.pod_keys)
        for o, _ in added:
            if o.get("kind") == "Pod":
                meta = o.get("metadata") or {}
                keys.add((meta.get("namespace") or "default", meta.get("name") or ""))
        context = admission_context(objects)
        return ClusterState(snapshot, self.config, nominated, context, frozenset(keys),
                    [*self.warnings, *applied.warnings, *provisioned, *said], objects=objects,
                    other_kinds=self.other_kinds, absent_namespaces=absent, kubelet_rejected=rejected,
                    kubelet_evicted=evicted, applied=[*self.applied, *file_objects, *created], stored=self.stored,
                    said=[*self.said, *applied.warnings], read=self.read)

    def _applied(self, file_objects: Objects, created: Objects = (), *, kinds: frozenset[str] = CLUSTER_KINDS,
                 stored: bool = False, problems: Problems = RAISE, absent: frozenset[str] = frozenset()
                 ) -> "_Applied | None":
        """The state's objects with a set applied and only its new objects admitted; None when nothing is new."""
        merged = cluster_with(self.objects, file_objects, created, kinds=kinds, kube=self.kube, problems=problems)
        old = {id(o) for o, _ in self.objects}
        new = [(o, s) for o, s in merged if id(o) not in old]
        if not new:
            return None
        new_keys = {object_key(o) for o, _ in new} - {None}
        nodes = {str(o["spec"]["nodeName"]) for o, _ in new if is_bound_pod(o)}
        context = [(o, s) for o, s in self.objects if object_key(o) not in new_keys and (
            o.get("kind") in ("StorageClass", "PriorityClass", "RuntimeClass", "Namespace", "LimitRange")
            or (o.get("kind") == "Node" and object_key(o) is not None and object_key(o)[2] in nodes))]
        kept_namespaces = {(o.get("metadata") or {}).get("name") for o, _ in self.objects
                           if o.get("kind") == "Namespace"}
        absent = (self.absent_namespaces | absent | (refused_namespaces(new) if not stored else frozenset())) \
            - kept_namespaces
        every = context + new
        admitted, used = admitting(lambda objs: admit(objs, None, stored=stored, kube=self.kube,
                                                      absent=absent | left_out_namespaces(every, objs)), every, problems)
        if not stored:
            absent |= left_out_namespaces(every, used)
        if len(used) < len(context) + len(new):        # some refused: left out
            kept = {id(o) for o, _ in used}
            new = [(o, s) for o, s in new if id(o) in kept]
            merged = [(o, s) for o, s in merged if id(o) in old or id(o) in kept]
        sources = {id(s) for _, s in new}
        admitted_new = [(o, s) for o, s in admitted.objects if id(s) in sources]
        namespaces_created = [(o, s) for o, s in admitted.objects if s is BUILTIN and o.get("kind") == "Namespace"
                              and (o.get("metadata") or {}).get("name") not in self.snapshot.namespaces]
        if len(admitted_new) == len(new):   # in merged order, each new object replaced by its admitted copy
            by_id = {id(o): copy for (o, _), copy in zip(new, admitted_new)}
            objects = [by_id.get(id(o), (o, s)) for o, s in merged]
        else:                               # (a List unwrapped) the pool's objects, then the new ones
            objects = [(o, s) for o, s in merged if id(o) in old] + admitted_new
        return _Applied(objects, new, admitted_new, namespaces_created, new_keys, sources, absent,
                        list(admitted.warnings))

    def with_set(self, file_objects: Objects, created: Objects = (), *, kinds: frozenset[str] = CLUSTER_KINDS
                 ) -> tuple[Objects, list[str]]:
        """The state's objects with a set applied as an autoscaler reads it (copy-on-write)."""
        held = {id(o) for o, _ in self.applied}
        rest = [(o, s) for o, s in file_objects if id(o) not in held]
        applied = self._applied(rest, created, kinds=kinds) if rest or created else None
        if applied is None:
            return self.objects, []
        return [*applied.objects, *applied.namespaces_created], applied.warnings

    def overlaid(self, objects: Objects) -> "ClusterState":
        """This state with `objects` in place of its own (an overlay), its snapshot shared."""
        return replace(self, objects=objects, budgets={}, budget_pods={})

    def snapshot_with_namespace(self, namespace: dict[str, Any]) -> Snapshot:
        """The state's snapshot plus the Namespace the API server would create for a pod."""
        name = (namespace.get("metadata") or {}).get("name") or ""
        if name in self.snapshot.namespaces:
            return self.snapshot
        if name not in self._with_namespace:
            snap = self.snapshot
            labels = dict((namespace.get("metadata") or {}).get("labels") or {})
            objects = {**snap.objects, "Namespace": [*snap.of_kind("Namespace"), namespace]}
            self._with_namespace[name] = snap.with_objects({**snap.namespaces, name: labels}, objects)
        return self._with_namespace[name]


def state_of(loaded: Objects, config: SchedulerConfig, stored: bool = False, validate: str = "strict",
             problems: Problems = RAISE) -> ClusterState:
    """The state of cluster objects read already, validated and admitted as `config`'s API server would."""
    kube = config.kube
    index = ShapeIndex()                # the pods' shapes, worked out once for both passes (this load only)
    checked = check_objects(loaded, CLUSTER_KINDS, validate=validate, stored=stored, shape_index=index, kube=kube,
                            problems=problems)      # (other kinds kept: `of_kinds` leaves them out)
    cluster, warnings = of_kinds(checked.objects, CLUSTER_KINDS), checked.warnings
    said = list(warnings)           # (before the notes join `warnings`)
    absent = refused_namespaces(cluster) if not stored else frozenset()
    every = cluster
    admitted, used = admitting(lambda objs: admit(objs, None, stored=stored, shape_index=index, kube=kube,
                                                  absent=absent | left_out_namespaces(every, objs)), cluster, problems)
    if not stored:
        absent |= left_out_namespaces(every, used)
    cluster = admitted.objects
    config = config.admitted_as(admitted.kube)     # (its API server's admission plugins, recognised by the nodes)
    if not stored:
        warnings += half_bound_notes(cluster)
    budgets: Statuses = {}          # (each budget's status computed once: the notes, the snapshot, `budgets`)
    pods: dict[str, NamespacePods] = {}
    healthy = healthy_rule(stored)
    others = [(o, s) for o, s in among_kinds(checked.objects, CLUSTER_KINDS, among=False)
              if o.get("kind") not in CLUSTER_KINDS]
    warnings += budget_notes(cluster, kept=budgets, healthy=healthy,     # (a ReplicaSet's Deployment: the finders')
                             more=[o for o, _ in others if o.get("kind") == "Deployment"], pods_kept=pods)
    snapshot, nominated = build_cluster(cluster, budgets, healthy)
    keys = _pod_keys(cluster)
    context = admission_context(cluster)
    return ClusterState(snapshot, config, nominated, context, frozenset(keys), warnings + list(admitted.warnings),
                objects=cluster, other_kinds=others, absent_namespaces=absent, stored=stored,
                said=[*said, *admitted.warnings], read=loaded if stored else None, budgets=budgets,
                budget_pods=pods)


def stored_state(objects: Objects, snapshot: Snapshot, nominated: dict[str, list[PodInfo]],
                 config: SchedulerConfig) -> ClusterState:
    """The state of objects read as stored (a live cluster's lists), its snapshot built already:
    nothing checked or admitted, the objects kept as read for the consumers that admit them."""
    return ClusterState(snapshot, config, nominated, objects=of_kinds(objects, CLUSTER_KINDS), stored=True,
                        read=objects)


def state_admitted_with_pod(objects: Objects, snapshot: Snapshot, nominated: dict[str, list[PodInfo]],
                            config: SchedulerConfig, pod: dict[str, Any], *, other_kinds: Objects = (),
                            absent: frozenset[str] = frozenset(), applied: Objects = ()) -> ClusterState:
    """The state of a cluster admitted together with one pending `pod`, shared and never admitted again."""
    namespace = str((pod.get("metadata") or {}).get("namespace") or "default")
    made = [o for o, s in objects if s is BUILTIN and o.get("kind") == "Namespace"
            and (o.get("metadata") or {}).get("name") == namespace]
    if made and not _holds_pods_or_claims(objects, namespace):
        keep = [o is not made[0] for o, _ in objects]
        objects = objects.taken(keep) if columns.rows_of(objects) is not None \
            else list(compress(objects, keep))   # type: ignore[attr-defined]
        snapshot = snapshot.with_objects(
            {name: labels for name, labels in snapshot.namespaces.items() if name != namespace},
            {**snapshot.objects, "Namespace": [o for o in snapshot.of_kind("Namespace")
                                         if (o.get("metadata") or {}).get("name") != namespace]})
    return ClusterState(snapshot, config, nominated, admission_context(objects), frozenset(_pod_keys(objects)),
                        objects=objects, other_kinds=list(other_kinds), absent_namespaces=absent,
                        applied=list(applied))


def _holds_pods_or_claims(objects: Objects, namespace: str) -> bool:
    """Whether a Pod or ResourceClaim of `objects` is in `namespace`: a dump's rows read in C,
    so that no stored pod's metadata is decoded for it (else object by object)."""
    rows = columns.rows_of(objects)
    if rows is not None:
        return any((kind == "Pod" or kind == "ResourceClaim") and (ns or "default") == namespace
                   for kind, ns in zip(rows.kinds, rows.namespaces))
    return any(o.get("kind") in ("Pod", "ResourceClaim")
               and ((o.get("metadata") or {}).get("namespace") or "default") == namespace for o, _ in objects)


def _pod_keys(cluster: list[tuple[dict[str, Any], Source]]) -> set[tuple[str, str]]:
    """The (namespace, name) of every Pod of `cluster`, read off a dump's rows where it has them."""
    rows = columns.rows_of(cluster)
    if rows is not None:
        try:
            keys = set(compress(zip(rows.namespaces, rows.names), map(eq, rows.kinds, repeat("Pod"))))
        except TypeError:           # (a name no key: asked object by object, as written)
            pass
        else:
            unnamed = [key for key in keys if not (key[0] and key[1])] if not all(map(all, keys)) else []
            keys.difference_update(unnamed)
            keys.update((namespace or "default", name or "") for namespace, name in unnamed)
            return keys
    keys = set()
    for o, _ in cluster:
        if o.get("kind") == "Pod":
            if type(o) is StoredPod:        # (its view: the object is not decoded for its name)
                view = o.view.metadata
                keys.add((view.namespace or "default", view.name or ""))
                continue
            meta = o.get("metadata") or {}
            keys.add((meta.get("namespace") or "default", meta.get("name") or ""))
    return keys
