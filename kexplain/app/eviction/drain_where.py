"""Where a drain's evicted pods go: each evicted pod's controller (a ReplicaSet, StatefulSet, Job or
ReplicationController) creates a replacement, made from its template as `controllers.workloads`
makes copies (a StatefulSet's keeps its ordinal and claims); the replacements are scheduled one
after another, in queue order, over the cluster without the evicted pods and with the node
cordoned (spec.unschedulable, as kubectl drain sets it), each with its own scheduling answer."""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping, Optional, Sequence

from kexplain.controllers.workloads import Copies, pod_from_workload
from kexplain.errors import KexplainError, Source
from kexplain.explain.batch import explain_batch
from kexplain.explain.pod_file import entry_of
from kexplain.explain.request import RunOptions
from kexplain.model.nodeinfo import Node
from kexplain.model.owners import controller_ref
from kexplain.model.pod import PodInfo
from kexplain.state.cluster import ClusterState

REPLACED_BY = ("ReplicaSet", "StatefulSet", "Job", "ReplicationController")
_ORDINAL = re.compile(r"-(\d+)$")


@dataclass(frozen=True)
class Replacement:
    """The pod an evicted pod's controller creates (None: none is created, and `why`)."""

    evicted: PodInfo
    controller: str                      # "Kind/name" ("" without one)
    pod: Optional[dict[str, Any]] = None
    source: Optional[Source] = None
    why: str = ""


def controllers_index(objects: Iterable[tuple[dict, Source]]) -> dict[tuple[str, str, str], tuple[dict, Source]]:
    """The controllers that replace pods, by (kind, namespace, name)."""
    out = {}
    for obj, src in objects:
        if obj.get("kind") in REPLACED_BY:
            meta = obj.get("metadata") or {}
            out.setdefault((str(obj["kind"]), meta.get("namespace") or "default", str(meta.get("name") or "")),
                           (obj, src))
    return out


def replacement_of(pod: PodInfo, index: Mapping[tuple[str, str, str], tuple[dict, Source]],
                   made: dict[str, int]) -> Replacement:
    """The replacement `pod`'s controller creates once it is evicted (`made`: copies made so far per
    controller, so two replacements of one ReplicaSet get two names)."""
    ref = controller_ref(pod)
    if ref is None:
        return Replacement(pod, "", why="no controller: nothing recreates it")
    kind, name = str(ref.get("kind") or ""), str(ref.get("name") or "")
    label = f"{kind}/{name}"
    if pod.status.get("phase") in ("Succeeded", "Failed"):
        return Replacement(pod, label, why="finished: its controller does not replace it")
    if kind == "DaemonSet":
        return Replacement(pod, label, why="a DaemonSet's pod: its controller runs it on its own node, not elsewhere")
    if kind not in REPLACED_BY:
        return Replacement(pod, label, why=f"a {kind}'s pod: kexplain does not model its controller")
    found = index.get((kind, pod.namespace, name))
    if found is None:
        return Replacement(pod, label, why=f"its {kind} is not in the files")
    obj, src = found
    copy = made.get(label, 0)
    made[label] = copy + 1
    if kind == "StatefulSet":       # the same ordinal, recreated under the same name
        match = _ORDINAL.search(pod.name)
        copy = int(match.group(1)) - Copies(name, obj).ordinal(0) if match else copy
    try:
        return Replacement(pod, label, pod_from_workload(obj, src, copy), src)
    except KexplainError as err:
        return Replacement(pod, label, why=err.message)


def cordoned(state: ClusterState, node: str, evicted: Sequence[PodInfo]) -> ClusterState:
    """The state with `node` cordoned and the evicted pods gone (each pod's deletion, at once)."""
    snapshot = state.snapshot
    for pod in evicted:
        snapshot = snapshot.without_pod(node, pod.namespace, pod.name)
    info = snapshot.get(node)
    if info is not None and not info.node.unschedulable:
        changed = info.clone()
        obj = info.node.obj
        changed.node = Node.from_obj({**obj, "spec": {**(obj.get("spec") or {}), "unschedulable": True}})
        snapshot = snapshot.with_node_infos([changed if ni is info else ni for ni in snapshot.node_infos])
    gone = {(p.namespace, p.name) for p in evicted}
    return replace(state, snapshot=snapshot, pod_keys=state.pod_keys - gone)


def placements(state: ClusterState, replacements: Sequence[Replacement]) -> dict[int, dict[str, Any]]:
    """Each replacement's scheduling answer (by its index in `replacements`), the replacements
    scheduled one after another in queue order over `state`."""
    todo = [(i, r) for i, r in enumerate(replacements) if r.pod is not None]
    entries = []
    answers: dict[int, dict[str, Any]] = {}
    for i, r in todo:
        try:
            entries.append(entry_of(r.pod, r.source or Source("<replacement>"), i, stored=False, kube=state.kube))
        except KexplainError as err:
            answers[i] = {"status": "Error", "message": err.message}
    batch = explain_batch(entries, state, RunOptions(filter_all=False), refused=lambda e, err: answers.update(
        {e.position: {"status": "Error", "message": getattr(err, "message", str(err))}}))
    for outcome in batch:
        record = outcome.copies[0].to_json() if outcome.copies else {"status": "Error"}
        answers[outcome.entry.position] = record
    return answers


def where_they_go(state: ClusterState, node: str, evicted: Sequence[PodInfo]) -> list[dict[str, Any]]:
    """The document's `replacements`: per evicted pod, its controller's replacement and where the
    scheduler puts it (or why it stays pending, or why there is none)."""
    index = controllers_index(state.read if state.read is not None else [*state.objects, *state.other_kinds])
    made: dict[str, int] = {}
    replacements = [replacement_of(p, index, made) for p in evicted]
    answers = placements(cordoned(state, node, evicted), replacements) if any(r.pod for r in replacements) else {}
    out = []
    for i, r in enumerate(replacements):
        item: dict[str, Any] = {"evicted": f"{r.evicted.namespace}/{r.evicted.name}", "controller": r.controller}
        if r.pod is None:
            out.append({**item, "replacement": None, "why": r.why})
            continue
        answer = answers.get(i) or {}
        item["replacement"] = str((r.pod.get("metadata") or {}).get("name") or "")
        item.update({k: v for k, v in answer.items() if k in ("node", "status", "zone")})
        summary = answer.get("summary") or {}
        if summary.get("message") or answer.get("message"):
            item["message"] = summary.get("message") or answer.get("message")
        if summary.get("nominatedNodeName"):
            item["nominatedNodeName"] = summary["nominatedNodeName"]
        out.append(item)
    return out
