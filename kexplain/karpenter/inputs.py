"""What one Karpenter provisioning pass starts from: the pending pods, the cluster, the NodePools
and EC2NodeClasses, the settings, as the API server would have stored them."""
from __future__ import annotations

import copy
import functools
import hashlib
import operator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from itertools import compress, repeat
from types import MappingProxyType
from typing import Any, BinaryIO, Callable, Iterable, Mapping

from msgspec import UNSET, structs

from kexplain.admission import admit
from kexplain.admission.pipeline import BUILTIN, is_stored
from kexplain.admission.pod_spec_defaults import default_pod_template
from kexplain.admission.shapes import ShapeIndex
from kexplain.apimachinery import columns
from kexplain.apimachinery.stored_pods import StoredPod, decode_view
from kexplain.errors import CLUSTER_SCOPED_KINDS, AdmissionRejected, InputError, KexplainError, Source
from kexplain.explain.pending_pass import with_victims
from kexplain.features import KubeVersion
from kexplain.karpenter.disruption import versions
from kexplain.karpenter.params import Settings, read_settings
from kexplain.karpenter.request import NODEPOOL
from kexplain.load.gcpolicy import bulk_load
from kexplain.load.manifests import check_objects, load_objects
from kexplain.model.pod import PodInfo, StoredPodInfo, lazy
from kexplain.state.apply import cluster_with
from kexplain.state.cluster import ClusterState
from kexplain.state.objects import CLUSTER_KINDS, Objects, admission_filled_uid

CLOCK = datetime(2026, 1, 1, 12, 0, 0, tzinfo=timezone.utc)
PENDING_AGE = timedelta(minutes=10)
BOUND_AGE = timedelta(minutes=30)
_PHASE_RUNNING = decode_view(b'{"status":{"phase":"Running"}}').status   # a view's status of phase Running only
NODE_AGE = timedelta(hours=2)
NODEPOOL_AGE = timedelta(days=1)
NO_DAEMONSETS: Mapping[tuple[str, str], str] = MappingProxyType({})
_FIRST, _SOURCE, _NODE_NAME = operator.itemgetter(0), operator.itemgetter(1), operator.attrgetter("node_name")

NODECLAIM = "NodeClaim"
EC2NODECLASS = "EC2NodeClass"
KARPENTER_KINDS = frozenset({NODEPOOL, NODECLAIM, EC2NODECLASS})
# Karpenter's kinds are cluster-scoped custom resources: no namespace in their uid's text.
_CLUSTER_SCOPED = CLUSTER_SCOPED_KINDS | KARPENTER_KINDS
# Kinds read besides the scheduler's: what Karpenter's state and provisioner list.
EXTRA_KINDS = frozenset({"DaemonSet"})


@dataclass
class PassInputs:
    """The loaded pass: settings, pending pods, the cluster as Karpenter reads it, Karpenter's objects."""

    settings: Settings
    kube: KubeVersion
    now: datetime
    pending: list[PodInfo]
    bound_pods: list[PodInfo]
    nodes: list[dict[str, Any]]
    node_claims: list[dict[str, Any]]
    daemonsets: list[dict[str, Any]]
    node_pools: list[Any]                             # apis.nodepool.NodePool, as stored
    node_classes: list[Any]                           # apis.ec2nodeclass.EC2NodeClass, as stored
    objects: dict[str, list[dict[str, Any]]]          # every other admitted object, by kind, file order
    sources: dict[int, Source] = field(default_factory=dict)   # id(object) -> where it was read
    warnings: list[str] = field(default_factory=list)
    # Karpenter's objects the API server refuses (their CRD's schema and rules), each in its
    # words: bad input, said by the command (exit 2); the pass reads them as written.
    refused: list[KexplainError] = field(default_factory=list)


def object_uid(kind: str, namespace: str, name: str) -> str:
    """The README's uid for an object without one: sha1 of `KIND/NAMESPACE/NAME`, 8-4-4-4-12."""
    digest = hashlib.sha1(f"{kind}/{namespace}/{name}".encode()).hexdigest()[:32]
    return f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"


@functools.lru_cache(maxsize=64)
def _stamp(when: datetime) -> str:
    """(Remembered: one time is stamped on every pod without one.)"""
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: Any) -> datetime | None:
    """A metav1.Time as stored (RFC 3339); None when absent or unreadable. Whole seconds: metav1.Time
    is written without its fraction (MarshalJSON, and ProtoTime keeps no nanoseconds), so Karpenter
    reads what it lists so."""
    if not isinstance(text, str) or not text:
        return None
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)).replace(microsecond=0)


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _with_defaults(obj: dict[str, Any], created: datetime, status: bool = False) -> dict[str, Any]:
    """A copy of `obj` (metadata copied, and status with `status`, the rest shared) with the uid
    and creation timestamp it lacks."""
    meta = dict(_meta(obj))
    if not meta.get("uid"):
        kind = obj.get("kind") or ""
        name = meta.get("name") if isinstance(meta.get("name"), str) else ""
        meta["uid"] = object_uid(kind, "" if kind in _CLUSTER_SCOPED else (meta.get("namespace") or "default"), name)
    if not meta.get("creationTimestamp"):
        meta["creationTimestamp"] = _stamp(created)
    out = dict(obj)
    out["metadata"] = meta
    if status:
        given = obj.get("status")
        out["status"] = dict(given) if isinstance(given, dict) else {}
    return out


def stored_pending(obj: dict[str, Any], created: datetime) -> dict[str, Any]:
    """A pending pod as stored after the scheduler could not place it (the README's defaults):
    phase Pending, PodScheduled False (Unschedulable, or SchedulingGated for a gated pod)."""
    out = _with_defaults(obj, created, True)
    status = out["status"]
    status.setdefault("phase", "Pending")
    conditions = status.get("conditions") if isinstance(status.get("conditions"), list) else []
    if not any(isinstance(c, dict) and c.get("type") == "PodScheduled" for c in conditions):
        gated = bool((obj.get("spec") or {}).get("schedulingGates"))
        reason = "SchedulingGated" if gated else "Unschedulable"
        status["conditions"] = [*conditions, {"type": "PodScheduled", "status": "False", "reason": reason,
                                              "lastTransitionTime": out["metadata"]["creationTimestamp"]}]
    return out


def stored_bound(obj: dict[str, Any], now: datetime, daemonsets: Mapping[tuple[str, str], str] = NO_DAEMONSETS
                 ) -> dict[str, Any]:
    """The README's defaults of a bound pod; a dump's complete pod is taken as it is, and one lacking
    only a uid, creation time or phase gets them in its view (`_defaulted_view`)."""
    if _complete_bound_pod(obj):
        return obj
    return _incomplete_bound(obj, now, daemonsets)


def _incomplete_bound(obj: dict[str, Any], now: datetime, daemonsets: Mapping[tuple[str, str], str],
                      created: str | None = None) -> dict[str, Any]:
    """`stored_bound` of a pod it changes (`created`: `now - BOUND_AGE` stamped, when known)."""
    if type(obj) is StoredPod:
        lazy = _defaulted_view(obj, now, created)
        if lazy is not None:
            return lazy
    return _bound_pod_now(obj, now, daemonsets)


class _BoundDefaults:
    """A stored pod's `listed`: its object decoded with `stored_bound`'s defaults (after `given`'s own);
    `viewed`: the uid and creation time its defaulted view has (`_defaulted_view`: worked out once, not
    again when decoded)."""

    __slots__ = ("now", "given", "viewed")

    def __init__(self, now: datetime, given: Callable[[Any], Any] | None,
                 viewed: tuple[str, str] | None = None) -> None:
        self.now, self.given, self.viewed = now, given, viewed

    def __call__(self, whole: dict[str, Any]) -> dict[str, Any]:
        if self.given is not None:
            return _bound_pod_now(self.given(whole), self.now, {})
        if self.viewed is not None:
            return _viewed_whole(whole, *self.viewed)
        return _bound_pod_now(whole, self.now, {})


def _viewed_whole(whole: dict[str, Any], uid: str, created: str) -> dict[str, Any]:
    """`_bound_pod_now` of a `_defaulted_view` pod's object: its view's uid and creation time where it
    has none (its view's are its own, or the defaults), phase Running unless given; no DaemonSet owner
    reference lacks its uid (else it would not be a view)."""
    meta = dict(_meta(whole))
    if not meta.get("uid"):
        meta["uid"] = uid
    if not meta.get("creationTimestamp"):
        meta["creationTimestamp"] = created
    out = dict(whole)
    out["metadata"] = meta
    given = whole.get("status")
    status = out["status"] = dict(given) if isinstance(given, dict) else {}
    status.setdefault("phase", "Running")
    return out


def _deferred(obj: StoredPod, defaults: _BoundDefaults) -> StoredPod | None:
    """A stored dump pod (`obj.stored`) as `stored_bound` leaves it: `obj` when complete, else a
    copy with the defaults in its object (when decoded) and not in its view, which
    `DefaultedPodInfo` reads them for (no uid hashed for 145,000 pods that never need one); None
    for a DaemonSet owner reference without its uid (`_bound_pod_now` fills it in)."""
    view = obj.view
    meta, status = view.metadata, view.status
    if _daemonset_without_uid(view.owner_references()):
        return None
    if meta.uid and meta.creationTimestamp and status is not None and status.phase is not UNSET:
        return obj
    listed = obj.listed
    return StoredPod(obj.raw, view, defaults if listed is None else _BoundDefaults(defaults.now, listed))


def _viewed(obj: StoredPod, now: datetime, created: str) -> StoredPod | None:
    """`stored_bound` of a dump's pod no API server stored: `obj` when complete, else `_defaulted_view`'s
    (`created`: `now - BOUND_AGE` stamped); None for a DaemonSet owner reference without its uid."""
    view = obj.view
    meta, status = view.metadata, view.status
    if meta is None or _daemonset_without_uid(view.owner_references()):
        return None
    if meta.uid and meta.creationTimestamp and status is not None and status.phase is not UNSET:
        return obj
    return _defaulted_view(obj, now, created, checked=True)


class DefaultedPodInfo(StoredPodInfo):
    """The `PodInfo` of a `_deferred` pod: the uid and phase its view lacks are the defaults'."""

    __slots__ = ()

    @lazy
    def uid(self) -> str:
        view = self.view
        kind = view.kind or ""
        namespace = "" if kind in _CLUSTER_SCOPED else (view.metadata.namespace or "default")
        name = view.metadata.name
        return view.metadata.uid or object_uid(kind, namespace, name if isinstance(name, str) else "")

    @property
    def phase(self) -> Any:
        status = self.view.status
        return status.phase if status is not None and status.phase is not UNSET else "Running"


def pod_info(obj: Any) -> PodInfo:
    """`PodInfo(obj)`, a `DefaultedPodInfo` for a `_deferred` pod (made without `PodInfo`'s dispatch)."""
    if type(obj) is not StoredPod or type(obj.listed) is not _BoundDefaults:
        return PodInfo(obj)
    _init_stored(pod := _new(DefaultedPodInfo), obj)
    return pod


_new, _init_stored = object.__new__, StoredPodInfo.__init__


READ_PODS_KEPT = 1 << 19        # stored pods `ReadPods` remembers at most (then it starts again)


class ReadPods:
    """What the passes at one clock make of a cluster's stored pods, by the pod's identity: its
    defaulted self (`_deferred`, `_viewed`) and its `PodInfo` (read only, as pods are). `kexplain
    cluster` reads the same 150,000 stored pods in its pending pass (`pass_of`) and again in its
    Karpenter section (`pass_of_state`): the second takes the first's, neither looked at nor made again.
    Each entry holds its pod (an identity stays its pod's); bounded by `READ_PODS_KEPT`, one clock."""

    def __init__(self, kept: int = READ_PODS_KEPT) -> None:
        self.kept = kept
        self.now: datetime | None = None
        self.defaulted: dict[int, tuple[StoredPod, StoredPod | None]] = {}
        self.infos: dict[int, tuple[StoredPod, PodInfo]] = {}

    def at(self, now: datetime, coming: int) -> dict[int, tuple[StoredPod, StoredPod | None]]:
        """The defaulted pods of the clock `now`, with room for `coming` more (else forgotten)."""
        if now != self.now or len(self.defaulted) + len(self.infos) + coming > self.kept:
            self.now, self.defaulted, self.infos = now, {}, {}
        return self.defaulted

    def pod_infos(self, objs: Iterable[Any]) -> list[PodInfo]:
        """`pod_info` of each object, a stored pod's made once (the clock's: `at` asked first), the
        pods held taken at once and the others made one by one (in C: 145,000 pods); when none was
        made before (the first pass), all made and kept at once."""
        infos = self.infos
        objs = list(objs)
        held = list(map(infos.get, map(id, objs), repeat(_NOT_HELD)))
        ok = list(map(operator.is_, map(_FIRST, held), objs))
        if not any(ok):
            made = list(map(pod_info, objs))
            stored = list(map(operator.is_, map(type, objs), repeat(StoredPod)))
            infos.update(zip(map(id, compress(objs, stored)), zip(compress(objs, stored), compress(made, stored))))
            return made
        out = list(map(_SOURCE, held))
        for at in compress(range(len(objs)), map(operator.not_, ok)):
            obj = objs[at]
            out[at] = pod = pod_info(obj)
            if type(obj) is StoredPod:
                infos[id(obj)] = (obj, pod)
        return out


_NOT_HELD = (None, None)       # (`ReadPods.pod_infos`: a pod not held)


_read_pods = ReadPods()


def _defaulted_view(obj: StoredPod, now: datetime, created_text: str | None = None, checked: bool = False
                    ) -> StoredPod | None:
    """A dump's bound pod with `stored_bound`'s defaults, still a view (its object defaulted only if
    decoded); None when a DaemonSet owner reference lacks its uid (`checked`: known not to)."""
    view = obj.view
    meta, status = view.metadata, view.status
    if meta is None or not checked and _daemonset_without_uid(view.owner_references()):
        return None
    uid = meta.uid
    if not uid:             # (the object decoded lacks it too: `_BoundDefaults` gives it this one)
        kind = view.kind or ""
        uid = object_uid(kind, "" if kind in _CLUSTER_SCOPED else (meta.namespace or "default"),
                         meta.name if isinstance(meta.name, str) else "")
    created = meta.creationTimestamp or created_text or _stamp(now - BOUND_AGE)
    if status is None:
        status = _PHASE_RUNNING
    elif status.phase is UNSET:
        status = structs.replace(status, phase="Running")
    defaulted = structs.replace(view, metadata=structs.replace(meta, uid=uid, creationTimestamp=created),
                                status=status)
    return StoredPod(obj.raw, defaulted, _BoundDefaults(now, obj.listed, (uid, created)))


def _bound_pod_now(obj: dict[str, Any], now: datetime, daemonsets: Mapping[tuple[str, str], str]) -> dict[str, Any]:
    """`stored_bound`'s defaults written in a copy of `obj`."""
    out = _with_defaults(obj, now - BOUND_AGE, True)
    out["status"].setdefault("phase", "Running")
    meta = out["metadata"]
    refs = meta.get("ownerReferences")
    if _daemonset_without_uid(refs):
        namespace = meta.get("namespace") or "default"
        meta["ownerReferences"] = [
            {**r, "uid": daemonsets[(namespace, r.get("name"))]}
            if isinstance(r, dict) and r.get("kind") == "DaemonSet" and not r.get("uid")
            and (namespace, r.get("name")) in daemonsets else r
            for r in refs]
    return out


def _complete_bound_pod(obj: dict[str, Any]) -> bool:
    """Whether `stored_bound` would change nothing: a uid and a creation time, a status with a
    phase, every DaemonSet owner reference with its uid."""
    if type(obj) is StoredPod:      # (of a dump: asked of its view)
        view = obj.view
        uid, created, refs = view.metadata.uid, view.metadata.creationTimestamp, view.owner_references()
        phased = view.status is not None and view.status.phase is not UNSET
    else:
        meta = _meta(obj)
        status = obj.get("status")
        uid, created, refs = meta.get("uid"), meta.get("creationTimestamp"), meta.get("ownerReferences")
        phased = isinstance(status, dict) and "phase" in status
    return bool(uid and created and phased) and not _daemonset_without_uid(refs)


def _daemonset_without_uid(refs: Any) -> bool:
    """Whether an owner reference names a DaemonSet without its uid (a loop, not any(): asked of
    150,000 pods)."""
    if isinstance(refs, list):
        for r in refs:
            if isinstance(r, dict) and r.get("kind") == "DaemonSet" and not r.get("uid"):
                return True
    return False


def _node(obj: dict[str, Any], now: datetime) -> dict[str, Any]:
    out = _with_defaults(obj, now - NODE_AGE, True)
    status = out["status"]
    conditions = status.get("conditions") if isinstance(status.get("conditions"), list) else []
    if not any(isinstance(c, dict) and c.get("type") == "Ready" for c in conditions):
        status["conditions"] = [*conditions, {"type": "Ready", "status": "True", "reason": "KubeletReady",
                                              "lastTransitionTime": _stamp(now - NODE_AGE)}]
    return out


def _daemonset(obj: dict[str, Any], now: datetime) -> dict[str, Any]:
    """A DaemonSet as stored: the defaults above, and its pod template as the API server
    defaults it (a copy; the input's object is left as it is)."""
    out = _with_defaults(obj, now - NODE_AGE)
    spec = obj.get("spec")
    if isinstance(spec, dict) and isinstance(spec.get("template"), dict):
        out["spec"] = {**spec, "template": default_pod_template(copy.deepcopy(spec["template"]))}
    return out


def _pvc(obj: dict[str, Any], now: datetime) -> dict[str, Any]:
    out = _with_defaults(obj, now - BOUND_AGE, True)
    if (obj.get("spec") or {}).get("volumeName") and not out["status"].get("phase"):
        out["status"]["phase"] = "Bound"
    return out


def load_pass(pods_path: str | None, node_paths: tuple[str, ...], settings_path: str | None,
              kube: KubeVersion, *, max_bytes: int, max_objects: int, validate: str = "strict",
              now: datetime = CLOCK, stdin: BinaryIO | None = None, namespace: str | None = None) -> PassInputs:
    """Read, default and admit everything one pass needs (InputError/AdmissionRejected: exit 2);
    a path `-` reads `stdin`; `namespace`: -n, for the pods' file (`load_objects`)."""
    settings = read_settings(settings_path, max_bytes)
    with bulk_load():
        pod_objs = load_objects([pods_path], max_bytes, stdin, max_objects=max_objects,
                                namespace=namespace) if pods_path else []
        cluster_objs = load_objects(node_paths, max_bytes, stdin, max_objects=max_objects) if node_paths else []
    return pass_of(joined(pod_objs, cluster_objs), settings, kube, validate=validate, now=now)


def joined(pod_objs: list[tuple[dict[str, Any], Source]], cluster_objs: list[tuple[dict[str, Any], Source]]
           ) -> list[tuple[dict[str, Any], Source]]:
    """The PODS file's objects, then the cluster's; a dump's rows kept (`columns.Dump`)."""
    everything = pod_objs + cluster_objs
    rows = columns.rows_of(cluster_objs)
    if rows is not None:
        return columns.Dump(everything, columns.Rows.of(pod_objs) + rows)
    return everything


def pass_of(everything: list[tuple[dict[str, Any], Source]], settings: Settings, kube: KubeVersion, *,
            validate: str = "strict", now: datetime = CLOCK) -> PassInputs:
    """`load_pass` for objects read already (the PODS file's, then the cluster's): defaulted,
    checked and admitted. A `ClusterState` is read by `pass_of_state` instead."""
    # A dump's rows (`columns.Dump`: kind, apiVersion, name, namespace, stored) stay its objects'
    # through the defaults below, which change none of them: the checks and admission then ask
    # the rows, not each of 150,000 objects.
    defaulted = defaulted_objects(everything, now)
    index = ShapeIndex()
    checked = check_objects(defaulted, CLUSTER_KINDS | EXTRA_KINDS, validate=validate, shape_index=index, kube=kube)
    cluster, rest = _cluster_and_rest(checked.objects)
    admitted, kinds = _admitted(cluster, index, kube)
    return _inputs_of(admitted.objects, rest, settings, admitted.kube, now, validate,     # (its admission plugins
                      [*checked.warnings, *admitted.warnings], kinds)                # recognised by the nodes)


# -- a dump's stored pods, taken as they are ---------------------------------------------------------
# What `admit` does with a dump's stored pod is to take it as it is: it takes its name and sees its
# namespace. `_admitted` asks that of the 145,000 stored pods at once and admits the rest (with the first
# stored pod of each namespace, where it stands); whenever that might not be the whole answer (a name
# taken twice, a pod without name or namespace, admission not keeping one object for one), it admits
# every object, as before.

def _stored_pods(objects: Objects) -> list[bool] | None:
    """Which objects of a dump are stored pods (its rows asked); None when it is no dump or holds none."""
    rows = columns.rows_of(objects)
    if rows is None:
        return None
    stored = list(map(operator.and_, map(operator.eq, rows.kinds, repeat("Pod")), map(bool, rows.stored)))
    return stored if any(stored) else None


def _admitted(cluster: Objects, index: ShapeIndex, kube: KubeVersion) -> tuple[Any, list[Any] | None]:
    """`admit` of the cluster, a dump's stored pods taken as they are but one of each namespace (above);
    with the kinds of the objects admitted, when known (None: ask them)."""
    stored = _stored_pods(cluster)
    keep = _admitted_apart(cluster, stored) if stored is not None else None
    if keep is None:
        return admit(cluster, None, shape_index=index, kube=kube), None
    reduced = cluster.taken(keep)           # type: ignore[attr-defined]
    admitted = admit(reduced, None, shape_index=index, kube=kube)
    out, size = admitted.objects, len(reduced)
    if len(out) < size or not all(map(operator.is_, map(_SOURCE, out[:size]), map(_SOURCE, reduced))) or \
            any(src is not BUILTIN for _, src in out[size:]):
        return admit(cluster, None, shape_index=index, kube=kube), None
    merged = list(cluster)
    for at, pair in zip(compress(range(len(keep)), keep), out):
        merged[at] = pair
    builtins = out[size:]
    merged += builtins
    admitted.objects = merged
    return admitted, [*columns.rows_of(cluster).kinds, *(o.get("kind") for o, _ in builtins)]  # type: ignore[union-attr]


def _admitted_apart(cluster: Objects, stored: list[bool]) -> list[bool] | None:
    """Which objects admission is to see: all but the stored pods, and the first stored pod of each
    namespace; None when the stored pods cannot be taken apart (a pod without name or namespace, a
    name taken twice: admission's own words then)."""
    rows = columns.rows_of(cluster)
    assert rows is not None
    namespaces = list(compress(rows.namespaces, stored))
    names = list(compress(rows.names, stored))
    if not all(namespaces) or not all(names):
        return None
    try:
        by_name = dict(zip(names, namespaces))      # (each name its own, as in a dump: no pair made)
        taken = set(zip(namespaces, names)) if len(by_name) != len(names) else None
    except TypeError:
        return None
    if taken is not None and len(taken) != len(names):
        return None
    is_pod = list(map(operator.eq, rows.kinds, repeat("Pod")))
    if is_pod.count(True) != len(names):          # pods not stored: none may take a stored one's name
        for i in compress(range(len(stored)), map(operator.gt, is_pod, stored)):
            name, namespace = rows.names[i], rows.namespaces[i] or "default"
            if not name or ((namespace, name) in taken if taken is not None else by_name.get(name) == namespace):
                return None
    keep = list(map(operator.not_, stored))
    at = compress(range(len(stored)), stored)
    for first in dict(zip(reversed(namespaces), reversed(list(at)))).values():
        keep[first] = True
    return keep


def pass_of_state(state: ClusterState, settings: Settings, *, validate: str = "strict", now: datetime = CLOCK,
                  set_objects: Objects = (), created: Objects = (), victims: set[str] | frozenset[str] = frozenset(),
                  given: Objects = ()) -> PassInputs:
    """The pass's inputs read from a cluster state, never admitting it again: `victims` terminating,
    the set's objects applied (`ClusterState.with_set`), `given` Pods first, then the defaults."""
    view = state.overlaid(with_victims(state.objects, set(victims))) if victims else state
    extra = [*given, *set_objects]
    if extra or created:
        objects, said = view.with_set(extra, list(created))
    else:
        objects, said = view.objects, []
    if given:           # the PODS file's Pods first, as `joined` lists them
        first = {id(s) for _, s in given}
        objects = [pair for pair in objects if id(pair[1]) in first] + \
            [pair for pair in objects if id(pair[1]) not in first]
    others = cluster_with(state.other_kinds, [(o, s) for o, s in set_objects if o.get("kind") not in CLUSTER_KINDS],
                          kinds=None, kube=state.kube)
    defaulted_others = defaulted_objects(others, now)
    checked = check_objects(defaulted_others, EXTRA_KINDS, validate=validate, kube=state.kube)
    uids = daemonset_uids(defaulted_others)
    cluster = defaulted_objects(objects, now, uids, admitted=True)
    warnings = [*state.said, *checked.warnings, *said]     # (what loading said, as `pass_of` says it)
    return _inputs_of(cluster, checked.objects, settings, state.kube, now, validate, warnings)


def daemonset_uids(objects: Objects) -> dict[tuple[str, Any], str]:
    """Each DaemonSet's uid by (namespace, name): its own, else the README's (`object_uid`),
    which its pods' owner references without one take. (Found in C among a dump's kinds.)"""
    uids = {}
    for obj, _ in compress(objects, map(operator.eq, _kinds_of(objects), repeat("DaemonSet"))):
        meta = _meta(obj)
        namespace = meta.get("namespace") or "default"
        uids[(namespace, meta.get("name"))] = meta.get("uid") or \
            object_uid("DaemonSet", namespace, meta.get("name") or "")
    return uids


def _kinds_of(objects: Objects) -> list[Any]:
    rows = columns.rows_of(objects)
    return rows.kinds if rows is not None else [obj.get("kind") for obj, _ in objects]


def defaulted_objects(objects: Objects, now: datetime, uids: dict[tuple[str, Any], str] | None = None, *,
                      admitted: bool = False) -> Objects:
    """`objects` with the README's defaults, each defaulted one a copy. `admitted`: a cluster
    state's (admission's uids taken as none, `BUILTIN` objects kept as made)."""
    kinds_of = _kinds_of(objects)
    daemonsets = daemonset_uids(objects) if uids is None else uids
    defaulted: Objects = []
    position = 0
    bound_created = _stamp(now - BOUND_AGE)
    defaults = _BoundDefaults(now, None)        # (shared by the stored pods without their own `listed`)
    seen = _read_pods.at(now, len(objects))     # (another pass's at this clock: `ReadPods`)
    for pair, kind in zip(objects, kinds_of):
        obj, src = pair
        if admitted and src is BUILTIN:
            defaulted.append(pair)
            continue
        if kind == "Pod" and admitted and admission_filled_uid(obj):     # (as written: none)
            obj = dict(obj)
            obj["metadata"] = {**_meta(obj), "uid": ""}
        if kind == "Pod" and type(obj) is not StoredPod and not (obj.get("spec") or {}).get("nodeName"):
            obj = stored_pending(obj, now - PENDING_AGE + timedelta(seconds=position))
            position += 1
        elif kind == "Pod" and type(obj) is StoredPod:     # (its view asked once)
            held = seen.get(id(obj))
            if held is not None and held[0] is obj:
                kept = held[1]
            else:
                kept = _deferred(obj, defaults) if obj.stored else _viewed(obj, now, bound_created)
                seen[id(obj)] = (obj, kept)
            if kept is pair[0]:
                defaulted.append(pair)
                continue
            obj = kept if kept is not None else _bound_pod_now(obj, now, daemonsets)
        elif kind == "Pod":
            if _complete_bound_pod(obj):
                if obj is pair[0]:        # (a dump's: kept, pair and all)
                    defaulted.append(pair)
                    continue
            else:
                obj = _incomplete_bound(obj, now, daemonsets, bound_created)
        else:
            obj = _defaulted(obj, kind, now)
        defaulted.append((obj, src))
    rows = columns.rows_of(objects)
    return columns.Dump(defaulted, rows) if rows is not None else defaulted


def _defaulted(obj: dict[str, Any], kind: Any, now: datetime) -> dict[str, Any]:
    """An object not a Pod with the README's defaults for its kind."""
    if kind == "Node":
        return _node(obj, now)
    if kind == NODECLAIM:
        return _with_defaults(obj, now - NODE_AGE)
    if kind in (NODEPOOL, EC2NODECLASS):
        return _with_defaults(obj, now - NODEPOOL_AGE)
    if kind == "PersistentVolumeClaim":
        return _pvc(obj, now)
    if kind == "DaemonSet":
        return _daemonset(obj, now)
    if isinstance(kind, str) and kind:
        return _with_defaults(obj, now - NODE_AGE)
    return obj


def _cluster_and_rest(checked: Objects) -> tuple[Objects, Objects]:
    """The checked objects of the scheduler's kinds (admitted; a dump kept one), and the rest."""
    checked_rows = columns.rows_of(checked)
    if checked_rows is not None:
        of_cluster = list(map(CLUSTER_KINDS.__contains__, checked_rows.kinds))
        return checked.taken(of_cluster), list(compress(checked, map(operator.not_, of_cluster)))  # type: ignore[attr-defined]
    return [(o, s) for o, s in checked if o.get("kind") in CLUSTER_KINDS], \
        [(o, s) for o, s in checked if o.get("kind") not in CLUSTER_KINDS]


def _inputs_of(cluster: Objects, rest: Objects, settings: Settings, kube: KubeVersion, now: datetime,
               validate: str, warnings: list[str], kinds: list[Any] | None = None) -> PassInputs:
    """The pass's inputs from the admitted cluster and the checked objects of the other kinds
    (`sources`: where each was read, but the bound pods, which no error names); `kinds`: the cluster's,
    when known."""
    kinds = kinds if kinds is not None else _kinds_of(cluster)
    is_pod = list(map(operator.eq, kinds, repeat("Pod")))
    pairs = list(compress(cluster, is_pod))
    pods = _read_pods.pod_infos(map(_FIRST, pairs))        # (145,000: another pass's at this clock kept)
    unbound = list(map(operator.not_, map(_NODE_NAME, pods)))
    bound, pending = list(filter(_NODE_NAME, pods)), list(compress(pods, unbound))
    nodes: list[dict[str, Any]] = []
    objects: dict[str, list[dict[str, Any]]] = {}
    sources = {id(obj): src for obj, src in compress(pairs, unbound)}
    is_other = list(map(operator.not_, is_pod))
    for (obj, src), kind in zip(compress(cluster, is_other), compress(kinds, is_other)):
        sources[id(obj)] = src
        if kind == "Node":
            nodes.append(obj)
        else:
            objects.setdefault(kind, []).append(obj)
    for obj, src in rest:
        sources[id(obj)] = src
    check_uids(pending, sources)
    daemonsets = [o for o, _ in rest if o.get("kind") == "DaemonSet"]
    refused: list[KexplainError] = []
    pools, classes, claims = _karpenter_objects(rest, validate, warnings, refused, settings.release)
    return PassInputs(settings, kube, now, pending, bound, nodes, claims, daemonsets, pools, classes, objects,
                      sources, warnings, refused)


def check_uids(pending: list[PodInfo], sources: dict[int, Source] | None = None) -> None:
    """Each pending pod's uid its own (Karpenter tells pods apart by uid), else InputError."""
    seen: dict[str, PodInfo] = {}
    for pod in pending:
        other = seen.setdefault(pod.uid, pod)
        if other is not pod:
            raise InputError(f'Invalid value: "{pod.uid}": the uid of Pod {other.key} too (a cluster gives each '
                             "object its own uid)", source=(sources or {}).get(id(pod.obj)), obj=pod.obj,
                             field="metadata.uid")


def _karpenter_objects(objs: list[tuple[dict[str, Any], Source]], validate: str, warnings: list[str],
                       refused: list[KexplainError], release: str = "v1.13.0"
                       ) -> tuple[list[Any], list[Any], list[dict[str, Any]]]:
    """Karpenter's objects as the API server stores them, through their CRDs' schemas and rules
    (`as_stored`), in file order; NodeClaims as stored objects, which the cluster state reads."""
    # lazy: their CRDs' schemas and rules only when a pass runs (docs/development.md, "Lazy imports")
    from kexplain.karpenter.apis.ec2nodeclass import parse_ec2_node_class
    from kexplain.karpenter.apis.nodeclaim import stored_node_claim
    from kexplain.karpenter.apis.nodepool import parse_node_pool

    parse_pool = functools.partial(parse_node_pool, policies=versions.resolve(release).consolidation_policies)

    pools, classes, claims = [], [], []
    for obj, src in objs:
        kind = obj.get("kind")
        if kind == NODEPOOL:
            pools.append(as_stored(parse_pool, obj, src, validate, warnings, refused))
        elif kind == EC2NODECLASS:
            classes.append(as_stored(parse_ec2_node_class, obj, src, validate, warnings, refused))
        elif kind == NODECLAIM:
            claims.append(dict(as_stored(stored_node_claim, obj, src, validate, warnings, refused)))
    return pools, classes, claims


def as_stored(parse: Callable[..., Any], obj: dict[str, Any], src: Source, validate: str, warnings: list[str],
              refused: list[KexplainError]) -> Any:
    """One of Karpenter's objects as its CRD stores it: a refused value goes to `refused` and the
    object is read as written; unreadable raises; an object stored already only warns."""
    if is_stored(obj):
        return parse(obj, src, validate=validate, invalid="note", warnings=warnings)
    try:
        return parse(obj, src, validate=validate, invalid="refuse", warnings=warnings)
    except AdmissionRejected as err:
        parsed = parse(obj, src, validate="ignore", invalid="note", warnings=[])    # (raises again: unreadable)
        refused.append(err)
        return parsed
