"""`kexplain evict taints NODE`: the taint eviction controller's pass over the node (the engine:
`kexplain.eviction.tainteviction`), with the `--taint` "what if" applied to the node first, as
the document of ../shared/eviction/README.md (`taints`), and where the deleted pods'
replacements go (kexplain's scheduler, `kexplain.explain`). Never prints."""
from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

from kexplain.apimachinery.labels import TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE
from kexplain.app.eviction.request import EvictRequest, node_named, pods_on, read_cluster, read_warnings, settled
from kexplain.app.eviction.autoscaled import KEY as AUTOSCALERS, autoscaled, live_reads
from kexplain.app.eviction.replacements import Controllers, Replacement, answer, controllers_index, left, placements, \
    replacement_of
from kexplain.controllers.terminating import OUT_OF_SERVICE, freed_by_pod_gc, kubelet_gone, replaces_at_once, way_out, \
    waits
from kexplain.eviction.tainteviction import PodAnswer, TaintPass, evaluate, pod_key
from kexplain.eviction.tainteviction.fixes import keeping
from kexplain.eviction.tainteviction.taint_eviction import EVICT_AFTER, KEEP
from kexplain.eviction.tainteviction.taint_spec import TaintChange, parse_taints, reorganize
from kexplain.eviction.versions import TAINT_EVICTION_RELEASES
from kexplain.features import KubeVersion
from kexplain.model.taints import NO_EXECUTE, NO_SCHEDULE
from kexplain.explain.pending_pass import PassBuilder
from kexplain.model.pod import PodInfo
from kexplain.state.cluster import ClusterState

FAMILY = "taints"
TAINT_FIELDS = ("key", "value", "effect")       # a taint as the document shows it (no timeAdded)


def document(req: EvictRequest) -> dict:
    """The pass's document: the NoExecute taints, each pod's decision, the events; `whatIf`,
    `matches`, `fixes` and `whereTheyGo` explain it (not part of the real controller's answer)."""
    state, live_said = read_cluster(req, live_reads)
    return document_of(state, req, live_said)


def document_of(state: ClusterState, req: EvictRequest, live_said: Optional[Mapping[str, Any]] = None) -> dict:
    """The document over a cluster state read already (`document`'s, and `kexplain cluster`'s, which
    reads the cluster once for every node a NoExecute taint is on)."""
    change = parse_taints(req.options.get("taints") or ())
    req = settled(req, state)       # the control plane's version, live or a snapshot's, unless given
    node = node_named(state, req.node, req.nodes)
    if change.add or change.remove:
        node = with_taints(node, change)
    pods = pods_on(state, req.node, req.kube)
    result = evaluate(node, pods, req.kube, req.now)
    doc: dict[str, Any] = {"family": FAMILY, "kubernetesVersion": TAINT_EVICTION_RELEASES[req.kube.minor],
                           "node": req.node, "now": _time(req.now)}
    if change.add or change.remove:
        doc["whatIf"] = {"add": [_taint(t) for t in change.add], "remove": [dict(t) for t in change.remove]}
    doc["noExecuteTaints"] = [_taint(t) for t in result.taints]
    doc["pods"] = [_pod(answer) for answer in result.pods]
    doc["events"] = [d.event for d in result.deletions]
    doc.update(read_warnings(state), **(live_said or {}))
    doc["matches"] = _matches(result)
    doc["fixes"] = _fixes(node, pods, result, req)
    doc["whereTheyGo"], added = where_they_go(req, state, node, result, pods)
    if added is not None:       # what the autoscalers would add for the replacements left pending
        doc[AUTOSCALERS] = added
    return doc


def _fixes(node: Mapping[str, Any], pods: Sequence[Mapping[str, Any]], result: TaintPass,
           req: EvictRequest) -> list[dict]:
    """Per deleted pod, the toleration changes that keep it, checked by the pass run again."""
    by_key = {"/".join(pod_key(p)): p for p in pods}
    out = []
    for answer in result.pods:
        fix = keeping(node, by_key[answer.key], answer, req.kube, req.now)
        if fix is not None:
            out.append({"pod": fix.key, "changes": [{kind: toleration} for kind, toleration in fix.changes],
                        "decisionAfter": fix.decision})
    return out


def evicts(doc: Mapping[str, Any]) -> bool:
    """Whether the controller deletes any pod (now or later)."""
    return any(p.get("decision") != KEEP for p in doc.get("pods") or ())


def with_taints(node: Mapping[str, Any], change: TaintChange) -> dict:
    """A copy of the node with the --taint changes made as kubectl taint --overwrite makes them."""
    spec = node.get("spec") if isinstance(node.get("spec"), dict) else {}
    taints = [t for t in spec.get("taints") or () if isinstance(t, dict)]
    return {**node, "spec": {**spec, "taints": reorganize(taints, change)}}


def _time(moment: Any) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def _taint(taint: Mapping[str, Any]) -> dict:
    return {f: taint[f] for f in TAINT_FIELDS if taint.get(f)}


def _pod(answer: PodAnswer) -> dict:
    """One pod as the document's `pods` has it."""
    row: dict[str, Any] = {"pod": answer.key}
    if answer.added:
        row["tolerationsAdded"] = [dict(t) for t in answer.added]
    row["decision"] = answer.decision.decision
    if answer.decision.decision == EVICT_AFTER:
        row["afterSeconds"] = answer.decision.after_seconds
    if answer.deletion is not None:
        row["conditions"] = [dict(answer.deletion.condition)]
    return row


def _matches(result: TaintPass) -> list[dict]:
    """Per pod, each NoExecute taint with the toleration that tolerates it (null: none), and when
    the deletion fires: the numbers behind each decision."""
    fires = {d.key: d.fire_at for d in result.deletions}
    rows = []
    for answer in result.pods:
        row: dict[str, Any] = {"pod": answer.key, "taints": [
            {"taint": _taint(taint), "toleration": dict(toleration) if toleration is not None else None}
            for taint, toleration in answer.decision.matches]}
        if answer.key in fires:
            row["evictAt"] = _time(fires[answer.key])
        rows.append(row)
    return rows


# -- where the evicted pods go: their controllers' replacements, scheduled over the cluster ---------
LIFECYCLE_KEYS = (TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE)


def where_they_go(req: EvictRequest, state: ClusterState, node: Mapping[str, Any], result: TaintPass,
                  pods: Sequence[Mapping[str, Any]]) -> tuple[list[dict], Optional[dict]]:
    """Each evicted pod's replacement (`replacements`: its controller's), in the scheduling queue's
    order (priority, then name), scheduled one after another over the cluster without the evicted
    pods, the node as the taints leave it; and what the Cluster Autoscaler would add for those left
    pending (`autoscaled`; None: nothing said)."""
    evicted = {a.key for a in result.pods if a.decision.decision != KEEP}
    gone = sorted((PodInfo(p) for p in pods if "/".join(pod_key(p)) in evicted),
                  key=lambda p: (-p.priority, p.namespace, p.name))
    if not gone:
        return [], None
    index = controllers_index([*state.objects, *state.other_kinds])
    made: dict[str, int] = {}
    replacements = [replacement_of(p, index, made) for p in gone]
    nodes = {req.node: lifecycle_tainted(node)}
    after, gathered = left(state, nodes, gone), PassBuilder()
    answers = placements(after, replacements, gathered) if any(r.pod is not None for r in replacements) else {}
    added = autoscaled(req, after, nodes, gone, gathered) if answers else None
    rows = []
    for i, r in enumerate(replacements):
        row: dict[str, Any] = {"pod": f"{r.evicted.namespace}/{r.evicted.name}"}
        if r.pod is None:
            rows.append({**row, "replaced": False, "why": r.why})
            continue
        found = answer(answers.get(i) or {})
        row.update(replaced=True, controller=f"{r.kind} {r.name}", status=found.get("status"))
        row.update({k: found[k] for k in ("node", "message") if found.get(k)})
        said = (added or {}).get("replacements", {}).get(f"{r.evicted.namespace}/{r.pod['metadata'].get('name')}")
        row = {**row, "autoscalers": said} if said else row
        rows.append(terminating_row(row, r, node, index, req.kube))
    return rows, added


def terminating_row(row: dict[str, Any], r: Replacement, node: Mapping[str, Any], index: Controllers,
                    kube: KubeVersion) -> dict[str, Any]:
    """`row` as the pod's owner leaves it when the node's kubelet is gone (`controllers.terminating`):
    the deleted pod stays Terminating, and a StatefulSet (or a Job replacing only failed pods) waits,
    its new pod's answer kept as where it goes once the old pod is gone (`onceGone`), with the way
    out; a ReplicaSet replaces at once. On a not-ready node with the out-of-service taint the pod GC
    controller deletes the pod, and every owner replaces it."""
    if not kubelet_gone(node):
        return row
    if freed_by_pod_gc(node):
        return {**row, "oldPod": (f"the pod GC controller force-deletes it ({OUT_OF_SERVICE} on a not-ready node), "
                                  "so its owner replaces it")}
    owner = index.get((r.kind, r.evicted.namespace, r.name))
    stays = "the old pod stays Terminating: the kubelet that would confirm its deletion is unreachable"
    why = waits(r.kind, r.name, r.evicted.name, owner[0] if owner is not None else None, kube)
    if why is None:
        return {**row, "oldPod": f"{stays}; {replaces_at_once(r.kind, r.name, owner[0] if owner else None, kube)}"}
    once = {k: row.pop(k) for k in ("status", "node", "message", "autoscalers") if k in row}
    node_name = str((node.get("metadata") or {}).get("name") or "")
    return {**row, "replaced": False, "why": why, "oldPod": stays, "onceGone": once,
            "wayOut": way_out(node_name, r.evicted.namespace, r.evicted.name)}


def lifecycle_tainted(node: Mapping[str, Any]) -> dict:
    """The node with the NoSchedule taint the node lifecycle controller sets beside each of its
    NoExecute ones (not-ready, unreachable: TaintNodesByCondition), which DefaultTolerationSeconds'
    tolerations do not tolerate: without it the scheduler would place the replacements back."""
    spec = node.get("spec") if isinstance(node.get("spec"), dict) else {}
    taints = [t for t in spec.get("taints") or () if isinstance(t, dict)]
    extra = [{"key": t["key"], "effect": NO_SCHEDULE} for t in taints
             if t.get("key") in LIFECYCLE_KEYS and t.get("effect") == NO_EXECUTE
             and not any(o.get("key") == t["key"] and o.get("effect") == NO_SCHEDULE for o in taints)]
    return {**node, "spec": {**spec, "taints": taints + extra}} if extra else dict(node)
