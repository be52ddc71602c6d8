"""`kexplain karpenter --disruption` on a live cluster: the cluster read once as `kexplain pod`
reads it (`kexplain.app.live.Session`: the scheduler's kinds with PodDisruptionBudgets and their
status, Karpenter's NodePools, NodeClaims with their status conditions, EC2NodeClasses), but the
pods as Karpenter's informer lists them, Succeeded and Failed ones too (`GetCandidates` counts
every pod of a node in its disruption cost, `disruptionutils.ReschedulingCost`), the same
disruption pass as over files of those objects (`disruption_pass`), and Karpenter's own events
(its recorder's, on Nodes, NodeClaims, NodePools and pods) beside the pass's answer, in the
document's `live` key. A refused read of Karpenter's own objects (NodePools, NodeClaims,
EC2NodeClasses), or karpenter.sh not served at v1, ends it before the pass (exit 2: the reads and
the rules that grant them), as a refused PodDisruptionBudget list does: without them every node
would read "isn't managed by karpenter" or "NodePool not found". Another refused read (the events,
the DaemonSets) is kept, to be said once."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, ContextManager, Optional

from kexplain.app.karpenter_disruption import NodeAsk, disruption_pass
from kexplain.app.live import Connect, Live, session
from kexplain.load.live import ClusterReader, Refusal

Obj = dict[str, Any]

# What the pass cannot answer without: GetCandidates' NodePools and their instance types (an
# EC2NodeClass each), the cluster state's NodeClaims. Refused (403): no answer; NodePools and
# NodeClaims not served at karpenter.sh/v1 (404, or v1beta1 only): no answer either.
NEEDED = ("nodepools", "nodeclaims", "ec2nodeclasses")
NEEDED_SERVED = ("nodepools", "nodeclaims")


@dataclass(frozen=True)
class LiveDisruption:
    """What was read (`live`), Karpenter's events, the events' refusal (403) if any, and the pass."""

    live: Live
    events: tuple[Obj, ...]
    events_refused: Optional[Refusal]
    inputs: Any
    document: dict


def disruption_live(connect: Connect, progress: Callable[[], ContextManager], pods: Optional[str],
                    aws_data: Optional[str], config: Optional[str], kube: Any, now: Any, *, max_bytes: int,
                    max_objects: int, validate: str = "strict", namespace: Optional[str] = None,
                    stdin: Any = None, rules: Any = None, node: Optional[NodeAsk] = None) -> LiveDisruption:
    """Read the cluster and Karpenter's events, then run the pass over what was read (PODS, when
    given, adds pending pods as with --nodes files)."""
    with session(connect, progress) as s:
        live = s.read(finished=True)      # every pod, as Karpenter's informer (its disruption cost counts them)
        live.karpenter.require(NEEDED, s.conn.where, NEEDED_SERVED)
        reader = ClusterReader(s.conn, connect.chunk_size, connect.request_timeout)
        events, refused = reader.karpenter_events()
    inputs, doc = disruption_pass(pods, (), aws_data, config, kube, now, max_bytes=max_bytes,
                                  max_objects=max_objects, validate=validate, namespace=namespace, stdin=stdin,
                                  objects=list(live.cluster), rules=rules, node=node)
    doc["live"] = live_json(live, events, refused)
    return LiveDisruption(live, tuple(events), refused, inputs, doc)


def live_json(live: Live, events: list[Obj], refused: Optional[Refusal]) -> dict:
    """The document's `live` key: where it was read, Karpenter's events (oldest first), and
    whether RBAC refused them."""
    out: dict[str, Any] = {"server": live.server, **({"context": live.context} if live.context else {})}
    if live.server_version:
        out["serverVersion"] = live.server_version
    out["events"] = sorted((event_json(e) for e in events), key=lambda e: (e.get("lastSeen") or "", e["object"]))
    if refused is not None:
        out["eventsRefused"] = refused.to_json()
    return out


def event_json(event: Obj) -> dict:
    """One Event as the pass's own events are written: type, reason, the object (Kind/[ns/]name),
    the message, with how often and when last."""
    obj = event.get("involvedObject") or {}
    ns = obj.get("namespace")
    name = f"{ns}/{obj.get('name', '')}" if ns else obj.get("name", "")
    seen = event.get("lastTimestamp") or event.get("eventTime") or (event.get("series") or {}).get("lastObservedTime")
    out: dict[str, Any] = {"type": event.get("type", ""), "reason": event.get("reason", ""),
                           "object": f"{obj.get('kind', '')}/{name}", "message": event.get("message", "")}
    count = (event.get("series") or {}).get("count") or event.get("count")
    if count:
        out["count"] = count
    if seen:
        out["lastSeen"] = seen
    return out
