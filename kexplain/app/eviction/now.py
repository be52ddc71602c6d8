"""An evicted pod's node as it stands now (`kexplain pod NAME`, `kexplain POD.yaml --stats FILE`):
for a pod the kubelet evicted under node pressure, the node's stats Summary and its kubelet's
configuration (files, or live the node's own through the API server's node proxy) ranked again
(`kexplain.eviction.ranking_now`), set on the trace's `eviction` key as `now`. Never prints."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping, Optional

from kexplain.admission.priority import classes_of
from kexplain.app.eviction.request import LiveRead, defaulted
from kexplain.app.eviction.pressure import SUMMARY, filesystems, read_kubelet_config, read_summary
from kexplain.errors import InputError, Source
from kexplain.explain.kubelet import readmit
from kexplain.eviction.kubelet.manager import conditions_of
from kexplain.eviction.ranking_now import ranking_now
from kexplain.features import KubeVersion
from kexplain.load.limits import DEFAULT_MAX_BYTES
from kexplain.load.live import ClusterReader, LiveError, connect
from kexplain.load.manifests import read_settings_document
from kexplain.load.node_stats import node_of_pod, recorded_node_stats
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot

NOW = "now"
# path under the node proxy -> the option that reads the same from a file
PROXIED = {"stats/summary": "--stats FILE", "configz": "--kubelet-config FILE"}


@dataclass(frozen=True)
class NowFiles:
    """The node's documents as files (`--stats`, `--kubelet-config`); live, what they leave out is
    read through the node proxy (`live`)."""

    stats: Optional[str] = None
    kubelet_config: Optional[str] = None
    max_bytes: int = DEFAULT_MAX_BYTES
    live: Optional[LiveRead] = None

    @property
    def asked(self) -> bool:
        return self.stats is not None or self.live is not None


def pressure_eviction(trace: Mapping[str, Any]) -> Optional[tuple[Optional[str], str]]:
    """(the node, the starved resource) of a node-pressure eviction by the kubelet; None otherwise
    (another component, a local storage limit, a message not the kubelet's)."""
    doc = trace.get("eviction") or {}
    part = doc.get("kubelet") or {}
    if doc.get("by") != "kubelet" or part.get("kind") != "nodePressure" or not part.get("resource"):
        return None
    return doc.get("node"), str(part["resource"])


def _node_of(node: Optional[str], summary: Optional[tuple[Any, Source]]) -> str:
    """The node the pod ran on, else the one the Summary is of."""
    if node:
        return node
    doc, source = summary if summary is not None else (None, Source("--stats"))
    named = ((doc.get("node") or {}).get("nodeName") if isinstance(doc, Mapping) else None)
    if not isinstance(named, str) or not named:
        raise InputError("the evicted pod names no node and the Summary's node.nodeName is not set", source=source)
    return named


def _fetched(files: NowFiles, node: str) -> dict[str, tuple[Any, Source]]:
    """Live: the node's documents no file gives, through the node proxy (a 403 raises LiveError)."""
    if files.live is None:
        return {}
    wanted = {what: option for what, option in PROXIED.items()
              if not (files.stats if what == "stats/summary" else files.kubelet_config)}
    if not wanted:
        return {}
    conn = connect(files.live.kubeconfig, files.live.context)
    reader = ClusterReader(conn, files.live.chunk_size, files.live.request_timeout)
    return {what: (reader.node_proxy(node, what, instead), Source(f"{conn.server}/api/v1/nodes/{node}/proxy/{what}"))
            for what, instead in wanted.items()}


def add_ranking_now(trace: dict, pod: Mapping[str, Any], snapshot: Optional[Snapshot], kube: KubeVersion,
                    files: NowFiles, now: Optional[datetime] = None,
                    cluster: Optional[Iterable[tuple[Any, Source]]] = None) -> None:
    """`trace["eviction"]["now"]`: the ranking now on the node of a pod the kubelet evicted under
    node pressure, when its Summary is given, read live, or kept by a snapshot among `cluster`
    (`kexplain snapshot --node-stats`); live, a refused node proxy is said there (`unavailable`)
    and the rest of the answer stands. A pod bound to its node (evicted or not) is admitted again
    by its kubelet under the pressure that Summary shows (`explain.kubelet.readmit`)."""
    found = pressure_eviction(trace)
    bound = (trace.get("kubelet") or {}).get("node")
    if found is None and not bound:
        return
    node, resource = found if found is not None else (bound, None)
    recorded: dict[str, tuple[Any, Source]] = {}
    if cluster is not None and not files.asked:      # a snapshot's record; its pod file is unbound
        cluster = list(cluster)
        node = node or node_of_pod(cluster, (pod.get("metadata") or {}).get("uid"))
        recorded = recorded_node_stats(cluster, node) if node else {}
    if not files.asked and "stats/summary" not in recorded:
        return
    given = read_settings_document(files.stats, SUMMARY, files.max_bytes) if files.stats else None
    name = _node_of(node, given)
    try:
        fetched = _fetched(files, name) or recorded
    except LiveError as err:
        if found is not None:
            trace["eviction"][NOW] = {"node": name, "unavailable": str(err)}
        return
    info = snapshot.get(name) if snapshot is not None else None
    if info is None:
        raise InputError(f"node {name!r} (where the kubelet evicted the pod) is not in the cluster: its pods are "
                         f"ranked against its Summary")
    classes = classes_of(snapshot.of_kind("PriorityClass"))     # (the pods' own, admitted already)
    pods = [defaulted(p.obj, kube, classes) for p in info.pods]
    summary = read_summary(None, "--stats", name, [*pods, dict(pod)], files.max_bytes,
                           given if given is not None else fetched.get("stats/summary"))
    config = read_kubelet_config(files.kubelet_config, files.max_bytes, fetched.get("configz"))
    # a bound pod's kubelet verdict under the pressure this Summary shows (the node's status may not say it)
    fs, told = filesystems(None, summary)       # the layout as the Summary's filesystems tell it
    readmit(trace, PodInfo(dict(pod)), info, kube,
            conditions_of(config, summary, name, fs, now or datetime.now(timezone.utc)))
    if resource is None:
        return
    answer = ranking_now(pod, resource, pods, summary, config, fs, now)
    if answer is not None:
        trace["eviction"][NOW] = {"node": name, **answer, "filesystemsFrom": told}
