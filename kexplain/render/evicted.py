"""The section "Removed" of a trace whose pod was evicted or disrupted (its `eviction` key,
`kexplain.eviction.evicted`): who removed it, why in the component's words and the condition's, and
the kubelet's message taken apart. The words are here; the trace holds values."""
from __future__ import annotations

from typing import Any, Mapping

from rich.text import Text

from kexplain.render.blocks import Block
from kexplain.render.eviction.pressure import KEY_HEADERS, human, key_text
from kexplain.render.style import Look, wrap

# what each cause means, said of the pod (the condition's reason, or the kubelet's status.reason)
CAUSES = {
    "Evicted": "the node's kubelet evicted it (status.reason Evicted): node-pressure eviction, or a local "
               "storage limit exceeded",
    "TerminationByKubelet": "the node's kubelet terminated it: node-pressure eviction, a graceful node "
                            "shutdown, or room made for a critical pod",
    "EvictionByEvictionAPI": "an eviction was asked of the API server (kubectl drain, an autoscaler's "
                             "scale-down or Karpenter's disruption, a descheduler) and its disruption budgets "
                             "allowed it",
    "DeletionByTaintManager": "its node has a NoExecute taint the pod does not tolerate (or its "
                              "tolerationSeconds ran out): the taint eviction controller deleted it",
    "PreemptionByScheduler": "the scheduler's preemption chose it as a victim to make room for a pod of "
                             "higher priority",
    "DeletionByPodGC": "the pod garbage collector deleted it (its node is gone or out of service)",
}
KINDS = {
    "emptyDir": "an emptyDir volume over its sizeLimit",
    "podEphemeralStorage": "the pod's local storage over its containers' total limit",
    "containerEphemeralStorage": "a container's local storage over its limit",
}
NOW_KUBELET = "Below: whether its node's kubelet would admit it now, as the pod names its node."
NOW = "Below: where the scheduler would place it now, as a new pod (its controller's replacement)."
NOW_HINT = ("Its node's ranking now: give the node's stats Summary (--stats FILE; live, read through the node "
            "proxy) to rank the node's pods again.")


def eviction_blocks(trace: Mapping[str, Any], look: Look) -> list[Block]:
    """The section, or nothing when the trace's pod was not removed."""
    doc = trace.get("eviction")
    if not doc:
        return []
    by = doc.get("by") or "an unknown component"
    on = f" of {doc['node']}" if doc.get("node") and doc.get("by") == "kubelet" else ""
    head = Text(f"Removed by the {by}{on}" if doc.get("by") else f"Removed by {by}", style="bold")
    lines = [wrap(_cause(doc), look.width)]
    status = ", ".join(f"{k} {doc[k]}" for k in ("phase", "reason") if doc.get(k))
    if status:
        lines.append(f"Status: {status}.")
    condition = doc.get("condition")
    if condition:
        lines.append(wrap(f"Condition DisruptionTarget, reason {condition.get('reason', '')}: "
                          f"{(condition.get('message') or '').strip()}", look.width))
    if doc.get("message") and (not condition or condition.get("message") != doc["message"]):
        lines.append(wrap(f"Message: {doc['message'].strip()}", look.width))
    lines += [wrap(line, look.width) for line in asked_lines(doc.get("askedBy"))]
    blocks = [Block(head), Block(Text("\n".join(lines)), gap=False)]
    if doc.get("kubelet"):
        blocks.append(Block(Text("\n".join(_kubelet_lines(doc["kubelet"], look)))))
    blocks += now_blocks(doc, look)
    blocks.append(Block(Text(wrap(NOW_KUBELET if trace.get("kubelet") else NOW, look.width))))
    return blocks


def _event_text(event: Mapping[str, Any]) -> str:
    count = f", ×{event['count']}" if event.get("count") else ""
    return f"{event.get('message', '')} (event {event.get('reason', '')}{count})"


def asked_lines(asked: Any) -> list[str]:
    """Who asked for the removal (`eviction.evicted.asked_by`): its event, the disruption reason
    and the methods that act for it, the node's decision, its NodeClaim's condition and taint."""
    if not asked:
        return []
    lines = [f"Asked by {asked.get('by', '')}: {_event_text(asked.get('event') or {})}."]
    reason = asked.get("disruptionReason")
    if reason:
        methods = asked.get("methods")
        acts = f", which {' or '.join(methods)} acts for" if methods else \
            " (not a disruption method's: the node was deleted or expired)"
        lines.append(f"Its disruption reason: {reason}{acts}.")
    node = []
    if asked.get("nodeDecision"):
        node.append(_event_text(asked["nodeDecision"]))
    claim = asked.get("nodeClaim")
    if claim:
        cond = claim.get("condition")
        node.append(f"NodeClaim {claim.get('name', '')}" + (
            f": condition DisruptionReason {cond.get('status', '')}, reason {cond.get('reason', '')}" if cond else
            ": no DisruptionReason condition"))
    if asked.get("taint"):
        node.append(f"taint {asked['taint']}")
    if node:
        lines.append("Its node's decision: " + "; ".join(node) + ".")
    return lines


def _signal_line(row: Mapping[str, Any]) -> str:
    """One threshold against its signal now: met, or how far above it the signal is."""
    head = f"{row.get('signal')} < {row.get('value')} ({'hard' if row.get('hard') else 'soft'})"
    if not row.get("observed"):
        return f"{head}: not observed in the Summary"
    signal = str(row.get("signal"))
    state = "met" if row.get("met") else f"not met, {human(row.get('margin'), signal)} above"
    return f"{head}: available {human(row.get('available'), signal)} of {human(row.get('capacity'), signal)}, {state}"


def _places_line(now: Mapping[str, Any]) -> str:
    places = now.get("places") or ()
    total = len(now.get("ranking") or ())
    if not places:
        return (f"Neither the pod nor a pod of its controller runs on {now.get('node')} now: nothing of it is "
                f"in this order.")
    said = "; ".join(f"{'it' if p.get('as') == 'itself' else 'its replacement ' + str(p.get('pod'))} is "
                     f"{p.get('place')} of {total}" for p in places)
    return f"Now {said} (1: evicted first)."


def now_blocks(doc: Mapping[str, Any], look: Look) -> list[Block]:
    """The node's ranking now (`eviction.now`): said as now, with the pod's place or its
    replacement's; a refused node proxy said in one line; a hint when no Summary was given."""
    now = doc.get("now")
    part = doc.get("kubelet") or {}
    if not now:
        if part.get("kind") == "nodePressure":
            return [Block(Text(wrap(NOW_HINT, look.width)))]
        return []
    if now.get("unavailable"):
        return [Block(Text(wrap(f"Its node's ranking now: not read: {now['unavailable']}", look.width)))]
    pressure = "under pressure" if now.get("underPressure") else "not under pressure"
    lines = [wrap(f"Now, not then: node {now.get('node')} at {now.get('at') or 'the Summary given'} is {pressure} "
                  f"for {now.get('resource')}; the kubelet ranks by {now.get('signal')}.", look.width)]
    lines += [wrap(_signal_line(r), look.width) for r in now.get("thresholds") or ()]
    lines.append(wrap(_places_line(now), look.width))
    blocks = [Block(Text("\n".join(lines)))]
    ranked = now.get("ranking") or ()
    if ranked:
        marks = {p.get("pod"): p.get("as") for p in now.get("places") or ()}
        table = look.table("Its ranking now (first evicted first; keys compared left to right)")
        table.add_column("#", justify="right")
        table.add_column("POD", no_wrap=True)
        for k in ranked[0].get("keys") or ():
            table.add_column(KEY_HEADERS.get(k["name"], k["name"]), justify="right", no_wrap=True)
        table.add_column("", overflow="fold")
        for i, r in enumerate(ranked, 1):
            note = marks.get(r["pod"]) or ("critical" if r.get("critical") else "")
            keys = [human(key_text(k.get("value")), str(now.get("signal")))
                    if k.get("name") == "usageOverRequest" else key_text(k.get("value")) for k in r.get("keys") or ()]
            table.add_row(str(i), r["pod"], *keys, note)
        blocks.append(Block(table))
    return blocks


def _cause(doc: Mapping[str, Any]) -> str:
    cause = doc.get("cause", "")
    said = CAUSES.get(cause, f"the reason {cause} is one kexplain does not know")
    return f"Why: {said}."


def _kubelet_lines(part: Mapping[str, Any], look: Look) -> list[str]:
    """The kubelet's message taken apart: the starved resource, its signals, the threshold, the
    available, each usage against its request."""
    lines = ["The kubelet's message, taken apart:"]
    if part.get("kind") in KINDS:
        lines.append(wrap(f"{KINDS[part['kind']]}: limit {part.get('limit', '')}"
                          + (f", volume {part['volume']}" if part.get("volume") else "")
                          + (f", container {part['container']}" if part.get("container") else ""), look.width))
        return lines
    signals = ", ".join(part.get("signals") or ())
    condition = f"; node condition {part['nodeCondition']}" if part.get("nodeCondition") else ""
    lines.append(wrap(f"Starved resource: {part.get('resource', '')} (signals {signals}{condition})", look.width))
    if part.get("threshold"):
        lines.append(f"Threshold: {part['threshold']}, available: {part['available']}")
    for u in part.get("usages") or ():
        over = f", {u['overRequest']} over its request" if u.get("overRequest") else ""
        lines.append(wrap(f"{u['kind']} {u['name']}: used {u['usage']}, requested {u['request']}{over}",
                          look.width))
    if not part.get("usages") and part.get("kind") == "nodePressure":
        lines.append("(the message names no container over its request)")
    return lines
