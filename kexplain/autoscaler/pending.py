"""The Cluster Autoscaler's adapter to the pending pass (`kexplain.explain.pending_pass`): ONE CA loop over
everything CA would see pending, each pending pod's answer (`PodAnswer`) and, for the pod explained, every
Filter plugin on each group's template (CA stops at the first; the document's `predicate` marks it)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Mapping

from kexplain.autoscaler.document import build_document, triggered
from kexplain.autoscaler.plan import scale_up_plan
from kexplain.autoscaler.inputs import LoopInputs, loop_of_read, loop_of_state, with_pending
from kexplain.autoscaler.loop import framework, run_once
from kexplain.autoscaler.status import ALL_PODS_ARE_NEW, IN_COOLDOWN
from kexplain.autoscaler.simulator import with_node
from kexplain.autoscaler.templates import template_node_infos
from kexplain.explain.pending_pass import PassAnswers, PendingPass, PodAnswer
from kexplain.features import KubeVersion
from kexplain.framework.cycle_state import CycleState
from kexplain.framework.extras import plugin_verdicts
from kexplain.load.limits import DEFAULT_MAX_BYTES
from kexplain.model.pod import PodInfo
from kexplain.state.cluster import ClusterState

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.autoscaler.cloudprovider import Discovery

CLUSTER_AUTOSCALER = "ClusterAutoscaler"    # the autoscaler's name in a pod's answers
DOCUMENT_KEY = "autoscaler"                 # where its document goes in -o json


@dataclass(frozen=True)
class GroupsRequest:
    """Where the node groups, CA's settings and the cluster CA sees come from, as the command
    line gives them (or, live, as read from the cluster)."""

    groups: "Discovery"                  # --node-groups FILE (`Discovery.from_file`), or found in the cluster
    config: str | None = None            # --autoscaler-config FILE
    max_bytes: int | None = None
    validate: str = "strict"
    state: ClusterState | None = None    # the one cluster state CA's loop reads (`loop_of_state`)
    cluster_objects: list | None = None  # the cluster as read, when no state holds it (`loop_of_read`)
    now: datetime | None = None          # the clock the loop runs at (kexplain cluster's --now); None: the wall clock


def load_groups(req: GroupsRequest, kube: KubeVersion, now: datetime | None = None,
                applied: PendingPass | None = None) -> LoopInputs:
    """The loop's inputs with the cluster's own pending pods only, `applied`'s set in the cluster (bad input:
    InputError), read from the cluster state (`loop_of_state`: an admitted one never admitted again, a
    stored one admitted there once); a cluster in no state is admitted there once (`loop_of_read`)."""
    max_bytes = req.max_bytes or DEFAULT_MAX_BYTES
    now = now or req.now
    if req.state is not None:
        return loop_of_state(req.state, req.groups, req.config, max_bytes=max_bytes, validate=req.validate, now=now,
                             applied=applied)
    return loop_of_read(req.cluster_objects or [], req.groups, req.config, kube, max_bytes=max_bytes,
                        validate=req.validate, now=now, applied=applied)


def loop_over(loop: LoopInputs, pp: PendingPass) -> tuple[LoopInputs, PendingPass]:
    """`loop` with the pass's pods (its own pending first, as CA's lister finds them, then the set's, copies
    that fit bound), and the pass with the cluster's pending pods merged in (what the loop ran over)."""
    merged = pp.with_cluster_pending(loop.pending)
    return with_pending(loop, [p.pod for p in merged.pending], pp.bound, [p.created for p in merged.pending]), merged


def run_pass(loop: LoopInputs, pp: PendingPass, explained: str | None = None
             ) -> tuple[LoopInputs, PendingPass, PassAnswers]:
    """ONE loop over the pass: the loop run, the pass it ran over and CA's answers, every Filter plugin on
    each template for the pod `explained` (default: the first standing for something explained, else the first)."""
    loop, merged = loop_over(loop, pp)
    by_key = {p.key: p for p in loop.pending}
    pod = by_key.get(explained or "") or next(
        (by_key[p.key] for p in merged.pending if p.stands_for and p.key in by_key), None)
    doc = autoscaler_document(loop, pod)
    answers = {f"{r['namespace']}/{r['name']}": pod_answer(r, doc) for r in doc.get("pods") or ()}
    return loop, merged, PassAnswers(CLUSTER_AUTOSCALER, DOCUMENT_KEY, doc, answers)


# The keys of a pod's record in the document that its answer carries.
ANSWER_KEYS = ("equivalenceClass", "filteredBy", "node", "nominatedNodeName", "notListed", "unlistedBecause",
               "clearedRequests", "events", "nodeGroups", "rejected", "skipped", "byPick")


def pod_answer(record: Mapping[str, Any], doc: Mapping[str, Any]) -> PodAnswer:
    """A pod's answer from its record in the loop's document: its outcome, its reasons (the event's parts,
    the filtering processor, scale-ups, nomination, else CA's reasons per group), `ANSWER_KEYS`, and
    CA's plan (`scaleUps`) for a pod that triggered a scale-up."""
    outcome = str(record.get("outcome") or "")
    events = record.get("events") or ()
    reasons: list[str] = []
    detail = {k: record[k] for k in ANSWER_KEYS if k in record}
    not_triggered = next((e for e in events if e.get("reason") == "NotTriggerScaleUp"), None)
    if not_triggered is not None:
        message = str(not_triggered.get("message") or "")
        reasons = list(not_triggered.get("messageParts") or [message.split(": ", 1)[-1]])
    elif outcome == "FilteredOut":
        reasons = [str(record.get("filteredBy") or "")]
    elif record.get("notListed") or record.get("unlistedBecause"):
        reasons = [str(record.get("notListed") or record["unlistedBecause"])]
    elif record.get("nominatedNodeName"):
        reasons = [nominated_reason(str(record["nominatedNodeName"]))]
    elif triggered(record):
        ups = scale_up_plan(doc)
        detail["scaleUps"] = ups
        reasons = [f"{u['nodeGroup']} {u['currentSize']}->{u['newSize']} (max: {u['maxSize']})" for u in ups]
    elif doc.get("result") == IN_COOLDOWN:
        reasons = [COOLDOWN_REASON]
        detail["heldBy"] = ALL_PODS_ARE_NEW         # (its outcome stays CA's NoEvent: the render says why)
    else:
        for key in ("skipped", "rejected"):
            for group, why in (record.get(key) or {}).items():
                reasons += [f"{group}: {r}" for r in why]
    return PodAnswer(CLUSTER_AUTOSCALER, f"{record.get('namespace')}/{record.get('name')}", outcome,
                     tuple(reasons), detail)


# RunOnce's allPodsAreNew: the loop leaves the scale-up to a later loop, with no event.
COOLDOWN_REASON = ("every pod CA would scale up for is younger than 2 seconds (30 for a pod asking a GPU): its "
                   "loop scales up for none of them now, and looks again in its next loop")


def nominated_reason(node: str) -> str:
    """Why CA adds no node for a pod the scheduler's preemption nominated (ArrangePodsBySchedulability
    lists it as nominated, and SetClusterState puts it on that node)."""
    return (f"status.nominatedNodeName {node}: CA lists it as nominated, not unschedulable, and puts it on {node} in "
            "its snapshot, where it waits for its victims to go")


def loop_document(loop: LoopInputs) -> dict[str, Any]:
    """One CA loop over `loop`'s pending pods: its document alone (what a change is verified by)."""
    return build_document(loop, run_once(loop))


def autoscaler_document(loop: LoopInputs, explained: PodInfo | None = None) -> dict[str, Any]:
    """One CA loop over `loop`'s pending pods: the document, with `explained` (every Filter
    plugin on each group's template) for `explained` (default: the first pending pod)."""

    result = run_once(loop)
    doc = build_document(loop, result)
    pod = explained if explained is not None else (loop.pending[0] if loop.pending else None)
    if pod is not None and result.pending is not None:       # as CA's loop holds it (ClearTPURequests)
        pod = next((p for p in result.pending if p.key == pod.key), pod)
    if pod is not None:
        templates = result.templates or template_node_infos(loop)
        snapshot = result.snapshot if result.snapshot is not None else loop.snapshot
        doc["explained"] = {"pod": pod.key, "kubernetes": loop.kube.minor,
                            "nodeGroups": {g.name: template_verdict(loop, pod, templates[g.name].node_info, snapshot,
                                                                    templates[g.name].csi_node)
                                           for g in loop.groups if g.name in templates}}
    return doc


def template_verdict(loop: LoopInputs, pod: PodInfo, template, cluster=None, csi_node=None) -> dict[str, Any]:
    """Every Filter plugin's verdict on `template` placed after the nodes of `cluster` (default: the
    loop's snapshot): `filterAll`, `plugins`, or the PreFilter that rejects it (`preFilter`,
    `notAmong`), as the scheduling trace records a node's; `csi_node`: the template's CSINode."""

    snapshot = with_node(cluster if cluster is not None else loop.snapshot, template, csi_node)
    fw = framework(loop, snapshot)
    state = CycleState()
    outcome = fw.run_pre_filter(state, pod)
    if not outcome.status.is_success:
        return {"preFilter": outcome.status.to_json(with_plugin=True)}
    out: dict[str, Any] = {}
    names = outcome.result.node_names if outcome.result is not None else None
    if names is not None and template.name not in names:
        out["notAmong"] = sorted(outcome.plugins_with_nodes)
    node = snapshot.get(template.name)
    batch = fw.run_filter_nodes(state.clone(), pod, [node], every=True)
    out["filterAll"] = plugin_verdicts(batch.columns or [], 0)
    facts = fw.run_explain(state.clone(), pod, node)
    if facts:
        out["plugins"] = facts
    return out
