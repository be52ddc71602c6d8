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
from kexplain.controllers.workloads import replica_count
from kexplain.errors import KexplainError, Source, describe
from kexplain.explain.pass_objects import owner_objects, set_objects
from kexplain.explain.pod_file import PodFile, created_objects, policies_after
from kexplain.lint.documents import Document, line_of_field
from kexplain.lint.findings import Finding, ObjectRef
from kexplain.lint.options import LintOptions
from kexplain.lint.set_state import SetCluster, objects_of
from kexplain.load.manifests import check_objects
from kexplain.state.apply import onto_cluster, outside_namespaces
from kexplain.state.objects import is_bound_pod

if TYPE_CHECKING:  # pragma: no cover
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
    if not autoscaled_by:
        return SetCluster(extended, refused, hpas=hpas, ledger=ledger, later=later, children=children)
    autoscaled = [(o, s) for o, s in set_objects(objs_kept, [o for o, _ in pod_file.explained])
                  if where[id(s)].location.key not in refused]
    autoscaled += [c for o, s in pod_file.explained for c in owner_objects(o, s, replica_count(o))]
    return SetCluster(extended, refused, hpas=hpas, ledger=ledger, autoscaled=autoscaled, created=created,
                      later=later, children=children)
