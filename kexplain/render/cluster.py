"""`kexplain cluster` in words, read only from its document: one summary line (the sections, the
most held first), then each section that ran, its rows in the words of their single-object
commands (a pending group as `kexplain pod` says its pod, a blocked drain as `kexplain evict drain`),
and a line for each section skipped with why."""
from __future__ import annotations

from typing import Any, Callable, Mapping

from rich.console import Console
from rich.text import Text

from kexplain.render.blocks import Block, lines_block, print_blocks
from kexplain.render.eviction.drain import autoscaler_line, numbers, refusals
from kexplain.render.eviction.drain import summary as drain_summary
from kexplain.render.kueue import VERDICTS as KUEUE_VERDICTS
from kexplain.render.kueue import suggestion_text
from kexplain.render.queue import TIED_LISTED
from kexplain.render.style import plural
from kexplain.render.views import shorten

Lines = list[tuple[int, str]]


def _pending_part(s: Mapping[str, Any]) -> str:
    return f"{plural(s['held'], 'pending group')} ({plural(s['pods'], 'pod')})"


def _budgets_part(s: Mapping[str, Any]) -> str:
    return f"{plural(s['held'], 'budget')} allow{'s' if s['held'] == 1 else ''} no disruption"


def _drains_part(s: Mapping[str, Any]) -> str:
    return f"{s['held']} drain{'s' if s['held'] != 1 else ''} blocked"


def _drains_title(s: Mapping[str, Any]) -> str:
    return f"{_drains_part(s)} (of {plural(s['checked'], 'node')} checked: {s['scope']})"


def ordered(doc: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The sections that ran, the most held first (the report's order among equals)."""
    ran = [s for s in doc.get("sections") or () if not s.get("skipped")]
    return sorted(ran, key=lambda s: -int(s.get("held") or 0))


def summary(doc: Mapping[str, Any]) -> str:
    """The report's first line: each section that ran in a few words, the most held first, then
    those skipped (said why below: never read as all clear)."""
    ran = ordered(doc)
    kept = [s for s in ran if s["name"] in KEPT]
    parts = [PARTS[s["name"]](s) if s["name"] not in KEPT else _kept_part(kept) for s in ran
             if s["name"] not in KEPT or s is kept[0]]
    parts += [f"{s['name']} skipped" for s in doc.get("sections") or () if s.get("skipped")]
    return ", ".join(parts)


def pod_lines(row: Mapping[str, Any]) -> Lines:
    """A pending group: its owner and count, the verdict and the scheduler's words, preemption, the
    first verified fix, the autoscalers' answers."""
    owner, result = row["owner"], row["result"]
    count = plural(row["count"], "pod")
    status = f"Pending, {fits_now_words(row['fitsNow'])}" if row.get("fitsNow") else result.get("status")
    lines: Lines = [(0, f"- {owner['kind']} {owner['namespace']}/{owner['name']}: {count} {status}")]
    if result.get("message"):
        lines.append((2, str(result["message"])))
    for gate in row.get("preEnqueue") or ():
        lines.append((2, f"{gate.get('plugin')}: {'; '.join(gate.get('reasons') or ())}"))
    post = row.get("postFilter")
    if post and post.get("nominatedNodeName"):
        lines.append((2, f"preemption helps: nominated to {post['nominatedNodeName']}"))
    elif post:
        lines.append((2, "preemption does not help"))
    for fix in row.get("suggestions") or ():
        lines.append((2, f"fix (verified): {fix.get('description')}"))
    lines += [(2, autoscaler_line(a)) for a in row.get("autoscalers") or ()]
    if row["count"] > 1:
        lines.append((2, f"pods: {', '.join(row['pods'][:5])}{', ...' if row['count'] > 5 else ''}"))
    return lines


def fits_now_words(fits: Mapping[str, Any]) -> str:
    """A group still Pending in the cluster whose first pod kube-scheduler would bind now, as
    `kexplain pod --pending` says it: never "Scheduled", which it is not."""
    if fits.get("oneOf"):
        return f"fits now: would be bound to one of {shorten(fits['oneOf'], TIED_LISTED)}, picked at random"
    return f"fits now: would be bound to {fits.get('node')}"


def budget_lines(row: Mapping[str, Any]) -> Lines:
    """A budget allowing no disruption: its numbers, where its status came from, what it blocks."""
    status = row["status"]
    nums = numbers({"currentHealthy": status["currentHealthy"], "desiredHealthy": status["desiredHealthy"],
                    "expectedPods": status["expectedPods"], "disruptionsAllowed": status["disruptionsAllowed"]})
    source = "computed" if row.get("statusFrom") != "given" else "given"
    lines: Lines = [(0, f"- {row['name']}: {nums} ({source})"), (2, row["blocks"])]
    if row.get("nodes"):
        lines.append((2, f"nodes: {', '.join(row['nodes'])}"))
    return lines


def drain_lines(row: Mapping[str, Any]) -> Lines:
    """A blocked drain as `kexplain evict drain NODE` begins: its verdict, what refuses, its first fix."""
    doc = row["drain"]
    lines: Lines = [(0, f"- {drain_summary(doc)}")]
    lines += [(2, line) for line in refusals(doc)]
    fixes = doc.get("fixes") or ()
    fix = next((f for f in fixes if f.get("drains")), fixes[0] if fixes else None)    # the first that drains it
    if fix is not None:
        mark = "the drain goes" if fix.get("drains") else "still blocked"
        lines.append((2, f"fix (checked): {fix.get('fix')}: {mark}"))
    return lines


def _karpenter_part(s: Mapping[str, Any]) -> str:
    pools = len(s.get("nodePools") or ())
    return (f"{plural(len(s.get('rows') or ()), 'node')} Karpenter keeps"
            + (f" ({plural(pools, 'NodePool')} closed by budgets)" if pools else ""))


def karpenter_node_lines(row: Mapping[str, Any]) -> Lines:
    """A node Karpenter may not disrupt, with Karpenter's own reason (its DisruptionBlocked event)."""
    return [(0, f"- {row['node']} (NodePool {row.get('nodePool')}, {plural(row.get('pods', 0), 'pod')}): "
                f"{row.get('blocked')}")]


def karpenter_lines(s: Mapping[str, Any]) -> Lines:
    """What the pass does now, its nodes kept, then the NodePools whose budgets allow nothing for a reason."""
    now = "; ".join(s.get("decision") or ()) or "nothing"
    lines: Lines = [(0, f"Karpenter would start {s['method']}: {now}" if s.get("method") else
                        "Karpenter would disrupt nothing now")]
    lines += [line for row in s.get("rows") or () for line in karpenter_node_lines(row)]
    for pool in s.get("nodePools") or ():
        for reason, budgets in (pool.get("reasons") or {}).items():
            why = "; ".join(_budget_words(b) for b in budgets)
            lines.append((0, f"- NodePool {pool['nodePool']} ({plural(pool['nodes'], 'node')}): no {reason} "
                             "disruption allowed now" + (f" ({why})" if why else "")))
    return lines


def _budget_words(budget: Mapping[str, Any]) -> str:
    window = f" during '{budget['schedule']}' for {budget.get('duration')}" if budget.get("schedule") else ""
    return f"nodes {budget.get('nodes')}{window}"


def _queued_part(s: Mapping[str, Any]) -> str:
    return f"{plural(s['held'], 'Workload')} held"


def queued_lines(s: Mapping[str, Any]) -> Lines:
    """Each ClusterQueue's held Workloads, in its queue's order, as `kexplain kueue` says each:
    Kueue's verdict and message, its place, its first verified fix; then those Kueue admits next."""
    lines: Lines = []
    cq = None
    for row in s.get("rows") or ():
        if row["clusterQueue"] != cq:
            cq = row["clusterQueue"]
            count = sum(1 for r in s["rows"] if r["clusterQueue"] == cq)
            lines.append((0, f"ClusterQueue {cq} ({count} held):" if cq else
                             f"No ClusterQueue takes them ({count} held):"))
        lines += workload_lines(row)
    if s.get("admittedNextCycle"):
        lines.append((0, f"{plural(s['admittedNextCycle'], 'more Workload')} stored not admitted: Kueue admits "
                         "them on its next cycle"))
    return lines


def workload_lines(row: Mapping[str, Any]) -> Lines:
    """A held Workload: its job, Kueue's verdict and place, Kueue's message, its first verified fix."""
    owner = row.get("owner")
    job = f" ({owner['kind']} {owner['namespace']}/{owner['name']})" if owner else ""
    verdict = str(row.get("verdict") or "")
    words = KUEUE_VERDICTS.get(verdict, verdict)
    if verdict == "QuotaReserved":
        words = "quota reserved, waiting for its admission checks"
    place = row.get("position")
    at = f"; {place['position']} of {place['of']} in the queue" if place else ""
    lines: Lines = [(1, f"- {row['workload']}{job}: {words}{at}")]
    if row.get("message"):
        lines.append((3, f"Kueue: {row['message']}"))
    if row.get("gatedPods"):
        pods = row["gatedPods"]
        lines.append((3, f"gated pods: {', '.join(pods[:5])}{', ...' if len(pods) > 5 else ''}"))
    fixes = (row.get("kueue") or {}).get("suggestions") or ()
    fix = next((f for f in fixes if (f.get("verified") or {}).get("admits")), None)
    if fix is not None:
        lines.append((3, f"fix (verified): {suggestion_text(fix)}"))
    elif fixes:
        lines.append((3, f"fix (verified, not enough alone: others are admitted first): "
                         f"{suggestion_text(fixes[0])}"))
    return lines


NO_PRESSURE = "no node reports pressure"


def _evictions_part(s: Mapping[str, Any]) -> str:
    """The evictions foreseen; "node pressure not checked" where a node reports pressure without
    stats (not all clear), "no node reports pressure" where none does and none was checked."""
    unread = s.get("pressureUnread") or ()
    if unread:
        why = "node pressure not checked" + (f" on {plural(len(unread), 'node')}" if s.get("pressureChecked") else "")
    elif s.get("pressureReported") == 0 and not s.get("pressureChecked"):
        why = NO_PRESSURE
    else:
        why = ""
    return f"{s['held']} eviction{'s' if s['held'] != 1 else ''} coming" + (f" ({why})" if why else "")


def _evictions_title(s: Mapping[str, Any]) -> str:
    checked = [plural(s["pressureChecked"], "node") + " with stats", plural(s["taintsChecked"], "node") +
               " with a NoExecute taint"]
    return f"{s['held']} eviction{'s' if s['held'] != 1 else ''} coming (of {' and '.join(checked)})"


def eviction_row_lines(row: Mapping[str, Any]) -> Lines:
    """A node's evictions, under pressure or by its NoExecute taints."""
    return pressure_lines(row) if row["family"] == "pressure" else taint_lines(row)


def evictions_lines(s: Mapping[str, Any]) -> Lines:
    """Each node's evictions, the soonest first, as `kexplain evict pressure|taints NODE` begins;
    then what the pressure part could not read."""
    lines: Lines = [line for row in s.get("rows") or () for line in eviction_row_lines(row)]
    if s.get("pressureSkipped"):
        lines.append((0, f"Node pressure: skipped: {s['pressureSkipped']}"))
    elif s.get("pressureReported") == 0 and not s.get("pressureChecked"):
        lines.append((0, "Node pressure: no node reports MemoryPressure, DiskPressure or PIDPressure: nothing "
                         "to check"))
    if s.get("pressureUnread"):
        lines.append((0, f"Node pressure reported without stats (not explained): {', '.join(s['pressureUnread'])}"))
    return lines


def pressure_lines(row: Mapping[str, Any]) -> Lines:
    """A node under pressure: its conditions, the pod the kubelet evicts now and its message, the next ranked."""
    doc = row["pressure"]
    evicts = ", ".join(row["evicts"]) or "no pod yet"
    lines: Lines = [(0, f"- {row['node']}: {', '.join(row['conditions']) or 'a threshold met'}; the kubelet "
                        f"evicts {evicts} now")]
    for e in doc.get("evicted") or ():
        lines.append((2, f"{e['pod']}: {str(e.get('message') or '').strip()}"))
    ranking = [p for p in doc.get("ranking") or () if p not in row["evicts"]]
    if ranking:
        lines.append((2, f"next in the kubelet's ranking: {', '.join(ranking[:3])}{', ...' if len(ranking) > 3 else ''}"))
    return lines


def taint_lines(row: Mapping[str, Any]) -> Lines:
    """A node whose NoExecute taints evict pods: the taints, then each pod with when."""
    taints = ", ".join(f"{t.get('key')}{'=' + t['value'] if t.get('value') else ''}:{t.get('effect')}"
                       for t in row["taints"].get("noExecuteTaints") or ())
    lines: Lines = [(0, f"- {row['node']}: {taints} evicts {plural(len(row['evicts']), 'pod')}")]
    for w in row.get("when") or ():
        after = f"after {w['afterSeconds']}s, " if w.get("afterSeconds") is not None else ""
        lines.append((2, f"{w['pod']}: " + (f"{after}at {w['at']}" if w.get("at") else "now")))
    return lines


def _scaledown_part(s: Mapping[str, Any]) -> str:
    return f"{plural(s['held'], 'node')} the Cluster Autoscaler keeps"


def scaledown_reason(node: Mapping[str, Any]) -> str:
    """CA's reason a node stays, as `kexplain autoscale`'s table says it (with the pod that blocks it)."""
    reason = node.get("reason") or ("" if node.get("candidate") else "not a candidate")
    blocking = node.get("blockingPod")
    return reason + (f": {blocking['pod']} ({blocking['reason']})" if blocking else "")


def scaledown_node_lines(row: Mapping[str, Any]) -> Lines:
    """A node CA keeps: its group, its utilization as CA measured it, CA's reason."""
    util = row.get("utilization")
    used = f", {util['resourceName']} {util['utilization']:.1%}" if util else ""
    return [(0, f"- {row['name']} (group {row.get('nodeGroup') or '-'}{used}): {scaledown_reason(row)}")]


SHOWN_PER_REASON = 3     # nodes kept for one reason shown by name before the text counts the rest


def scaledown_lines(s: Mapping[str, Any]) -> Lines:
    """CA's result, the unneeded nodes (they go once unneeded long enough), then the nodes kept,
    by CA's reason in the order first met: each node when a few, else the first few and a count
    (-o json lists each)."""
    unneeded = ", ".join(s.get("unneeded") or ()) or "none"
    lines: Lines = [(0, f"Cluster Autoscaler: {s.get('result')} ({s.get('candidates')} of "
                        f"{plural(s.get('nodes', 0), 'node')} looked at; unneeded: {unneeded})")]
    by_reason: dict[tuple, list[Mapping[str, Any]]] = {}
    for row in s.get("rows") or ():
        by_reason.setdefault((row.get("reason"), (row.get("blockingPod") or {}).get("reason")), []).append(row)
    for (reason, why), rows in by_reason.items():
        if len(rows) <= SHOWN_PER_REASON + 1:
            lines += [line for row in rows for line in scaledown_node_lines(row)]
            continue
        lines.append((0, f"- {plural(len(rows), 'node')}: {reason}" + (f" ({why})" if why else "")))
        lines += [(2, line) for row in rows[:SHOWN_PER_REASON] for _, line in scaledown_node_lines(row)]
        lines.append((2, f"... and {len(rows) - SHOWN_PER_REASON} more (-o json lists each)"))
    return lines


KEPT = ("scaledown", "karpenter")      # the sections whose rows are nodes an autoscaler keeps


def _kept_part(sections: list[Mapping[str, Any]]) -> str:
    """The nodes the autoscalers keep, CA's and Karpenter's together ("5 nodes kept"), by whom."""
    by = {s["name"]: len(s.get("rows") or ()) for s in sections}
    who = {"scaledown": "the Cluster Autoscaler", "karpenter": "Karpenter"}
    words = ", ".join(f"{n} by {who[name]}" for name, n in by.items())
    pools = sum(len(s.get("nodePools") or ()) for s in sections)
    closed = f"; {plural(pools, 'NodePool')} closed by budgets" if pools else ""
    return f"{plural(sum(by.values()), 'node')} kept ({words}{closed})"


PARTS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "pending": _pending_part, "budgets": _budgets_part, "drains": _drains_part, "karpenter": _karpenter_part,
    "queued": _queued_part, "scaledown": _scaledown_part, "evictions": _evictions_part}
ROWS: dict[str, Callable[[Mapping[str, Any]], Lines]] = {
    "pending": pod_lines, "budgets": budget_lines, "drains": drain_lines}
# The sections whose lines are their own, not one block of lines per row.
SECTION_LINES: dict[str, Callable[[Mapping[str, Any]], Lines]] = {
    "karpenter": karpenter_lines, "queued": queued_lines, "scaledown": scaledown_lines, "evictions": evictions_lines}
TITLES: dict[str, Callable[[Mapping[str, Any]], str]] = {"drains": _drains_title, "evictions": _evictions_title}


# One row's lines in every section (the page's row says the first, as the text does).
ROW_LINES: dict[str, Callable[[Mapping[str, Any]], Lines]] = {
    **ROWS, "queued": workload_lines, "scaledown": scaledown_node_lines, "karpenter": karpenter_node_lines,
    "evictions": eviction_row_lines}


def section_blocks(s: Mapping[str, Any]) -> list[Block]:
    """A section that ran: its title with its few words, then its rows (none: nothing held)."""
    words = TITLES.get(s["name"], PARTS[s["name"]])(s)
    head = Block(Text(f"{s['title']}: {words}", style="bold"))
    rows = SECTION_LINES[s["name"]](s) if s["name"] in SECTION_LINES else \
        [line for row in s.get("rows") or () for line in ROWS[s["name"]](row)]
    if s["name"] == "drains" and not s.get("checked"):
        rows = [(0, "No node is cordoned (--drain-check checks every node's drain).")]
    return [head, lines_block(rows, gap=False)] if rows else [head]


def render(doc: Mapping[str, Any]) -> list[Block]:
    blocks = [Block(Text(summary(doc), style="bold"), gap=False)]
    for s in ordered(doc):
        blocks += section_blocks(s)
    skipped = [(0, f"{s['title']}: skipped: {s['skipped']}") for s in doc.get("sections") or () if s.get("skipped")]
    if skipped:
        blocks.append(lines_block(skipped))
    return blocks


def print_report(doc: Mapping[str, Any], console: Console) -> None:
    """The report as text on `console` (plain when not a terminal)."""
    print_blocks(render(doc), console)
