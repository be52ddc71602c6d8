"""The scheduling rules: the verdict on where a Pod's or workload's pods go once the set's batch
placed them (`fits`, `unschedulable`, `replicas`, `preemption`, `gated`, `scheduler-error`), a
DaemonSet's per eligible node (`no-eligible-nodes` when none is), and a pod for a scheduler the
configuration has no profile of (`other-scheduler`); in kube-scheduler's words."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from kexplain.explain.describe import gate
from kexplain.framework.trace import FAILED, GATED, SCHEDULED, UNSCHEDULABLE, Trace
from kexplain.lint.documents import Location
from kexplain.lint.findings import Finding, ObjectRef
from kexplain.lint.rule import POOL, Severity, declare
from kexplain.lint.rules.kubelet import kubelet_rejected

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.explain.batch import Outcome
    from kexplain.explain.placement import Placement
    from kexplain.explain.pod_inputs import Inputs

_CYCLE = "kube-scheduler: the scheduling cycle (PreFilter, Filter, Score), its FailedScheduling message"
RULES = (
    declare("unschedulable", Severity.ERROR, POOL,
            "No node of the pool can take the pod.",
            _CYCLE),
    declare("preemption", Severity.WARNING, POOL,
            "The pod is schedulable only by preempting (evicting) other pods.",
            "kube-scheduler: PostFilter, DefaultPreemption (the nominated node, its victims)"),
    declare("replicas", Severity.ERROR, POOL,
            "Only some of the workload's replicas fit on the pool (a DaemonSet: only on some of its eligible "
            "nodes).",
            _CYCLE + "; the workload controllers' replicas, the DaemonSet controller's nodes"),
    declare("no-eligible-nodes", Severity.WARNING, POOL,
            "No node of the pool is eligible for the DaemonSet (node selector, affinity, taints): it would run no "
            "pod.",
            "the DaemonSet controller: nodeShouldRunDaemonPod"),
    declare("gated", Severity.WARNING, POOL,
            "The pod is held back before scheduling (its scheduling gates, or a PreEnqueue plugin such as "
            "DynamicResources for a missing ResourceClaim): the scheduler will not consider it yet.",
            "kube-scheduler: PreEnqueue (SchedulingGates, DynamicResources)"),
    declare("scheduler-error", Severity.ERROR, POOL,
            "The scheduler itself would fail with an error.",
            "kube-scheduler: a cycle's error status"),
    declare("other-scheduler", Severity.WARNING, POOL,
            "The pod is for a scheduler (spec.schedulerName) that is not a profile of the scheduler configuration "
            "(--config): not checked.",
            "kube-scheduler: profiles by schedulerName (KubeSchedulerConfiguration)"),
    declare("fits", Severity.INFO, POOL,
            "The pod (every replica; a DaemonSet: on every eligible node) fits on the pool.",
            _CYCLE + "; the binding, replica by replica"),
)
# verified fix suggestions of a pod that does not fit, as text (`Linter._suggest`)
Suggest = Callable[["Inputs", Trace], Sequence[str]]


def verdict(ref: ObjectRef, loc: Location, workload: bool, copies: int, placed: list[str], inputs: "Inputs",
            trace: Trace | None, suggest: Suggest, zones: dict[str, int] | None = None, asked: int = 0) -> Finding:
    """The verdict on an object's `copies` pods (`asked`: the replicas wanted): they fit, or the
    first attempt that did not fit (`trace` of `inputs`) says why."""
    details: dict[str, Any] = {"replicas": asked or copies, "fit": len(placed), "nodes": placed,
                               "status": trace.result.status if trace is not None else SCHEDULED}
    if asked:
        details["created"] = copies
    if len(placed) == copies or trace is None:
        where = _where(placed, zones)
        sep = " " if where.startswith("on ") else ": "
        if asked:
            text = f"the {copies:,} pods created (of {asked:,} replicas) fit{sep}{where}"
        else:
            text = f"fits: {where}" if copies == 1 else f"all {copies:,} replicas fit{sep}{where}"
        return Finding("fits", loc, ref, text, details=details)
    of_copies = f"{copies} replicas" if not asked else f"{copies} pods created (of {asked} replicas)"
    name = inputs.pod.name
    replica = f"replica {name}" if workload else "the pod"
    result = trace.result
    suggestions = suggest(inputs, trace)
    if result.status == GATED:
        return Finding("gated", loc, ref, _gated_text(inputs, trace), details={**details, **_gate_details(trace)})
    if result.status == FAILED:         # bound by spec.nodeName: its kubelet rejects it
        kubelet = trace.extra.get("kubelet") or {}
        event = kubelet.get("event") or {}
        prefix = f"{len(placed):,} of {copies:,} replicas run ({_where(placed, zones)}); {replica}: " if placed \
            else "" if copies == 1 else f"none of the {copies} replicas runs: "
        return kubelet_rejected(ref, loc, "spec.template.spec.nodeName" if workload else "spec.nodeName",
                                 str(kubelet.get("node")), str(event.get("reason")), str(event.get("message")),
                                 prefix, details)
    if result.status != UNSCHEDULABLE:
        details["error"] = result.error
        return Finding("scheduler-error", loc, ref, f"the scheduler would fail: {result.error}", details=details)
    details["message"] = result.message
    if trace.extra.get("rejection"):        # what a PreFilter rejection's message does not name
        details["rejection"] = trace.extra["rejection"]
    post = trace.post_filter or {}
    nominated = post.get("nominatedNodeName") or ""
    prefix = f"{len(placed):,} of {of_copies} fit ({_where(placed, zones)}); " if placed else ""
    if nominated:
        victims = post.get("victims") or []
        details.update(nominatedNode=nominated, victims=victims)
        evict = f"evicting {', '.join(victims)}" if victims else "evicting no pod"
        text = (f"{prefix}{replica} is schedulable only through preemption: on node {nominated}, "
                f"{evict}. {result.message}")
        if placed or copies > 1:
            text += " (later replicas not checked)" if copies - len(placed) > 1 else ""
        return Finding("preemption", loc, ref, text.strip(), suggestions=suggestions, details=details)
    if placed:
        return Finding("replicas", loc, ref, f"fits only {len(placed)} of {of_copies} "
                                             f"({_where(placed, zones)}); {replica}: {result.message}",
                       suggestions=suggestions, details=details)
    text = result.message if copies == 1 and not asked else f"none of the {of_copies} fits: {result.message}"
    return Finding("unschedulable", loc, ref, text, suggestions=suggestions, details=details)



def daemon_findings(ref: ObjectRef, loc: Location, outcome: "Outcome", tally: "DaemonTally",
                    suggest: Suggest) -> list[Finding]:
    """A DaemonSet: a pod pinned to each eligible node, each through the whole pipeline (`tally`);
    eligible nodes where it does not fit are findings, with the reason per node."""
    assert outcome.daemon is not None
    nodes = outcome.daemon
    total = len(nodes.eligible) + len(nodes.excluded)
    details: dict[str, Any] = {"nodesInPool": total, "eligible": list(nodes.eligible),
                               "notEligible": nodes.excluded}
    bound = outcome.inputs.pod.node_name
    if bound and nodes.eligible:        # the one node its template names: that node's kubelet decides
        if tally.kubelet is not None:
            event = tally.kubelet
            return [kubelet_rejected(ref, loc, "spec.template.spec.nodeName", bound, str(event.get("reason")),
                                      str(event.get("message")), details=details)]
        if tally.stop is None:
            return [Finding("not-scheduled", loc, ref, f"spec.template.spec.nodeName is {bound}: the scheduler "
                                                       "does not place its pod; its kubelet admits it",
                            details=details)]
    if tally.stop is not None:      # gated, or the scheduler would fail: said of the first such copy
        placement = tally.stop
        trace = placement.trace
        result = trace.result
        if result.status == GATED:
            return [Finding("gated", loc, ref, _gated_text(placement.inputs, trace),
                            details={**details, "status": result.status, **_gate_details(trace)})]
        name = nodes.eligible[placement.index]
        return [Finding("scheduler-error", loc, ref, f"the scheduler would fail (node {name}): {result.error}",
                        details={**details, "status": result.status, "error": result.error})]
    fit = tally.fit
    failed = {nodes.eligible[i]: {"reason": _node_reason_of(flt, message, nodes.eligible[i]), "message": message}
              for i, flt, message in tally.failed}
    preempting = {nodes.eligible[i]: {"victims": victims, "message": message}
                  for i, victims, message in tally.preempting}
    first_failed, first_preempting = tally.first_failed, tally.first_preempting
    eligible = len(nodes.eligible)
    details.update(replicas=eligible, fit=len(fit), nodes=fit)
    not_eligible = (f"; {len(nodes.excluded)} of {total} nodes not eligible" if nodes.excluded else "")
    if not failed and not preempting:
        text = (f"fits on the eligible node {fit[0]}" if eligible == 1
                else f"fits on all {eligible} eligible nodes: {name_list(fit)}")
        if nodes.excluded:
            text += f"; {len(nodes.excluded)} of {total} nodes not eligible: {grouped(nodes.excluded)}"
        return [Finding("fits", loc, ref, text, details=details)]
    findings: list[Finding] = []
    where = f" ({name_list(fit)})" if fit else ""
    if failed:
        reasons = {n: f["reason"] for n, f in failed.items()}
        text = (f"fits on {len(fit)} of {eligible} eligible nodes{where}; does not fit on "
                f"{grouped(reasons)}{not_eligible}")
        rule = "replicas" if fit or preempting else "unschedulable"
        assert first_failed is not None
        findings.append(Finding(rule, loc, ref, text, details={**details, "notFit": failed},
                                suggestions=suggest(first_failed.inputs, first_failed.trace)))
    if preempting:
        shown = list(preempting.items())[:_LIST_LIMIT]
        parts = [f"on {n}, evicting {', '.join(p['victims']) if p['victims'] else 'no pod'}" for n, p in shown]
        more = f"; and {len(preempting) - len(shown)} more nodes" if len(preempting) > len(shown) else ""
        text = (f"schedulable only through preemption on {len(preempting)} of {eligible} eligible nodes: "
                f"{'; '.join(parts)}{more}{not_eligible}")
        assert first_preempting is not None
        findings.append(Finding("preemption", loc, ref, text, details={**details, "preemption": preempting},
                                suggestions=suggest(first_preempting.inputs, first_preempting.trace)))
    return findings


def other_scheduler(ref: ObjectRef, loc: Location, scheduler: str) -> Finding:
    return Finding("other-scheduler", loc, ref,
                   f"the pod is for scheduler {scheduler}, which is not a profile of the scheduler configuration: "
                   "not checked; --config can add the profile", field="spec.schedulerName",
                   details={"schedulerName": scheduler})


_LIST_LIMIT = 10


def name_list(names: Iterable[str]) -> str:
    """`a, b, c` with at most `_LIST_LIMIT` names, then `and N more`."""
    names = list(names)
    shown = ", ".join(names[:_LIST_LIMIT])
    return shown if len(names) <= _LIST_LIMIT else f"{shown} and {len(names) - _LIST_LIMIT} more"


def grouped(reasons: dict[str, str]) -> str:
    """Nodes grouped by reason, in order of first appearance: `n1, n2 (reason); n3 (other)`."""
    groups: dict[str, list[str]] = {}
    for node, reason in reasons.items():
        groups.setdefault(reason, []).append(node)
    return "; ".join(f"{name_list(nodes)} ({reason})" for reason, nodes in groups.items())


def _gate(trace: Trace) -> dict[str, Any]:
    """The PreEnqueue plugin that held the pod back (`explain.describe.gate`, as explain shows it)."""
    return dict(gate({"preEnqueue": trace.pre_enqueue}) or {})


def _gate_details(trace: Trace) -> dict[str, Any]:
    g = _gate(trace)
    return {"plugin": g.get("plugin", ""), "reasons": list(g.get("reasons") or ())} if g else {}


def _gated_text(inputs: "Inputs", trace: Trace) -> str:
    """What holds the pod back before the scheduler: its scheduling gates, or another PreEnqueue
    plugin with its reason, in explain's words."""
    g = _gate(trace)
    plugin = g.get("plugin") or "SchedulingGates"
    if plugin == "SchedulingGates":
        gates = [str(x.get("name", "")) for x in inputs.pod.spec.get("schedulingGates") or () if isinstance(x, dict)]
        if gates:
            return f"waits for its scheduling gates ({', '.join(gates)})"
    reasons = "; ".join(g.get("reasons") or ()) or str(g.get("code") or "")
    return f"held back by {plugin}: {reasons}" if reasons else f"held back by {plugin}"


def _node_reason_of(filtered: dict[str, Any] | None, message: str, node: str) -> str:
    """Why the pod pinned to `node` does not fit there: the reasons of the Filter plugin that
    rejected the node, else (PreFilter rejected the pod) the FailedScheduling message, from the
    parts of the trace it reads (kept without the trace)."""
    status = (filtered or {}).get(node) or {}
    reasons = [r for r in status.get("reasons") or () if r]
    if reasons:
        return ", ".join(reasons)
    return status.get("message") or message


@dataclass
class DaemonTally:
    """A DaemonSet's copies as placed (a sink of `Queue.place`), without their traces: the nodes
    they fit, per copy that does not its verdicts or victims, and the first placements that matter."""

    fit: list[str] = field(default_factory=list)
    failed: list[tuple[int, dict[str, Any] | None, str]] = field(default_factory=list)
    preempting: list[tuple[int, list[str], str]] = field(default_factory=list)
    first_failed: "Placement | None" = None
    first_preempting: "Placement | None" = None
    stop: "Placement | None" = None
    kubelet: dict[str, Any] | None = None      # the event of a copy bound by spec.nodeName its kubelet rejected

    def __call__(self, placement: "Placement") -> None:
        if self.stop is not None:
            return
        if placement.node is not None:
            self.fit.append(placement.node)
            return
        trace = placement.trace
        result = trace.result
        if result.status == FAILED:
            self.kubelet = self.kubelet or (trace.extra.get("kubelet") or {}).get("event") or {}
            return
        if result.status != UNSCHEDULABLE:      # gated, or the scheduler would fail
            self.stop = placement
            return
        post = trace.post_filter or {}
        if post.get("nominatedNodeName"):
            self.preempting.append((placement.index, list(post.get("victims") or []), result.message))
            self.first_preempting = self.first_preempting or placement
        else:
            self.failed.append((placement.index, dict(trace.filter) if trace.filter else None, result.message))
            self.first_failed = self.first_failed or placement


def _where(placed: list[str], zones: dict[str, int] | None = None) -> str:
    """Where copies went: `n1, n2 ×2` over a few nodes; over many, counted: `on 1,000 nodes:
    us-east-1a 334, us-east-1b 333, ...` (per zone, when the nodes have one)."""
    counts = Counter(placed)
    if len(counts) <= _LIST_LIMIT:
        return _nodes_text(placed)
    text = f"on {len(counts):,} nodes"
    if zones:
        shown = [f"{z} {c:,}" for z, c in list(zones.items())[:_LIST_LIMIT]]
        more = f" and {len(zones) - _LIST_LIMIT} more zones" if len(zones) > _LIST_LIMIT else ""
        text += ": " + ", ".join(shown) + more
    return text


def _nodes_text(nodes: list[str]) -> str:
    """`n1, n2 ×2` in order of first placement."""
    counts = Counter(nodes)
    return ", ".join(n if c == 1 else f"{n} ×{c}" for n, c in counts.items())

