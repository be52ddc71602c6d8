"""Loading: from a `Request` to what the scheduler's cycle starts from.

The scheduler configuration, the POD file (the Pods and workloads to explain, and the objects
that join the cluster with them: `PodFile`, `cluster_with`), the cluster of --nodes, admission,
and the snapshot. `load` is the one way to read a POD file (the CLI, the conformance runner,
the benchmarks): one pod of one copy gives the `Inputs` of one explanation, anything else a
batch (`Entry`s) against a `Pool`, which `kexplain.explain.batch` schedules. `Pool` and
`inputs_for` are also lint's: a cluster loaded once, and pods admitted against it one by one.
Never prints.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import compress, repeat
from operator import eq
from typing import Any, BinaryIO, Callable, TypeVar

from kexplain.admission.shapes import ShapeIndex
from kexplain.apimachinery import columns
from kexplain.apimachinery.kinds import KIND_GROUPS, api_group, is_builtin_kind
from kexplain.apimachinery.stored_pods import StoredPod
from kexplain.admission.workloads import pods_of, workload_warnings
from kexplain.config import SchedulerConfig, load_config
from kexplain.errors import CLUSTER_SCOPED_KINDS as _CLUSTER_SCOPED, InputError, KexplainError, Source, describe
from kexplain.explain.request import Request, VersionChoice
from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion, VersionError
from kexplain.load.gcpolicy import bulk_load
from kexplain.controllers.podautoscaler import KIND as HPA_KIND, admitted as admitted_hpas, autoscaled, of_cluster, scalings
from kexplain.load.apply_patch import apply_onto
from kexplain.controllers.disruption import notes as budget_notes, with_status as budgets_with_status
from kexplain.load.limits import DEFAULT_MAX_BYTES, DEFAULT_MAX_OBJECTS
from kexplain.load.live import recorded_version
from kexplain.load.manifests import check_objects, kustomization_dirs, kustomize_hint, load_objects
from kexplain.load.problems import RAISE, Problems
from kexplain.controllers.ephemeral import with_volume_claims, writes_volume_claims_for
from kexplain.controllers.resourceclaim import create_claims, templates_by_key, writes_claims_for
from kexplain.admission.workloads import WORKLOAD_KINDS
from kexplain.controllers.workloads import Copies, copies_of, idle_reason, replica_count, statefulset_claims, \
    workload_name, workload_pod
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot
from kexplain.plugins import implements, known

CLUSTER_KINDS = frozenset({
    "Node", "Pod", "PersistentVolumeClaim", "PersistentVolume", "StorageClass", "CSINode",
    "PodDisruptionBudget", "PriorityClass", "Namespace", "RuntimeClass", "Service", "ReplicaSet",
    "StatefulSet", "ReplicationController", "DeviceClass", "ResourceSlice", "ResourceClaim",
    "ResourceClaimTemplate", "LimitRange", "ResourceQuota"})
POD_KINDS = frozenset({"Pod"}) | WORKLOAD_KINDS     # what the POD file is read for
VOLUME_KINDS = frozenset({"PersistentVolumeClaim", "PersistentVolume"})   # what the PV controller binds
ADMISSION_CONTEXT_KINDS = frozenset({"PriorityClass", "RuntimeClass", "LimitRange"})

Objects = list[tuple[dict[str, Any], Source]]


def admission_context(objects: Objects) -> Objects:
    """What admission looks up when a pod is created against a pool: its PriorityClasses,
    RuntimeClasses and LimitRanges, and the Namespaces whose labels set a Pod Security level."""
    from kexplain.admission.podsecurity import labelled
    return [(o, s) for o, s in objects if o.get("kind") in ADMISSION_CONTEXT_KINDS or (
        o.get("kind") == "Namespace" and labelled((o.get("metadata") or {}).get("labels")))]


def of_kinds(objs: Objects, kinds: frozenset[str]) -> Objects:
    """The objects of the built-in `kinds`: a custom resource that shares a kind's name (a
    `batch.volcano.sh` Job, an `example.com` Node) is none of them (`is_builtin_kind`)."""
    rows = columns.rows_of(objs)
    if rows is not None:       # a dump's 150,000 objects: by (apiVersion, kind), asked of their rows
        try:
            keep = {pair: pair[1] in kinds and is_builtin_kind(*pair) for pair in rows.pairs()}
        except TypeError:
            keep = None
        if keep is not None:
            if all(keep.values()):
                return objs.same()      # type: ignore[attr-defined]
            if not any(keep.values()):
                return columns.Dump(())
            by_kind: dict[Any, bool] = {}
            for (_, kind), verdict in keep.items():
                if by_kind.setdefault(kind, verdict) != verdict:     # (a kind kept at one apiVersion only)
                    return objs.taken(list(map(keep.__getitem__, zip(rows.api_versions, rows.kinds))))  # type: ignore[attr-defined]
            return objs.taken(list(map(by_kind.__getitem__, rows.kinds)))      # type: ignore[attr-defined]
    verdicts: dict[tuple[str, str], bool] = {}     # by (apiVersion, kind): one look-up for 150,000 pods
    out: Objects = []
    for o, s in objs:
        kind = o.get("kind")
        if kind not in kinds:
            continue
        api_version = o.get("apiVersion")
        if type(api_version) is not str:
            builtin = is_builtin_kind(api_version, kind)
        else:
            builtin = verdicts.get((api_version, kind))
            if builtin is None:
                builtin = verdicts[(api_version, kind)] = is_builtin_kind(api_version, kind)
        if builtin:
            out.append((o, s))
    return out


T = TypeVar("T")


def admitting(attempt: Callable[[Objects], T], objects: Objects, problems: Problems = RAISE,
              owned: frozenset[int] = frozenset()) -> tuple[T, Objects]:
    """`attempt(objects)` (an admission of them), and the objects it was made with. When
    `problems` collect and the API server refuses one of `objects` (the error names it), the
    refusal goes to `problems` and the attempt is made again without that object, as `kubectl
    apply` goes on with the others; any other error is raised, and so is the refusal of an object
    of `owned` (ids: what a controller creates for the pod explained, a StatefulSet's claims,
    without which there is no pod)."""
    while True:
        try:
            return attempt(objects), objects
        except KexplainError as err:
            rest = _without(objects, err) if problems.keep else None
            if rest is None or any(id(o) in owned for o in _dropped(objects, rest)):
                raise
            problems.add(err)
            objects = rest


_NAMESPACE = frozenset({"Namespace"})
_OBJECT = operator.itemgetter(0)


def left_out_namespaces(before: Objects, after: Objects) -> frozenset[str]:
    """The names of the Namespaces of `before` that `after` does not have (by identity): refused,
    so they do not exist, and NamespaceLifecycle refuses what is created in them (`admit`'s
    `absent`), where a namespace the input does not name is taken as one the cluster has."""
    namespaces = [o for o, _ in of_kinds(before, _NAMESPACE) if isinstance(o.get("metadata"), dict)]
    if not namespaces:          # (a dump's 150,000 objects are not asked one by one)
        return frozenset()
    kept = {id(o) for o in namespaces}.intersection(map(id, map(_OBJECT, after)))
    return frozenset(str(o["metadata"].get("name") or "") for o in namespaces if id(o) not in kept)


def outside_namespaces(objs: Objects, absent: frozenset[str]) -> tuple[Objects, list[KexplainError]]:
    """`objs` without the objects of the built-in namespaced kinds admission does not read (a
    ConfigMap, a HorizontalPodAutoscaler, a Role...) whose namespace is `absent` (its Namespace
    was refused), and NamespaceLifecycle's refusal of each (`namespaces "team" not found`):
    everything the input creates in a namespace that does not exist is refused. The kinds
    admission reads (`CLUSTER_KINDS`, Pods and workloads) are refused where they are admitted."""
    if not absent:
        return objs, []
    from kexplain.apimachinery.fielderrors import go_quote
    from kexplain.errors import NamespaceNotFound
    kept: Objects = []
    refused: list[KexplainError] = []
    for o, s in objs:
        kind = o.get("kind")
        meta = o.get("metadata") if isinstance(o.get("metadata"), dict) else {}
        namespace = str(meta.get("namespace") or "default")
        if isinstance(kind, str) and kind not in CLUSTER_KINDS and kind not in POD_KINDS and kind not in _CLUSTER_SCOPED \
                and namespace in absent and is_builtin_kind(o.get("apiVersion"), kind):
            refused.append(NamespaceNotFound(f"namespaces {go_quote(namespace)} not found", source=s, obj=o))
            continue
        kept.append((o, s))
    return kept, refused


def _dropped(objects: Objects, rest: Objects) -> list[dict[str, Any]]:
    kept = {id(o) for o, _ in rest}
    return [o for o, _ in objects if id(o) not in kept]


def _without(objects: Objects, err: KexplainError) -> Objects | None:
    """`objects` less the one `err` is about (by its source, then the object itself or its
    name); None when it is about none of them."""
    if err.source is None:
        return None
    same = [i for i, (_, s) in enumerate(objects) if s is err.source or s == err.source]
    key = object_key(err.obj) if isinstance(err.obj, dict) else None
    if key is not None:         # (an object without a name: the one of its document)
        same = [i for i in same if objects[i][0] is err.obj or object_key(objects[i][0]) == key]
    if not same:
        return None
    drop = set(same)
    return [item for i, item in enumerate(objects) if i not in drop]


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


def object_key(obj: dict[str, Any]) -> tuple[str, str, str] | None:
    """(kind, namespace, name): what names one object in a cluster (the namespace `default`
    when empty, none for cluster-scoped kinds); None for an object without a name."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        return None
    kind = str(obj.get("kind") or "")
    namespace = "" if kind in _CLUSTER_SCOPED else str(meta.get("namespace") or "default")
    return kind, namespace, name


def is_bound_pod(obj: dict[str, Any]) -> bool:
    """A Pod with spec.nodeName: bound already, the scheduler never sees it."""
    if type(obj) is StoredPod:      # (read so only when it is one)
        return True
    spec = obj.get("spec")
    return obj.get("kind") == "Pod" and isinstance(spec, dict) and bool(spec.get("nodeName"))


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


def cluster_with(cluster: Objects, file_objects: Objects, created: Objects = (),
                 kinds: frozenset[str] | None = CLUSTER_KINDS, *, kube: KubeVersion = DEFAULT_VERSION,
                 problems: Problems | None = None) -> Objects:
    """The cluster after the POD file is applied to it, as `kubectl apply` would leave it.

    An object of the file that the cluster has already (same kind, namespace and name) is
    patched onto the cluster's as `kubectl apply` patches it (`load.apply_patch.apply_onto`: a
    three-way merge, the cluster's fields the file does not set kept), in the cluster's place (so
    Nodes keep their order); an update the API server refuses (an immutable field changed)
    leaves the cluster's object as it is, and the refusal goes to `problems` (raised unless it
    collects; None: not said again). The file's other objects come after the cluster's, in
    file order. `created` are objects a controller creates unless they exist (a StatefulSet's
    claims): each is added only if neither the cluster nor the file has it, so a claim that
    exists is used as it is. No object is listed twice. Only the file's objects of `kinds` are
    applied (the scheduler's; None: every kind, as the autoscalers read more)."""
    file_objects = of_kinds(file_objects, kinds) if kinds is not None else list(file_objects)
    if not file_objects and not created:
        return cluster
    by_key: dict[tuple[str, str, str], tuple[dict[str, Any], Source]] = {}
    for o, s in file_objects:
        k = object_key(o)
        if k is not None:
            by_key.setdefault(k, (o, s))
    out: Objects = []
    placed: set[tuple[str, str, str]] = set()
    for o, s in cluster:
        k = object_key(o) if by_key and (kinds is None or o.get("kind") in kinds) else None
        if k is not None and k in by_key:
            if k not in placed:
                update = apply_onto((o, s), by_key[k], kube=kube)
                if update.refused is not None and problems is not None:
                    problems.add(update.refused)
                out.append(update.applied)
                placed.add(k)
            continue
        out.append((o, s))
    for o, s in file_objects:
        k = object_key(o)
        if k is None or k not in placed:
            out.append((o, s))
    if created:
        known = {object_key(o) for o, _ in out}
        for o, s in created:
            k = object_key(o)
            if k is None or k not in known:
                out.append((o, s))
                known.add(k)
    return out


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


def entries(objs: Objects, path: str, replicas: int | None = None, *, stored: bool = False,
            problems: Problems = RAISE, kube: KubeVersion = DEFAULT_VERSION) -> list[Entry]:
    """The entries of the Pods and workloads of the POD file that are explained (`PodFile`), in
    order (`entry_of`). A workload the API server refuses goes to `problems` (raised unless it
    collects), and so does a file with nothing to explain."""
    out = []
    candidates = PodFile.of(objs, path).explained
    for i, (obj, src) in enumerate(candidates):
        try:
            out.append(entry_of(obj, src, i, replicas, stored=stored, kube=kube))
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
    pool: Pool | None = None
    kube: KubeVersion = DEFAULT_VERSION     # the version followed (`followed_version`)
    problems: list[KexplainError] = field(default_factory=list)    # what was left out, and why
    # What the autoscalers read of the POD file besides its pending pods (`autoscaled_objects`):
    # its objects as applied, and what controllers create for its pods unless they exist.
    set_objects: Objects = field(default_factory=list)
    set_created: Objects = field(default_factory=list)
    cluster_objects: Objects | None = None     # --nodes as read (never changed), when asked to keep them

    @property
    def empty(self) -> bool:
        """Nothing to explain: every Pod and workload was left out (`problems` say why)."""
        return self.single is None and not self.batch


def load(req: Request, stdin: BinaryIO | None = None, *, collect: bool = False,
         keep: "bool | Callable[[Objects], bool]" = False) -> Loaded:
    """Read the configuration, the POD file and the cluster once. One Pod or workload of one
    copy (not a DaemonSet) is `single`: it is admitted together with the cluster, as a pod
    created against it; anything else is a batch against a `Pool`. `collect`: one bad file,
    document or object does not stop the load (`kexplain.load.problems`): it is left out, and
    `problems` says why (else the first is raised). `keep`: the cluster's objects as read stay
    in `cluster_objects`, for what reads the cluster again (the autoscalers), so that it is
    read once (a function of the objects read, --nodes' then the POD file's: whether to keep
    them, e.g. when either holds Karpenter's NodePools)."""
    problems = Problems(keep=collect)
    with bulk_load():
        loaded = _load(req, stdin, problems, keep)
    loaded.problems = problems.found
    return loaded



def _load(req: Request, stdin: BinaryIO | None, problems: Problems,
          keep: "bool | Callable[[Objects], bool]" = False) -> Loaded:
    objs = load_objects([req.pod_path], req.max_bytes, stdin, max_objects=req.max_objects, problems=problems,
                        namespace=req.namespace)
    cluster = load_objects(req.node_paths, req.max_bytes, stdin, max_objects=req.max_objects, problems=problems)
    loaded = load_read(req, objs, cluster, problems)
    if keep is True or (callable(keep) and (keep(cluster) or keep(objs))):
        loaded.cluster_objects = cluster
    return loaded


def load_read(req: Request, objs: Objects, cluster: Objects, problems: Problems = RAISE) -> Loaded:
    """`load`, for the objects of the POD file (`objs`) and of --nodes (`cluster`) read already:
    to explain them again (under another version), as read objects are never changed. The
    version followed is settled first (`followed_version`): the configuration's defaults, the
    plugins and admission depend on it. An object refused goes to `problems` (raised unless it
    collects); when that leaves nothing to explain, the `Loaded` is `empty`."""
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
        single_load = _single(req, found, objs, pod_file, cluster, config, warnings, kube, problems, gone)
        if single_load is not None:
            return single_load
    pool = _pool_of(cluster, config, req.stored, req.validate, problems)
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
            gone: frozenset[str] = frozenset()) -> Loaded | None:
    """The one pod of `found` admitted together with the cluster (`Loaded.single`). None when its
    workload's controller gets no pod created (the API server or a quota refuses the first:
    `kexplain.explain.created`): the workload is explained as a batch, with its FailedCreate."""
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
                                   later=entry.later_policies)
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
                  absent: frozenset[str] = frozenset(), later: frozenset[tuple[str, str, str]] = frozenset()) -> Inputs:
    """The inputs of `pod_obj`, the pod of the POD file's one Pod or workload `obj` (its first
    pod), against `cluster` with the file's cluster objects and the workload's created objects,
    admitted by `kube`'s API server. `absent`: namespaces of the file refused already (their
    Namespace left out); `later`: the file's policies created after it (`policies_after`)."""
    created = created_objects(obj, src, 1)
    cluster = cluster_with(cluster, pod_file.cluster, created, kube=kube, problems=problems)
    applied = frozenset(id(s) for o, s in [*pod_file.cluster, *created] if o.get("kind") in VOLUME_KINDS
                        or is_bound_pod(o))     # (volumes: the PV controller binds them; bound pods: their kubelet)
    inputs = inputs_from_objects(pod_obj, src, cluster, config, stored=stored, applied=applied,
                                 shape_index=shape_index, kube=kube, problems=problems,
                                 owned=frozenset(id(o) for o, _ in created), absent=absent, later=later)
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
        return _inputs_from_objects(pod_obj, pod_src, cluster, config, stored, applied, shape_index, kube, problems,
                                    owned, absent, later)


def _inputs_from_objects(pod_obj: dict[str, Any], pod_src: Source, cluster: Objects, config: SchedulerConfig,
                         stored: bool, applied: frozenset[int], shape_index: ShapeIndex | None,
                         kube: KubeVersion, problems: Problems = RAISE,
                         owned: frozenset[int] = frozenset(), gone: frozenset[str] = frozenset(),
                         later: frozenset[tuple[str, str, str]] = frozenset()) -> Inputs:
    cluster = of_kinds(cluster, CLUSTER_KINDS)
    warnings: list[str] = []
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
        snapshot, failed, said, _ = _kubelets_admit(snapshot, pods, kube, True, False)
        warnings += said
        rejected = len(failed)
    return with_template_claims(Inputs(PodInfo(pod_obj), pod_src, snapshot, config, nominated, warnings,
                                       controllers_create_for(pod_obj), rejected))


def build_cluster(cluster: Objects) -> tuple[Snapshot, dict[str, list[PodInfo]]]:
    """The snapshot (nodes with their bound pods, and the other kinds) and the nominated pods
    by node, from admitted or stored cluster objects, a PodDisruptionBudget without a status
    given the disruption controller's (`controllers.disruption`). Several pods can share
    one cluster. The collector pauses meanwhile (`bulk_load`)."""
    try:
        with bulk_load():
            return _build_cluster(cluster)
    except KexplainError:
        raise
    except (AttributeError, TypeError, ValueError, KeyError, ArithmeticError) as exc:
        raise _unreadable(cluster, exc) from None


def _build_cluster(cluster: Objects) -> tuple[Snapshot, dict[str, list[PodInfo]]]:
    nodes: Objects = []
    pods: list[dict[str, Any]] = []
    unbound: list[dict[str, Any]] = []
    others: list[dict[str, Any]] = []
    rows = columns.rows_of(cluster)
    try:            # 150,000 objects split by kind in C: their rows' kinds, or asked of each
        objects = columns.objects(cluster)
        kinds = rows.kinds if rows is not None else columns.kinds(objects)
    except columns.NotPlain:
        kinds = None
    if kinds is not None:       # (in C: `compress` by each kind's column of verdicts)
        is_pod, is_node = list(map(eq, kinds, repeat("Pod"))), list(map(eq, kinds, repeat("Node")))
        pods = list(compress(objects, is_pod))
        nodes = list(compress(cluster, is_node))
        others = list(compress(objects, map(operator.not_, map(operator.or_, is_pod, is_node))))
    else:
        for o, s in cluster:
            kind = o.get("kind")
            if kind == "Pod":
                pods.append(o)
            elif kind == "Node":
                nodes.append((o, s))
            else:
                others.append(o)
    others = budgets_with_status(others, pods)      # the disruption controller's, where none is written
    parts = _BuiltFrom([o for o, _ in nodes], pods)
    last = _LAST_BUILT[0] if _LAST_BUILT else None
    replaced = last[0].replaced_in(parts) if last is not None else None
    patched = _patched(last[1], replaced) if last is not None and replaced else None
    if replaced is not None and (patched is not None or not replaced):   # its nodes and indexes, these objects
        listed = Snapshot.build([], [], others)
        snapshot = (patched or last[1]).with_objects(listed.namespaces, listed.objects)    # type: ignore[index]
        if patched is not None:
            _LAST_BUILT[:] = [(parts, patched)]
        unbound = parts.unbound
    else:           # (the pods without a node put in `unbound` by the one pass over them)
        snapshot = Snapshot.build(nodes, pods, others, unbound)
        _LAST_BUILT[:] = [(parts, snapshot)]
    nominated: dict[str, list[PodInfo]] = {}
    for p in unbound:
        if (p.get("status") or {}).get("nominatedNodeName"):
            info = PodInfo(p)
            nominated.setdefault(info.nominated_node_name, []).append(info)
    return snapshot, nominated


@dataclass(frozen=True)
class _BuiltFrom:
    """What a snapshot was built from: its nodes and pods (the very objects). Only the bound
    pods are compared (`bound`, split off only when a second build asks): each build reads its
    own pods without a node for the nominated pods, and CA's loop leaves the cluster's pending
    pods out of its cluster where the explanation keeps them."""

    nodes: list[dict[str, Any]]
    pods: list[dict[str, Any]]

    @cached_property
    def bound(self) -> list[dict[str, Any]]:
        return [p for p in self.pods if type(p) is StoredPod or (p.get("spec") or {}).get("nodeName")]

    @cached_property
    def unbound(self) -> list[dict[str, Any]]:
        return [p for p in self.pods if type(p) is not StoredPod and not (p.get("spec") or {}).get("nodeName")]

    def replaced_in(self, other: "_BuiltFrom") -> list[tuple[dict[str, Any], dict[str, Any]]] | None:
        """The pods `other` has in place of this one's (old, new), when it has the same nodes
        and, but for at most MAX_REPLACED of them, the same bound pods, each replacement on its
        pod's node (the victims a preemption marks terminating); [] for the same objects; None
        otherwise."""
        if not _same(self.nodes, other.nodes):
            return None
        mine, theirs = self.bound, other.bound
        if len(mine) != len(theirs):
            return None
        at = list(compress(range(len(mine)), map(operator.is_not, mine, theirs)))
        if len(at) > MAX_REPLACED:
            return None
        pairs = [(mine[i], theirs[i]) for i in at]
        if any(((o.get("spec") or {}).get("nodeName") != (n.get("spec") or {}).get("nodeName")) for o, n in pairs):
            return None
        return pairs


MAX_REPLACED = 64       # pods replaced in a cluster built before, patched into its snapshot (else built again)


def _patched(snapshot: Snapshot, pairs: list[tuple[dict[str, Any], dict[str, Any]]]) -> Snapshot | None:
    """`snapshot` with the pods of `pairs` (old object, new object) replaced on their nodes
    (`Snapshot.with_pods_replaced`); None when one is not there as its old object (a pod the
    build left out: a finished one), or its new object is one the build would leave out."""
    by_node: dict[str, dict[int, PodInfo]] = {}
    for old, new in pairs:
        info = PodInfo(new)
        if info.status.get("phase") in ("Succeeded", "Failed"):
            return None
        ni = snapshot.get(info.node_name)
        found = next((p for p in ni.pods if p.obj is old), None) if ni is not None else None
        if found is None:
            return None
        by_node.setdefault(info.node_name, {})[id(found)] = info
    for node, replaced in by_node.items():
        snapshot = snapshot.with_pods_replaced(node, replaced)
    return snapshot


def _same(a: list[Any], b: list[Any]) -> bool:
    return len(a) == len(b) and all(map(operator.is_, a, b))


# The last snapshot built and what from (one entry; it holds those objects, so no id is reused):
# `kexplain POD --node-groups` and `kexplain pod NAME` build the scheduler's cluster, then the
# Cluster Autoscaler's loop builds its own from the same stored objects, and gets this one's
# nodes and indexes (`Snapshot.with_objects`: its own other objects, and nothing a plugin of the
# other profile cached) instead of building 5,000 nodes and 150,000 pods again.
_LAST_BUILT: list[tuple[_BuiltFrom, Snapshot]] = []


def _unreadable(cluster: Objects, exc: Exception) -> KexplainError:
    """The error for a cluster the model could not read. Admitted objects were type-checked;
    stored ones are trusted until then (checking 150k pods up front costs seconds), so find
    the first object that would not decode and name its field."""
    from kexplain.admission.decode import SCHEMAS, check_decodes
    from kexplain.admission.pipeline import copy_json
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


# -- many pods against one cluster (a batch, lint) ----------------------------------------------
@dataclass
class Pool:
    """A cluster loaded, admitted and snapshotted once, to explain many pods against it.

    `load_pool` builds it; `inputs_for` admits one pending pod against it and returns the
    `Inputs` that `explain` takes. The snapshot is shared by every pod and never changed.
    `extended` makes the pool a file's objects leave (`PodFile`, `cluster_with`).
    """

    snapshot: Snapshot
    config: SchedulerConfig
    nominated: dict[str, list[PodInfo]] = field(default_factory=dict)
    admission_context: Objects = field(default_factory=list)
    pod_keys: frozenset[tuple[str, str]] = frozenset()
    warnings: list[str] = field(default_factory=list)
    _with_namespace: dict[str, Snapshot] = field(default_factory=dict, repr=False)
    objects: Objects = field(default_factory=list, repr=False)  # admitted, in order
    # The objects of kinds the scheduler does not read, as checked (an autoscaler's: Karpenter's
    # NodePools say whether its pass runs).
    other_kinds: Objects = field(default_factory=list, repr=False)
    # Namespaces the input named but the API server refused (`podsecurity.refused_namespaces`):
    # they do not exist, so what is created in them is refused (`admit`'s `absent`).
    absent_namespaces: frozenset[str] = frozenset()
    # The set's pods bound by spec.nodeName that their kubelet rejected as they were created
    # (`_kubelets_admit`): (namespace, name) -> (reason, message), the kubelet's event.
    kubelet_rejected: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict, repr=False)
    # ... and those a critical pod's kubelet admitted by evicting pods: (namespace, name) -> the
    # pods evicted (`namespace/name`)
    kubelet_evicted: dict[tuple[str, str], list[str]] = field(default_factory=dict, repr=False)

    @property
    def kube(self) -> KubeVersion:
        """The version the pool was loaded for (its configuration's): its API server admits
        what joins the pool."""
        return self.config.kube

    def extended(self, file_objects: Objects, created: Objects = (), *, stored: bool = False,
                 problems: Problems = RAISE, absent: frozenset[str] = frozenset()) -> "Pool":
        """This pool with the cluster objects of a POD file (or of a linted file) applied to
        it, as `cluster_with` says: the file's version of an object the pool has is patched onto it,
        `created` objects (a StatefulSet's claims) are added unless they exist. The new objects
        are admitted as the pool's were (unless `stored`), against the pool's StorageClasses,
        PriorityClasses, RuntimeClasses, Namespaces and the Nodes their pods are bound to.
        This pool is not changed; without new objects it is returned as it is. A new object the
        API server refuses goes to `problems` (raised unless it collects: then it is left out).
        `absent`: namespaces refused already (a caller that left their Namespace out), besides
        those of `file_objects` the API server refuses and the pool's own."""
        if not created and not of_kinds(file_objects, CLUSTER_KINDS):
            return self if not absent else replace(self, absent_namespaces=self.absent_namespaces | absent)
        merged = cluster_with(self.objects, file_objects, created, kube=self.kube, problems=problems)
        old = {id(o) for o, _ in self.objects}
        new = [(o, s) for o, s in merged if id(o) not in old]
        if not new:
            return self
        new_keys = {object_key(o) for o, _ in new} - {None}
        nodes = {str(o["spec"]["nodeName"]) for o, _ in new if is_bound_pod(o)}
        context = [(o, s) for o, s in self.objects if object_key(o) not in new_keys and (
            o.get("kind") in ("StorageClass", "PriorityClass", "RuntimeClass", "Namespace", "LimitRange")
            or (o.get("kind") == "Node" and object_key(o) is not None and object_key(o)[2] in nodes))]
        from kexplain.admission import admit
        from kexplain.admission.pipeline import BUILTIN
        from kexplain.admission.podsecurity import refused_namespaces
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
        provisioned: list[str] = []
        if not stored and any(o.get("kind") in VOLUME_KINDS for o, _ in new):   # the PV controller binds them
            from kexplain.controllers.persistentvolume import settle
            settled = settle(objects, lambda o, s: id(s) in sources)
            objects = settled.objects
            provisioned = settled.notes
        added = admitted_new + namespaces_created
        objects += namespaces_created
        provisioned += budget_notes(objects, {id(o) for o, _ in admitted_new if o.get("kind") == "PodDisruptionBudget"})
        pods = [o for o, _ in added if o.get("kind") == "Pod"]
        replaced_pods = any(k is not None and k[0] == "Pod" for k in new_keys & {object_key(o) for o, _ in self.objects})
        rebuilt = any(o.get("kind") == "Node" for o, _ in added) or replaced_pods or len(pods) > 50
        if rebuilt:
            snapshot, nominated = build_cluster(objects)
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
                    others["PodDisruptionBudget"], [o for o, _ in objects if o.get("kind") == "Pod"])
            snapshot, nominated = self.snapshot.with_objects(namespaces, others), self.nominated
        snapshot, failed, said, evictions = _kubelets_admit(snapshot, [(o, s) for o, s in added if o.get("kind") == "Pod"],
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
        return Pool(snapshot, self.config, nominated, context, frozenset(keys),
                    [*self.warnings, *admitted.warnings, *provisioned, *said], objects=objects,
                    other_kinds=self.other_kinds, absent_namespaces=absent, kubelet_rejected=rejected,
                    kubelet_evicted=evicted)

    def snapshot_with_namespace(self, namespace: dict[str, Any]) -> Snapshot:
        """The pool's snapshot, plus `namespace` (a Namespace object) if the pool lacks it:
        what the API server would have created for a pod in a new namespace. (Remembered per
        namespace name: one per namespace the pods of a run create.)"""
        name = (namespace.get("metadata") or {}).get("name") or ""
        if name in self.snapshot.namespaces:
            return self.snapshot
        if name not in self._with_namespace:
            snap = self.snapshot
            labels = dict((namespace.get("metadata") or {}).get("labels") or {})
            objects = {**snap.objects, "Namespace": [*snap.of_kind("Namespace"), namespace]}
            self._with_namespace[name] = snap.with_objects({**snap.namespaces, name: labels}, objects)
        return self._with_namespace[name]


def _kubelets_admit(snapshot: Snapshot, pods: Objects, kube: KubeVersion, bound: bool,
                    stored: bool) -> tuple[Snapshot, dict[int, tuple[dict[str, Any], tuple[str, str]]], list[str],
                                           dict[tuple[str, str], list[str]]]:
    """The set's pods bound by spec.nodeName, created one after another: each node's kubelet
    admits or rejects them (`kexplain.explain.kubelet`), against what it runs already and the
    set's pods it admitted before. `bound`: `snapshot` has them bound already (rebuilt from the
    objects), else it has none of them. Returns the snapshot with the admitted ones bound (and a
    critical pod's evictions gone), by id the rejected pods as the kubelet leaves them (phase
    Failed, its reason and message) with its event's (reason, message), what is said of them,
    and by (namespace, name) the pods a critical pod's kubelet evicted to admit it. `stored` pods
    ran already. Cheap when every pod is admitted even with all the others
    there (a kubelet that admits a pod among more pods admits it among fewer): then nothing
    moves."""
    from kexplain.controllers.kubelet import admission
    candidates = [(PodInfo(o), s) for o, s in pods if (o.get("spec") or {}).get("nodeName")
                  and snapshot.get(str(o["spec"]["nodeName"])) is not None
                  and (o.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
    if bound and (stored or all(_admitted_among_all(pod, snapshot, kube) for pod, _ in candidates)):
        return snapshot, {}, [], {}
    if bound:
        for pod, _ in candidates:
            snapshot = snapshot.without_pod(pod.node_name, pod.namespace, pod.name)
    failed: dict[int, tuple[dict[str, Any], tuple[str, str]]] = {}
    said: list[str] = []
    evicted: dict[tuple[str, str], list[str]] = {}
    for pod, src in candidates:
        info = snapshot.get(pod.node_name)
        verdict = admission(pod, info, kube) if not stored and info is not None else None
        if verdict is not None and not verdict.admitted:
            failed[id(pod.obj)] = ({**pod.obj, "status": {**pod.status, "phase": "Failed", "reason": verdict.reason,
                                                          "message": verdict.status_message}},
                                   (verdict.reason, verdict.message))
            said.append(f"{src}: {describe(pod.obj)}: spec.nodeName is {pod.node_name}: its kubelet rejects it "
                        f"({verdict.reason}: {verdict.message}): the pod fails, and takes no room")
            continue
        for victim in (verdict.evicted if verdict is not None else ()):
            namespace, _, name = victim.partition("/")
            snapshot = snapshot.without_pod(pod.node_name, namespace, name)
        if verdict is not None and verdict.evicted:
            evicted[(pod.namespace, pod.name)] = list(verdict.evicted)
        snapshot = snapshot.with_pod_bound(pod)
    return snapshot, failed, said, evicted


def _admitted_among_all(pod: PodInfo, snapshot: Snapshot, kube: KubeVersion) -> bool:
    """Whether `pod`'s kubelet admits it, evicting nothing, with every other pod of its node
    there (its own binding taken away)."""
    from kexplain.controllers.kubelet import admission
    info = snapshot.get(pod.node_name)
    if info is None:
        return True
    info = info.clone()
    if any(p.key == pod.key for p in info.pods):
        info.remove_pod(pod)
    verdict = admission(pod, info, kube)
    return verdict.admitted and not verdict.evicted


def load_pool(node_paths: tuple[str, ...], config_path: str | None = None, *, stored: bool = False,
              max_bytes: int = DEFAULT_MAX_BYTES, max_objects: int = DEFAULT_MAX_OBJECTS,
              stdin: BinaryIO | None = None, validate: str = "strict",
              kube: KubeVersion = DEFAULT_VERSION, version: VersionChoice | None = None) -> Pool:
    """The cluster of `--nodes`, checked as kubectl `--validate` asks (`check_objects`), admitted
    (unless `stored`) and snapshotted once, with the scheduler configuration of `config_path`, as
    `kube`'s API server and kube-scheduler take them; with a `version` choice, as the version it
    settles on once the objects are read (a snapshot's recorded one, unless one is given), whose
    warnings lead the pool's."""
    with bulk_load():
        # The configuration is checked first (before a large snapshot is read), unless the
        # version it is read as depends on that snapshot.
        config = read_config(config_path, max_bytes, max_objects, kube) if version is None else None
        loaded = load_objects(node_paths, max_bytes, stdin, max_objects=max_objects)
        warnings: list[str] = []
        if config is None:
            kube, warnings = settled_version(version or VersionChoice(), loaded)
            config = read_config(config_path, max_bytes, max_objects, kube)
        pool = _pool_of(loaded, config, stored, validate)
        pool.warnings[:0] = warnings + config.notes
        return pool


def _pool_of(loaded: Objects, config: SchedulerConfig, stored: bool, validate: str,
             problems: Problems = RAISE) -> Pool:
    """The pool of cluster objects read already, as `config`'s version admits them; an object
    refused goes to `problems` (`admitting`)."""
    kube = config.kube
    index = ShapeIndex()                # the pods' shapes, worked out once for both passes (this load only)
    checked = check_objects(loaded, CLUSTER_KINDS, validate=validate, stored=stored, shape_index=index, kube=kube,
                            problems=problems)      # (other kinds kept: `of_kinds` leaves them out)
    cluster, warnings = of_kinds(checked.objects, CLUSTER_KINDS), checked.warnings
    from kexplain.admission import admit
    from kexplain.admission.podsecurity import refused_namespaces
    absent = refused_namespaces(cluster) if not stored else frozenset()
    every = cluster
    admitted, used = admitting(lambda objs: admit(objs, None, stored=stored, shape_index=index, kube=kube,
                                                  absent=absent | left_out_namespaces(every, objs)), cluster, problems)
    if not stored:
        absent |= left_out_namespaces(every, used)
    cluster = admitted.objects
    if not stored:
        from kexplain.controllers.persistentvolume import half_bound_notes
        warnings += half_bound_notes(cluster)
    warnings += budget_notes(cluster)
    snapshot, nominated = build_cluster(cluster)
    keys = _pod_keys(cluster)
    context = admission_context(cluster)
    others = [(o, s) for o, s in checked.objects if o.get("kind") not in CLUSTER_KINDS]
    return Pool(snapshot, config, nominated, context, frozenset(keys), warnings + list(admitted.warnings),
                objects=cluster, other_kinds=others, absent_namespaces=absent)


def _pod_keys(cluster: list[tuple[dict[str, Any], Source]]) -> set[tuple[str, str]]:
    """The (namespace, name) of every Pod of `cluster` (no namespace: default); a dump's read
    of its rows (`columns.Dump`), in C but for the few written without a namespace or name."""
    rows = columns.rows_of(cluster)
    if rows is not None:
        try:
            keys = set(compress(zip(rows.namespaces, rows.names), map(eq, rows.kinds, repeat("Pod"))))
        except TypeError:           # (a name no key: asked object by object, as written)
            pass
        else:
            unnamed = [key for key in keys if not (key[0] and key[1])]
            keys.difference_update(unnamed)
            keys.update((namespace or "default", name or "") for namespace, name in unnamed)
            return keys
    keys = set()
    for o, _ in cluster:
        if o.get("kind") == "Pod":
            meta = o.get("metadata") or {}
            keys.add((meta.get("namespace") or "default", meta.get("name") or ""))
    return keys


def inputs_for(pod_obj: dict[str, Any], pod_source: Source, pool: Pool, *, stored: bool = False,
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
