"""The engine's front door: from paths and options to a scheduling trace.

Loading, admission, the snapshot, the profile and the scheduling cycle, in the order
kube-scheduler meets them. The CLI and the tests call this; it never prints.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, BinaryIO

from .config import SchedulerConfig, load_config
from .errors import InputError, KexplainError, Source
from .framework.runtime import Framework
from .framework.schedule import Options, schedule_pod
from .gcpolicy import bulk_load
from .load.manifests import load_objects
from .load.workloads import WORKLOAD_KINDS, pod_from_workload
from .load.yaml_io import DEFAULT_MAX_BYTES
from .model.pod import PodInfo
from .model.snapshot import Snapshot
from .plugins import implements, known, plugin_class
from .trace import Trace

CLUSTER_KINDS = frozenset({
    "Node", "Pod", "PersistentVolumeClaim", "PersistentVolume", "StorageClass", "CSINode",
    "PodDisruptionBudget", "PriorityClass", "Namespace", "RuntimeClass", "Service", "ReplicaSet",
    "StatefulSet", "ReplicationController"})


@dataclass(frozen=True)
class Request:
    """What to explain, as the command line gives it."""

    pod_path: str
    node_paths: tuple[str, ...] = ()
    config_path: str | None = None
    start_index: int = 0
    stored: bool = False          # objects were already stored by an API server: no admission
    max_bytes: int = DEFAULT_MAX_BYTES
    preemption_offset: int = 0
    preemption: bool = True
    filter_all: bool = True       # record every Filter plugin per node (trace key filterAll)


@dataclass
class Inputs:
    pod: PodInfo
    pod_source: Source
    snapshot: Snapshot
    config: SchedulerConfig
    nominated: dict[str, list[PodInfo]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def read_config(path: str | None, max_bytes: int = DEFAULT_MAX_BYTES) -> SchedulerConfig:
    if path is None:
        return load_config(None, implements=implements, known=known)
    objs = load_objects([path], max_bytes)
    if len(objs) != 1:
        raise InputError(f"expected one KubeSchedulerConfiguration, found {len(objs)} objects",
                         source=Source(path))
    doc, src = objs[0]
    return load_config(doc, source=src, implements=implements, known=known)


def pending_pod(objs: list[tuple[dict[str, Any], Source]], path: str) -> tuple[dict[str, Any], Source]:
    """The one Pod (or workload template) the positional argument names."""
    candidates = [(o, s) for o, s in objs if o.get("kind") == "Pod" or o.get("kind") in WORKLOAD_KINDS]
    if not candidates:
        kinds = sorted({str(o.get("kind")) for o, _ in objs})
        found = f" (found {', '.join(kinds)})" if kinds else " (the input is empty)"
        raise InputError(f"no Pod or workload to explain{found}", source=Source(path))
    if len(candidates) > 1:
        raise InputError(f"expected one Pod or workload, found {len(candidates)}; "
                         "put the others in --nodes", source=candidates[1][1], obj=candidates[1][0])
    obj, src = candidates[0]
    if obj.get("kind") != "Pod":
        obj = pod_from_workload(obj, src)
    elif not isinstance(obj.get("spec"), dict):
        raise InputError("a Pod needs a spec", source=src, obj=obj, field="spec")
    return obj, src


def load_inputs(req: Request, stdin: BinaryIO | None = None) -> Inputs:
    with bulk_load():
        config = read_config(req.config_path, req.max_bytes)
        pod_obj, pod_src = pending_pod(load_objects([req.pod_path], req.max_bytes, stdin), req.pod_path)
        cluster = load_objects(req.node_paths, req.max_bytes, stdin)
        return inputs_from_objects(pod_obj, pod_src, cluster, config, stored=req.stored)


def inputs_from_objects(pod_obj: dict[str, Any], pod_src: Source,
                        cluster: list[tuple[dict[str, Any], Source]], config: SchedulerConfig,
                        stored: bool = False) -> Inputs:
    """Inputs from objects already read (files, or a live cluster with `stored=True`): objects
    of other kinds are ignored; admission runs unless the objects were stored."""
    cluster = [(o, s) for o, s in cluster if o.get("kind") in CLUSTER_KINDS]
    warnings: list[str] = []
    if not stored:
        from .admission import admit
        admitted = admit(cluster, (pod_obj, pod_src))
        cluster, pod_obj, warnings = admitted.objects, admitted.pending, list(admitted.warnings)
    snapshot, nominated = build_cluster(cluster)
    return Inputs(PodInfo(pod_obj), pod_src, snapshot, config, nominated, warnings)


def build_cluster(cluster: list[tuple[dict[str, Any], Source]]) -> tuple[Snapshot, dict[str, list[PodInfo]]]:
    """The snapshot (nodes with their bound pods, and the other kinds) and the nominated pods
    by node, from admitted or stored cluster objects. Several pods can share one cluster."""
    try:
        return _build_cluster(cluster)
    except KexplainError:
        raise
    except (AttributeError, TypeError, ValueError, KeyError, ArithmeticError) as exc:
        raise _unreadable(cluster, exc) from None


def _build_cluster(cluster: list[tuple[dict[str, Any], Source]]) -> tuple[Snapshot, dict[str, list[PodInfo]]]:
    nodes = [(o, s) for o, s in cluster if o.get("kind") == "Node"]
    pods = [o for o, _ in cluster if o.get("kind") == "Pod"]
    others = [o for o, _ in cluster if o.get("kind") not in ("Node", "Pod")]
    snapshot = Snapshot.build(nodes, [p for p in pods if (p.get("spec") or {}).get("nodeName")], others)
    nominated: dict[str, list[PodInfo]] = {}
    for p in pods:
        if not (p.get("spec") or {}).get("nodeName") and (p.get("status") or {}).get("nominatedNodeName"):
            info = PodInfo(p)
            nominated.setdefault(info.nominated_node_name, []).append(info)
    return snapshot, nominated


def _unreadable(cluster: list[tuple[dict[str, Any], Source]], exc: Exception) -> KexplainError:
    """The error for a cluster the model could not read. Admitted objects were type-checked;
    stored ones are trusted until then (checking 150k pods up front costs seconds), so find
    the first object that would not decode and name its field."""
    from .admission.decode import SCHEMAS, check_decodes
    from .admission.pipeline import copy_json
    for obj, src in cluster:
        if obj.get("kind") in SCHEMAS:
            try:
                check_decodes(copy_json(obj), src)
            except KexplainError as err:
                return err
            except RecursionError:
                return InputError("object is nested too deeply", source=src, obj=obj)
    return InputError(f"cannot read the cluster: {type(exc).__name__}: {exc}",
                      source=cluster[0][1] if cluster else None)


def explain(inputs: Inputs, req: Request) -> Trace:
    fw = framework_for(inputs, req)
    options = Options(start_index=req.start_index,
                      global_percentage=inputs.config.percentage_of_nodes_to_score,
                      filter_all=req.filter_all)
    return schedule_pod(fw, inputs.pod, options)


def framework_for(inputs: Inputs, req: Request) -> Framework:
    """The pod's profile (by schedulerName) with its plugins, bound to the snapshot."""
    scheduler_name = inputs.pod.spec.get("schedulerName") or "default-scheduler"
    try:
        profile = inputs.config.profile_for(scheduler_name)
    except KexplainError as err:
        err.source = err.source or inputs.pod_source
        raise
    args = dict(profile.args)
    args["DefaultPreemption"] = {**args.get("DefaultPreemption", {}), "_offset": req.preemption_offset}
    plugins = dict(profile.plugins)
    if not req.preemption:
        plugins["postFilter"] = tuple(n for n in plugins.get("postFilter", ()) if n != "DefaultPreemption")
    profile = replace(profile, args=args, plugins=plugins)
    registry = {name: plugin_class(name) for names in profile.plugins.values() for name in names}
    return Framework(profile, registry, inputs.snapshot, inputs.nominated)


# -- many pods against one cluster (lint, replicas) ---------------------------------------
ADMISSION_CONTEXT_KINDS = frozenset({"PriorityClass", "RuntimeClass"})


@dataclass
class Pool:
    """A cluster loaded, admitted and snapshotted once, to explain many pods against it.

    `load_pool` builds it; `inputs_for` admits one pending pod against it and returns the
    `Inputs` that `explain` takes. The snapshot is shared by every pod and never changed.
    """

    snapshot: Snapshot
    config: SchedulerConfig
    nominated: dict[str, list[PodInfo]] = field(default_factory=dict)
    admission_context: list[tuple[dict[str, Any], Source]] = field(default_factory=list)
    pod_keys: frozenset[tuple[str, str]] = frozenset()
    warnings: list[str] = field(default_factory=list)
    _with_namespace: dict[str, Snapshot] = field(default_factory=dict, repr=False)

    def snapshot_with_namespace(self, namespace: dict[str, Any]) -> Snapshot:
        """The pool's snapshot, plus `namespace` (a Namespace object) if the pool lacks it:
        what the API server would have created for a pod in a new namespace."""
        name = (namespace.get("metadata") or {}).get("name") or ""
        if name in self.snapshot.namespaces:
            return self.snapshot
        if name not in self._with_namespace:
            snap = self.snapshot
            labels = dict((namespace.get("metadata") or {}).get("labels") or {})
            objects = {**snap.objects, "Namespace": [*snap.of_kind("Namespace"), namespace]}
            self._with_namespace[name] = snap.with_objects({**snap.namespaces, name: labels}, objects)
        return self._with_namespace[name]


def load_pool(node_paths: tuple[str, ...], config_path: str | None = None, *, stored: bool = False,
              max_bytes: int = DEFAULT_MAX_BYTES, stdin: BinaryIO | None = None) -> Pool:
    """The cluster of `--nodes`, admitted (unless `stored`) and snapshotted once."""
    with bulk_load():
        return _load_pool(node_paths, config_path, stored, max_bytes, stdin)


def _load_pool(node_paths: tuple[str, ...], config_path: str | None, stored: bool, max_bytes: int,
               stdin: BinaryIO | None) -> Pool:
    config = read_config(config_path, max_bytes)
    cluster = [(o, s) for o, s in load_objects(node_paths, max_bytes, stdin) if o.get("kind") in CLUSTER_KINDS]
    from .admission import admit
    admitted = admit(cluster, None, stored=stored)
    cluster = admitted.objects
    snapshot, nominated = build_cluster(cluster)
    keys: set[tuple[str, str]] = set()
    for o, _ in cluster:
        if o.get("kind") == "Pod":
            meta = o.get("metadata") or {}
            keys.add((meta.get("namespace") or "default", meta.get("name") or ""))
    context = [(o, s) for o, s in cluster if o.get("kind") in ADMISSION_CONTEXT_KINDS]
    return Pool(snapshot, config, nominated, context, frozenset(keys), list(admitted.warnings))


def inputs_for(pod_obj: dict[str, Any], pod_source: Source, pool: Pool, *, stored: bool = False) -> Inputs:
    """`Inputs` for one pending pod against a loaded pool: the pod goes through admission as
    `load_inputs` would (against the pool's PriorityClasses and RuntimeClasses, refused when a
    pod of that name exists in the pool); `pod_obj` itself is not changed."""
    if stored:
        from .admission.pipeline import copy_json
        return Inputs(PodInfo(copy_json(pod_obj)), pod_source, pool.snapshot, pool.config, pool.nominated)
    from .admission import admit
    from .admission.fielderrors import go_quote
    from .errors import AdmissionRejected
    meta = pod_obj.get("metadata") if isinstance(pod_obj.get("metadata"), dict) else {}
    key = (meta.get("namespace") or "default", meta.get("name") or "")
    if key[1] and key in pool.pod_keys:
        raise AdmissionRejected(f"pods {go_quote(key[1])} already exists", source=pod_source, obj=pod_obj)
    admitted = admit(pool.admission_context, (pod_obj, pod_source))
    pod = admitted.pending
    snapshot = pool.snapshot
    namespace = (pod.get("metadata") or {}).get("namespace") or "default"
    for obj, _ in admitted.objects:
        if obj.get("kind") == "Namespace" and (obj.get("metadata") or {}).get("name") == namespace:
            snapshot = pool.snapshot_with_namespace(obj)
    return Inputs(PodInfo(pod), pod_source, snapshot, pool.config, pool.nominated, list(admitted.warnings))
