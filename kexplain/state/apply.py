"""A set of objects applied to a cluster as `kubectl apply` leaves it, refusals included."""
from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

from kexplain.apimachinery import columns
from kexplain.apimachinery.fielderrors import go_quote
from kexplain.apimachinery.kinds import is_builtin_kind
from kexplain.errors import CLUSTER_SCOPED_KINDS as _CLUSTER_SCOPED, AdmissionRejected, KexplainError, \
    NamespaceNotFound, Source
from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion
from kexplain.load.apply_patch import apply_onto
from kexplain.load.problems import RAISE, Problems
from kexplain.state.objects import CLUSTER_KINDS, POD_KINDS, Objects, object_key, of_kinds

T = TypeVar("T")


def admitting(attempt: Callable[[Objects], T], objects: Objects, problems: Problems = RAISE,
              owned: frozenset[int] = frozenset()) -> tuple[T, Objects]:
    """`attempt(objects)` retried without each refused object, as `kubectl apply` goes on with the others."""
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
    """The Namespaces of `before` that `after` lacks: refused, so NamespaceLifecycle refuses their objects."""
    namespaces = [o for o, _ in of_kinds(before, _NAMESPACE) if isinstance(o.get("metadata"), dict)]
    if not namespaces:          # (a dump's 150,000 objects are not asked one by one)
        return frozenset()
    kept = {id(o) for o in namespaces}.intersection(map(id, map(_OBJECT, after)))
    return frozenset(str(o["metadata"].get("name") or "") for o in namespaces if id(o) not in kept)


def outside_namespaces(objs: Objects, absent: frozenset[str]) -> tuple[Objects, list[KexplainError]]:
    """`objs` without those admission does not read in an `absent` namespace, and the refusal of each."""
    if not absent:
        return objs, []
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
    """`objects` less the one `err` is about; None when it is about none of them."""
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


def cluster_with(cluster: Objects, file_objects: Objects, created: Objects = (),
                 kinds: frozenset[str] | None = CLUSTER_KINDS, *, kube: KubeVersion = DEFAULT_VERSION,
                 problems: Problems | None = None) -> Objects:
    """The cluster after the POD file is applied, as `kubectl apply` would leave it (three-way merge)."""
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


@dataclass(frozen=True)
class Settled:
    """A set's objects as applying them onto the cluster's copies leaves them, and the refusals."""

    objects: Objects
    refused: list[AdmissionRejected]
    # the cluster's object each applied one was applied onto, by (kind, namespace, name): its
    # controllers act from what they made of it (`controllers.reapplied`)
    live: dict[tuple[str, str, str], Any] = field(default_factory=dict)


def onto_cluster(objs: Objects, cluster: Objects, kinds: frozenset[str], *,
                 kube: KubeVersion = DEFAULT_VERSION) -> Settled:
    """`objs` with each of `kinds` that `cluster` has replaced by what `kubectl apply` leaves of it
    (`apply_onto`: the patched object, or the live one when the API server refuses the update), each
    with its manifest's source so that what is said of it names the file; the refusals, in order."""
    mine = of_kinds(objs, kinds)
    if not mine:
        return Settled(objs, [])
    keys = {k for k in map(object_key, map(_OBJECT, mine)) if k is not None}
    live: dict[tuple[str, str, str], tuple[dict[str, Any], Source]] = {}
    for o, s in of_kinds(cluster, frozenset(k[0] for k in keys)):
        k = object_key(o)
        if k in keys:
            live.setdefault(k, (o, s))
    if not live:
        return Settled(objs, [])
    chosen = {id(o) for o, _ in mine}
    out: Objects = []
    refused: list[AdmissionRejected] = []
    for o, s in objs:
        k = object_key(o) if id(o) in chosen else None
        if k is None or k not in live:
            out.append((o, s))
            continue
        update = apply_onto(live[k], (o, s), kube=kube)
        out.append((update.applied[0], s))
        if update.refused is not None:
            refused.append(update.refused)
    return Settled(out, refused, {k: o for k, (o, _) in live.items()})


def without_pods(objs: Objects, pods: frozenset[tuple[str, str]]) -> Objects:
    """`objs` without the Pods named (namespace, name): those their controller deletes (a dump's
    rows asked, no stored pod decoded for its name)."""
    if not pods:
        return objs
    rows = columns.rows_of(objs)
    if rows is not None:
        keep = [not (kind == "Pod" and (namespace or "default", name) in pods)
                for kind, namespace, name in zip(rows.kinds, rows.namespaces, rows.names)]
        return objs.taken(keep)     # type: ignore[attr-defined]
    return [(o, s) for o, s in objs if not (o.get("kind") == "Pod" and (object_key(o) or ("", "", ""))[1:] in pods)]
