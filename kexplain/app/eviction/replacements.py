"""Where evicted pods go, for every eviction command (the drain and its fixes' new pods, the taint
eviction controller's deletions): each evicted pod's controller creates a replacement
(`replacement_of`: from its template, as `controllers.workloads` makes copies, a StatefulSet's
keeping its ordinal; when the controller is not among the objects read, the evicted pod, unbound,
stands for it), and the replacements are scheduled one after another, in the scheduling queue's
order (`explain_batch`: PrioritySort), over the cluster as the evictions leave it: an overlay of the
one cluster state (`left`: the node(s) as changed, the evicted pods gone), never a state read again,
so every question asked of one overlay shares its snapshot and the indexes built on it."""
from __future__ import annotations

import copy
import re
from operator import is_not
from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping, Optional, Sequence

from kexplain.admission.extendedresourcetoleration import noted
from kexplain.controllers.workloads import Copies, pod_from_workload
from kexplain.errors import KexplainError, Source
from kexplain.explain.batch import explain_batch
from kexplain.explain.pending_pass import PassBuilder
from kexplain.explain.pod_file import entry_of
from kexplain.explain.request import RunOptions
from kexplain.model.nodeinfo import Node
from kexplain.model.owners import controller_ref
from kexplain.model.pod import PodInfo
from kexplain.model.taints import NO_SCHEDULE, UNSCHEDULABLE_TAINT
from kexplain.state.cluster import ClusterState

REPLACED_BY = ("ReplicaSet", "StatefulSet", "Job", "ReplicationController")    # controllers that recreate a pod
STAND_IN = Source("<replacement>")
_ORDINAL = re.compile(r"-(\d+)$")
Controllers = Mapping[tuple[str, str, str], tuple[dict, Source]]


@dataclass(frozen=True)
class Replacement:
    """The pod an evicted pod's controller creates (None: none is created, and `why`)."""

    evicted: PodInfo
    kind: str = ""                      # its controller's kind and name ("" without one)
    name: str = ""
    pod: Optional[dict[str, Any]] = None
    source: Optional[Source] = None
    why: str = ""

    @property
    def controller(self) -> str:
        """"Kind/name" ("" without a controller)."""
        return f"{self.kind}/{self.name}" if self.kind else ""


def controllers_index(objects: Iterable[tuple[dict, Source]]) -> dict[tuple[str, str, str], tuple[dict, Source]]:
    """The controllers that replace pods, by (kind, namespace, name) (the first of each)."""
    out = {}
    for obj, src in objects:
        if obj.get("kind") in REPLACED_BY:
            meta = obj.get("metadata") or {}
            out.setdefault((str(obj["kind"]), meta.get("namespace") or "default", str(meta.get("name") or "")),
                           (obj, src))
    return out


def not_replaced(pod: Mapping[str, Any] | PodInfo) -> str | None:
    """Why no controller makes this pod again elsewhere, or None when one does."""
    info = pod if isinstance(pod, PodInfo) else PodInfo(pod)     # type: ignore[arg-type]
    phase = info.phase
    if phase in ("Succeeded", "Failed"):
        return f"finished ({phase}): nothing runs it again"
    ref = controller_ref(info)
    if ref is None:
        return "no controller: nothing creates it again"
    if ref.get("kind") == "DaemonSet":
        return f"DaemonSet {ref.get('name')}'s pod for this node: made again only here"
    if ref.get("kind") not in REPLACED_BY:
        return f"its controller {ref.get('kind')} {ref.get('name')} is not one kexplain follows"
    return None


def stand_in(pod: Mapping[str, Any]) -> dict:
    """The evicted pod standing for its replacement (its controller not read): its spec and metadata,
    unbound, with no status (a StatefulSet's keeps its name; another's new name is unknown)."""
    meta = {k: v for k, v in (pod.get("metadata") or {}).items()
            if k in ("name", "namespace", "labels", "annotations", "ownerReferences")}
    spec = {k: v for k, v in (pod.get("spec") or {}).items() if k != "nodeName"}
    return copy.deepcopy({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec})


def replacement_of(pod: PodInfo, index: Controllers, made: dict[str, int]) -> Replacement:
    """The replacement `pod`'s controller creates once it is evicted (`made`: copies made so far per
    controller, so two replacements of one ReplicaSet get two names)."""
    ref = controller_ref(pod)
    kind, name = (str(ref.get("kind") or ""), str(ref.get("name") or "")) if ref is not None else ("", "")
    why = not_replaced(pod)
    if why is not None:
        return Replacement(pod, kind, name, why=why)
    found = index.get((kind, pod.namespace, name))
    if found is None:
        return Replacement(pod, kind, name, stand_in(pod.obj), STAND_IN)
    obj, src = found
    label = f"{kind}/{name}"
    at = made.get(label, 0)
    made[label] = at + 1
    if kind == "StatefulSet":       # the same ordinal, recreated under the same name
        match = _ORDINAL.search(pod.name)
        at = int(match.group(1)) - Copies(name, obj).ordinal(0) if match else at
    try:
        return Replacement(pod, kind, name, pod_from_workload(obj, src, at), src)
    except KexplainError as err:
        return Replacement(pod, kind, name, why=err.message)


def cordon(node: Mapping[str, Any]) -> dict:
    """The node as `kubectl drain` (cordon) leaves it: spec.unschedulable, and the NoSchedule taint
    the node lifecycle controller sets for it (TaintNodesByCondition), which Karpenter reads."""
    spec = node.get("spec") if isinstance(node.get("spec"), dict) else {}
    taints = [t for t in spec.get("taints") or () if isinstance(t, dict)]
    if not any(t.get("key") == UNSCHEDULABLE_TAINT["key"] and t.get("effect") == NO_SCHEDULE for t in taints):
        taints = [*taints, dict(UNSCHEDULABLE_TAINT)]
    return {**node, "spec": {**spec, "unschedulable": True, "taints": taints}}


def left(state: ClusterState, nodes: Mapping[str, Mapping[str, Any]], gone: Sequence[PodInfo]) -> ClusterState:
    """The state as the evictions leave it: each node of `nodes` (name -> its object as changed) in
    place of its own, the `gone` pods deleted at once; the snapshot re-indexed only where it changed,
    and, where nothing changed (drains of nodes cordoned already), the very snapshot: what the
    state's other questions built on it (its indexes, plugins' tallies, node memo) serves its own."""
    snapshot = state.snapshot
    keys = {(p.namespace, p.name) for p in gone}
    touched = {p.node_name for p in gone} | set(nodes)
    infos = []
    for info in snapshot.node_infos:
        if info.name not in touched:
            infos.append(info)
            continue
        changed = info.clone()
        for pod in [p for p in info.pods if (p.namespace, p.name) in keys]:
            changed.remove_pod(pod)
        if info.name in nodes:
            changed.node = Node.from_obj(dict(nodes[info.name]))
        infos.append(changed)
    after = snapshot.with_node_infos(infos) if any(map(is_not, infos, snapshot.node_infos)) else snapshot
    return replace(state, snapshot=after, pod_keys=state.pod_keys - keys, budgets={}, budget_pods={})


def cordoned(state: ClusterState, node: str, evicted: Sequence[PodInfo]) -> ClusterState:
    """The state with `node` cordoned and the evicted pods gone (each pod's deletion, at once)."""
    info = state.snapshot.get(node)
    changed = {node: cordon(info.node.obj)} if info is not None and not info.node.unschedulable else {}
    return left(state, changed, evicted)


def placements(state: ClusterState, replacements: Sequence[Replacement],
               gather: Optional[PassBuilder] = None) -> dict[int, dict[str, Any]]:
    """Each replacement's scheduling answer (by its index in `replacements`: `answer` reads it), the
    replacements scheduled one after another in queue order over `state`; `gather`: the pending pass
    the autoscalers see of them, gathered as they are placed (`autoscaled`)."""
    answers: dict[int, dict[str, Any]] = {}
    entries = []
    for i, r in enumerate(replacements):
        if r.pod is None:
            continue
        try:
            entries.append(entry_of(r.pod, r.source or STAND_IN, i, stored=False, kube=state.kube))
        except KexplainError as err:
            answers[i] = {"status": "Error", "message": err.message}
    if not entries:
        return answers
    batch = explain_batch(entries, state, RunOptions(filter_all=False), refused=lambda e, err: answers.update(
        {e.position: {"status": "Error", "message": getattr(err, "message", str(err))}}))
    for outcome in batch:
        answers[outcome.entry.position] = outcome.copies[0].to_json() if outcome.copies else {"status": "Error"}
        said = noted(outcome.inputs.config.kube.admission, [(None, outcome.inputs.pod.obj.get("spec"))]) \
            if outcome.inputs is not None else None
        if said is not None:        # the tolerations the cluster's API server gives the replacement (EKS, GKE)
            answers[outcome.entry.position]["admission"] = said
        if gather is not None:
            gather.add_outcome(outcome)
    if gather is not None:
        gather.settle(batch.retried)
    return answers


def answer(record: Mapping[str, Any]) -> dict[str, Any]:
    """A placement's answer as the eviction documents write it: status, node (None: pending), zone,
    message (FailedScheduling's, or the error) and the node preemption nominated."""
    out: dict[str, Any] = {k: record[k] for k in ("node", "status", "zone", "admission") if k in record}
    summary = record.get("summary") or {}
    if summary.get("message") or record.get("message"):
        out["message"] = summary.get("message") or record.get("message")
    if summary.get("nominatedNodeName"):
        out["nominatedNodeName"] = summary["nominatedNodeName"]
    return out
