"""The POD file: what is explained, what joins the cluster (`PodFile`), and one `Entry` per Pod or workload."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from kexplain.admission.workloads import WORKLOAD_KINDS
from kexplain.apimachinery.kinds import KIND_GROUPS, api_group, is_builtin_kind
from kexplain.apimachinery.stored_pods import plain
from kexplain.controllers.existing import Children, still_to_create
from kexplain.controllers.queued import NOT_EXPLAINED, held
from kexplain.controllers.reapplied import rollout
from kexplain.controllers.workloads import Copies, copies_of, idle_reason, replica_count, statefulset_claims, \
    workload_name, workload_pod
from kexplain.errors import InputError, KexplainError, LeftOutNote, Source, describe
from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion
from kexplain.load.manifests import kustomization_dirs, kustomize_hint
from kexplain.load.problems import RAISE, Problems
from kexplain.state.objects import CLUSTER_KINDS, POD_KINDS, Objects, is_bound_pod, of_kinds


@dataclass
class PodFile:
    """The POD file split as `kubectl apply -f` creates it: what is explained, and what joins the cluster."""

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
    """The kinds of `objs` for a nothing-to-explain message, a custom resource named with its group."""
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
    """The pending pod of a Pod or workload of the POD file: the Pod itself, or the workload's first pod."""
    if obj.get("kind") != "Pod":
        return workload_pod(obj, src, 0, stored=stored, kube=kube)
    if not isinstance(obj.get("spec"), dict):
        raise InputError("a Pod needs a spec", source=src, obj=obj, field="spec")
    return obj


def pending_pod(objs: Objects, path: str, *, stored: bool = False) -> tuple[dict[str, Any], Source]:
    """The one Pod (or workload's first pod) the positional argument names."""
    obj, src = explained_object(objs, path)
    return pod_of(obj, src, stored=stored), src


def created_objects(obj: dict[str, Any], src: Source, copies: int, skip: int = 0) -> Objects:
    """What a workload's controller creates besides its pods: a StatefulSet's claims (for `copies`
    ordinals from the one `skip` places after its first)."""
    return [(c, src) for c in statefulset_claims(obj, copies, skip)]


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
    # the FailedCreate event when its controller could create only `copies` of the `asked` pods
    failed_create: str = ""
    asked: int = 0
    autoscaled_by: dict[str, Any] | None = None     # the HPA that set its replicas (`podautoscaler.scaling`)
    # the set's LimitRanges and ResourceQuotas created after it, which its pods miss (`policies_after`)
    later_policies: frozenset[tuple[str, str, str]] = frozenset()
    # what held its pods before its controller created them: Kueue's answer (`kexplain.kueue.chain`)
    kueue: dict[str, Any] | None = None
    # applied onto the one the cluster runs: what its controllers do (`with_rollouts`), and why
    # `copies` are only the pods they create now
    reapplied: dict[str, Any] | None = None

    @property
    def not_created(self) -> bool:
        """Its controller asks for pods and the API server refuses the first: no pod exists."""
        return bool(self.failed_create) and self.copies == 0

    @property
    def daemon(self) -> bool:
        """A DaemonSet: one copy per node its controller runs it on, whatever `copies` says."""
        return self.kind == "DaemonSet"


POLICY_KINDS = frozenset({"LimitRange", "ResourceQuota"})


def policies_after(objs: Objects) -> dict[int, frozenset[tuple[str, str, str]]]:
    """By object id, the set's LimitRanges and ResourceQuotas created after it (`kubectl apply -f` order)."""
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
    """The entry of one Pod or workload, its first copy as its pod; refused as the API server would refuse it."""
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
    """The entry with the pods its controller still creates; raises `PodsExist` when none."""
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
    return _to_create(entry, todo.copies, todo.skip)


def _to_create(entry: Entry, copies: int, skip: int) -> Entry:
    """The entry with `copies` pods to place, a StatefulSet's from the ordinal `skip` places after
    its first: its pod (the first copy) named and numbered as that ordinal's."""
    naming = replace(entry.naming, skip=skip) if entry.naming is not None else None
    pod = entry.pod
    if naming is not None and skip and entry.kind == "StatefulSet":
        pod = naming.apply(copy.deepcopy(pod), 0)
    return replace(entry, copies=copies, replicated=copies > 1, naming=naming, pod=pod)


def with_rollouts(found: list[Entry], live: Mapping[tuple[str, str, str], Any], children: Children,
                  problems: Problems = RAISE, kube: KubeVersion = DEFAULT_VERSION
                  ) -> tuple[list[Entry], frozenset[tuple[str, str]], list[str]]:
    """The entries of the workloads `live` has (the cluster's object each was applied onto) as their
    controllers leave them (`controllers.reapplied`): the pods they create now; those creating none
    left out (`PodsExist`, a note). With the running pods they delete first (namespace, name) and a
    line for each saying what happened."""
    out: list[Entry] = []
    deleted: set[tuple[str, str]] = set()
    notes: list[str] = []
    for entry in found:
        obj = live.get((entry.kind, entry.namespace, entry.name))
        done = rollout(entry.workload, plain(obj), children, kube) \
            if obj is not None and entry.workload is not None and not entry.idle else None
        if done is None:
            out.append(entry)
            continue
        deleted.update((entry.namespace, name) for name in done.deleted)
        if done.copies == 0:
            problems.add(PodsExist(f"it {done.said}", source=entry.source, obj=entry.workload))
            continue
        notes.append(f"{entry.source}: {describe(entry.workload)} {done.said}")
        said = {"object": {"kind": entry.kind, "namespace": entry.namespace, "name": entry.name}, **done.details,
                "message": done.said}
        out.append(replace(_to_create(entry, done.copies, done.skip), reapplied=said))
    return out, frozenset(deleted), notes


class PodsExist(LeftOutNote):
    """A workload whose controller creates nothing now (its pods are in the input). Not bad input."""


class NotModelled(KexplainError):
    """An object kexplain cannot explain: one Kueue holds of a kind it does not model, or an operator's
    job it does not make alone (`controllers.queued`), one whose Workload an external controller makes,
    one whose operator's objects kexplain cannot make (`NOT_EXPLAINED`, `controllers.operators`): left
    out unexplained, counted as any object left out (exit code 2)."""



def not_explained(obj: Any) -> str:
    """Why kexplain leaves out an object Kueue holds ("" when it explains it): `held`, or the
    reason Kueue's chain wrote (`NOT_EXPLAINED`)."""
    if not isinstance(obj, dict):
        return ""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    notes = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else {}
    why = notes.get(NOT_EXPLAINED)
    return why if isinstance(why, str) and why else held(obj)


def entries(objs: Objects, path: str, replicas: int | None = None, *, stored: bool = False,
            problems: Problems = RAISE, kube: KubeVersion = DEFAULT_VERSION) -> list[Entry]:
    """The entries of the POD file's explained Pods and workloads, in order; refusals go to `problems`."""
    out = []
    candidates = PodFile.of(objs, path).explained
    children = Children(o for o, _ in objs) if replicas is None else None
    unmodelled = [(o, s) for o, s in objs if not_explained(o)]
    for obj, src in unmodelled:
        problems.add(NotModelled(not_explained(obj), source=src, obj=obj))
    for i, (obj, src) in enumerate(candidates):
        try:
            entry = entry_of(obj, src, i, replicas, stored=stored, kube=kube)
            out.append(entry if children is None else with_existing(entry, children))
        except KexplainError as err:
            problems.add(err)
    if not out and not problems and not unmodelled:
        try:
            pending_pod(objs, path)      # raises its "no Pod or workload to explain" error
        except KexplainError as err:
            problems.add(err)
    elif not out and objs:      # the errors said what was wrong, not what the rest was
        hint = kustomize_hint(kustomization_dirs(objs))
        others = [(o, s) for o, s in objs if not not_explained(o)]
        if not candidates and others:
            kinds = found_kinds(others)
            problems.add(InputError(f"no other Pod or workload to explain (found {kinds})"
                                    f"{'; ' + hint if hint else ''}", source=Source(path)))
        elif hint:              # every workload refused: a kustomize base's may lack what it adds
            problems.add(InputError(hint))
    return out


def ordered_ready(workload: Mapping[str, Any] | None) -> bool:
    """A StatefulSet whose controller creates its pods one by one (podManagementPolicy OrderedReady)."""
    if not workload or workload.get("kind") != "StatefulSet":
        return False
    spec = workload.get("spec") if isinstance(workload.get("spec"), dict) else {}
    return (spec.get("podManagementPolicy") or "OrderedReady") != "Parallel"
