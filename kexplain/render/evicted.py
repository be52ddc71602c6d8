"""The section "Removed" of a trace whose pod was evicted or disrupted (its `eviction` key,
`kexplain.eviction.evicted`): who removed it, why in the component's words and the condition's, and
the kubelet's message taken apart. The words are here; the trace holds values."""
from __future__ import annotations

from typing import Any, Mapping

from rich.text import Text

from kexplain.render.blocks import Block
from kexplain.render.eviction.pressure import KEY_HEADERS, human, key_text, layout_words
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


# how each cause's removal is said in a heading (the condition's reason, or the kubelet's status.reason)
VERBS = {"PreemptionByScheduler": "Preempted", "DeletionByTaintManager": "Deleted", "DeletionByPodGC": "Deleted"}


def removed_by(doc: Mapping[str, Any]) -> str:
    """Who removed the pod: `the kubelet of node-a` (the text's first line after "Removed by")."""
    by = doc.get("by") or "an unknown component"
    on = f" of {doc['node']}" if doc.get("node") and doc.get("by") == "kubelet" else ""
    return f"the {by}{on}" if doc.get("by") else by


def headline(doc: Mapping[str, Any]) -> str:
    """The removal in one line, for a heading: what was done, by whom and why
    (`Evicted by the kubelet of node-a: the node was low on memory (MemoryPressure)`)."""
    part = doc.get("kubelet") or {}
    if part.get("kind") in KINDS:
        why = KINDS[part["kind"]]
    elif part.get("kind") == "nodePressure" and part.get("resource"):
        condition = f" ({part['nodeCondition']})" if part.get("nodeCondition") else ""
        why = f"the node was low on {part['resource']}{condition}"
    else:
        why = CAUSES.get(str(doc.get("cause")), f"the reason {doc.get('cause')}").split(" (", 1)[0]
    return f"{VERBS.get(str(doc.get('cause')), 'Evicted')} by {removed_by(doc)}: {why}"


def removed_sentences(doc: Mapping[str, Any]) -> list[str]:
    """Why, the pod's status, its DisruptionTarget condition and its message, and who asked for it
    (`asked_lines`), one sentence each."""
    out = [_cause(doc)]
    status = ", ".join(f"{k} {doc[k]}" for k in ("phase", "reason") if doc.get(k))
    if status:
        out.append(f"Status: {status}.")
    condition = doc.get("condition")
    if condition:
        out.append(f"Condition DisruptionTarget, reason {condition.get('reason', '')}: "
                   f"{(condition.get('message') or '').strip()}")
    if doc.get("message") and (not condition or condition.get("message") != doc["message"]):
        out.append(f"Message: {doc['message'].strip()}")
    return out + asked_lines(doc.get("askedBy"))


def now_words(trace: Mapping[str, Any]) -> str:
    """What the answer after the section is: the kubelet's admission now, or the replacement's placement."""
    return NOW_KUBELET if trace.get("kubelet") else NOW


def eviction_blocks(trace: Mapping[str, Any], look: Look) -> list[Block]:
    """The section, or nothing when the trace's pod was not removed."""
    doc = trace.get("eviction")
    if not doc:
        return []
    head = Text(f"Removed by {removed_by(doc)}", style="bold")
    lines = [wrap(line, look.width) for line in removed_sentences(doc)]
    blocks = [Block(head), Block(Text("\n".join(lines)), gap=False)]
    if doc.get("kubelet"):
        blocks.append(Block(Text("\n".join(wrap(line, look.width) for line in kubelet_sentences(doc["kubelet"])))))
    blocks += now_blocks(doc, look)
    blocks.append(Block(Text(wrap(now_words(trace), look.width))))
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


def now_sentences(doc: Mapping[str, Any]) -> list[str]:
    """The node's ranking now (`eviction.now`) in sentences: under pressure or not, each threshold,
    the pod's place or its replacement's; a refused node proxy in one; the hint when no Summary
    was given; none when there is nothing to say."""
    now = doc.get("now")
    part = doc.get("kubelet") or {}
    if not now:
        return [NOW_HINT] if part.get("kind") == "nodePressure" else []
    if now.get("unavailable"):
        return [f"Its node's ranking now: not read: {now['unavailable']}"]
    pressure = "under pressure" if now.get("underPressure") else "not under pressure"
    layout = layout_words(now.get("filesystemsFrom"))
    return [f"Now, not then: node {now.get('node')} at {now.get('at') or 'the Summary given'} is {pressure} "
            f"for {now.get('resource')}; the kubelet ranks by {now.get('signal')}.",
            *([layout] if layout else []),
            *(_signal_line(r) for r in now.get("thresholds") or ()), _places_line(now)]


def ranking_now(now: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The ranking now as a table: its headers (the keys in the order the kubelet compares them)
    and a row per pod (its place, name, keys and what it is: itself, a replacement, critical)."""
    ranked = now.get("ranking") or ()
    if not ranked:
        return [], []
    marks = {p.get("pod"): p.get("as") for p in now.get("places") or ()}
    headers = ["#", "POD", *(KEY_HEADERS.get(k["name"], k["name"]) for k in ranked[0].get("keys") or ()), ""]
    rows = []
    for i, r in enumerate(ranked, 1):
        note = marks.get(r["pod"]) or ("critical" if r.get("critical") else "")
        keys = [human(key_text(k.get("value")), str(now.get("signal")))
                if k.get("name") == "usageOverRequest" else key_text(k.get("value")) for k in r.get("keys") or ()]
        rows.append([str(i), r["pod"], *keys, note])
    return headers, rows


def now_blocks(doc: Mapping[str, Any], look: Look) -> list[Block]:
    """The node's ranking now (`now_sentences`), then its table when there is one."""
    said = now_sentences(doc)
    if not said:
        return []
    blocks = [Block(Text("\n".join(wrap(line, look.width) for line in said)))]
    headers, rows = ranking_now(doc.get("now") or {})
    if rows:
        table = look.table("Its ranking now (first evicted first; keys compared left to right)")
        table.add_column(headers[0], justify="right")
        table.add_column(headers[1], no_wrap=True)
        for header in headers[2:-1]:
            table.add_column(header, justify="right", no_wrap=True)
        table.add_column("", overflow="fold")
        for row in rows:
            table.add_row(*row)
        blocks.append(Block(table))
    return blocks


def _cause(doc: Mapping[str, Any]) -> str:
    cause = doc.get("cause", "")
    said = CAUSES.get(cause, f"the reason {cause} is one kexplain does not know")
    return f"Why: {said}."


def kubelet_sentences(part: Mapping[str, Any]) -> list[str]:
    """The kubelet's message taken apart: the starved resource, its signals, the threshold, the
    available, each usage against its request."""
    lines = ["The kubelet's message, taken apart:"]
    if part.get("kind") in KINDS:
        lines.append(f"{KINDS[part['kind']]}: limit {part.get('limit', '')}"
                     + (f", volume {part['volume']}" if part.get("volume") else "")
                     + (f", container {part['container']}" if part.get("container") else ""))
        return lines
    signals = ", ".join(part.get("signals") or ())
    condition = f"; node condition {part['nodeCondition']}" if part.get("nodeCondition") else ""
    lines.append(f"Starved resource: {part.get('resource', '')} (signals {signals}{condition})")
    if part.get("threshold"):
        lines.append(f"Threshold: {part['threshold']}, available: {part['available']}")
    for u in part.get("usages") or ():
        over = f", {u['overRequest']} over its request" if u.get("overRequest") else ""
        lines.append(f"{u['kind']} {u['name']}: used {u['usage']}, requested {u['request']}{over}")
    if not part.get("usages") and part.get("kind") == "nodePressure":
        lines.append("(the message names no container over its request)")
    return lines
