"""The set as applied onto the pool: the pool's workloads as `kubectl apply` leaves them
(`onto_pool`), the pool as the set leaves it, with what the API server refuses of the set as
`admission` findings (`set_cluster`), the HPAs of --nodes (`cluster_hpas`)."""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from kexplain.admission.podsecurity import refused_namespaces
from kexplain.admission.resourcequota import QuotaLedger
from kexplain.admission.workloads import WORKLOAD_KINDS
from kexplain.controllers import podautoscaler
from kexplain.controllers.existing import Children
from kexplain.controllers.reapplied import cluster_children, rollout, unlisted_deployments
from kexplain.controllers.workloads import replica_count
from kexplain.errors import KexplainError, Source, describe
from kexplain.explain.pass_objects import owner_objects, set_objects
from kexplain.explain.pod_file import PodFile, created_objects, policies_after, with_rollouts
from kexplain.lint.documents import Document, line_of_field
from kexplain.lint.findings import Finding, ObjectRef
from kexplain.lint.options import LintOptions
from kexplain.lint.set_state import Running, SetCluster, objects_of
from kexplain.load.manifests import check_objects
from kexplain.load.problems import Problems
from kexplain.state.apply import onto_cluster, outside_namespaces
from kexplain.state.objects import is_bound_pod, object_key, of_kinds

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.explain.pod_file import Entry
    from kexplain.features import KubeVersion
    from kexplain.state.cluster import ClusterState

Key = tuple[str, int, "int | None"]


def cluster_hpas(pool: "ClusterState", options: LintOptions) -> list[tuple[dict[str, Any], Source]]:
    """The pool's HPAs as explain takes those of --nodes (checked, validated unless stored); the
    first refused is raised, as any pool object the API server refuses."""
    found = podautoscaler.of_cluster(pool.other_kinds)
    if not found:
        return []
    checked = check_objects(found, {podautoscaler.KIND}, validate=options.validate, stored=options.stored,
                            kube=pool.kube)
    kept, refused = podautoscaler.admitted(checked.objects, pool.kube, options.stored)
    if refused:
        raise refused[0]
    return kept


def onto_pool(pool: "ClusterState", items: list[Document], update_refused: dict[Key, KexplainError],
              live: dict[Key, dict[str, Any]]) -> list[Document]:
    """`items` with each workload the pool has as `kubectl apply` leaves it (`onto_cluster`), kept
    for scheduling (`live`); a refused update is its document's admission finding (`update_refused`)."""
    objs, where = objects_of(items)
    settled = onto_cluster(objs, pool.objects, WORKLOAD_KINDS, kube=pool.kube)
    for err in settled.refused:
        update_refused[where[id(err.source)].location.key] = err
    for (o, s), (now, _) in zip(objs, settled.objects):
        if now is not o:
            live[where[id(s)].location.key] = now
    return [replace(doc, obj=live[doc.location.key]) if doc.location.key in live else doc
            for doc in items]


def set_cluster(pool: "ClusterState", options: LintOptions, cluster_hpas: list[tuple[dict[str, Any], Source]],
                autoscaled_by: bool, items: list[Document], path: str, gone: frozenset[str],
                warnings: list[str]) -> SetCluster:
    """The pool as the set leaves it (`ClusterState.extended`), with the set's StatefulSets' claims.
    An object the API server refuses is left out as an `admission` finding of its document; a
    Namespace refused (`gone`) makes its objects refused by NamespaceLifecycle. `autoscaled_by`: an
    autoscaler reads the set (--node-groups, NodePools); the pool's warnings join `warnings`."""
    objs, where = objects_of(items)
    refused: dict[tuple[str, int, int | None], Finding] = {}

    def refuse(err: KexplainError) -> bool:
        """The refusal of one of the set's documents as its finding; False when it is none of them."""
        doc = where.get(id(err.source)) if err.source is not None else None
        if doc is None:
            return False
        ref = ObjectRef.of(doc.obj)
        message = err.message
        if isinstance(err.obj, dict) and (ObjectRef.of(err.obj).kind, ObjectRef.of(err.obj).name) != \
                (ref.kind, ref.name):       # not the document's object: a claim of a StatefulSet
            message = f"{describe(err.obj)}: {message}"
        location = replace(doc.location, line=line_of_field(doc.node, err.field) or doc.location.line)
        refused[doc.location.key] = Finding("admission", location, ref, message, field=err.field)
        return True

    pod_file = PodFile.of(objs, path)
    bound_only = bool(pod_file.explained) and all(is_bound_pod(o) for o, _ in pod_file.explained)
    joining = {id(o) for o, _ in pod_file.cluster} | ({id(o) for o, _ in pod_file.explained} if bound_only else set())
    file_objects = [(o, s) for o, s in objs if id(o) in joining]     # (in the set's order)
    created = [c for o, s in pod_file.explained if o.get("kind") == "StatefulSet"
               for c in created_objects(o, s, replica_count(o))]
    absent = (refused_namespaces(file_objects) | gone) if not options.stored else frozenset()
    while True:         # (a Namespace refused stays absent once left out: its objects are refused)
        try:
            extended = pool.extended(file_objects, created, absent=absent)
            break
        except KexplainError as err:
            if not refuse(err):           # not one of the file's objects: the file adds nothing
                extended = pool
                break
            if isinstance(err.obj, dict) and err.obj.get("kind") == "Namespace" and not options.stored:
                absent |= {str(ObjectRef.of(err.obj).name)}
            file_objects = [(o, s) for o, s in file_objects if s is not err.source]
            created = [(o, s) for o, s in created if s is not err.source]
    # NamespaceLifecycle for the kinds admission does not read, then the HPAs' validation
    objs_kept, outside = outside_namespaces([(o, s) for o, s in objs if id(o) not in joining],
                                            extended.absent_namespaces)
    objs_kept, hpa_refusals = podautoscaler.admitted(objs_kept, extended.kube, options.stored)
    for err in [*outside, *hpa_refusals]:
        refuse(err)
    objs_kept = [(o, s) for o, s in objs if where[id(s)].location.key not in refused]
    ledger = None if options.stored else QuotaLedger.of((o for o, _ in extended.objects),
                                                         extended.kube.enabled("PodLevelResources"))
    warnings += [w for w in extended.warnings if w not in warnings]   # (a volume provisioned)
    hpas = podautoscaler.autoscalers(podautoscaler.applied(cluster_hpas, objs_kept))
    later = policies_after(objs) if not options.stored else {}
    children = Children(o for o, _ in objs)
    running = Running() if options.stored else running_on(pool, [o for o, _ in pod_file.explained])
    extended = running.without_deleted(extended)
    if not autoscaled_by:
        return SetCluster(extended, refused, hpas=hpas, ledger=ledger, later=later, children=children,
                          running=running)
    autoscaled = [(o, s) for o, s in set_objects(objs_kept, [o for o, _ in pod_file.explained])
                  if where[id(s)].location.key not in refused]
    autoscaled += [c for o, s in pod_file.explained for c in owner_objects(o, s, replica_count(o))]
    return SetCluster(extended, refused, hpas=hpas, ledger=ledger, autoscaled=autoscaled, created=created,
                      later=later, children=children, running=running)


def running_on(pool: "ClusterState", workloads: list[dict[str, Any]]) -> Running:
    """The pool's Deployments, StatefulSets and ReplicaSets the set applies again (`workloads`, as kubectl apply
    leaves them), their ReplicaSets and pods, and the running pods their controllers delete first."""
    keys = {k for k in map(object_key, workloads) if k is not None and k[0] in _ROLLED}
    if not keys:
        return Running()
    live = {k: o for o, _ in [*of_kinds(pool.objects, _ROLLED), *of_kinds(pool.other_kinds, _ROLLED)]
            if (k := object_key(o)) in keys}
    replica_sets = [o for o, _ in of_kinds(pool.objects, frozenset({"ReplicaSet"}))]
    unlisted = [o for o in workloads if o.get("kind") == "Deployment" and object_key(o) in keys - live.keys()]
    if unlisted and replica_sets:       # (a snapshot's: its ReplicaSets, not its Deployments)
        live.update(unlisted_deployments(unlisted, replica_sets))
    if not live:
        return Running()
    children = cluster_children(replica_sets, (o for o, _ in of_kinds(pool.objects, frozenset({"Pod"}))),
                                live.values())
    deleted: set[tuple[str, str]] = set()
    for obj in workloads:
        key = object_key(obj)
        done = rollout(obj, live[key], children, pool.kube) if key in live else None
        deleted.update((key[1], name) for name in (done.deleted if done is not None else ()))
    return Running(live, children, frozenset(deleted))


_ROLLED = frozenset({"Deployment", "StatefulSet", "ReplicaSet", "ReplicationController"})


def rolled_out(entry: "Entry", running: Running, kube: "KubeVersion") -> tuple["Entry", list[str]]:
    """The entry of a workload the pool runs as its controllers leave it (`with_rollouts`), and what
    happened, a warning ("<path>: document <n>: <object> exists on the cluster: ..."); PodsExist
    when they create no pod."""
    if not running.live:
        return entry, []
    kept = Problems(keep=True)
    found, _, said = with_rollouts([entry], running.live, running.children, kept, kube)
    if kept.found:
        raise kept.found[0]
    return found[0], said
