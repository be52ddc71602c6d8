"""`kexplain kueue` in words, read only from the `-o json` document: the summary, each Workload's
state, why each pending one waits (flavors, quota, preemption candidates), fixes and events."""
from __future__ import annotations

from typing import Any, Mapping

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from kexplain.apimachinery.quantity import parse_quantity
from kexplain.kueue.workload.topology_domains import stored_domains
from kexplain.render.kueue_provisioning import provisioning_blocks
from kexplain.render.blocks import Block, indented_line, lines_block, numbered_line, print_blocks
from kexplain.render.style import Look, plural, quantity
from kexplain.render.words import tables

INDENT = 2

VERDICTS, SKIPS, RULES, MODES, MODES_SEARCH_WENT_ON, CANDIDATE_WORDS, SUGGESTIONS = tables(
    "kueue", "VERDICTS", "SKIPS", "RULES", "MODES", "MODES_SEARCH_WENT_ON", "CANDIDATE_WORDS", "SUGGESTIONS")


def _values(values: Mapping[str, Any]) -> dict[str, str]:
    out = {}
    for k, v in values.items():
        if isinstance(v, Mapping):
            v = ", ".join(f"{kk}={vv}" for kk, vv in v.items())
        elif isinstance(v, (list, tuple)):
            v = ", ".join(str(x) for x in v)
        out[k] = str(v)
    return out


def jobs_submitted(doc: Mapping[str, Any]) -> int:
    """The jobs of the pass: a pod group's pods are one job (one Workload), as Kueue sees them."""
    return len({(j.get("kind"), j.get("namespace"), "group", j["podGroup"]) if j.get("podGroup") else
                (j.get("kind"), j.get("namespace"), "name", j.get("name")) for j in doc.get("jobs") or ()})


def summary_blocks(doc: Mapping[str, Any], look: Look) -> list[Block]:
    workloads = doc.get("workloads") or ()
    reserved = sum(1 for w in workloads if w.get("quotaReserved") and not w.get("inputAdmitted"))
    pending = sum(1 for w in workloads if not w.get("quotaReserved"))
    preempted = sum(1 for w in workloads if w.get("preempted"))
    text = (f"Kueue {doc.get('kueueVersion')}: {plural(jobs_submitted(doc), 'job')} submitted; "
            f"{plural(reserved, 'Workload')} admitted now, {pending} pending"
            + (f", {preempted} preempted" if preempted else "")
            + f"; {plural(int(doc.get('cycles') or 0), 'scheduling cycle')}.")
    return [Block(Text(text, style="bold"), gap=False)]


def _state(w: Mapping[str, Any]) -> str:
    if w.get("preempted") or w.get("evicted"):      # (else its Evicted reason: PodsReadyTimeout, Deactivated...)
        why = next((c.get("reason") for c in w.get("conditions") or () if c.get("type") == "Evicted"), None)
        return f"evicted ({'preempted' if w.get('preempted') or not why else why})"
    if w.get("quotaReserved"):
        flavors = sorted({f"{r}={f}" for psa in w.get("podSetAssignments") or () for r, f in (psa.get("flavors") or {}).items()})
        how = "admitted before" if w.get("inputAdmitted") else "admitted"
        if w.get("admissionChecks") and not any(c.get("type") == "Admitted" and c.get("status") == "True"
                                                for c in w.get("conditions") or ()):
            how = "quota reserved, waiting for admission checks,"
        return f"{how} in {w.get('clusterQueue')}" + (f" ({', '.join(flavors)})" if flavors else "")
    cond = next((c for c in w.get("conditions") or () if c.get("type") == "QuotaReserved"), None)
    return f"pending ({cond.get('reason')})" if cond else "pending (not tried)"


def workloads_block(doc: Mapping[str, Any], look: Look) -> list[Block]:
    rows = [(f"{w.get('namespace')}/{w.get('name')}", str(w.get("queueName") or ""), str(w.get("priority", "")),
             _state(w)) for w in doc.get("workloads") or ()]
    jobs = [j for j in doc.get("jobs") or () if j.get("error")]
    if not rows and not jobs:
        return []
    out = [Block(_workloads_table(rows, look))]
    if jobs:
        out.append(lines_block([(0, f"{j.get('kind')} {j.get('namespace')}/{j.get('name')}: no Workload: "
                                    f"{j.get('error')}") for j in jobs]))
    return out


STATE_MIN, STATE_WORD_MAX = 16, 30       # the STATE column's least width (it wraps; its longest word whole up to 30)
GAP = 3                 # between two columns
HEADERS = ("WORKLOAD", "LOCALQUEUE", "PRIORITY", "STATE")


def _workloads_table(rows: list[tuple[str, str, str, str]], look: Look) -> Table:
    """Names never wrap: the four columns when the longest name fits whole beside the others
    (LOCALQUEUE and PRIORITY at their widths, STATE wrapping but its words whole); else two, the
    queue and priority said in STATE's cell (a name wider than the console less STATE_MIN folds)."""
    longest = max(len(r[0]) for r in [("WORKLOAD", "", "", ""), *rows])
    others = [max([len(HEADERS[i]), *(len(r[i]) for r in rows)]) for i in (1, 2)]
    word = max((len(w) for r in rows for w in r[3].split()), default=0)
    table = look.table("Workloads")
    if longest + sum(others) + max(STATE_MIN, min(word, STATE_WORD_MAX)) + 3 * GAP <= look.width:
        table.add_column("WORKLOAD", no_wrap=True, width=longest)
        table.add_column("LOCALQUEUE", no_wrap=True)
        table.add_column("PRIORITY", no_wrap=True)
        table.add_column("STATE", overflow="fold")
        for row in rows:
            table.add_row(*row)
        return table
    table.add_column("WORKLOAD", no_wrap=True, overflow="fold", width=min(longest, look.width - STATE_MIN - GAP))
    table.add_column("STATE", overflow="fold")
    for name, queue, prio, state in rows:
        table.add_row(name, f"{state}; LocalQueue {queue or '-'}, priority {prio}")
    return table


def _quota_lines(q: Mapping[str, Any]) -> list[tuple[int, str]]:
    r = q.get("resource", "")

    def n(key: str) -> str:
        return quantity(r, q.get(key))

    head = (f"- {r}: wants {n('request')}" + (f" (after {n('previousPodSets')} of earlier pod sets)"
                                              if q.get("previousPodSets") not in (None, "0") else "")
            + f"; nominal {n('nominal')}, used {n('used')}, available {n('available')}"
            + f", at most {n('maxCapacity')}")
    for limit in ("borrowingLimit", "lendingLimit"):
        if q.get(limit) is not None:
            head += f"; {limit} {n(limit)}"
    lines = [(3, head)]
    if q.get("overCapacity"):
        lines.append((4, f"{n('overCapacity')} more than it could ever have, borrowing included"))
    elif q.get("short"):
        lines.append((4, f"{n('short')} more needed"))
    if q.get("borrowingLevel"):
        lines.append((4, _borrowing(q)))
    lenders = q.get("lenders") or ()
    if lenders:
        told = ", ".join(f"{lender['kind']} {lender['name']} ({quantity(r, lender['unused'])} unused, "
                         f"{quantity(r, lender['lendable'])} lendable)" for lender in lenders)
        lines.append((4, f"in the cohort: {told}"))
    if q.get("preemptionTargets"):
        lines.append((4, f"preemption would evict {', '.join(q['preemptionTargets'])}"))
    return lines


def _borrowing(q: Mapping[str, Any]) -> str:
    """Whether the flavor's quota borrows: never under borrowingLimit 0 (the request goes past
    the nominal quota, which that limit forbids), else `would` while it does not fit."""
    level = q.get("borrowingLevel")
    if q.get("borrowingLimit") is not None and _zero(q["borrowingLimit"]):
        return "goes past its nominal quota: it cannot borrow from the cohort (borrowingLimit 0)"
    if q.get("short") or q.get("overCapacity") or q.get("preemptionMode") != "fit":
        return f"would borrow from the cohort (level {level})"
    return f"borrows from the cohort (level {level})"


def _zero(text: Any) -> bool:
    try:
        return parse_quantity(str(text)) == 0
    except ValueError:
        return False


def _trial_lines(t: Mapping[str, Any]) -> list[tuple[int, str]]:
    flavor = t.get("flavor") or ""
    if t.get("skipped"):
        taint = t.get("taint") or {}
        taint_text = f"{taint.get('key')}{'=' + taint['value'] if taint.get('value') else ''}:{taint.get('effect')}"
        why = SKIPS.get(t["skipped"], t["skipped"]).format(taint=taint_text, keys=", ".join(t.get("flavorLabelKeys") or ()),
                                                             resource=t.get("resource"))
        return [(2, f"- {('flavor ' + flavor) if flavor else t.get('resource')}: skipped, {why}")]
    went_on = t.get("searchWentOn")
    mode = t.get("mode", "")
    # a mode the search did not keep is what the flavor would have given, not what it gives
    text = f"- flavor {flavor}: {(MODES_SEARCH_WENT_ON if went_on else {}).get(mode) or MODES.get(mode, mode)}"
    text += f"; the search went on ({RULES.get(went_on, went_on)})" if went_on else "; the search stopped here"
    lines = [(2, text)]
    for q in t.get("quotas") or ():
        lines += _quota_lines(q)
    return lines


def _queue_lines(queue: Mapping[str, Any]) -> list[tuple[int, str]]:
    ahead = queue.get("ahead") or ()
    text = (f"Queue: ClusterQueue {queue.get('clusterQueue')} ({queue.get('strategy')}), "
            f"{queue.get('position')} of {queue.get('of')}")
    if ahead:
        shown = ", ".join(ahead[:5]) + (f" and {len(ahead) - 5} more" if len(ahead) > 5 else "")
        text += f"; ahead: {shown}"
    if queue.get("setAside"):
        text += "; set aside as inadmissible until the ClusterQueue or its cohort changes"
    lines = [(1, text)]
    if queue.get("blockedBy"):
        lines.append((2, f"StrictFIFO: waits behind {queue['blockedBy']}, which does not fit"))
    if queue.get("clusterQueueInactive"):
        lines.append((2, "the ClusterQueue is inactive: its heads are not taken"))
    lines += [(3, f"- admission check {c['name']} is not Active"
                  + (f": {c['reason']}: {c['message']}" if c.get("reason") else "")) for c in queue.get("inactiveChecks") or ()]
    return lines + _afs_lines(queue.get("admissionFairSharing"))


def _num(value: Any) -> str:
    return format(value, "g") if isinstance(value, float) else str(value)


def _afs_lines(afs: Mapping[str, Any] | None) -> list[tuple[int, str]]:
    """Admission fair sharing: the LocalQueues by usage, which Kueue orders by before priority."""
    if not afs:
        return []
    lines = [(2, "admission fair sharing: heads go by their LocalQueue's usage first (lowest first), "
                 "then priority and age")]
    for lq in afs.get("localQueues") or ():
        parts = ", ".join(f"{k} {_num(v)}" for k, v in (lq.get("consumed") or {}).items()) or "nothing"
        text = f"- {lq['localQueue']}: usage {_num(lq['usage'])} (consumed {parts}"
        if lq.get("penalty"):
            text += ", plus this pass's admissions: " + ", ".join(f"{k} {_num(v)}" for k, v in lq["penalty"].items())
        text += f"; weight {_num(lq['weight'])})"
        if lq["localQueue"] == afs.get("localQueue"):
            text += " <- this Workload's"
        lines.append((3, text))
    return lines


def _preemption_lines(p: Mapping[str, Any]) -> list[tuple[int, str]]:
    policy = (f"withinClusterQueue {p.get('withinClusterQueue')}, reclaimWithinCohort {p.get('reclaimWithinCohort')}, "
              f"borrowWithinCohort {p.get('borrowWithinCohort')}"
              + (f" (maxPriorityThreshold {p['maxPriorityThreshold']})" if "maxPriorityThreshold" in p else ""))
    lines = [(1, f"Preemption ({policy}):")]
    candidates = p.get("candidates") or ()
    if not candidates:
        lines.append((2, "no admitted Workload in the ClusterQueue or its cohort"))
    lines += [(2, f"- {c['workload']} ({c['clusterQueue']}, priority {c['priority']}): "
                  f"{CANDIDATE_WORDS.get(c['verdict'], c['verdict'])}"
                  + (f" ({', '.join(c['refusedBy'])})" if c.get("refusedBy") else "")) for c in candidates]
    lines += [(2, f"- and {count} more: {CANDIDATE_WORDS.get(verdict, verdict)}")
              for verdict, count in sorted((p.get("leftOut") or {}).items())]
    if p.get("fairSharing"):
        lines += _fair_sharing_lines(p["fairSharing"])
    return lines


def _share(view: Mapping[str, Any]) -> str:
    """A weighted share as a person reads it: at most two decimals."""
    text = str(view.get("share"))
    try:
        value = float(text)
    except ValueError:
        return text
    return text if value == float("inf") else f"{value:.2f}".rstrip("0").rstrip(".")


def _share_note(view: Mapping[str, Any]) -> str:
    return ", ".join([*([view["dominantResource"]] if view.get("dominantResource") else []),
                      f"weight {view.get('weight')}"])


def _fair_sharing_lines(fair: Mapping[str, Any]) -> list[tuple[int, str]]:
    """Fair sharing's part: each ClusterQueue's weighted share (the pending one's also with it
    admitted), then each candidate a strategy weighed and the comparison that decided it."""
    lines = [(1, f"Fair sharing (preemptionStrategies {', '.join(fair.get('strategies') or ())}): "
                 "the weighted dominant resource share of each ClusterQueue of the cohort")]
    for q in fair.get("clusterQueues") or ():
        text = f"- {q['name']}: {_share(q['before'])} ({_share_note(q['before'])})"
        if q.get("after"):
            text += f"; {_share(q['after'])} with this Workload admitted ({_share_note(q['after'])})"
        lines.append((2, text))
    for d in fair.get("decisions") or ():
        mine, theirs = _share(d["preemptorAfter"]), d["targetNode"]
        if d["strategy"] == "LessThanOrEqualToFinalShare":
            rule = (f"{d['preemptorNode']}'s share with this Workload ({mine}) "
                    f"{'<=' if d['allowed'] else '>'} {theirs}'s after losing it ({_share(d['targetAfter'])})")
        else:
            rule = (f"{d['preemptorNode']}'s share with this Workload ({mine}) "
                    f"{'<' if d['allowed'] else '>='} {theirs}'s now ({_share(d['targetBefore'])})")
        lines.append((2, f"- {d['workload']}: {d['strategy']} {'allows' if d['allowed'] else 'refuses'} it: {rule}"))
    return lines


def _node_text(n: Mapping[str, Any]) -> str:
    if n.get("excluded"):
        return f"{n['node']}: left out ({n['excluded']})"
    limit = n.get("limitedBy") or {}
    text = f"{n['node']}: room for {plural(int(n.get('fit') or 0), 'pod')}"
    if limit:
        text += (f" ({limit['resource']}: {limit['free']} free, {limit['perPod']} per pod"
                 + (f", {limit['usedByTAS']} held by admitted Workloads" if limit.get("usedByTAS") else "") + ")")
    return text


def topology_lines(topo: Mapping[str, Any]) -> list[tuple[int, str]]:
    """A pod set's topology placement: where it went, or per level the domains closest and why."""
    if topo.get("placed"):
        assignment = topo.get("assignment") or {}
        where = ", ".join(f"{'/'.join(d['values'])} ({d['count']})" for d in assignment.get("domains") or ())
        return [(2, f"- topology: placed on {where}")]
    lines = [(2, f"- topology: {topo.get('reason')}")]
    for lv in topo.get("closest") or ():
        lines.append((3, f"{lv['level']}: closest"))
        for d in lv.get("domains") or ():
            lines.append((4, f"- {'/'.join(d['domain'])}: {_domain_fit(d)}"))
            lines += [(5, _node_text(n)) for n in d.get("nodes") or ()]
            if d.get("nodesNotShown"):
                lines.append((5, f"and {plural(int(d['nodesNotShown']), 'Node')} more"))
    fit = topo.get("largestFit")
    if fit:
        where = ", ".join(f"{'/'.join(d['values'])} ({d['count']})" for d in fit.get("domains") or ())
        leader = ", ".join(f"{'/'.join(d['values'])} ({d['count']})" for d in fit.get("leaderDomains") or ())
        lines.append((3, f"with {plural(int(fit['count']), 'pod')} it fits (verified: {where}"
                      + (f"; leader: {leader})" if leader else ")")))
    return lines


def _domain_fit(d: Mapping[str, Any]) -> str:
    """A closest domain's count; for a pod set group, whether the leader fits and who falls short."""
    text = f"{plural(int(d['fit']), 'pod')} fit"
    if "leaderFits" not in d:
        return f"{text}, {d['short']} short"
    if not d["leaderFits"]:
        return f"{text} alone; the leader fits no Node of it"
    text += f" alone, {d['fitWithLeader']} beside the leader"
    return text + (f"; {d['short']} worker(s) short" if d.get("shortOf") == "workers" else "")


def why_blocks(doc: Mapping[str, Any], look: Look) -> list[Block]:
    out = []
    for item in (doc.get("explanation") or {}).get("workloads") or ():
        never = item.get("neverAdmitted")
        out.append(Block(Text(f"Why {item['workload']} is {VERDICTS.get(item['verdict'], item['verdict'])}"
                              + ("; and it can never be admitted" if never else ""), style="bold")))
        if item.get("message"):
            out.append(Block(Text(f"  Kueue: {item['message']}"), whole=True, gap=False))
        lines: list[tuple[int, str]] = []
        if item.get("queueError") and item.get("verdict") != "Inadmissible":
            lines.append((1, f"Not queued: {item['queueError']}"))
        if item.get("queue"):
            lines += _queue_lines(item["queue"])
        if never:
            lines.append((1, f"Never admitted, whatever the usage: no flavor of ClusterQueue "
                             f"{item.get('clusterQueue')} can take pod set {never.get('podSet')}"))
            for t in never.get("trials") or ():
                lines += _trial_lines(t)
        if item.get("partialAdmission"):
            pa = item["partialAdmission"]
            lines.append((1, f"Partial admission tried: {pa['counts']} of {pa['fullCounts']} pods"))
        for ps in item.get("podSets") or ():
            requests = ", ".join(f"{r} {quantity(r, v)}" for r, v in (ps.get("requests") or {}).items())
            lines.append((1, f"Pod set {ps['name']}: {plural(int(ps['count']), 'pod')}"
                             + (f", each requesting {requests}" if requests else "")))
            for t in ps.get("trials") or ():
                lines += _trial_lines(t)
            if ps.get("topology"):
                lines += topology_lines(ps["topology"])
        if item.get("preemption"):
            lines += _preemption_lines(item["preemption"])
        if lines:
            out.append(lines_block(lines, gap=False))
    return out


def _suggestion_text(s: Mapping[str, Any]) -> str:
    template = SUGGESTIONS.get(s.get("kind", ""), s.get("kind", ""))
    try:
        return template.format(**_values(s.get("values") or {}))
    except (KeyError, IndexError):
        return f"{s.get('kind')}: {s.get('values')}"


def suggestion_text(s: Mapping[str, Any]) -> str:
    """A verified fix in words (`kexplain cluster`'s rows say their first as `kexplain kueue` does)."""
    return _suggestion_text(s)


def suggestions_blocks(doc: Mapping[str, Any], look: Look) -> list[Block]:
    if "suggestions" not in doc:
        return []
    found = doc.get("suggestions") or ()
    if not found:
        return [Block(Text("No single change was verified to admit the pending Workloads.", style="bold"))]
    out = [Block(Text("What would admit them (each change verified by running Kueue's cycles again)", style="bold"))]
    for number, s in enumerate(found, start=1):
        text = _suggestion_text(s)
        verified = s.get("verified") or {}
        admits = verified.get("admits") or ()
        out.append(Block(Group(numbered_line(number, f"{s.get('workload')}: {text}"),
                               indented_line(2, f"admits {', '.join(admits)} in ClusterQueue {verified.get('clusterQueue')}")),
                         gap=False))
    return out


def waiting_blocks(doc: Mapping[str, Any], look: Look) -> list[Block]:
    """The changes verified to make room that other Workloads would take first: why a fix of the
    Workload run alone is not among the suggestions."""
    found = doc.get("suggestionsWaiting") or ()
    if not found:
        return []
    out = [Block(Text("Not enough alone (verified: Kueue admits other Workloads first)", style="bold"))]
    for s in found:
        behind = ", ".join((s.get("verified") or {}).get("waitsBehind") or ())
        out.append(Block(Group(indented_line(0, f"- {s.get('workload')}: {_suggestion_text(s)}"),
                               indented_line(2, f"admits {behind} first; {s.get('workload')} would still wait "
                                                f"behind {'it' if ', ' not in behind else 'them'}")), gap=False))
    return out


def _check(c: Mapping[str, Any]) -> str:
    return f"{c.get('state')}" + (f" ({c['message']})" if c.get("message") else "")


def _domains(domains: Any) -> str:
    return ", ".join(f"{'/'.join(d.get('values') or ())} ({d.get('count')})" for d in domains or ()) or "none"


def _stored_lines(w: Mapping[str, Any]) -> list[tuple[int, str]]:
    """One given Workload's stored check states and topology domains beside the pass's."""
    stored = w.get("stored") or {}
    lines = [(0, f"- {w.get('namespace')}/{w.get('name')}:")]
    computed = {c.get("name"): c for c in w.get("admissionChecks") or ()}
    for check in stored.get("admissionChecks") or ():
        now = computed.get(check.get("name"))
        lines.append((2, f"check {check.get('name')}: stored {_check(check)}; now "
                         + (_check(now) if now is not None else "not on the Workload")))
    assigned = {psa.get("name"): psa.get("topologyAssignment") for psa in w.get("podSetAssignments") or ()}
    for pod_set, topology in (stored.get("topologyDomains") or {}).items():
        now = stored_domains(assigned.get(pod_set)) if assigned.get(pod_set) else None
        lines.append((2, f"pod set {pod_set} topology ({', '.join(topology.get('levels') or ())}): stored "
                         f"{_domains(topology.get('domains'))}; now "
                         + (_domains(now) if now is not None else "no topology assignment")))
    return lines


def stored_blocks(doc: Mapping[str, Any], look: Look) -> list[Block]:
    """The given Workloads' admission check states and topology assignments as stored, beside the pass's."""
    shown = [w for w in doc.get("workloads") or () if w.get("stored")]
    if not shown:
        return []
    lines = [line for w in shown for line in _stored_lines(w)]
    return [Block(Text("As stored, beside kexplain's pass", style="bold")), lines_block(lines, gap=False)]


def multikueue_blocks(doc: Mapping[str, Any], look: Look) -> list[Block]:
    """The Workloads waiting for a MultiKueue check: what the worker clusters do is not seen here."""
    lines = [(0, f"- {w.get('namespace')}/{w.get('name')}: check {c.get('name')} {_check(c)}: {c['note']}")
             for w in doc.get("workloads") or () for c in w.get("admissionChecks") or () if c.get("note")]
    if not lines:
        return []
    return [Block(Text("MultiKueue", style="bold")), lines_block(lines, gap=False)]


def events_blocks(doc: Mapping[str, Any], look: Look) -> list[Block]:
    """Kueue's events, one per line: `OBJECT: TYPE REASON: MESSAGE`."""
    events = doc.get("events") or ()
    if not events:
        return []
    lines = [(0, f"- {e.get('object')}: {e.get('type')} {e.get('reason')}: {e.get('message')}") for e in events]
    return [Block(Text("Events", style="bold")), lines_block(lines, gap=False)]


def render(doc: Mapping[str, Any], look: Look) -> list[Block]:
    return [*summary_blocks(doc, look), *workloads_block(doc, look), *why_blocks(doc, look),
            *provisioning_blocks(doc, look), *suggestions_blocks(doc, look), *waiting_blocks(doc, look),
            *stored_blocks(doc, look), *multikueue_blocks(doc, look), *events_blocks(doc, look)]


def print_pass(doc: Mapping[str, Any], console: Console) -> None:
    """The document as text on `console` (plain when not a terminal)."""
    look = Look(plain=not console.is_terminal, width=console.width)
    print_blocks(render(doc, look), console)
