"""`kexplain evict`'s wiring: the cluster read once into the one cluster state, then one family's
pass (`pressure`, `drain`, `taints`, a module each, whose `document(request)` returns the
document the command writes). Never prints."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from datetime import datetime
from itertools import compress
from operator import not_
from typing import Any, BinaryIO, Callable, Mapping, Optional

from kexplain.admission import priority
from kexplain.admission.defaults import default_pod
from kexplain.admission.pipeline import is_stored
from kexplain.errors import AdmissionRejected, InputError, Source
from kexplain.explain.inputs import read_config
from kexplain.features import KubeVersion
from kexplain.features.kube_version import VersionError, parse_minor
from kexplain.load.gcpolicy import bulk_load
from kexplain.load.limits import DEFAULT_MAX_BYTES, DEFAULT_MAX_OBJECTS
from kexplain.load.live import DAEMONSETS, DEFAULT_CHUNK_SIZE, DEFAULT_TIMEOUT, ClusterReader, connect, \
    recorded_version
from kexplain.load.manifests import load_objects
from kexplain.apimachinery import columns
from kexplain.apimachinery.stored_pods import StoredPod
from kexplain.state.cluster import ClusterState, state_of
from kexplain.state.objects import Objects


@dataclass(frozen=True)
class LiveRead:
    """Where to read a live cluster (no `--nodes`): the kubeconfig, its context, the reads' timeout
    and page size."""

    kubeconfig: Optional[str] = None
    context: Optional[str] = None
    request_timeout: float = DEFAULT_TIMEOUT
    chunk_size: int = DEFAULT_CHUNK_SIZE


@dataclass(frozen=True)
class EvictRequest:
    """What `kexplain evict FAMILY NODE` was asked; the family's own options in `options`
    (pressure: stats, kubelet_config, filesystems, earlier_stats, earlier_at, admit; drain:
    ignore_daemonsets, delete_emptydir_data, force; taints: taints)."""

    node: str
    nodes: tuple[str, ...]
    now: datetime
    kube: KubeVersion
    options: dict = field(default_factory=dict)
    max_bytes: int = DEFAULT_MAX_BYTES
    max_objects: int = DEFAULT_MAX_OBJECTS
    validate: str = "strict"
    stdin: Optional[BinaryIO] = None
    live: Optional[LiveRead] = None     # read the cluster from its API server (get and list only)
    # --kubernetes-version (or $KEXPLAIN_KUBERNETES_VERSION) chose `kube`; else the cluster's own
    # versions decide (`read_cluster`: the API server's /version, a snapshot's record, a node's kubelet)
    version_given: bool = True


def read_state(req: EvictRequest) -> ClusterState:
    """The cluster of `--nodes` (or, live, of the API server), read and indexed once, as stored
    (nothing admitted: the pods are bound and running; `pods_on` gives a node's pods their API
    defaults), as the control plane's version admits it: unless given, live the API server's
    /version, from files a snapshot's record of it (`kexplain snapshot`), as `kexplain pod`
    follows the cluster (`settled` hands it to the request)."""
    return read_cluster(req)[0]


def read_cluster(req: EvictRequest, more: Optional[MoreReads] = None) -> tuple[ClusterState, dict[str, Any]]:
    """`read_state`, live with what `more` reads too, and the document's `liveReads` (what that read
    left out: `LiveCluster.reads`; nothing for files)."""
    reported: Optional[tuple[str, str]] = None
    live = live_cluster(req.live, req.node, more) if req.live is not None else None
    if live is not None and live.version:
        reported = (live.version, "the API server")
    with bulk_load(freeze=True):
        cluster = live.objects if live is not None else load_objects(req.nodes, req.max_bytes, req.stdin,
                                                                     max_objects=req.max_objects)
        if not req.version_given and live is None:
            recorded = recorded_version(cluster)
            reported = (recorded[0], f"the snapshot {recorded[1]}") if recorded is not None else None
        kube = followed(*reported).with_admission(req.kube.admission) if not req.version_given \
            and reported is not None else req.kube
        cluster = with_priorities(cluster)
        state = state_of(cluster, read_config(None, kube=kube), stored=True, validate=req.validate)
    return state, (live.reads() if live is not None else {})


def settled(req: EvictRequest, state: ClusterState) -> EvictRequest:
    """The request following the version its state was read as (the Eviction API's, kubectl's, the
    taint eviction controller's: the control plane's)."""
    return req if req.version_given else replace(req, kube=state.kube)


def followed(version: str, where: str) -> KubeVersion:
    """The minor kexplain follows for a component reporting `version` (a newer minor as the newest
    followed; an older one refused, naming who reported it)."""
    try:
        minor, _ = parse_minor(version)
    except VersionError as err:
        raise VersionError(f"{where} runs Kubernetes {version}: {err.message}; explain it as a supported version "
                           f"with --kubernetes-version") from None
    return KubeVersion(minor)


def kubelet_version(req: EvictRequest, node: dict) -> KubeVersion:
    """The version the node's kubelet follows: unless --kubernetes-version chose one, the node's
    `status.nodeInfo.kubeletVersion` (live, or as a snapshot keeps it), else the control plane's."""
    info = (node.get("status") or {}).get("nodeInfo") or {}
    reported = info.get("kubeletVersion") if isinstance(info, dict) else None
    if req.version_given or not isinstance(reported, str) or not reported:
        return req.kube
    name = (node.get("metadata") or {}).get("name")
    return followed(reported, f"node {name}'s kubelet (status.nodeInfo.kubeletVersion)")


def read_warnings(state: ClusterState) -> dict[str, list[str]]:
    """The document's `readWarnings`: what reading the cluster said of its objects (an object at an
    API version the API server no longer serves, `policy/v1beta1` PodDisruptionBudgets among them,
    skipped as `kubectl apply` refuses it), as `kexplain FILE` and lint say it
    (`load.manifests.check_objects`): never left out in silence. Empty: no key."""
    return {"readWarnings": list(state.said)} if state.said else {}


@dataclass(frozen=True)
class LiveCluster:
    """A live cluster as an eviction command read it: its objects, the API server's /version (None:
    it does not say), and what its autoscalers' reads left out (`refused`: the reads RBAC refused,
    `kexplain.load.live.Refusal`; `notes`: the others' words), said once, as `kexplain pod` says them."""

    objects: list[tuple[dict, Source]]
    version: Optional[str] = None
    refused: tuple[Any, ...] = ()
    notes: tuple[str, ...] = ()

    def reads(self) -> dict[str, Any]:
        """The document's `liveReads` (empty: no key)."""
        if not self.refused and not self.notes:
            return {}
        return {"liveReads": {"refused": [r.to_json() for r in self.refused], "notes": list(self.notes)}}


# What a family reads of a live cluster besides `kexplain pod`'s read (`app.eviction.autoscaled.live_reads`:
# the autoscalers' objects): the reader -> those objects, and what it left out.
MoreReads = Callable[[ClusterReader], LiveCluster]


def live_cluster(read: LiveRead, node: str, more: Optional[MoreReads] = None) -> LiveCluster:
    """The live cluster as `kexplain pod` reads it, with the DaemonSets (drain's filter asks for a
    pod's DaemonSet), what `more` reads (its refusals and notes kept), every pod of `node`, finished
    ones too, as `kubectl drain` lists them (last, in the API server's order), and the API server's
    /version."""
    conn = connect(read.kubeconfig, read.context)
    reader = ClusterReader(conn, read.chunk_size, read.request_timeout)
    version = reader.server_version()
    cluster = reader.read_cluster()
    cluster += [(o, Source(f"{conn.server}{DAEMONSETS.path}")) for o in reader.list_served(DAEMONSETS)]
    refused: tuple[Any, ...] = ()
    notes: tuple[str, ...] = ()
    if more is not None:
        extra = more(reader)
        cluster += extra.objects
        refused, notes = extra.refused, extra.notes
    mine = reader.pods_on(node)
    keys = {_key(p) for p in mine}
    cluster = [(o, s) for o, s in cluster if not (o.get("kind") == "Pod" and _key(o) in keys)]
    src = Source(f"{conn.server}/api/v1/pods?fieldSelector=spec.nodeName={node}")
    return LiveCluster(cluster + [(o, src) for o in mine], version, refused, notes)


def with_priorities(objects: Objects) -> Objects:
    """`objects` with each Pod no API server stored that states no `spec.priority` as the Priority
    admission plugin leaves it (`admitted_priority`), the rest as they are (a dump's rows kept): the
    state is read as stored (nothing admitted), yet a manifest's pods were created through admission,
    so the pods a drain's or a taint's replacements may preempt, and every family's own, carry their
    class's priority as `kexplain POD` admits them (a system-cluster-critical replacement never
    preempts its sibling). A pod naming no class, without a global default, is left as it is (0)."""
    rows = columns.rows_of(objects)
    if rows is not None and rows.plain:      # (a dump's 150,000 stored pods: skipped by their rows, in C)
        pods = compress(rows.positions("Pod"), map(not_, map(rows.stored.__getitem__, rows.positions("Pod"))))
        todo = [i for i in pods if _needs_priority(objects[i][0])]
        of_classes = [objects[i][0] for i in rows.positions("PriorityClass")]
    else:
        kinds = [o.get("kind") if isinstance(o, Mapping) else None for o, _ in objects]
        todo = [i for i, kind in enumerate(kinds) if kind == "Pod" and _needs_priority(objects[i][0])]
        of_classes = [o for (o, _), kind in zip(objects, kinds) if kind == "PriorityClass"]
    if not todo:
        return objects
    classes = priority.classes_of(of_classes)
    out = list(objects)
    for i in todo:
        obj, src = objects[i]
        if classes.default is not None or _spec(obj).get("priorityClassName"):
            out[i] = (admitted_priority(obj, classes, src), src)
    return columns.Dump(out, rows) if rows is not None else out


def _spec(obj: Any) -> Mapping:
    spec = obj.get("spec") if isinstance(obj, Mapping) else None
    return spec if isinstance(spec, Mapping) else {}


def _needs_priority(obj: Any) -> bool:
    """A pod created through admission (no API server stored it) whose spec states no priority: the
    Priority admission plugin sets it (a stored one read off its view, not decoded for it)."""
    if type(obj) is StoredPod:
        return not obj.stored and obj.view.spec.priority is None
    return isinstance(obj, dict) and not is_stored(obj) and isinstance(obj.get("spec"), dict) \
        and obj["spec"].get("priority") is None


def admitted_priority(obj: Any, classes: priority.Classes, source: Optional[Source] = None) -> Any:
    """The pod as the Priority admission plugin leaves it on create (`priority.admit_pod`, the rule the
    scheduler's path admits every pod with): `spec.priority` and `preemptionPolicy` of its
    PriorityClass among `classes` (the global default's, with its name, when it names none; the built-in
    system classes), on a copy of its spec; `obj` itself when stored or stating its priority. A class not
    found is the API server's refusal (AdmissionRejected)."""
    if not _needs_priority(obj):
        return obj
    whole = obj.obj if type(obj) is StoredPod else obj
    if not isinstance(whole.get("spec"), dict):
        return obj
    pod = {**whole, "spec": dict(whole["spec"])}
    try:
        priority.admit_pod(pod, classes.by_name, classes.default)
    except priority.PriorityRejected as err:
        raise AdmissionRejected(str(err), source=source, obj=whole) from None
    return pod


def defaulted(obj: dict, kube: KubeVersion, classes: priority.Classes,
              source: Optional[Source] = None) -> dict:
    """A pod as the API server stores it: its v1 defaults (requests copied from limits, ...) set on
    a copy, and, for a pod no API server stored (no resourceVersion: a manifest, created through
    admission) that carries no `spec.priority`, the Priority admission plugin's `spec.priority` and
    preemptionPolicy from its PriorityClass among `classes`, as the scheduler's path admits it. A
    stored pod, or one stating its priority, is read as it is: its admission plugins ran when it
    was created."""
    if obj.get("kind") != "Pod" or (obj.get("apiVersion") or "v1") != "v1":
        return obj
    pod = copy.deepcopy(obj)
    default_pod(pod, kube)
    if not is_stored(obj):
        pod = admitted_priority(pod, classes, source)
    return pod


def priority_classes(state: ClusterState) -> priority.Classes:
    """The PriorityClasses the Priority admission plugin reads for the state's pods (`defaulted`)."""
    return priority.classes_of(o for o, _ in state.admission_context)


def proxied(req: EvictRequest, node: str, wanted: dict[str, str]) -> dict[str, tuple[Any, Source]]:
    """Live only: the node's kubelet documents through the API server's node proxy, each of
    `wanted` (path under the proxy -> the option that reads it from a file instead), with where it
    was read; nothing for files."""
    if req.live is None:
        return {}
    conn = connect(req.live.kubeconfig, req.live.context)
    reader = ClusterReader(conn, req.live.chunk_size, req.live.request_timeout)
    return {what: (reader.node_proxy(node, what, instead),
                   Source(f"{conn.server}/api/v1/nodes/{node}/proxy/{what}"))
            for what, instead in wanted.items()}


def _key(pod: dict) -> tuple[str, str]:
    meta = pod.get("metadata") or {}
    return str(meta.get("namespace") or ""), str(meta.get("name") or "")


def node_named(state: ClusterState, name: str, paths: tuple[str, ...]) -> dict:
    """The Node `name` as admitted, or bad input naming the files it is not in."""
    info = state.snapshot.get(name)
    if info is None:
        if len(paths) == 1:
            raise InputError(f"node {name!r} not found in this file", source=Source(paths[0]))
        raise InputError(f"node {name!r} not found in {', '.join(paths) or 'the cluster'}")
    return info.node.obj


def pods_on(state: ClusterState, name: str, kube: KubeVersion) -> list[dict]:
    """Every pod bound to node `name`, finished ones too, in the order the objects were read (as
    `kubectl get pods --field-selector spec.nodeName=NAME` lists them before kubectl sorts), each
    as the API server stores it (`defaulted`: its v1 defaults; a manifest's priority from its
    PriorityClass): only the node's pods are copied, so a dump of a whole cluster stays read as
    stored."""
    classes = priority_classes(state)
    return [defaulted(o, kube, classes, s) for o, s in pods_by_node(state).get(name, ())]


BY_NODE = "eviction/pods-by-node"      # (the snapshot's cache key, with the objects' identity)


def pods_by_node(state: ClusterState) -> Mapping[Any, list[tuple[Any, Source]]]:
    """The state's pods (with their sources) by spec.nodeName, in the order the objects were read: made
    in one pass over the objects, once per state's objects (kept in its snapshot's cache, which an overlay
    with other objects shares: keyed by their identity), so that a node's pods are not a scan of the
    cluster for each node drained."""
    objects = state.objects
    held = state.snapshot.cached(f"{BY_NODE}/{id(objects)}", lambda: (objects, _by_node(objects)))
    return held[1] if held[0] is objects else _by_node(objects)


def _by_node(objects: Objects) -> dict[Any, list[tuple[Any, Source]]]:
    out: dict[Any, list[tuple[Any, Source]]] = {}
    rows = columns.rows_of(objects)
    pods = columns.of_kind(objects, rows, "Pod") if rows is not None else \
        [(o, s) for o, s in objects if o.get("kind") == "Pod"]     # (a dump's chosen by its rows, in C)
    for o, s in pods:
        out.setdefault(_node_name(o), []).append((o, s))
    return out


def _node_name(pod: Any) -> Any:
    """spec.nodeName (a stored pod's read off its view, its object not decoded for it)."""
    return pod.view.spec.nodeName if type(pod) is StoredPod else (pod.get("spec") or {}).get("nodeName")
