"""`kexplain evict taints NODE`: the taint eviction controller's pass over the node (the engine:
`kexplain.eviction.tainteviction`), with the `--taint` "what if" applied to the node first, as
the document of ../shared/eviction/README.md (`taints`). Never prints."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.app.eviction import EvictRequest, node_named, pods_on, read_state
from kexplain.eviction.tainteviction import PodAnswer, TaintPass, evaluate
from kexplain.eviction.tainteviction.taint_eviction import EVICT_AFTER, KEEP
from kexplain.eviction.tainteviction.taint_spec import TaintChange, parse_taints, reorganize
from kexplain.eviction.versions import TAINT_EVICTION_RELEASES

FAMILY = "taints"
TAINT_FIELDS = ("key", "value", "effect")       # a taint as the document shows it (no timeAdded)


def document(req: EvictRequest) -> dict:
    """The pass's document: the NoExecute taints, each pod's decision, the events; `matches` and
    `whatIf` explain it (not part of the real controller's answer)."""
    change = parse_taints(req.options.get("taints") or ())
    state = read_state(req)
    node = node_named(state, req.node, req.nodes)
    if change.add or change.remove:
        node = with_taints(node, change)
    result = evaluate(node, pods_on(state, req.node), req.kube, req.now)
    doc: dict[str, Any] = {"family": FAMILY, "kubernetesVersion": TAINT_EVICTION_RELEASES[req.kube.minor],
                           "node": req.node, "now": _time(req.now)}
    if change.add or change.remove:
        doc["whatIf"] = {"add": [_taint(t) for t in change.add], "remove": [dict(t) for t in change.remove]}
    doc["noExecuteTaints"] = [_taint(t) for t in result.taints]
    doc["pods"] = [_pod(answer) for answer in result.pods]
    doc["events"] = [d.event for d in result.deletions]
    doc["matches"] = _matches(result, req)
    return doc


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


def _matches(result: TaintPass, req: EvictRequest) -> list[dict]:
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
