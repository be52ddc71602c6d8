"""The session's result document (what renderers and the checker read): the configuration, each
PodGroup's phase before and after with its conditions, each pod's binding and PodScheduled condition,
each queue's state and allocated with its quota and why its jobs wait on it (queue_document), the events as the recorder emitted them (identical ones counted)."""
from __future__ import annotations

from collections import Counter
from typing import Any

from kexplain.volcano.api.resource import Resource
from kexplain.volcano.cache import ClusterInfo
from kexplain.volcano.conf import SchedulerConf
from kexplain.volcano.framework.session import Session
from kexplain.volcano.queue_document import queues
from kexplain.volcano.versions import VolcanoVersion

CONDITION_KEYS = ("type", "status", "reason", "message")


def _pod_group(pg: Any, before: str, origin: dict[str, list[str]]) -> dict[str, Any]:
    out: dict[str, Any] = {"name": f"{pg.namespace}/{pg.name}", "queue": pg.queue, "minMember": pg.min_member,
                           "phaseBefore": before, "phase": pg.phase,
                           "conditions": [{k: c.get(k, "") for k in CONDITION_KEYS} for c in pg.conditions]}
    for key in ("running", "succeeded", "failed"):
        if getattr(pg, key):
            out[key] = getattr(pg, key)
    one_of = [c.get("originOneOf") for c in pg.conditions if c.get("originOneOf")]
    if one_of:
        out["originReasonOneOf"] = one_of[0]
    return out


def _pod(obj: dict[str, Any], ssn: Session, uid_of: dict[int, str]) -> dict[str, Any]:
    meta = obj.get("metadata") or {}
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    out: dict[str, Any] = {"name": f"{meta.get('namespace') or 'default'}/{meta.get('name', '')}"}
    group = (meta.get("annotations") or {}).get("scheduling.k8s.io/group-name")
    if group:
        out["podGroup"] = group
    if spec.get("nodeName"):
        out["nodeBefore"] = spec["nodeName"]
    uid = uid_of.get(id(obj))
    decision = ssn.decisions.get(uid) if uid is not None else None
    tie = decision is not None and len(decision.candidates) > 1
    if uid is not None and uid in ssn.bound:
        out["boundTo"] = ssn.bound[uid]
        if tie:
            out["boundToOneOf"] = decision.candidates         # type: ignore[union-attr]
    elif tie:
        out["nodeOneOf"] = decision.candidates                # type: ignore[union-attr]
    cond = next((c for c in status.get("conditions") or () if c.get("type") == "PodScheduled"), None)
    if cond is not None:
        out["podScheduled"] = {k: cond.get(k, "") for k in CONDITION_KEYS}
    if status.get("nominatedNodeName"):
        out["nominatedNodeName"] = status["nominatedNodeName"]
    if uid is not None and uid in ssn.evicted:
        out["evicted"] = True
    return out


def events(ssn: Session) -> list[dict[str, Any]]:
    counts = Counter((e.obj, e.type, e.reason, e.message) for e in ssn.events)
    out = []
    for (obj, type_, reason, message), n in sorted(counts.items(), key=lambda kv: (kv[0][0], kv[0][2], kv[0][3])):
        e = {"object": obj, "type": type_, "reason": reason, "message": message}
        if n > 1:
            e["count"] = n
        out.append(e)
    return out


def document(version: VolcanoVersion, conf: SchedulerConf, cluster: ClusterInfo, ssn: Session,
             before: dict[str, str], pods: list[dict[str, Any]], allocated: dict[str, Resource]) -> dict[str, Any]:
    uid_of = {id(t.pod): t.uid for t in cluster.tasks}
    doc: dict[str, Any] = {
        "volcano": str(version),
        "config": {"actions": list(conf.actions), "tiers": conf.tier_names(), "source": conf.source},
        "podGroups": sorted((_pod_group(pg, before[f"{pg.namespace}/{pg.name}"], {}) for pg in cluster.pod_groups),
                            key=lambda p: p["name"]),
        "pods": sorted((_pod(p, ssn, uid_of) for p in pods), key=lambda p: p["name"]),
        "queues": queues(cluster, ssn, allocated),
        "events": events(ssn),
    }
    if conf.unknown_plugins:
        doc["config"]["unknownPlugins"] = list(conf.unknown_plugins)
    if conf.unmodelled_plugins:
        doc["config"]["unmodelledPlugins"] = list(conf.unmodelled_plugins)
    if cluster.skipped:
        doc["skippedJobs"] = [{"podGroup": k, "reason": v} for k, v in sorted(cluster.skipped.items())]
    return doc
