"""The loop's document (kind ClusterAutoscalerScaleUp): what `-o json` prints and renderers read,
keys as ../shared/autoscaler/README.md defines them. Where the expander's tie makes CA draw at
random, the document follows the first option and says what each draw gives (`randomPick`, `byPick`)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping

from kexplain.autoscaler.equivalence import build_pod_groups
from kexplain.autoscaler.expander import Option
from kexplain.autoscaler.inputs import LoopInputs
from kexplain.autoscaler.loop import LoopResult, pod_events, reasons_message_parts, recorded_pod_events
from kexplain.autoscaler.orchestrator import Event, ScaleUpStatus
from kexplain.autoscaler.status import LIMITED_BY_MAX_NODES_TOTAL, NOT_TRIGGERED, TRIGGERED
from kexplain.model.pod import PodInfo
from kexplain.autoscaler.scaledown.loop import scale_down_document
from kexplain.autoscaler.tpu import tpu_requests
from kexplain.autoscaler.expander.factory import RANDOM
from kexplain.autoscaler.expander.least_waste import LeastWaste, wasted_score

API_VERSION = "kexplain/v1"
KIND = "ClusterAutoscalerScaleUp"
SCALE_DOWN_KIND = "ClusterAutoscalerScaleDown"
# the outcomes, in the order the first that applies is taken (the events' reasons: TRIGGERED, NOT_TRIGGERED)


def triggered(record: Mapping[str, Any]) -> bool:
    """Whether the loop's scale-up is for the pod of `record` (CA's TriggeredScaleUp)."""
    return record.get("outcome") == TRIGGERED


def _names(pods: Iterable[PodInfo]) -> list[str]:
    return sorted((p.key for p in pods), key=str.encode)


def option_json(option: Option | None) -> dict[str, Any] | None:
    if option is None:
        return None
    out: dict[str, Any] = {"nodeGroup": option.node_group.name, "nodeCount": option.node_count,
                           "pods": _names(option.pods)}
    if option.similar_node_groups:
        out["similarNodeGroups"] = sorted((g.name for g in option.similar_node_groups), key=str.encode)
    return out


def build_document(loop: LoopInputs, result: LoopResult) -> dict[str, Any]:
    """The document of one loop."""
    final = result.reported      # ScaleUpToNodeGroupMinSize's replaces the loop's
    kind = SCALE_DOWN_KIND if loop.settings.mode == "scaledown" else KIND
    doc: dict[str, Any] = {"apiVersion": API_VERSION, "kind": kind, "autoscaler": loop.settings.to_json(),
                           **followed_json(loop), "result": result.result}
    if final.error:
        doc["error"] = final.error
    if result.loop_error:
        doc["loopError"] = result.loop_error
    doc["scaleUpCalled"] = result.scale_up_called
    doc["pods"] = _pods(loop, result)
    doc["nodeGroups"] = _groups(loop, result)
    doc["expansion"] = _expansion(loop, result) if result.scale_up_called else None
    if doc["expansion"] is not None and result.status.picks:
        _with_picks(doc, loop, result)
    doc["clusterEvents"] = [{"object": e.object, "type": e.type, "reason": e.reason, "message": e.message}
                            for e in result.cluster_events]
    if result.final_status is not None and result.final_status.scale_up_infos:
        doc["minSizeScaleUps"] = [{"nodeGroup": i.group.name, "currentSize": i.current_size, "newSize": i.new_size,
                                   "minSize": i.group.min_size, "maxSize": i.max_size}
                                  for i in result.final_status.scale_up_infos]
    if loop.settings.mode == "scaledown":
        doc["scaleDown"] = scale_down_document(loop, result.scale_down, processed=not result.ended_early)
    return doc


def followed_json(loop: LoopInputs) -> dict[str, Any]:
    """kexplain's keys beside `autoscaler`: `kubernetesFollowed`, the version whose plugins and gates the
    loop ran (--kubernetes-version, a snapshot's, else CA's own minor), and `cloudProvider` (followed, how found)."""
    kube = loop.kube
    return {"kubernetesFollowed": {"minor": kube.minor, "kubeScheduler": kube.release,
                                   "featureGates": dict(kube.gates.changed())},
            "cloudProvider": loop.provider.to_json()}


@dataclass(frozen=True)
class _Lists:
    """Which pods (by id) the loop listed and CA's lists hold (those of every status its processors see:
    `LoopResult.processed_statuses`): what an outcome is read from."""

    listed: frozenset[int]
    filtered: frozenset[int]
    awaiting: frozenset[int]
    triggered: frozenset[int]
    remaining: frozenset[int]

    @classmethod
    def of(cls, result: LoopResult) -> "_Lists":
        statuses = result.processed_statuses
        return cls(frozenset(map(id, result.listed)), frozenset(result.processed.filtered_by),
                   frozenset(id(p) for st in statuses for p in st.await_evaluation),
                   frozenset(id(p) for st in statuses for p in st.triggered),
                   frozenset(id(i.pod) for st in statuses for i in st.remain_unschedulable))

    def outcome(self, pod: PodInfo, events: list[Event]) -> str:
        """The pod's outcome (with `events`, those CA records for it): the first that applies,
        in the README's order."""
        reasons = {e.reason for e in events}
        key = id(pod)
        if key not in self.listed:
            return "NotListedAsUnschedulable"
        if key in self.filtered:
            return "FilteredOut"
        if TRIGGERED in reasons:
            return TRIGGERED
        if NOT_TRIGGERED in reasons:
            return NOT_TRIGGERED
        if key in self.awaiting:
            return "AwaitingEvaluation"
        if key in self.triggered:
            return "TriggeredScaleUpNoEvent"
        if key in self.remaining:
            return "RemainsUnschedulableNoEvent"
        return "NoEvent"


@dataclass(frozen=True)
class _Recorded:
    """One status CA's processors see, with the events it records on pods and its unschedulable pods' infos."""

    status: ScaleUpStatus
    events: dict[int, list[Event]]
    infos: dict[int, Any]

    @classmethod
    def of(cls, status: ScaleUpStatus) -> "_Recorded":
        return cls(status, pod_events(status), {id(i.pod): i for i in status.remain_unschedulable})

    def records(self, pod: PodInfo) -> list[dict[str, Any]]:
        """The pod's events of this status, each with its `messageParts`."""
        return [_event(e, self.status, self.infos.get(id(pod))) for e in self.events.get(id(pod), ())]


def _pods(loop: LoopInputs, result: LoopResult, verdicts: bool = True) -> list[dict[str, Any]]:
    """Every pending pod's record: its events those of every status CA's processors see, in order (the
    scale-up's, then ScaleUpToNodeGroupMinSize's), its verdicts the scale-up's, and `notListed` when the loop
    stopped before listing pods."""
    pending = result.pending if result.pending is not None else loop.pending     # (ClearTPURequests' copies)
    cleared = {id(new): tpu_requests(old) for old, new in zip(loop.pending, pending) if new is not old}
    classes = {id(p): g.index for g in build_pod_groups(pending) for p in g.pods}
    reached = {id(p): eg for eg in result.status.pod_groups for p in eg.pods} if result.scale_up_called else {}
    remaining = {id(i.pod): i for st in result.processed_statuses for i in st.remain_unschedulable}
    lists = _Lists.of(result)
    recorded = [_Recorded.of(st) for st in result.processed_statuses]
    out = []
    for pod in pending:
        filtered = result.processed.filtered_by.get(id(pod))
        outcome = lists.outcome(pod, result.pod_events.get(id(pod), []))
        record: dict[str, Any] = {"namespace": pod.namespace, "name": pod.name, "equivalenceClass": classes[id(pod)],
                                  "outcome": outcome}
        if filtered is not None:
            record["filteredBy"] = filtered        # a processor's name, or TooYoung
            if id(pod) in result.processed.placed:
                record["node"] = result.processed.placed[id(pod)]    # FilterOutSchedulable's node
        if id(pod) in cleared:
            record["clearedRequests"] = cleared[id(pod)]     # ClearTPURequests: CA's loop takes it without them
        if outcome == "NotListedAsUnschedulable" and pod.status.get("nominatedNodeName"):
            record["nominatedNodeName"] = pod.status["nominatedNodeName"]   # listed as nominated: on that node
        record["events"] = [*(_event(e, None, None) for e in result.processed.events.get(id(pod), ())),
                            *(e for r in recorded for e in r.records(pod))]     # (the processors' first)
        if outcome == "NotListedAsUnschedulable" and result.not_listed:
            record["notListed"] = result.not_listed
        elif outcome == "NotListedAsUnschedulable" and unlisted_because(pod):
            record["unlistedBecause"] = unlisted_because(pod)
        if not verdicts:
            out.append(record)
            continue
        eg = reached.get(id(pod))
        if eg is not None:
            record["nodeGroups"] = _verdicts(loop, result.status, eg)
        info = remaining.get(id(pod))
        if info is not None:
            if info.rejected:
                record["rejected"] = {g: list(r) for g, r in sorted(info.rejected.items())}
            if info.skipped:
                record["skipped"] = {g: list(r) for g, r in sorted(info.skipped.items())}
        out.append(record)
    return out


def unlisted_because(pod: PodInfo) -> str:
    """Why CA's lister passes the pending pod over (`is_listed_unschedulable` says no), in words; "" for a
    nominated pod (its record names the node). A Volcano pod of a gang not yet placed says `Schedulable`."""
    if pod.status.get("nominatedNodeName"):
        return ""
    if pod.deletion_timestamp is not None:
        return "it is being deleted"
    if pod.status.get("phase") in ("Succeeded", "Failed"):
        return f"it has ended ({pod.status['phase']})"
    cond = next((c for c in pod.status.get("conditions") or ()
                 if isinstance(c, dict) and c.get("type") == "PodScheduled"), None)
    if cond is None:
        return "it has scheduling gates" if pod.spec.get("schedulingGates") else ""
    if cond.get("status") != "False":
        return f"its PodScheduled condition is {cond.get('status')}, not False"
    if not cond.get("reason"):
        return (f"its PodScheduled condition has no reason, and its scheduler "
                f"({pod.spec.get('schedulerName') or 'default-scheduler'}) is not among --bypassed-scheduler-names")
    return f"its PodScheduled condition's reason is {cond['reason']}, not Unschedulable"


def _event(e, status, info) -> dict[str, Any]:
    out: dict[str, Any] = {"type": e.type, "reason": e.reason, "message": e.message}
    if e.reason == NOT_TRIGGERED and info is not None and status.result != LIMITED_BY_MAX_NODES_TOTAL:
        parts = reasons_message_parts(status, info)
        if parts:
            out["messageParts"] = parts
    return out


def _verdicts(loop: LoopInputs, status, eg) -> dict[str, Any]:
    computed = status.verdicts.get(id(eg), {})
    out: dict[str, Any] = {}
    for g in loop.groups:
        if g.name in status.skipped:
            out[g.name] = {"verdict": "skipped", "reasons": list(status.skipped[g.name])}
        elif g.name in computed:
            verdict, plugin, reasons = computed[g.name]
            v: dict[str, Any] = {"verdict": verdict}
            if plugin:
                v["predicate"] = plugin
            if reasons:
                v["reasons"] = list(reasons)
            out[g.name] = v
        else:
            out[g.name] = {"verdict": "noTemplate"}
    return out


def _groups(loop: LoopInputs, result: LoopResult) -> list[dict[str, Any]]:
    status = result.status
    options = {o.node_group.name: o for o in status.options}
    out = []
    for g in loop.groups:
        template = result.templates.get(g.name)
        skipped = status.skipped.get(g.name) if result.scale_up_called else None
        out.append({"name": g.name, "minSize": g.min_size, "maxSize": g.max_size,
                    "targetSize": result.target_sizes[g.name], "newTargetSize": result.new_target_sizes[g.name],
                    "nodes": list(loop.group_members[g.name]),
                    "template": _template_json(template),
                    "skipped": list(skipped) if skipped else None,
                    "option": option_json(options.get(g.name))})
    return out


def _template_json(template) -> dict[str, Any] | None:
    """A group's template as the cases define it, plus kexplain's keys (the comparison ignores them):
    `member` it was built from (`source: node`) and `origin` (what stands in for a provider's template)."""
    if template is None:
        return None
    out = template.to_json()
    if template.member:
        out["member"] = template.member
    if template.origin:
        out["origin"] = template.origin
    return out


def _scale_ups(status: ScaleUpStatus) -> list[dict[str, Any]]:
    return [{"nodeGroup": i.group.name, "currentSize": i.current_size, "newSize": i.new_size, "maxSize": i.max_size}
            for i in status.scale_up_infos]


def _expansion(loop: LoopInputs, result: LoopResult) -> dict[str, Any]:
    """The scale-up's options and the expander's choice, CA's plan and lists as the reported status has them
    (with --enforce-node-group-min-size kexplain's `chosenScaleUps` is the scale-up's own plan)."""
    status = result.status
    reported = result.reported
    out = {"options": [option_json(o) for o in status.options],
           "bestOption": option_json(status.best),
           "scaleUps": _scale_ups(reported),
           "podsTriggeredScaleUp": _names(reported.triggered),
           "podsAwaitEvaluation": _names(reported.await_evaluation)}
    if reported is not status:
        out["chosenScaleUps"] = _scale_ups(status)
    if len(status.random_among) > 1:
        out["randomPick"] = random_pick_json(loop, result)
    return out


def random_pick_json(loop: LoopInputs, result: LoopResult) -> dict[str, Any]:
    """kexplain's key `expansion.randomPick` (the comparison ignores it): the expander left a tie CA
    draws from at random (math/rand), `bestOption` only the first; which filter left it and the tied groups."""
    tied = result.status.random_among
    filters = [n for n in loop.settings.expander.split(",") if n != RANDOM]
    best = result.status.best
    out: dict[str, Any] = {"expander": filters[-1] if filters else RANDOM,
                           "among": [o.node_group.name for o in tied],
                           "followed": (best or tied[0]).node_group.name}
    if out["expander"] == LeastWaste.name:
        out["wasteScores"] = {o.node_group.name: wasted_score(o, result.templates[o.node_group.name].node_info)
                              for o in tied if o.node_group.name in result.templates}
    return out


# A pod's answer, the keys of its record that CA's draw may change.
PICKED_KEYS = ("outcome", "events")


def _with_picks(doc: dict[str, Any], loop: LoopInputs, result: LoopResult) -> None:
    """What each draw of the expander's tie gives: `expansion.randomPick.picks` per tied option, and
    `byPick` on each pod whose answer differs between draws (the record's own keys are the first's)."""
    statuses = [result.status, *result.status.picks]
    runs = [result, *(replace(result, status=st, pod_events=recorded_pod_events(replace(result, status=st)))
                      for st in result.status.picks)]
    tied = [st.best.node_group.name if st.best is not None else "" for st in statuses]
    doc["expansion"]["randomPick"]["picks"] = [
        {"nodeGroup": name, "result": st.result,
         "scaleUps": [{"nodeGroup": i.group.name, "currentSize": i.current_size, "newSize": i.new_size,
                       "maxSize": i.max_size} for i in st.scale_up_infos],
         "podsTriggeredScaleUp": _names(st.triggered), "podsAwaitEvaluation": _names(st.await_evaluation)}
        for name, st in zip(tied, statuses)]
    others = [_pods(loop, r, verdicts=False) for r in runs[1:]]
    for i, record in enumerate(doc["pods"]):
        answers = [{k: record[k] for k in PICKED_KEYS}, *({k: alt[i][k] for k in PICKED_KEYS} for alt in others)]
        if any(a != answers[0] for a in answers[1:]):
            record["byPick"] = [{"nodeGroup": name, **a} for name, a in zip(tied, answers)]
