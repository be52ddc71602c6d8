"""`kexplain evict pressure NODE`: the kubelet's eviction manager on NODE. The cluster, the node's
stats Summary (and an earlier one), the KubeletConfiguration and the arriving pods are read once;
then one or two `synchronize` passes, the admit handler, and the document. Never prints."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Optional

from kexplain.admission.priority import Classes
from kexplain.app.eviction.request import (EvictRequest, defaulted, kubelet_version, node_named, pods_on, priority_classes,
                                   proxied, read_state, settled)
from kexplain.errors import InputError, Source
from kexplain.eviction import versions
from kexplain.eviction.kubelet import config as kconfig
from kexplain.eviction.kubelet import document as kdoc
from kexplain.eviction.kubelet import layout
from kexplain.eviction.kubelet import manager as mgr
from kexplain.eviction.kubelet import signals as sig
from kexplain.eviction.kubelet import whatif
from kexplain.eviction.kubelet.admit import admit
from kexplain.load.manifests import load_objects, read_settings_document
from kexplain.load.node_stats import recorded_node_stats
from kexplain.state.cluster import ClusterState

TERMINAL_PHASES = ("Succeeded", "Failed")
KUBELET_CONFIG = "KubeletConfiguration"
SUMMARY = "stats Summary"


def read_kubelet_config(path: Optional[str], max_bytes: int,
                        fetched: Optional[tuple[Any, Source]] = None) -> kconfig.EvictionConfig:
    """The KubeletConfiguration's eviction settings (live, the node's `/configz` when no file; the
    kubelet's defaults without either)."""
    if not path and fetched is None:
        return kconfig.read({})
    doc, source = read_settings_document(path, KUBELET_CONFIG, max_bytes) if path else fetched
    try:
        return kconfig.read(doc)
    except kconfig.ConfigError as err:
        field = f"{KUBELET_CONFIG} {err.field}" if err.field else KUBELET_CONFIG
        raise InputError(str(err), source=source, field=field) from None


def read_summary(path: Optional[str], option: str, node: str, pods: list[dict], max_bytes: int,
                 fetched: Optional[tuple[Any, Source]] = None) -> Mapping:
    """A stats Summary (a file, or live the node's through the node proxy), checked against the
    cluster: every pod it names is bound to the node."""
    if not path and fetched is None:
        raise InputError(f"{option} FILE is required: the node's stats Summary (`kubectl get --raw "
                         f"/api/v1/nodes/{node}/proxy/stats/summary`)")
    doc, source = read_settings_document(path, SUMMARY, max_bytes) if path else fetched
    if not isinstance(doc, Mapping):
        raise InputError("not a stats Summary: a mapping is expected", source=source)
    held = {str((p.get("metadata") or {}).get("uid") or "") for p in pods}
    try:
        sig.observations(doc)
        sig.pod_stats(doc)
        for i, ref in sig.summary_pod_refs(doc):
            if str(ref.get("uid")) not in held:
                raise sig.StatsError(f"pod {ref.get('namespace')}/{ref.get('name')} (uid {ref.get('uid')}) is not "
                                     f"bound to node {node} in the cluster", f"pods[{i}].podRef")
    except sig.StatsError as err:
        raise InputError(str(err), source=source, field=f"Summary {err.field}") from None
    return doc


def read_arrivals(path: Optional[str], req: EvictRequest, classes: Classes) -> list[dict]:
    """The pods of --admit, as the API server stores them (`defaulted`: a manifest's priority
    from its PriorityClass among the cluster's)."""
    if not path:
        return []
    objs = load_objects([path], req.max_bytes, req.stdin, max_objects=req.max_objects)
    pods = []
    for obj, source in objs:
        if obj.get("kind") != "Pod":
            raise InputError(f"a {obj.get('kind')} where Pods arriving at the node are expected", source=source,
                             obj=obj)
        pods.append(defaulted(obj, req.kube, classes, source))
    return pods


def _active(pods: list[dict], evicted: set[str]) -> list[dict]:
    """The kubelet's active pods: not finished, not evicted by an earlier pass."""
    out = []
    for p in pods:
        meta = p.get("metadata") or {}
        if (p.get("status") or {}).get("phase") in TERMINAL_PHASES:
            continue
        if f"{meta.get('namespace') or 'default'}/{meta.get('name')}" in evicted:
            continue
        out.append(p)
    return out


def filesystems(option: Optional[str], summary: Mapping) -> tuple[mgr.Filesystems, dict[str, Any]]:
    """The layout the kubelet is told (`--filesystems`, else inferred from the Summary of its first
    pass as cAdvisor tells it: `layout.infer`), and the document's `filesystemsFrom`: which, from what."""
    if option:
        return mgr.Filesystems.named(option), {"layout": option, "from": "--filesystems"}
    inferred = layout.infer(summary)
    return mgr.Filesystems.named(inferred.layout), {"layout": inferred.layout, "from": SUMMARY, "why": inferred.why}


def run_passes(req: EvictRequest, config: kconfig.EvictionConfig, pods: list[dict],
               summaries: tuple[Optional[Mapping], Mapping],
               fs: mgr.Filesystems) -> tuple[mgr.State, Optional[mgr.Pass], mgr.Pass]:
    """The earlier pass (when given), then the pass at --now, on the layout `fs`."""
    pod_level = req.kube.since(versions.POD_LEVEL_MESSAGE_SINCE) and req.kube.enabled("PodLevelResources")
    state = mgr.initial_state(config)
    earlier = None
    evicted: set[str] = set()
    if summaries[0] is not None:
        inputs = mgr.Inputs(req.options["earlier_at"], summaries[0], _active(pods, evicted), req.node, fs, pod_level)
        state, earlier = mgr.synchronize(state, config, inputs)
        evicted = {e.pod for e in earlier.evicted}
    inputs = mgr.Inputs(req.now, summaries[1], _active(pods, evicted), req.node, fs, pod_level)
    state, now = mgr.synchronize(state, config, inputs)
    return state, earlier, now


def document(req: EvictRequest) -> dict[str, Any]:
    """The document of `kexplain evict pressure`."""
    return document_of(read_state(req), req)


def document_of(cluster: ClusterState, req: EvictRequest) -> dict[str, Any]:
    """The document over a cluster state read already (`document`'s, and `kexplain cluster`'s, which
    reads the cluster once for every node whose stats it has)."""
    req = settled(req, cluster)         # the API server's version (the pods' defaults, --admit's admission)
    node = node_named(cluster, req.node, req.nodes)
    pods = pods_on(cluster, req.node, req.kube)
    kubelet = replace(req, kube=kubelet_version(req, node))    # the node's kubelet's: the manager, its admit
    wanted = {what: option for what, option, key in (("stats/summary", "--stats FILE", "stats"),
                                                      ("configz", "--kubelet-config FILE", "kubelet_config"))
              if not req.options.get(key)}
    fetched = proxied(req, req.node, wanted)     # live: the node's own, when no file says it
    if req.live is None:        # a snapshot's record of the node (`kexplain snapshot --node-stats`)
        fetched = {k: v for k, v in recorded_node_stats(cluster.other_kinds, req.node).items() if k in wanted}
    config = read_kubelet_config(req.options.get("kubelet_config"), req.max_bytes, fetched.get("configz"))
    earlier_summary = None
    if req.options.get("earlier_stats"):
        earlier_summary = read_summary(req.options["earlier_stats"], "--earlier-stats", req.node, pods, req.max_bytes)
    summary = read_summary(req.options.get("stats"), "--stats", req.node, pods, req.max_bytes,
                           fetched.get("stats/summary"))
    arrivals = read_arrivals(req.options.get("admit"), req, priority_classes(cluster))
    fs, told = filesystems(req.options.get("filesystems"), earlier_summary or summary)
    state, earlier, now = run_passes(kubelet, config, pods, (earlier_summary, summary), fs)
    release = versions.KUBELET_RELEASES.get(kubelet.kube.minor, kubelet.kube.release)
    doc: dict[str, Any] = {
        "family": "pressure", "kubernetesVersion": release,
        "node": req.node, "filesystems": {"dedicatedImageFs": fs.image_fs, "splitContainerFs": fs.split},
        "filesystemsFrom": told, "thresholds": kdoc.thresholds_doc(state.thresholds),
        "evictionHard": dict(config.eviction_hard), "evictionHardDefaulted": config.hard_defaulted,
        "pressureTransitionPeriodSeconds": config.transition_ns // 10**9,
        "maxPodGracePeriodSeconds": config.max_pod_grace_seconds,
        **kdoc.pass_doc(now, state.thresholds)}
    reported = ((node.get("status") or {}).get("nodeInfo") or {}).get("kubeletVersion")
    if reported and not req.version_given:
        doc["kubeletVersion"] = reported        # (the node's own; `kubernetesVersion`: the release followed)
    if arrivals:
        kube = kubelet.kube
        answers = [admit(p, state.node_conditions, kube.enabled("PodLevelResources"),
                         kube.enabled("TaintTolerationComparisonOperators")) for p in arrivals]
        doc["admission"] = kdoc.admission_doc(answers)
        doc["admissionWhy"] = kdoc.admission_why(answers)
    if earlier is not None:
        doc["earlier"] = kdoc.pass_doc(earlier, state.thresholds)
    doc["whatIf"] = [c.describe() for c in whatif.changes(
        now, pods, lambda trial: run_passes(kubelet, config, list(trial), (earlier_summary, summary), fs)[2])]
    return doc


def evicts(doc: Mapping[str, Any]) -> bool:
    """Exit 1 when a pass evicted a pod."""
    return bool(doc.get("evicted")) or bool((doc.get("earlier") or {}).get("evicted"))
