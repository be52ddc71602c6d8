"""Loading: from a `Request` to what the scheduler's cycle starts from.

The scheduler configuration, the POD file (the Pods and workloads to explain, and the objects
that join the cluster with them: `PodFile`, `cluster_with`), the cluster of --nodes, admission,
and the snapshot. `load` is the one way to read a POD file (the CLI, the conformance runner,
the benchmarks): one pod of one copy gives the `Inputs` of one explanation, anything else a
batch (`Entry`s) against a `kexplain.state.ClusterState`, which `kexplain.explain.batch`
schedules. `load_pool` and `inputs_for` are also lint's: a cluster state read once, and pods
admitted against it one by one.
Never prints.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, BinaryIO, Callable

from kexplain.admission.shapes import ShapeIndex
from kexplain.admission.workloads import WORKLOAD_KINDS, pods_of, workload_warnings
from kexplain.apimachinery.kinds import KIND_GROUPS, api_group, is_builtin_kind
from kexplain.config import SchedulerConfig, load_config
from kexplain.controllers.disruption import notes as budget_notes
from kexplain.controllers.existing import Children, still_to_create
from kexplain.controllers.ephemeral import with_volume_claims, writes_volume_claims_for
from kexplain.controllers.podautoscaler import KIND as HPA_KIND, admitted as admitted_hpas, autoscaled, of_cluster, \
    scalings
from kexplain.controllers.resourceclaim import create_claims, templates_by_key, writes_claims_for
from kexplain.controllers.workloads import Copies, copies_of, idle_reason, replica_count, statefulset_claims, \
    workload_name, workload_pod
from kexplain.errors import InputError, KexplainError, LeftOutNote, Source, describe
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
from kexplain.state.apply import admitting, cluster_with, left_out_namespaces, outside_namespaces
from kexplain.state.build import build_cluster, kubelets_admit
from kexplain.state.cluster import ClusterState, state_admitted_with_pod, state_of
from kexplain.state.objects import CLUSTER_KINDS, POD_KINDS, VOLUME_KINDS, Objects, is_bound_pod, object_key, \
    of_kinds


@dataclass
class Inputs:
    """One pending pod, admitted, and the cluster it is scheduled against."""

    pod: PodInfo
    pod_source: Source
    snapshot: Snapshot
    config: SchedulerConfig
    nominated: dict[str, list[PodInfo]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    claims_from_templates: bool = False    # kexplain plays the claims' controllers (`controllers_create_for`)
    kubelet_rejected: int = 0     # the set's other pods bound by spec.nodeName that their kubelet rejects
    # The cluster as admitted with the pod, for the autoscalers to read instead of admitting it
    # again (`single_inputs`' keep_state; None: not asked, stored, or part of it refused)
    state: ClusterState | None = None


def with_template_claims(inputs: Inputs) -> Inputs:
    """`inputs` with the pod's template claims made as the resourceclaim controller makes them
    (`kexplain.controllers.resourceclaim`), for a pod that had no status as written
    (`claims_from_templates`): the status entries are the controller's, so any the pod carries
    (made for the pod it was copied from) are made again for this pod, and its claims join
    the snapshot (replacing a claim of the same name: the one made for the pod copied from).
    A note per claim created or template missing joins the warnings. Other pods: unchanged."""
    if not inputs.claims_from_templates:
        return inputs
    snapshot = inputs.snapshot
    as_written = {k: v for k, v in inputs.pod.obj.items() if k != "status"}
    made = create_claims(as_written, templates_by_key(snapshot.of_kind("ResourceClaimTemplate")),
                         snapshot.of_kind("ResourceClaim"))
    if made.claims:
        keys = {object_key(c) for c in made.claims}
        objects = dict(snapshot.objects)
        objects["ResourceClaim"] = [c for c in snapshot.of_kind("ResourceClaim") if object_key(c) not in keys] \
            + made.claims
        snapshot = snapshot.with_objects(snapshot.namespaces, objects)
    # and the claims of its generic ephemeral volumes (`kexplain.controllers.ephemeral`)
    snapshot, volume_notes = with_volume_claims(made.pod, inputs.pod_source, snapshot, inputs.config.kube)
    warnings = inputs.warnings + [n for n in [*made.notes, *volume_notes] if n not in inputs.warnings]
    return replace(inputs, pod=PodInfo(made.pod), snapshot=snapshot, warnings=warnings)


def controllers_create_for(pod: dict[str, Any]) -> bool:
    """Whether kexplain plays the controllers that create a pod's claims from its templates
    (resource claim templates, ephemeral volume claim templates): a pod as people write it."""
    return writes_claims_for(pod) or writes_volume_claims_for(pod)


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


# -- the POD file -------------------------------------------------------------------------------


@dataclass
class PodFile:
    """The POD file split as a user applies it: what is explained, and what joins the cluster.

    `explained`: the Pods and workloads whose pods are explained, in file order. `cluster`: the
    file's objects of the kinds the scheduler reads (`CLUSTER_KINDS`: claims, volumes,
    StorageClasses, PriorityClasses, Services, ...): `kubectl apply -f FILE` creates them with
    the pods, so the pods are scheduled against a cluster that has them. A Pod with spec.nodeName
    is bound already: it joins the cluster (taking room on its node) when the file has anything
    else to explain, and is explained (as before) when it is all the file holds. A ReplicaSet,
    StatefulSet or ReplicationController is both: its pods are explained, and the object itself
    is in the cluster when they are scheduled (default topology spreading reads its selector).
    Objects of other kinds (ConfigMaps, Ingresses, Deployments as cluster objects, ...) are
    ignored, as in --nodes."""

    path: str
    explained: Objects = field(default_factory=list)
    cluster: Objects = field(default_factory=list)

    @classmethod
    def of(cls, objs: Objects, path: str) -> "PodFile":
        objs = of_kinds(objs, POD_KINDS | CLUSTER_KINDS)
        pending = [(o, s) for o, s in objs
                   if o.get("kind") in WORKLOAD_KINDS or (o.get("kind") == "Pod" and not is_bound_pod(o))]
        if not pending:
            pending = [(o, s) for o, s in objs if is_bound_pod(o)]
        explained_ids = {id(o) for o, _ in pending}
        cluster = [(o, s) for o, s in objs if o.get("kind") in CLUSTER_KINDS
                   and not (o.get("kind") == "Pod" and id(o) in explained_ids)]
        return cls(path, pending, cluster)


def found_kinds(objs: Objects) -> str:
    """The kinds of `objs`, for a message that there is nothing to explain; a custom resource
    named like a kind kexplain reads is named with its group (`Job (batch.volcano.sh, a custom
    resource)`), as the kind alone would say a Job was found and not explained."""
    names = set()
    for o, _ in objs:
        kind = str(o.get("kind"))
        if kind in KIND_GROUPS and not is_builtin_kind(o.get("apiVersion"), kind):
            kind = f"{kind} ({api_group(o.get('apiVersion'))}, a custom resource)"
        names.add(kind)
    return ", ".join(sorted(names))


def explained_object(objs: Objects, path: str) -> tuple[dict[str, Any], Source]:
    """The one Pod or workload the positional argument names."""
    candidates = PodFile.of(objs, path).explained
    if not candidates:
        kinds = found_kinds(objs)
        found = f" (found {kinds})" if kinds else " (the input is empty)"
        hint = kustomize_hint(kustomization_dirs(objs))
        raise InputError(f"no Pod or workload to explain{found}{'; ' + hint if hint else ''}", source=Source(path))
    if len(candidates) > 1:
        raise InputError(f"expected one Pod or workload, found {len(candidates)}; "
                         "put the others in --nodes", source=candidates[1][1], obj=candidates[1][0])
    return candidates[0]


def pod_of(obj: dict[str, Any], src: Source, *, stored: bool = False,
           kube: KubeVersion | None = None) -> dict[str, Any]:
    """The pending pod of a Pod or workload of the POD file: the Pod itself, or the workload's
    first pod (`workload_pod`: refused with the API server's message when it would refuse the
    workload, unless `stored`)."""
    if obj.get("kind") != "Pod":
        return workload_pod(obj, src, 0, stored=stored, kube=kube)
    if not isinstance(obj.get("spec"), dict):
        raise InputError("a Pod needs a spec", source=src, obj=obj, field="spec")
    return obj


def pending_pod(objs: Objects, path: str, *, stored: bool = False) -> tuple[dict[str, Any], Source]:
    """The one Pod (or workload's first pod) the positional argument names."""
    obj, src = explained_object(objs, path)
    return pod_of(obj, src, stored=stored), src


def created_objects(obj: dict[str, Any], src: Source, copies: int) -> Objects:
    """What a workload's controller creates besides its pods, for its first `copies` pods: a
    StatefulSet's claims (`statefulset_claims`)."""
    return [(c, src) for c in statefulset_claims(obj, copies)]


def missing_node_warnings(pods: Objects, snapshot: Snapshot) -> list[str]:
    """A warning for each Pod whose spec.nodeName names a node the cluster does not have: the
    scheduler never sees such a pod, and no kubelet will run it."""
    out = []
    for obj, src in pods:
        if is_bound_pod(obj) and snapshot.get(str(obj["spec"]["nodeName"])) is None:
            out.append(f"{src}: {describe(obj)}: spec.nodeName is {obj['spec']['nodeName']}, which is not a node "
                       "of the cluster: no kubelet will run the pod")
    return out


@dataclass(frozen=True)
class Entry:
    """One object of the POD file: a Pod, or a workload and how many copies of its pod to place."""

    kind: str
    namespace: str
    name: str
    pod: dict[str, Any]          # the pending pod (a workload's: made from its template)
    source: Source
    copies: int                  # how many copies to place; 1 without replicas (a DaemonSet's: see `daemon`)
    replicated: bool             # placed copy by copy, copies named as `naming` says
    position: int                # order of appearance in the file
    naming: Copies | None = None             # how its copies are named (a StatefulSet's: ordinals, claims)
    workload: dict[str, Any] | None = None   # the Pod or workload as the file has it
    idle: str = ""      # why its controller creates no pod now (`idle_reason`): its template is explained, unbound
    # its controller could create only `copies` pods (none: 0) of the `asked` it wants: the
    # FailedCreate event of the first create the API server refused (`kexplain.explain.created`)
    failed_create: str = ""
    asked: int = 0
    autoscaled_by: dict[str, Any] | None = None     # the HPA that set its replicas (`podautoscaler.scaling`)
    # the set's LimitRanges and ResourceQuotas created after it ((kind, namespace, name)): its pods,
    # created at its place in the set, are admitted without them (`policies_after`)
    later_policies: frozenset[tuple[str, str, str]] = frozenset()
    # what held its pods before its controller created them: Kueue's answer (`kexplain.kueue.chain`)
    kueue: dict[str, Any] | None = None

    @property
    def not_created(self) -> bool:
        """Its controller asks for pods and the API server refuses the first: no pod exists."""
        return bool(self.failed_create) and self.copies == 0

    @property
    def daemon(self) -> bool:
        """A DaemonSet: one copy per node its controller runs it on, whatever `copies` says
        (`kexplain.explain.placement.daemon_nodes`)."""
        return self.kind == "DaemonSet"


POLICY_KINDS = frozenset({"LimitRange", "ResourceQuota"})


def policies_after(objs: Objects) -> dict[int, frozenset[tuple[str, str, str]]]:
    """By id of each object of a set (in the set's order: `kubectl apply -f` creates objects in
    the order given, files by name, documents in order, and does not sort kinds), the namespace
    policies of the set created after it: (kind, namespace, name) of its LimitRanges and
    ResourceQuotas that do not exist yet when it is created. A Pod is created at its place; a
    workload's pods are taken as created at the workload's (its controller creates them within
    a second of it: a later policy may in fact win that race, which kexplain does not play)."""
    keys = [(o.get("kind"), str((o.get("metadata") or {}).get("namespace") or "default"),
             str((o.get("metadata") or {}).get("name") or "")) if o.get("kind") in POLICY_KINDS
            and isinstance(o.get("metadata"), dict) else None for o, _ in objs]
    remaining = frozenset(k for k in keys if k is not None)
    out: dict[int, frozenset[tuple[str, str, str]]] = {}
    if not remaining:
        return out
    for (o, _), key in zip(objs, keys):
        if key is not None:
            remaining = remaining - {key}
        elif remaining:
            out[id(o)] = remaining      # type: ignore[assignment]
    return out


def entry_of(obj: dict[str, Any], src: Source, position: int, replicas: int | None = None, *,
             stored: bool = False, kube: KubeVersion = DEFAULT_VERSION) -> Entry:
    """The entry of one Pod or workload, the `position`-th of its file; `replicas` overrides its
    count (not a DaemonSet's). A workload's pod is its first copy, `<name>-0` (a StatefulSet's,
    its first ordinal's); a workload the API server would refuse is refused with its message
    (`kexplain.admission.workloads`), unless `stored`."""
    kind = str(obj.get("kind"))
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    copies = replicas if replicas is not None and kind != "DaemonSet" else replica_count(obj)
    idle = idle_reason(obj) if replicas is None else ""     # --replicas N: N copies, as asked
    copies = 1 if idle else max(1, copies)      # an idle workload: its template is explained once, unbound
    pod = pod_of(obj, src, stored=stored, kube=kube)
    labels = (pod.get("metadata") or {}).get("labels") if isinstance(pod.get("metadata"), dict) else None
    return Entry(kind, str(meta.get("namespace") or "default"), workload_name(obj), pod,
                 src, copies, not idle and (copies > 1 or kind == "DaemonSet"), position,
                 copies_of(obj, labels if isinstance(labels, dict) else None), obj, idle)


def with_existing(entry: Entry, children: Children) -> Entry:
    """The entry with the pods its controller still creates, given the objects of the file it
    made already (`kexplain.controllers.existing`); raises `PodsExist` when it creates none."""
    if entry.workload is None or entry.kind == "Pod":
        return entry
    todo = still_to_create(entry.workload, children)
    if todo is None:
        return entry
    if todo.copies == 0:
        made = [str((c.get("metadata") or {}).get("name")) for c in children.of(entry.workload)]
        raise PodsExist(f"its controller creates no pod now: what it made is in the input already "
                        f"({', '.join(made)})", source=entry.source, obj=entry.workload)
    if entry.idle:
        return entry        # its template explained unbound, as without the existing objects
    naming = replace(entry.naming, skip=todo.skip) if entry.naming is not None else None
    return replace(entry, copies=todo.copies, replicated=todo.copies > 1, naming=naming)


class PodsExist(LeftOutNote):
    """A workload whose controller creates nothing now: its pods (a Deployment's ReplicaSet)
    are in the input already, each explained as what it is. Not bad input."""


def entries(objs: Objects, path: str, replicas: int | None = None, *, stored: bool = False,
            problems: Problems = RAISE, kube: KubeVersion = DEFAULT_VERSION) -> list[Entry]:
    """The entries of the Pods and workloads of the POD file that are explained (`PodFile`), in
    order (`entry_of`). A workload the API server refuses goes to `problems` (raised unless it
    collects), and so does a file with nothing to explain."""
    out = []
    candidates = PodFile.of(objs, path).explained
    children = Children(o for o, _ in objs) if replicas is None else None
    for i, (obj, src) in enumerate(candidates):
        try:
            entry = entry_of(obj, src, i, replicas, stored=stored, kube=kube)
            out.append(entry if children is None else with_existing(entry, children))
        except KexplainError as err:
            problems.add(err)
    if not out and not problems:
        try:
            pending_pod(objs, path)      # raises its "no Pod or workload to explain" error
        except KexplainError as err:
            problems.add(err)
    elif not out and objs:      # the errors said what was wrong, not what the rest was
        hint = kustomize_hint(kustomization_dirs(objs))
        if not candidates:
            kinds = found_kinds(objs)
            problems.add(InputError(f"no other Pod or workload to explain (found {kinds})"
                                    f"{'; ' + hint if hint else ''}", source=Source(path)))
        elif hint:              # every workload refused: a kustomize base's may lack what it adds
            problems.add(InputError(hint))
    return out


@dataclass
class Loaded:
    """What the POD file holds: `single` inputs (one pod, one trace), or a `batch` of entries
    against a `pool` (several pods, replicas, a DaemonSet)."""

    single: Inputs | None = None
    batch: list[Entry] = field(default_factory=list)
    pool: ClusterState | None = None
    kube: KubeVersion = DEFAULT_VERSION     # the version followed (`followed_version`)
    problems: list[KexplainError] = field(default_factory=list)    # what was left out, and why
    # What the autoscalers read of the POD file besides its pending pods (`autoscaled_objects`):
    # its objects as applied, and what controllers create for its pods unless they exist.
    set_objects: Objects = field(default_factory=list)
    set_created: Objects = field(default_factory=list)
    cluster_objects: Objects | None = None     # --nodes as read (never changed), when asked to keep them

    @property
    def cluster_state(self) -> ClusterState | None:
        """The cluster state the autoscalers read instead of admitting the cluster again: the
        batch's `pool`, or the one pod's cluster as admitted with it (`Inputs.state`)."""
        return self.pool if self.single is None else self.single.state

    @property
    def empty(self) -> bool:
        """Nothing to explain: every Pod and workload was left out (`problems` say why)."""
        return self.single is None and not self.batch


Prepare = Callable[[Objects, Objects], Objects]


def load(req: Request, stdin: BinaryIO | None = None, *, collect: bool = False,
         keep: "bool | Callable[[Objects], bool]" = False, prepare: Prepare | None = None) -> Loaded:
    """Read the configuration, the POD file and the cluster once. One Pod or workload of one
    copy (not a DaemonSet) is `single`: it is admitted together with the cluster, as a pod
    created against it; anything else is a batch against the cluster state. `collect`: one bad file,
    document or object does not stop the load (`kexplain.load.problems`): it is left out, and
    `problems` says why (else the first is raised). `keep`: the cluster's objects as read stay
    in `cluster_objects`, for what reads the cluster again (the autoscalers), so that it is
    read once (a function of the objects read, --nodes' then the POD file's: whether to keep
    them, e.g. when either holds Karpenter's NodePools). `prepare(objects, cluster)`: the POD
    file's objects as what acts before their controllers leaves them (Kueue: `kexplain.kueue.chain`)."""
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
    kept = keep is True or (callable(keep) and (keep(cluster) or keep(objs)))
    loaded = load_read(req, objs, cluster, problems, keep_state=kept)
    if kept:
        loaded.cluster_objects = cluster
    return loaded


def load_read(req: Request, objs: Objects, cluster: Objects, problems: Problems = RAISE, *,
              keep_state: bool = False) -> Loaded:
    """`load`, for the objects of the POD file (`objs`) and of --nodes (`cluster`) read already:
    to explain them again (under another version), as read objects are never changed. The
    version followed is settled first (`followed_version`): the configuration's defaults, the
    plugins and admission depend on it. An object refused goes to `problems` (raised unless it
    collects); when that leaves nothing to explain, the `Loaded` is `empty`. `keep_state`: the
    autoscalers read the cluster: one pod's keeps it as admitted with it (`Inputs.state`; a
    batch's `pool` is one always)."""
    kube, version_warnings = followed_version(req, cluster)
    config = read_config(req.config_path, req.max_bytes, req.max_objects, kube)
    # kubectl --validate, for the objects explained and those that join the cluster (PodFile)
    checked = check_objects(objs, POD_KINDS | CLUSTER_KINDS | {HPA_KIND}, validate=req.validate, stored=req.stored,
                            explained=POD_KINDS, kube=kube, problems=problems)
    # a Namespace refused there does not exist: what the file creates in it is refused
    gone = left_out_namespaces(objs, checked.objects) if not req.stored else frozenset()
    objs, warnings = checked.objects, version_warnings + config.notes + checked.warnings
    if not req.stored:
        from kexplain.admission.podsecurity import refused_namespaces
        objs, outside = outside_namespaces(objs, gone | refused_namespaces(objs))
        objs, refused_hpas = admitted_hpas(objs, kube)      # (refused: they set no replicas)
        for err in [*outside, *refused_hpas]:
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
    if not found:
        return Loaded(kube=kube)
    if len(found) == 1 and not found[0].replicated and not found[0].idle:
        single_load = _single(req, found, objs, pod_file, cluster, config, warnings, kube, problems, gone,
                              keep_state)
        if single_load is not None:
            return single_load
    pool = state_of(cluster, config, req.stored, req.validate, problems)
    created = {id(e): created_objects(e.workload, e.source, e.copies) for e in found if e.workload is not None}
    before = len(problems.found)
    pool = pool.extended(pod_file.cluster, [c for made in created.values() for c in made], stored=req.stored,
                         problems=problems, absent=gone)
    found = _without_refused_claims(found, created, problems, before)
    if not found:
        return Loaded(kube=kube)
    pool.warnings[:0] = warnings
    pool.warnings += missing_node_warnings(pod_file.cluster, pool.snapshot)
    return Loaded(batch=found, pool=pool, kube=kube, **autoscaled_objects(objs, pod_file, found))


def cluster_hpas(cluster: Objects, req: Request, kube: KubeVersion, problems: Problems) -> Objects:
    """The HPAs of --nodes (`podautoscaler.of_cluster`), as kubectl --validate and the API
    server take them (stored ones as they are); one refused goes to `problems`."""
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
    """The one pod of `found` admitted together with the cluster (`Loaded.single`). None when its
    workload's controller gets no pod created (the API server or a quota refuses the first:
    `kexplain.explain.created`): the workload is explained as a batch, with its FailedCreate.
    `keep_state`: the cluster kept as admitted (`Inputs.state`), unless some of it was refused
    (left out here, where an autoscaler reading the cluster refuses it)."""
    from kexplain.explain.created import created, refused_creates

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
                                   later=entry.later_policies, keep_state=keep_state)
        if not req.stored:          # the quotas of its namespace (`kexplain.explain.created`)
            from kexplain.admission.resourcequota import QuotaLedger
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
    return Loaded(single=single, kube=kube, **autoscaled_objects(objs, pod_file, found))


def autoscaled_objects(objs: Objects, pod_file: PodFile, found: list[Entry]) -> dict[str, Objects]:
    """`Loaded.set_objects` and `set_created`: the file's objects but its pending Pods
    (`pending_pass.set_objects`), a Deployment's ReplicaSet, and the claims of every copy of its
    StatefulSets."""
    from kexplain.explain.pending_pass import owner_objects, set_objects

    objects = set_objects(objs, [o for o, _ in pod_file.explained])
    created: Objects = []
    for e in found:
        if e.workload is not None and not e.idle:
            objects += owner_objects(e.workload, e.source, e.copies)
            created += created_objects(e.workload, e.source, e.copies)
    return {"set_objects": objects, "set_created": created}


def _without_refused_claims(found: list[Entry], created: dict[int, Objects], problems: Problems,
                            since: int) -> list[Entry]:
    """The entries but those an object created for them (a StatefulSet's claim) was refused for
    since `problems` held `since` errors: without its claim the controller makes no pod. Each
    such entry keeps the first refusal of its claims in `problems`, the others are dropped."""
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
    """The version `req` follows, and the warnings to say: its `kube`, or the version settled
    from its `version` choice and the one a snapshot among `cluster` recorded (`kexplain
    snapshot` records the API server's), which a version given explicitly overrides."""
    if req.version is None:
        return req.kube, []
    return settled_version(req.version, cluster)


def settled_version(choice: VersionChoice, cluster: Objects, default: str | None = None
                    ) -> tuple[KubeVersion, list[str]]:
    """The version `choice` settles on, given the one a snapshot among `cluster` recorded (a
    version given explicitly wins), and the warnings to say; `default`: the version followed
    when neither says one (None: kexplain's default)."""
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
    """The inputs of the POD file's one pod (a workload's first copy), read by `load`: for
    callers that explain one pod. A file of several Pods or workloads is refused, and so is a
    DaemonSet (its pods are placed one per node: a batch)."""
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
                  keep_state: bool = False) -> Inputs:
    """The inputs of `pod_obj`, the pod of the POD file's one Pod or workload `obj` (its first
    pod), against `cluster` (--nodes, checked) with the file's cluster objects and the
    workload's created objects, admitted by `kube`'s API server. `absent`: namespaces of the
    file refused already (their Namespace left out); `later`: the file's policies created after
    it (`policies_after`); `keep_state`: the cluster as admitted kept as a `ClusterState`
    (`Inputs.state`, unless `stored`: `state_admitted_with_pod`), for the autoscalers."""
    created = created_objects(obj, src, 1)
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
                        stored: bool = False, applied: frozenset[int] = frozenset(),
                        shape_index: ShapeIndex | None = None, kube: KubeVersion = DEFAULT_VERSION,
                        problems: Problems = RAISE, owned: frozenset[int] = frozenset(),
                        absent: frozenset[str] = frozenset(),
                        later: frozenset[tuple[str, str, str]] = frozenset()) -> Inputs:
    """Inputs from objects already read (files, or a live cluster with `stored=True`): objects
    of other kinds are ignored; admission (`kube`'s API server) runs unless the objects were
    stored. `applied`: the
    ids of the Sources of the POD file's objects, which the PersistentVolume controller then
    binds (`controllers.persistentvolume`) and whose bound pods their kubelet admits or rejects
    (`_kubelets_admit`); the rest is the cluster as it is. The collector pauses
    meanwhile (`bulk_load`: a live cluster's objects are read by a caller that may not pause it).
    A cluster object the API server refuses goes to `problems` (`admitting`), but one of `owned`;
    a Namespace refused (there, or before: `absent`) does not exist; the pod is created after
    `cluster`'s objects but the policies `later` names (`policies_after`)."""
    with bulk_load():
        inputs, _, _ = _admitted_inputs(pod_obj, pod_src, cluster, config, stored, applied, shape_index, kube,
                                        problems, owned, absent, later)
        return with_template_claims(inputs)


def _admitted_inputs(pod_obj: dict[str, Any], pod_src: Source, cluster: Objects, config: SchedulerConfig,
                     stored: bool, applied: frozenset[int], shape_index: ShapeIndex | None,
                     kube: KubeVersion, problems: Problems = RAISE,
                     owned: frozenset[int] = frozenset(), gone: frozenset[str] = frozenset(),
                     later: frozenset[tuple[str, str, str]] = frozenset()
                     ) -> tuple[Inputs, Objects, frozenset[str]]:
    """`inputs_from_objects` before the pod's template claims are made (`with_template_claims`),
    with the cluster's objects as admitted (and settled) and the namespaces that do not exist."""
    cluster = of_kinds(cluster, CLUSTER_KINDS)
    warnings: list[str] = []
    absent = gone
    if not stored:
        from kexplain.admission import admit
        from kexplain.admission.podsecurity import refused_namespaces
        absent = refused_namespaces(cluster) | gone     # (their pods: `namespaces "x" not found`, once they are left out)
        every = cluster
        admitted, _ = admitting(lambda objs: admit(objs, (pod_obj, pod_src), shape_index=shape_index, kube=kube,
                                                   absent=absent | left_out_namespaces(every, objs), later=later),
                                cluster, problems, owned)
        cluster, pod_obj, warnings = admitted.objects, admitted.pending, list(admitted.warnings)
        from kexplain.controllers.persistentvolume import half_bound_notes, settle
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
    """The cluster state of `--nodes`, checked as kubectl `--validate` asks (`check_objects`), admitted
    (unless `stored`) and snapshotted once, with the scheduler configuration of `config_path`, as
    `kube`'s API server and kube-scheduler take them; with a `version` choice, as the version it
    settles on once the objects are read (a snapshot's recorded one, unless one is given), whose
    warnings lead the state's."""
    with bulk_load():
        # The configuration is checked first (before a large snapshot is read), unless the
        # version it is read as depends on that snapshot.
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
    """`Inputs` for one pending pod against a loaded pool: the pod goes through admission as
    `load` would (against the pool's PriorityClasses and RuntimeClasses, refused when a pod of
    that name exists in the pool, unless `itself`: the pool's pod of that name is this very
    pod, bound already, joined from its file); `pod_obj` itself is not changed. `later`: the
    pool's policies its set creates after the pod (`policies_after`), which it does not meet."""
    if stored:
        from kexplain.admission.pipeline import copy_json
        return with_template_claims(Inputs(PodInfo(copy_json(pod_obj)), pod_source, pool.snapshot, pool.config,
                                           pool.nominated, claims_from_templates=controllers_create_for(pod_obj)))
    from kexplain.admission import admit
    from kexplain.apimachinery.fielderrors import go_quote
    from kexplain.errors import AdmissionRejected
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
