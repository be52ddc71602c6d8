"""The ranking as it stands now on the node that evicted a pod (`kexplain pod NAME`, a pod file
with `--stats`): the kubelet's rank function for the starved resource's signal (`kubelet.rank`)
over the node's active pods and its stats Summary now, each threshold of that resource against its
signal now, and where the evicted pod stands in that order: itself if it still runs there, else
its controller's pods there (its replacement). Now, not then: the Summary is the node's today,
not the one the kubelet read when it evicted. Reads values, returns values; never prints."""
from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Optional, Sequence

from kexplain.eviction.kubelet import document as kdoc
from kexplain.eviction.kubelet import rank
from kexplain.eviction.kubelet import signals as sig
from kexplain.eviction.kubelet import thresholds as th
from kexplain.eviction.kubelet.config import EvictionConfig
from kexplain.eviction.kubelet.manager import Filesystems

TERMINAL_PHASES = ("Succeeded", "Failed")
ITSELF, REPLACEMENT = "itself", "replacement"      # how a place stands for the evicted pod
# a resource's signal when none of its own is configured: the node's, the one every kubelet observes
PLAIN_SIGNALS = (th.MEMORY_AVAILABLE, th.NODEFS_AVAILABLE, th.PID_AVAILABLE)


def _meta(pod: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = pod.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def _name(pod: Mapping[str, Any]) -> str:
    meta = _meta(pod)
    return f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}"


def _controller(pod: Mapping[str, Any]) -> Optional[tuple[str, str]]:
    """The controller's (kind, name), None without one."""
    for ref in _meta(pod).get("ownerReferences") or ():
        if isinstance(ref, Mapping) and ref.get("controller") is True:
            return str(ref.get("kind") or ""), str(ref.get("name") or "")
    return None


def active(pods: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The kubelet's active pods: not finished."""
    return [p for p in pods if (p.get("status") or {}).get("phase") not in TERMINAL_PHASES]


def ranked_signal(resource: str, thresholds: Sequence[th.Threshold],
                  observations: Mapping[str, sig.Observation]) -> Optional[str]:
    """The signal whose rank function orders the pods for `resource`: the first of its signals with
    a threshold met now, else the first with a threshold, else the node's own (`PLAIN_SIGNALS`)."""
    signals = [s for s, (_, r) in th.SIGNALS.items() if r == resource]
    if not signals:
        return None
    configured = [t for t in sorted(thresholds, key=th.sort_key) if t.signal in signals]
    met = th.met(configured, observations, False)
    for pick in (met, configured):
        if pick:
            return pick[0].signal
    return next((s for s in PLAIN_SIGNALS if s in signals), signals[0])


def places(pod: Mapping[str, Any], ranked: Sequence[str], pods: Mapping[str, Mapping[str, Any]]) -> list[dict]:
    """Where the evicted pod stands: itself (same name and uid), else the pods of its controller
    (a StatefulSet's replacement keeps the name), each with its 1-based place."""
    uid, own = _meta(pod).get("uid"), _controller(pod)
    out = []
    for i, name in enumerate(ranked, 1):
        other = pods[name]
        if name == _name(pod) and (not uid or _meta(other).get("uid") in (None, uid)):
            out.append({"pod": name, "place": i, "as": ITSELF})
        elif (own is not None and _controller(other) == own) or name == _name(pod):
            out.append({"pod": name, "place": i, "as": REPLACEMENT})
    return out


def _at(summary: Mapping[str, Any], signal: str, observations: Mapping[str, sig.Observation]) -> str:
    """When the Summary was sampled: its signal's time, else the node's memory or cpu time."""
    seen = observations.get(signal)
    if seen is not None and seen.time is not None:
        return kdoc.rfc3339(seen.time)
    node = summary.get("node") if isinstance(summary.get("node"), Mapping) else {}
    for section in ("memory", "cpu"):
        raw = (node.get(section) or {}).get("time") if isinstance(node.get(section), Mapping) else None
        if isinstance(raw, str):
            return raw
    return ""


def ranking_now(pod: Mapping[str, Any], resource: str, node_pods: Sequence[Mapping[str, Any]], summary: Mapping,
                config: EvictionConfig, fs: Filesystems = Filesystems(),
                now: Optional[datetime] = None) -> Optional[dict[str, Any]]:
    """The node's ranking now for `resource` (the one the kubelet's message named), with the
    thresholds of that resource against their signals now and the evicted pod's places; None
    when no rank function orders pods for it."""
    observations = sig.observations(summary)
    thresholds = th.update_container_fs_thresholds(list(config.thresholds), fs.image_fs, fs.split)
    signal = ranked_signal(resource, thresholds, observations)
    comparators = rank.rank_function(signal, fs.image_fs, fs.split) if signal else None
    if signal is None or comparators is None:
        return None
    stats = sig.pod_stats(summary)
    running = active(node_pods)
    candidates = [rank.Candidate(p, stats.get(str(_meta(p).get("uid") or ""))) for p in running]
    ranking = rank.rank(candidates, comparators)
    signals = {s for s, (_, r) in th.SIGNALS.items() if r == resource}
    rows = [r for r in kdoc.signals_doc(thresholds, observations) if r["signal"] in signals]
    out: dict[str, Any] = {"at": _at(summary, signal, observations) or (kdoc.rfc3339(now) if now else ""),
                           "resource": resource, "signal": signal, "thresholds": rows,
                           "underPressure": any(r.get("met") for r in rows),
                           "ranking": kdoc.ranking_keys(ranking, resource)}
    out["places"] = places(pod, [r.candidate.name for r in ranking], {_name(p): p for p in running})
    return out
