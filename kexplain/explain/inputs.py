"""Loading: from a `Request` to what the scheduler's cycle starts from. Never prints."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, BinaryIO, Callable

from kexplain.admission import admit
from kexplain.admission.pipeline import copy_json
from kexplain.admission.podsecurity import refused_namespaces
from kexplain.admission.resourcequota import QuotaLedger
from kexplain.admission.shapes import ShapeIndex
from kexplain.admission.workloads import WORKLOAD_KINDS, pods_of, workload_warnings
from kexplain.apimachinery.fielderrors import go_quote
from kexplain.config import SchedulerConfig, load_config
from kexplain.controllers.disruption import notes as budget_notes
from kexplain.controllers.jobset import with_jobset_jobs
from kexplain.controllers.operators import with_operator_objects
from kexplain.controllers.persistentvolume import half_bound_notes, settle
from kexplain.controllers.podautoscaler import KIND as HPA_KIND, admitted as admitted_hpas, autoscaled, of_cluster, \
    scalings
from kexplain.controllers.reapplied import cluster_children, unlisted_deployments
from kexplain.errors import AdmissionRejected, InputError, KexplainError, Source, describe
from kexplain.explain.created import created, refused_creates
from kexplain.explain.pass_objects import owner_objects, set_objects
from kexplain.explain.pod_file import Entry, PodFile, created_objects, entries, policies_after, with_rollouts
from kexplain.explain.pod_inputs import Inputs, controllers_create_for, with_template_claims
from kexplain.explain.request import Request, VersionChoice
from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion, VersionError
from kexplain.load.gcpolicy import bulk_load
from kexplain.load.limits import DEFAULT_MAX_BYTES, DEFAULT_MAX_OBJECTS
from kexplain.load.live import recorded_version
from kexplain.load.manifests import check_objects, kustomization_dirs, kustomize_hint, load_objects
from kexplain.load.problems import RAISE, Problems
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot
from kexplain.plugins import implements, known
from kexplain.state.apply import admitting, cluster_with, left_out_namespaces, onto_cluster, outside_namespaces, \
    without_pods
from kexplain.state.build import build_cluster, kubelets_admit
from kexplain.state.cluster import ClusterState, state_admitted_with_pod, state_of
from kexplain.state.objects import CLUSTER_KINDS, POD_KINDS, VOLUME_KINDS, Objects, is_bound_pod, object_key, \
    of_kinds


def read_config(path: str | None, max_bytes: int = DEFAULT_MAX_BYTES,
                max_objects: int = DEFAULT_MAX_OBJECTS, kube: KubeVersion = DEFAULT_VERSION) -> SchedulerConfig:
    """The scheduler configuration at `path` (None: the defaults) as `kube`'s kube-scheduler reads it."""
    if path is None:
        return load_config(None, implements=implements, known=known, kube=kube)
    objs = load_objects([path], max_bytes, max_objects=max_objects)
    if len(objs) != 1:
        raise InputError(f"expected one KubeSchedulerConfiguration, found {len(objs)} objects",
                         source=Source(path))
    doc, src = objs[0]
    return load_config(doc, source=src, implements=implements, known=known, kube=kube)


def missing_node_warnings(pods: Objects, snapshot: Snapshot) -> list[str]:
    """A warning for each Pod whose spec.nodeName names a node the cluster does not have."""
    out = []
    for obj, src in pods:
        if is_bound_pod(obj) and snapshot.get(str(obj["spec"]["nodeName"])) is None:
            out.append(f"{src}: {describe(obj)}: spec.nodeName is {obj['spec']['nodeName']}, which is not a node "
                       "of the cluster: no kubelet will run the pod")
    return out


@dataclass
class Loaded:
    """What the POD file holds: `single` inputs, or a `batch` of entries against a `pool`."""

    single: Inputs | None = None
    batch: list[Entry] = field(default_factory=list)
    pool: ClusterState | None = None
    kube: KubeVersion = DEFAULT_VERSION     # the version followed (`followed_version`)
    problems: list[KexplainError] = field(default_factory=list)    # what was left out, and why
    # What the autoscalers read of the POD file besides its pending pods (`autoscaled_objects`).
    set_objects: Objects = field(default_factory=list)
    set_created: Objects = field(default_factory=list)
    cluster_objects: Objects | None = None     # --nodes as read (never changed), when asked to keep them
    # `single`'s workload applied onto the one the cluster runs: what its controllers do (`Entry.reapplied`)
    reapplied: dict[str, Any] | None = None

    @property
    def cluster_state(self) -> ClusterState | None:
        """The cluster state the autoscalers read instead of admitting the cluster again."""
        return self.pool if self.single is None else self.single.state

    @property
    def empty(self) -> bool:
        """Nothing to explain: every Pod and workload was left out (`problems` say why)."""
        return self.single is None and not self.batch


Prepare = Callable[[Objects, Objects], Objects]


def load(req: Request, stdin: BinaryIO | None = None, *, collect: bool = False,
         keep: "bool | Callable[[Objects], bool]" = False, prepare: Prepare | None = None) -> Loaded:
    """Read the configuration, the POD file and the cluster once: one pod is `single`, anything else a batch."""
    problems = Problems(keep=collect)
    with bulk_load():
        loaded = _load(req, stdin, problems, keep, prepare)
    loaded.problems = problems.found
    return loaded


def _load(req: Request, stdin: BinaryIO | None, problems: Problems,
          keep: "bool | Callable[[Objects], bool]" = False, prepare: Prepare | None = None) -> Loaded:
    objs = load_objects([req.pod_path], req.max_bytes, stdin, max_objects=req.max_objects, problems=problems,
                        namespace=req.namespace)
    cluster = load_objects(req.node_paths, req.max_bytes, stdin, max_objects=req.max_objects, problems=problems)
    if prepare is not None:
        objs = prepare(objs, cluster)
    # the TrainJobs and MPIJobs Kueue did not take: what their operators make (`controllers.operators`);
    # the JobSets Kueue did not take (a TrainJob's among them): the Jobs their controller creates
    objs = with_operator_objects(objs, cluster)
    objs = with_jobset_jobs(objs, cluster)
    kept = keep is True or (callable(keep) and (keep(cluster) or keep(objs)))
    loaded = load_read(req, objs, cluster, problems, keep_state=kept)
    if kept:
        loaded.cluster_objects = cluster
    return loaded


def load_read(req: Request, objs: Objects, cluster: Objects, problems: Problems = RAISE, *,
              keep_state: bool = False) -> Loaded:
    """`load` for objects read already, under the version settled first (`followed_version`)."""
    kube, version_warnings = followed_version(req, cluster)
    config = read_config(req.config_path, req.max_bytes, req.max_objects, kube)
    # kubectl --validate, for the objects explained and those that join the cluster (PodFile)
    checked = check_objects(objs, POD_KINDS | CLUSTER_KINDS | {HPA_KIND}, validate=req.validate, stored=req.stored,
                            explained=POD_KINDS, kube=kube, problems=problems)
    # a Namespace refused there does not exist: what the file creates in it is refused
    gone = left_out_namespaces(objs, checked.objects) if not req.stored else frozenset()
    objs, warnings = checked.objects, version_warnings + config.notes + checked.warnings
    live: dict[tuple[str, str, str], Any] = {}
    if not req.stored:
        objs, outside = outside_namespaces(objs, gone | refused_namespaces(objs))
        objs, refused_hpas = admitted_hpas(objs, kube)      # (refused: they set no replicas)
        # a workload the cluster has: what kubectl apply leaves of it is what its controller reads
        settled = onto_cluster(objs, cluster, WORKLOAD_KINDS, kube=kube)
        objs, live = settled.objects, settled.live
        for err in [*outside, *refused_hpas, *settled.refused]:
            problems.add(err)
    hint = kustomize_hint(kustomization_dirs(objs))
    if hint:
        warnings.append(hint)
    scaled_by: dict[tuple[str, str, str], dict[str, Any]] = {}
    if req.replicas is None:        # the HPAs of the file and of the cluster set their targets' replicas first
        theirs = cluster_hpas(cluster, req, kube, problems)
        scaled_by = scalings(objs, theirs)
        objs, scaled = autoscaled(objs, theirs)
        warnings += scaled
    pod_file = PodFile.of(objs, req.pod_path)
    found = entries(objs, req.pod_path, req.replicas, stored=req.stored, problems=problems, kube=kube)
    found = [replace(e, autoscaled_by=scaled_by.get((e.kind, e.namespace, e.name))) if scaled_by else e
             for e in found]
    if not req.stored:      # the namespace policies the set creates after each
        after = policies_after(objs)
        found = [replace(e, later_policies=after[id(e.workload)]) if id(e.workload) in after else e for e in found]
    if not req.stored and req.replicas is None:      # the workloads the cluster runs: what their controllers do now
        found, cluster, said = rolled_out(found, live, cluster, problems, kube)
        warnings += said
    if not found:
        return Loaded(kube=kube)
    if len(found) == 1 and not found[0].replicated and not found[0].idle:
        single_load = _single(req, found, objs, pod_file, cluster, config, warnings, kube, problems, gone,
                              keep_state)
        if single_load is not None:
            return single_load
    pool = state_of(cluster, config, req.stored, req.validate, problems)
    created = {id(e): created_objects(e.workload, e.source, e.copies, _skip(e))
               for e in found if e.workload is not None}
    before = len(problems.found)
    pool = pool.extended(pod_file.cluster, [c for made in created.values() for c in made], stored=req.stored,
                         problems=problems, absent=gone)
    found = _without_refused_claims(found, created, problems, before)
    if not found:
        return Loaded(kube=kube)
    pool.warnings[:0] = warnings
    pool.warnings += missing_node_warnings(pod_file.cluster, pool.snapshot)
    return Loaded(batch=found, pool=pool, kube=kube, **autoscaled_objects(objs, pod_file, found))


def rolled_out(found: list[Entry], live: dict[tuple[str, str, str], Any], cluster: Objects, problems: Problems,
               kube: KubeVersion) -> tuple[list[Entry], Objects, list[str]]:
    """`found` as the controllers of the workloads the cluster runs leave them (`with_rollouts`), the
    cluster without the running pods they delete first, and what happened to each."""
    unlisted = [e.workload for e in found if e.kind == "Deployment" and e.workload is not None
                and (e.kind, e.namespace, e.name) not in live]
    replica_sets = of_kinds(cluster, _REPLICA_SETS) if unlisted or live else []
    if unlisted and replica_sets:       # (a snapshot's: its ReplicaSets, not its Deployments)
        live = {**live, **unlisted_deployments(unlisted, (o for o, _ in replica_sets))}
    if not live:
        return found, cluster, []
    children = cluster_children((o for o, _ in replica_sets), (o for o, _ in of_kinds(cluster, _PODS)), live.values())
    found, deleted, said = with_rollouts(found, live, children, problems, kube)
    return found, without_pods(cluster, deleted), said


_REPLICA_SETS = frozenset({"ReplicaSet"})
_PODS = frozenset({"Pod"})


def cluster_hpas(cluster: Objects, req: Request, kube: KubeVersion, problems: Problems) -> Objects:
    """The HPAs of --nodes, as kubectl --validate and the API server take them."""
    found = of_cluster(of_kinds(cluster, frozenset({HPA_KIND})))     # (a dump's asked of its rows)
    if not found:
        return []
    checked = check_objects(found, {HPA_KIND}, validate=req.validate, stored=req.stored, kube=kube, problems=problems)
    kept, refused = admitted_hpas(checked.objects, kube, req.stored)
    for err in refused:
        problems.add(err)
    return kept


def _single(req: Request, found: list[Entry], objs: Objects, pod_file: PodFile, cluster: Objects,
            config: SchedulerConfig, warnings: list[str], kube: KubeVersion, problems: Problems,
            gone: frozenset[str] = frozenset(), keep_state: bool = False) -> Loaded | None:
    """The one pod of `found` admitted with the cluster; None when its controller gets no pod created."""
    entry = found[0]
    since = len(problems.found)
    index = ShapeIndex()            # the pods' shapes, worked out once for both passes (this load only)
    checked = check_objects(cluster, CLUSTER_KINDS, validate=req.validate, stored=req.stored, shape_index=index,
                            kube=kube, problems=problems)
    assert entry.workload is not None
    try:
        with pods_of(entry.workload, kube):     # a workload's pod refused: its controller's requests would be
            single = single_inputs(pod_file, entry.workload, entry.pod, entry.source, checked.objects, config,
                                   stored=req.stored, shape_index=index, kube=kube, problems=problems, absent=gone,
                                   later=entry.later_policies, keep_state=keep_state, skip=_skip(entry))
        if not req.stored:          # the quotas of its namespace (`kexplain.explain.created`)
            snapshot = single.snapshot
            if created(entry, single, QuotaLedger.of(
                    [*snapshot.of_kind("ResourceQuota"), *(p.obj for p in snapshot.all_pods())]
                    if snapshot.of_kind("ResourceQuota") else [], kube.enabled("PodLevelResources")))[0].not_created:
                del problems.found[since:]       # read again with the pool
                return None
    except KexplainError as err:        # the one pod refused: nothing is left to explain
        if not req.stored and refused_creates(entry, err, kube=kube) is not None:
            del problems.found[since:]
            return None
        problems.add(err)
        return Loaded(kube=kube)
    if len(problems.found) > since:     # part of the cluster refused: the autoscalers read it as it is
        single.state = None
    single.warnings[:0] = warnings + checked.warnings      # kubectl --validate=warn: the unknown fields
    single.warnings = workload_warnings(single.warnings, entry.workload)
    return Loaded(single=single, kube=kube, reapplied=entry.reapplied, **autoscaled_objects(objs, pod_file, found))


def autoscaled_objects(objs: Objects, pod_file: PodFile, found: list[Entry]) -> dict[str, Objects]:
    """`Loaded.set_objects` and `set_created`: what the autoscalers read of the file besides pending Pods."""
    objects = set_objects(objs, [o for o, _ in pod_file.explained])
    created: Objects = []
    for e in found:
        if e.workload is not None and not e.idle:
            objects += owner_objects(e.workload, e.source, e.copies)
            created += created_objects(e.workload, e.source, e.copies, _skip(e))
    return {"set_objects": objects, "set_created": created}


def _skip(entry: Entry) -> int:
    """The ordinals before a StatefulSet's first copy that exist already (`Copies.skip`)."""
    return entry.naming.skip if entry.naming is not None else 0


def _without_refused_claims(found: list[Entry], created: dict[int, Objects], problems: Problems,
                            since: int) -> list[Entry]:
    """The entries but those whose created objects (a StatefulSet's claim) were refused since `since`."""
    refused: set[int] = set()
    kept: list[KexplainError] = []
    for err in problems.found[since:]:
        key = object_key(err.obj) if isinstance(err.obj, dict) else None
        owner = next((e for e in found if key is not None and any(
            c is err.obj or object_key(c) == key for c, _ in created.get(id(e), ()))), None)
        if owner is None or id(owner) not in refused:
            kept.append(err)
        if owner is not None:
            refused.add(id(owner))
    problems.found[since:] = kept
    return [e for e in found if id(e) not in refused]


def followed_version(req: Request, cluster: Objects) -> tuple[KubeVersion, list[str]]:
    """The version `req` follows, and the warnings to say."""
    if req.version is None:
        return req.kube, []
    return settled_version(req.version, cluster)


def settled_version(choice: VersionChoice, cluster: Objects, default: str | None = None
                    ) -> tuple[KubeVersion, list[str]]:
    """The version `choice` settles on given a snapshot's recorded one, and the warnings to say."""
    recorded = recorded_version(cluster) if choice.given is None else None
    if recorded is None:
        return choice.settle(default)
    text, src = recorded
    try:
        kube, warnings = choice.settle(text)
    except VersionError as err:
        raise VersionError(f"the snapshot was taken of Kubernetes {text}: {err.message}; explain it as a supported "
                           "version with --kubernetes-version", source=src) from None
    return kube, [f"{src}: the snapshot was taken of Kubernetes {text}: {w}" for w in warnings]


def load_inputs(req: Request, stdin: BinaryIO | None = None) -> Inputs:
    """The inputs of the POD file's one pod, for callers that explain one pod; anything else is refused."""
    loaded = load(replace(req, replicas=1), stdin)
    if loaded.single is not None:
        return loaded.single
    if len(loaded.batch) > 1:
        extra = loaded.batch[1]
        raise InputError(f"expected one Pod or workload, found {len(loaded.batch)}; put the others in --nodes",
                         source=extra.source, obj=extra.workload)
    raise InputError("a DaemonSet places one pod per node: explain it as a batch (`load`)",
                     source=loaded.batch[0].source, obj=loaded.batch[0].workload)


def single_inputs(pod_file: PodFile, obj: dict[str, Any], pod_obj: dict[str, Any], src: Source, cluster: Objects,
                  config: SchedulerConfig, *, stored: bool = False, shape_index: ShapeIndex | None = None,
                  kube: KubeVersion = DEFAULT_VERSION, problems: Problems = RAISE,
                  absent: frozenset[str] = frozenset(), later: frozenset[tuple[str, str, str]] = frozenset(),
                  keep_state: bool = False, skip: int = 0) -> Inputs:
    """The inputs of the POD file's one pod against `cluster` with the file's objects, admitted
    (`skip`: a StatefulSet's ordinals before its pod's, which exist)."""
    created = created_objects(obj, src, 1, skip)
    merged = cluster_with(cluster, pod_file.cluster, created, kube=kube, problems=problems)
    applied = frozenset(id(s) for o, s in [*pod_file.cluster, *created] if o.get("kind") in VOLUME_KINDS
                        or is_bound_pod(o))     # (volumes: the PV controller binds them; bound pods: their kubelet)
    with bulk_load():
        inputs, admitted, gone = _admitted_inputs(pod_obj, src, merged, config, stored, applied, shape_index, kube,
                                                  problems, frozenset(id(o) for o, _ in created), absent, later)
        if keep_state and not stored:
            inputs.state = state_admitted_with_pod(
                admitted, inputs.snapshot, inputs.nominated, config, inputs.pod.obj, absent=gone,
                other_kinds=[(o, s) for o, s in cluster if o.get("kind") not in CLUSTER_KINDS],
                applied=[*pod_file.cluster, *created])
        inputs = with_template_claims(inputs)
    inputs.warnings += missing_node_warnings([(pod_obj, src), *pod_file.cluster], inputs.snapshot)
    pinned = (pod_obj.get("spec") or {}).get("nodeName") if isinstance(pod_obj.get("spec"), dict) else None
    if pinned and inputs.snapshot.get(str(pinned)) is not None:
        # lint's not-scheduled finding, said beside the explanation: the same story in both
        inputs.warnings.append(f"{src}: {describe(pod_obj)}: spec.nodeName is {pinned}: the scheduler does not "
                               "place this pod (it bypasses the scheduler); kexplain checks it as that node's "
                               "kubelet admits it")
    return inputs


def inputs_from_objects(pod_obj: dict[str, Any], pod_src: Source, cluster: Objects, config: SchedulerConfig,
                        stored: bool = False, kube: KubeVersion = DEFAULT_VERSION) -> Inputs:
    """Inputs from objects already read, admitted unless stored (the collector paused)."""
    with bulk_load():
        inputs, _, _ = _admitted_inputs(pod_obj, pod_src, cluster, config, stored, frozenset(), None, kube)
        return with_template_claims(inputs)


def _admitted_inputs(pod_obj: dict[str, Any], pod_src: Source, cluster: Objects, config: SchedulerConfig,
                     stored: bool, applied: frozenset[int], shape_index: ShapeIndex | None,
                     kube: KubeVersion, problems: Problems = RAISE,
                     owned: frozenset[int] = frozenset(), gone: frozenset[str] = frozenset(),
                     later: frozenset[tuple[str, str, str]] = frozenset()
                     ) -> tuple[Inputs, Objects, frozenset[str]]:
    """`inputs_from_objects` before the pod's template claims are made, with the cluster as admitted."""
    cluster = of_kinds(cluster, CLUSTER_KINDS)
    warnings: list[str] = []
    absent = gone
    if not stored:
        absent = refused_namespaces(cluster) | gone     # (their pods: `namespaces "x" not found`, once they are left out)
        every = cluster
        admitted, _ = admitting(lambda objs: admit(objs, (pod_obj, pod_src), shape_index=shape_index, kube=kube,
                                                   absent=absent | left_out_namespaces(every, objs), later=later),
                                cluster, problems, owned)
        cluster, pod_obj, warnings = admitted.objects, admitted.pending, list(admitted.warnings)
        config = config.admitted_as(admitted.kube)     # (the admission plugins recognised by the nodes)
        if applied:
            settled = settle(cluster, lambda o, s: id(s) in applied)
            cluster = settled.objects
            warnings += settled.notes
        warnings += half_bound_notes(cluster)
    warnings += budget_notes(cluster)
    snapshot, nominated = build_cluster(cluster)
    pods = [(o, s) for o, s in cluster if id(s) in applied and is_bound_pod(o)] if not stored and applied else []
    rejected = 0
    if pods:        # the file's bound pods, created with it: their kubelet admits them, in order
        snapshot, failed, said, _ = kubelets_admit(snapshot, pods, kube, True, False)
        warnings += said
        rejected = len(failed)
    return Inputs(PodInfo(pod_obj), pod_src, snapshot, config, nominated, warnings, controllers_create_for(pod_obj),
                  rejected), cluster, absent


def load_pool(node_paths: tuple[str, ...], config_path: str | None = None, *, stored: bool = False,
              max_bytes: int = DEFAULT_MAX_BYTES, max_objects: int = DEFAULT_MAX_OBJECTS,
              stdin: BinaryIO | None = None, validate: str = "strict",
              kube: KubeVersion = DEFAULT_VERSION, version: VersionChoice | None = None) -> ClusterState:
    """The cluster state of `--nodes`, validated, admitted and snapshotted once."""
    with bulk_load():
        # The configuration is checked before a large snapshot is read, unless its version depends on it.
        config = read_config(config_path, max_bytes, max_objects, kube) if version is None else None
        loaded = load_objects(node_paths, max_bytes, stdin, max_objects=max_objects)
        warnings: list[str] = []
        if config is None:
            kube, warnings = settled_version(version or VersionChoice(), loaded)
            config = read_config(config_path, max_bytes, max_objects, kube)
        pool = state_of(loaded, config, stored, validate)
        pool.warnings[:0] = warnings + config.notes
        return pool


def inputs_for(pod_obj: dict[str, Any], pod_source: Source, pool: ClusterState, *, stored: bool = False,
               itself: bool = False, later: frozenset[tuple[str, str, str]] = frozenset()) -> Inputs:
    """`Inputs` for one pending pod admitted against a loaded pool, as `load` would; `pod_obj` is not changed."""
    if stored:
        return with_template_claims(Inputs(PodInfo(copy_json(pod_obj)), pod_source, pool.snapshot, pool.config,
                                           pool.nominated, claims_from_templates=controllers_create_for(pod_obj)))
    meta = pod_obj.get("metadata") if isinstance(pod_obj.get("metadata"), dict) else {}
    key = (meta.get("namespace") or "default", meta.get("name") or "")
    if key[1] and key in pool.pod_keys and not itself:
        raise AdmissionRejected(f"pods {go_quote(key[1])} already exists", source=pod_source, obj=pod_obj)
    admitted = admit(pool.admission_context, (pod_obj, pod_source), kube=pool.kube, absent=pool.absent_namespaces,
                     later=later)
    pod = admitted.pending
    snapshot = pool.snapshot
    namespace = (pod.get("metadata") or {}).get("namespace") or "default"
    for obj, _ in admitted.objects:
        if obj.get("kind") == "Namespace" and (obj.get("metadata") or {}).get("name") == namespace:
            snapshot = pool.snapshot_with_namespace(obj)
    return with_template_claims(Inputs(PodInfo(pod), pod_source, snapshot, pool.config, pool.nominated,
                                       list(admitted.warnings), controllers_create_for(pod_obj)))
