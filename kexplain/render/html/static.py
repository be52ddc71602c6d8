"""What the page says without its script: per trace the verdict, the FailedScheduling event,
the top nodes (or the rejected ones by reason), the search, preemption and the fix
suggestions; for many pods the table of where they went; for lint the findings.

This is also what a printer prints. Everything is read from the trace (the same figures as the
terminal view: `kexplain.render.views`, `preemption`, `suggestions`), written as plain HTML.
The script adds the interactive parts into the `data-mount` places.
"""
from __future__ import annotations

import io
import re
from html import unescape
from typing import Any, Mapping

from kexplain.explain.describe import gate
from kexplain.render.consoles import text_console
from kexplain.render.dra_notes import dra_notes
from kexplain.render.evicted import (headline, kubelet_sentences, now_sentences, now_words, ranking_now,
                                     removed_by, removed_sentences)
from kexplain.render.html.autoscaler import autoscaler_section, does_html
from kexplain.render.queue import pending_line, queue_line, scheduler_line
from kexplain.render.html.karpenter import does_html as karpenter_does, karpenter_section
from kexplain.render.html.kueue import anchor, jobs_sections, kueue_section
from kexplain.render.kueue_chain import held, template_words
from kexplain.render.kubelet_pressure import pressure_sentence
from kexplain.render.live import held_heading, held_summary
from kexplain.render.html.markup import Html, el, esc, join, names, node_link, table
from kexplain.render.node import filter_words, node_verdict, score_words
from kexplain.render.preemption import preemption_view
from kexplain.render.style import quantities, short
from kexplain.render.suggestions import suggestion_rows
from kexplain.render.table import print_trace
from kexplain.render.views import (REJECTED, STOP_ERROR, STOP_FIRST, missing_prefilter_state, never_reason, no_nodes,
                                   prefilter_rejection, random_tie, ranking, rejection_groups, search_figures,
                                   tie_rule, admission_text)
from kexplain.render.devices_view import allocation, class_groups, why_groups

Trace = Mapping[str, Any]

TOP_NODES = 10          # feasible nodes in the table without script (the script lists every node)
NAMES_PER_REASON = 12   # node names per reason without script
DEVICE_GROUPS = 12      # groups of nodes in the devices section
TEXT_WIDTH = 100        # the text view's width

# A verdict's mark: the colour is never the only sign of it.
STATUS_MARK = {"Scheduled": "\u2713", "Unschedulable": "\u2717", "Gated": "\u2016", "Error": "\u26a0",
               "Failed": "\u2717"}      # (Failed: a bound pod its kubelet rejects)


def status_badge(status: str) -> Html:
    return el("span", f"{STATUS_MARK.get(status, '?')} {status}", cls=f"badge st-{status}")


def pod_name(trace: Trace) -> str:
    pod = trace.get("pod") or {}
    return f"{pod.get('namespace')}/{pod.get('name')}"


def trace_section(trace: Trace, i: int, heading: str | None = None,
                  kueue: Mapping[str, Any] | None = None) -> Html:
    """One trace: everything the page says of one pod; `kueue`: the answer for its job, when
    Kueue answered for the job the pod is a template of (in the overview)."""
    parts: list[Any] = [
        el("h2", heading or "Pod ", el("span", pod_name(trace), cls="name"), " ", _badge(trace, kueue),
           id=f"t{i}-h"),
        *_no_pod(trace, kueue),
        *_reapplied(trace.get("reapplied")),
        *_removed(trace, i),
        *kueue_section(trace, i),
        *_verdict(trace, i),
        *_event(trace),
        *_live(trace),
        el("h3", "Nodes", id=f"t{i}-nodes"),
        *_nodes(trace, i),
        el("div", cls="mount", data_mount="nodes"),
        *_devices(trace, i),
        *_search(trace, i),
        *_preemption(trace, i),
        *autoscaler_section(trace, i),
        *karpenter_section(trace, i),
        *_suggestions(trace, i),
        _text_view(trace),
    ]
    parts.append(_node_briefs(trace, i, Html("".join(parts))))
    return el("section", *parts, cls="trace", id=f"t{i}", data_trace=i, aria_labelledby=f"t{i}-h")


def _reapplied(reapplied: Mapping[str, Any] | None) -> list[Html]:
    """Its workload applied onto the one the cluster runs: what its controllers do (`reapplied`)."""
    message = (reapplied or {}).get("message")
    return [el("p", f"{_object_name((reapplied or {}).get('object') or {})} {message}", cls="note")] if message else []


def _badge(trace: Trace, kueue: Mapping[str, Any] | None) -> Html:
    """The verdict's badge; a template's (no pod created, the job held) says so, not the
    scheduler's verdict for a pod that does not exist; a removed pod's says it was evicted, by
    whom and why (the verdict now follows in its section)."""
    if held(kueue or trace.get("kueue")):
        return el("span", f"{STATUS_MARK['Gated']} Held by Kueue", cls="badge st-Gated")
    removal = trace.get("eviction")
    if removal:
        verb, _, rest = headline(removal).partition(" by ")
        return join([el("span", f"{STATUS_MARK['Failed']} {verb}", cls="badge st-Failed"),
                     el("span", f" by {rest}", cls="removed-by")])
    if isinstance(trace.get("notCreated"), str):
        return el("span", f"{STATUS_MARK['Gated']} No pod created", cls="badge st-Gated")
    return status_badge(trace["result"]["status"])


def _no_pod(trace: Trace, kueue: Mapping[str, Any] | None) -> list[Html]:
    """Why a template's section has no pod, and the scheduler's verdict on the template."""
    idle = trace.get("notCreated")
    if not isinstance(idle, str):
        return []
    verdict = trace["result"]["status"]
    if held(kueue):
        assert kueue is not None
        obj = kueue.get("object") or {}
        return [el("p", f"Kueue holds {obj.get('kind')} {obj.get('namespace')}/{obj.get('name')} (",
                   el("a", "its answer", href=f"#{anchor(kueue)}"), f"): {idle}. Its pod template, {template_words(kueue)} as its "
                   f"first pod would meet the cluster, would be {verdict}.", cls="note")]
    return [el("p", f"{idle}: its template, explained as its first pod would meet the cluster, would be {verdict}.",
               cls="note")]


def _removed(trace: Trace, i: int) -> list[Html]:
    """Who removed the pod and why, the kubelet's message taken apart and its node's ranking now,
    in the text's words (`render.evicted`); then what the verdict below answers (now)."""
    removal = trace.get("eviction")
    if not removal:
        return []
    out: list[Html] = [el("h3", f"Removed by {removed_by(removal)}", id=f"t{i}-removed"),
                       *(el("p", line) for line in removed_sentences(removal))]
    if removal.get("kubelet"):
        head, *parts = kubelet_sentences(removal["kubelet"])
        out += [el("p", head), el("ul", *(el("li", p) for p in parts), cls="notes")]
    out += [el("p", line) for line in now_sentences(removal)]
    headers, rows = ranking_now(removal.get("now") or {})
    if rows:
        out.append(table(headers, rows, cls="ranking-now", numeric=[0, *range(2, len(headers) - 1)],
                         caption="Its ranking now (first evicted first; keys compared left to right)"))
    out.append(el("p", now_words(trace), cls="note"))
    return out


# -- the nodes named, in brief (without script) ------------------------------------------------------

_NODE_LINK = re.compile(r'data-trace="(\d+)" data-node="([^"]*)"')


def _node_briefs(trace: Trace, i: int, markup: str) -> Html:
    """Each node a link of the section names, in brief where the link leads without script
    (`#t<i>/node/<name>`); only those named, so the page does not grow with the cluster."""
    named = list(dict.fromkeys(unescape(n) for t, n in _NODE_LINK.findall(markup) if int(t) == i))
    if not named:
        return Html("")
    nodes = (trace.get("details") or {}).get("nodes") or {}
    briefs = [_node_brief(trace, i, n, nodes.get(n) or {}) for n in named]
    return el("div", el("h3", "The nodes named above, in brief", id=f"t{i}-named"),
              el("p", "Where a node's name leads without JavaScript; with it, a name opens the node's full verdict.",
                 cls="note"), *briefs, cls="node-briefs nojs-only")


def _node_brief(trace: Trace, i: int, node: str, facts: Mapping[str, Any]) -> Html:
    zone = f" (zone {facts['zone']})" if facts.get("zone") else ""
    head = el("h4", "Node ", el("span", node, cls="name"), zone)
    known = (facts and facts.get("exists") is not False) or node in (trace.get("filter") or {}) \
        or node in ((trace.get("unexamined") or {}).get("nodes") or ())
    if not known:      # a node a suggested change adds
        return el("section", head, el("p", "Not a node of the cluster: the node a suggested change would add."),
                  cls="node-brief", id=f"t{i}/node/{node}")
    parts: list[Any] = [head, el("p", node_verdict(trace, node))]
    every = (trace.get("filterAll") or {}).get(node) or facts.get("filterAll") or {}
    first = (trace.get("filter") or {}).get(node) or {}
    plugin_facts = facts.get("plugins") or {}
    rows = []
    for plugin, st in every.items():
        if st.get("code") not in (*REJECTED, "Error"):
            continue
        mark = " *" if plugin == first.get("plugin") else ""
        rows.append([plugin + mark, st.get("code", ""),
                     join(["; ".join(st.get("reasons") or ()), _nested(filter_words(plugin, plugin_facts.get(plugin)))])])
    if rows:
        parts.append(table(("plugin", "verdict", "reasons and facts"), rows, cls="plugins",
                           caption="Filter plugins that reject it (* = the scheduler's first failure)"))
    entry = (trace.get("score") or {}).get(node)
    if entry and entry.get("plugins"):
        rows = [(p, str(sc.get("weighted")), _nested(score_words(p, plugin_facts.get(p))))
                for p, sc in entry["plugins"].items()]
        parts.append(table(("plugin", "weighted", "why"), rows, cls="plugins", numeric=[1],
                           caption=f"Score plugins (total {entry.get('total')})"))
    return el("section", *parts, cls="node-brief", id=f"t{i}/node/{node}")


# -- the verdict ------------------------------------------------------------------------------------

def _kubelet_verdict(trace: Trace) -> list[Html]:
    """A pod bound by spec.nodeName (`kexplain.explain.kubelet`): its kubelet's verdict, no cycle."""
    kubelet = trace["kubelet"]
    node = kubelet.get("node")
    facts = (trace.get("details") or {}).get("pod") or {}
    meta = [f"spec.nodeName {node}"]
    if facts:
        meta += [f"requests {quantities(facts.get('requests'))}", f"priority {facts.get('priority', 0)}"]
    if kubelet.get("admitted"):
        evicted = kubelet.get("evicted") or []
        line = f"Runs on {node}: its kubelet admits it" + (f" once it evicts {', '.join(evicted)}" if evicted else "")
    else:
        status = kubelet.get("status") or {}
        line = (f"The kubelet of {node} rejects it: the pod fails (phase {status.get('phase')}, reason "
                f"{status.get('reason')})")
    pressure = pressure_sentence(kubelet)
    return [el("p", join(meta, " \u00b7 "), cls="meta"), el("p", line + ".", cls="verdict"),
            *([el("p", pressure, cls="pressure")] if pressure else []),
            el("p", "The scheduler never sees a pod that names its node: the node's kubelet admits it with its own "
                    "checks (node pressure, resources, node selector and affinity, host ports, NoExecute taints).",
               cls="note")]


def _verdict(trace: Trace, i: int) -> list[Html]:
    if trace.get("kubelet"):
        return _kubelet_verdict(trace)
    result = trace["result"]
    status = result["status"]
    facts = (trace.get("details") or {}).get("pod") or {}
    meta = [f"profile {trace.get('profile')}"]
    if facts:
        meta += [f"requests {quantities(facts.get('requests'))}", f"priority {facts.get('priority', 0)}"]
    out = [el("p", join(meta, " \u00b7 "), cls="meta")]
    admission = admission_text(trace)      # what an admission plugin beyond the defaults gave the pod
    if admission:
        out.append(el("p", admission, cls="meta"))
    line: Any = None
    if status == "Scheduled":
        line = _scheduled(trace, i)
    elif status == "Gated":
        g = gate(trace) or {}
        line = (f"Not scheduled: held back by {g.get('plugin', '?')}: "
                f"{'; '.join(g.get('reasons') or []) or g.get('code', '')} (no scheduling attempt, no event)")
    elif status == "Error":
        line = f"The scheduler would fail with an error: {result.get('error', '')}"
    elif no_nodes(trace):
        line = "The cluster has no nodes."
    else:
        line = "No node can take the pod."
        nominated = (trace.get("postFilter") or {}).get("nominatedNodeName")
        if nominated:
            victims = len((trace.get("postFilter") or {}).get("victims") or ())
            line = join([line[:-1], " now; preemption would nominate ", el("strong", nominated), f" and evict "
                         f"{victims} pod(s) to make room (see ", el("a", "Preemption", href=f"#t{i}-preemption"),
                         ")."])
    out.append(el("p", line, cls="verdict"))
    queued, differs = queue_line(trace), scheduler_line(trace)     # the scheduler's queue, and CA's packing
    if queued:
        out.append(el("p", queued, cls="verdict queue"))
    shown = status == "Unschedulable" or bool(queued or differs)
    does = does_html(trace, i) if shown else None
    if does is not None:        # what the Cluster Autoscaler will do, before the details
        out.append(el("p", does, cls="verdict ca-does"))
    if differs:
        out.append(el("p", differs, cls="note ca-differs"))
    does = karpenter_does(trace, i) if shown else None
    if does is not None:        # ... and Karpenter
        out.append(el("p", does, cls="verdict kp-does"))
    fixes = len(trace.get("suggestions") or ())
    if fixes:
        out.append(el("p", el("a", f"What would make it schedule: {fixes} verified change{'s' if fixes > 1 else ''}",
                              href=f"#t{i}-fixes"), " (below)", cls="fixes-link"))
    pre = prefilter_rejection(trace)
    if pre is not None and status != "Error":
        out.append(el("p", f"PreFilter stopped the cycle before any node was examined: {pre['plugin']} "
                           f"({pre['code']}): {'; '.join(pre.get('reasons') or [])}"))
    if missing_prefilter_state(trace) is not None and (result.get("message") or "").endswith("not found"):
        out.append(el("p", 'The trailing "not found" is the scheduler\'s own: its DynamicResources PostFilter found '
                           "no state because PreFilter stopped before DynamicResources' PreFilter ran.", cls="note"))
    notes = dra_notes(trace)
    if notes:
        out.append(el("ul", *(el("li", n) for n in notes), cls="notes"))
    return out


def _scheduled(trace: Trace, i: int) -> Html:
    result = trace["result"]
    host = result.get("suggestedHost") or ", ".join(result.get("selectedNodes") or ())
    score = trace.get("score") or {}
    if not score:
        return join(["Would be bound to ", el("strong", host), ": the only feasible node found (scoring skipped)"])
    drawn = random_tie(trace)
    if drawn:
        total = (score.get(drawn[0]) or {}).get("total")
        return join([f"Would be bound to one of the {len(drawn):,} nodes tied at the top (score {total}, best of "
                     f"{len(score):,} scored nodes): the tie goes to {tie_rule(trace)}: ",
                     names(i, drawn, NAMES_PER_REASON)])
    selected = [n for n in result.get("selectedNodes") or () if n != host]
    tied = ""
    if selected:
        tied = (f"; tied with {selected[0]}" if len(selected) == 1 else f"; tied with {len(selected):,} other nodes") \
            + f": the tie goes to {tie_rule(trace)}"
    total = (score.get(host) or {}).get("total")
    return join(["Would be bound to ", el("strong", host), f" (score {total}, best of {len(score):,} scored nodes)",
                 tied])


def _event(trace: Trace) -> list[Html]:
    event = (trace.get("kubelet") or {}).get("event")
    if event:       # the kubelet's rejection of a bound pod (no FailedScheduling: no scheduler saw it)
        rows = [(event["type"], event["reason"], event["from"], el("span", event["message"], cls="message"))]
        return [el("h3", "Event"), table(("Type", "Reason", "From", "Message"), rows, cls="event")]
    result = trace["result"]
    if result["status"] != "Unschedulable" or not result.get("message"):
        return []
    rows = [("Warning", "FailedScheduling", trace.get("profile"), el("span", result["message"], cls="message"))]
    return [el("h3", "Event"), table(("Type", "Reason", "From", "Message"), rows, cls="event")]


def _live(trace: Trace) -> list[Html]:
    live = trace.get("live")
    if not isinstance(live, Mapping):
        return []
    out: list[Html] = [el("h3", "What the scheduler said")]
    cond = live.get("podScheduled") or None
    if cond:
        said = f": {cond['message']}" if cond.get("message") else ""
        out.append(el("p", f"PodScheduled={cond.get('status')}, {cond.get('reason') or 'no reason'}{said}"))
    if live.get("agrees") is True:
        out.append(el("p", "\u2713 kexplain agrees with the scheduler.", cls="ok"))
    elif live.get("agrees") is False:
        out.append(el("p", "\u2717 kexplain differs from the scheduler. Possible reasons:", cls="warn"))
    items = [*(live.get("notes") or ()), *(f"Note: {h}" for h in live.get("hints") or ())]
    if items:
        out.append(el("ul", *(el("li", n) for n in items)))
    return out


# -- nodes: the top ones ----------------------------------------------------------------------------

def _nodes(trace: Trace, i: int) -> list[Html]:
    ranked = ranking(trace)
    out: list[Html] = []
    if ranked:
        scored = ranked[0].total is not None
        shown = ranked[:TOP_NODES]
        plugins = list(dict.fromkeys(p for r in ranked for p in r.plugins)) if scored else []
        rows = []
        for r in shown:
            rank = f"{r.rank}" + (" \u2605" if r.chosen else "")
            rows.append([rank, node_link(i, r.node), r.zone or "-"] + ([str(r.total)] if scored else [])
                        + [str((r.plugins.get(p) or {}).get("weighted", "-")) for p in plugins])
        headers = ["#", "node", "zone"] + (["score"] if scored else []) + [
            el("abbr", short(p), title=p) for p in plugins]
        numeric = [0] + list(range(3, len(headers)))
        title = f"Feasible nodes, best first ({len(ranked):,})" if len(ranked) > len(shown) else \
            "Feasible nodes, best first"
        out.append(table(headers, rows, cls="static-nodes", caption=title, numeric=numeric))
        note = "\u2605 = the node the scheduler picks"
        if scored:
            note += "; score = the sum of the plugins' weighted scores (columns: each plugin's weighted score)"
        if len(ranked) > len(shown):
            note += f"; {len(ranked) - len(shown):,} more in the node table"
        out.append(el("p", note, cls="note"))
    groups = rejection_groups(trace)
    if groups:
        rows = []
        for g in groups:
            if g.named:
                which: Any = names(i, g.nodes, NAMES_PER_REASON)
            else:
                which = "(every node)" if trace.get("search") is None else "(not named)"
            reported = f" ({len(g.reported):,} as the scheduler's reason)" if g.named and g.reported else ""
            rows.append([g.reason, g.plugin, f"{g.count:,}{reported}", which])
        out.append(table(("reason", "plugin", "nodes", "node names"), rows, cls="static-rejected",
                         caption="Rejected nodes, by reason", numeric=[2]))
        out.append(el("p", "A node rejected by several plugins is counted under each; \"as the scheduler's "
                           "reason\": the nodes for which it is the first failing plugin, what the "
                           "FailedScheduling message counts.", cls="note"))
    if not ranked and not groups:
        out.append(el("p", "No node was examined."))
    return out


def _devices(trace: Trace, i: int) -> list[Html]:
    """Why DynamicResources cannot allocate the claims, nodes whose devices say the same grouped
    (`devices_view`), its allocation on the chosen node, the device classes per node."""
    groups = why_groups(trace)
    found = allocation(trace)
    classes = class_groups(trace)
    if not (groups or found or classes):
        return []
    out: list[Html] = [el("h3", "Devices", id=f"t{i}-devices")]
    if groups:
        out.append(el("p", "Why DynamicResources cannot allocate the claims, the nodes whose devices say the same "
                           "grouped; a node's name leads to each of its devices and why it can or cannot serve "
                           "the request.", cls="note"))
        for sig, nodes in groups[:DEVICE_GROUPS]:
            out.append(el("div", el("p", f"{len(nodes):,} node{'s' if len(nodes) > 1 else ''}: ",
                                    names(i, nodes, NAMES_PER_REASON)), _nested(sig), cls="dev-group"))
        if len(groups) > DEVICE_GROUPS:
            rest = sum(len(n) for _, n in groups[DEVICE_GROUPS:])
            out.append(el("p", f"and {len(groups) - DEVICE_GROUPS:,} more group(s) of {rest:,} node(s): the table of "
                               "every node lists them (Rejected by: DynamicResources)", cls="note"))
    if found is not None:
        host, lines = found
        out.append(el("p", "On ", node_link(i, host), ":"))
        out.append(el("ul", *(el("li", line) for line in lines)))
    if classes:
        rows = [(cls, f"{total:,}", f"{used:,}", f"{free:,}", names(i, nodes, NAMES_PER_REASON))
                for (cls, total, used, free), nodes in classes]
        out.append(table(("class", "devices", "in use", "free", "nodes"), rows, cls="device-classes",
                         caption="Device classes the pod asks for, per node", numeric=[1, 2, 3]))
    return out


def _nested(lines: tuple[str, ...] | list[str]) -> Html:
    """Lines indented two spaces per level, as nested lists (nothing for no line)."""
    if not lines:
        return Html("")
    out: list[str] = []
    depth = -1
    for line in lines:
        level = (len(line) - len(line.lstrip(" "))) // 2
        level = min(level, depth + 1)
        if level > depth:
            out.append("<ul>" * (level - depth))
        else:
            out.append("</li>" + "</ul></li>" * (depth - level))
        out.append("<li>" + esc(line.strip()))
        depth = level
    out.append("</li>" + "</ul></li>" * depth + "</ul>" if depth >= 0 else "")
    return Html("".join(out))


# -- the search -------------------------------------------------------------------------------------

def _search(trace: Trace, i: int) -> list[Html]:
    fig = search_figures(trace)
    if fig is None:
        return []
    rows: list[tuple[str, Any]] = [("nodes in the cluster", f"{fig.num_all_nodes:,}")]
    if fig.outside_prefilter:
        rows.append(("left out by PreFilter", f"{fig.outside_prefilter:,} (the search covered only the nodes "
                                              "PreFilter allowed, in an unspecified order)"))
    rows.append(("feasible nodes to find", f"{fig.num_feasible_nodes_to_find:,} (numFeasibleNodesToFind)"))
    if fig.tried_first is not None:
        rows.append(("tried first", join([node_link(i, fig.tried_first),
                                          f" ({fig.first_why}), filtered alone: "
                                          + ("it fit" if fig.stop == STOP_FIRST else "it did not fit")])))
    start: Any = f"index {fig.start_index}"
    if fig.start_node and fig.deterministic:
        start = join([start, " (", node_link(i, fig.start_node), ")"])
    rows.append(("round-robin started at", start))
    if fig.stop_node:
        stop: Any = join([node_link(i, fig.stop_node), f", after {fig.examined:,} node(s)"])
        if fig.stop == STOP_ERROR:
            stop = join([stop, f", where {fig.error_plugin or 'a Filter plugin'} failed with an error"])
    else:
        stop = "no node examined"
    rows.append(("stopped at", stop))
    passed: Any = f"{fig.feasible_found:,}"
    if fig.dropped:
        passed = join([passed, " (", node_link(i, fig.dropped),
                       " was one too many: dropped, not scored, first in line next time)"])
    rows.append(("passed Filter", passed))
    rows.append(("next pod starts at", f"index {fig.next_start_index:,}"))
    never = "0: every node was looked at" if not fig.never_examined else \
        f"{fig.never_examined:,}: {never_reason(fig)}"
    rows.append(("never examined", never))
    if fig.evaluated and fig.never_examined and not fig.evaluation_error:
        rows.append(("would pass Filter", f"{fig.unexamined_feasible:,} of the {fig.never_examined:,}"))
        if fig.best_unexamined is not None:
            tie = not fig.higher and fig.best_unexamined_total == fig.winner_total
            answer = "yes" if fig.higher else "only by a tie" if tie else "no"
            against = (f", as much as the winner's ({fig.winner_total}); the tie would go to {tie_rule(trace)}"
                       if tie else f" against the winner's {fig.winner_total}")
            rows.append(("could they win?", join([
                f"{answer}: scored together with the nodes that were scored, the best of them, ",
                node_link(i, fig.best_unexamined), f", gets {fig.best_unexamined_total}{against}"
                + (f"; {len(fig.higher):,} would have scored higher" if fig.higher else "")])))
    elif fig.evaluation_error:
        rows.append(("could they win?", f"could not be evaluated: {fig.evaluation_error}"))
    dl = el("dl", *(Html(el("dt", k) + el("dd", v)) for k, v in rows), cls="figures")
    return [el("h3", "The search"), el("div", cls="mount", data_mount="search"), dl]


# -- preemption -------------------------------------------------------------------------------------

def _preemption(trace: Trace, i: int) -> list[Html]:
    view = preemption_view(trace)
    if view is None:
        return []
    out: list[Html] = [el("h3", "Preemption", id=f"t{i}-preemption"),
                       el("p", "DefaultPreemption's dry run: nothing is evicted.", cls="note")]
    if view.nominated:
        out.append(el("p", join(["Would nominate ", node_link(i, view.nominated),
                                 f" and evict {len(view.victims)} pod(s); the pod is scheduled there once they "
                                 "are gone."])))
        rows = [(v.pod, "-" if v.priority is None else str(v.priority), node_link(i, v.node),
                 ", ".join(v.pdbs) or "-") for v in view.victims]
        out.append(table(("victim", "priority", "node", "PodDisruptionBudget violated"), rows, cls="victims",
                         numeric=[1]))
    else:
        out.append(el("p", f"Would not help: {view.message.removeprefix('preemption: ')}"))
    candidates = list((trace.get("preemption") or {}).get("candidates") or ())
    if candidates:
        rows = []
        for c in candidates:
            pdbs = sorted({b for v in c.get("victimDetails") or () for b in v.get("pdbs") or ()})
            victims = [f"{v.get('pod')} (priority {v.get('priority')})" for v in c.get("victimDetails") or ()] or \
                list(c.get("victims") or ())
            mark = " \u2605" if c.get("node") == view.nominated else ""
            rows.append([join([node_link(i, c.get("node", "")), mark]), ", ".join(victims) or "-",
                         ", ".join(pdbs) or "-", c.get("lostOn") or ("chosen" if mark else "-")])
        out.append(table(("candidate node", "victims", "PodDisruptionBudgets violated", "lost on"), rows,
                         cls="candidates", caption="Candidates (\u2605 = nominated)"))
    if view.why_not:
        rows = [(reason, names(i, nodes, NAMES_PER_REASON)) for reason, nodes in view.why_not.items()]
        out.append(table(("why not", "nodes"), rows, cls="why-not", caption="Why not the other nodes"))
    return out


# -- suggestions ------------------------------------------------------------------------------------

def _suggestions(trace: Trace, i: int) -> list[Html]:
    found = list(trace.get("suggestions") or ())
    if not found:
        return []
    by_ca = any((s.get("verified") or {}).get("by") == "autoscaler" for s in found)
    out: list[Html] = [el("h3", "What would make it schedule", id=f"t{i}-fixes"),
                       el("p", "Each change verified by scheduling the changed input again"
                          + (", or by running the Cluster Autoscaler's loop again." if by_ca else "."), cls="note")]
    items: list[Html] = []
    for label, text in suggestion_rows(trace):
        if not text:
            if items:
                out.append(el("ol", *items, start=_start(out)))
                items = []
            out.append(el("h4", label))
        else:
            items.append(el("li", text))
    if items:
        out.append(el("ol", *items, start=_start(out)))
    opened = [s for s in found if s.get("openedNodes")]
    if opened:
        rows = [(str(n), s.get("description", ""), names(i, s.get("openedNodes") or (), NAMES_PER_REASON))
                for n, s in enumerate(found, 1) if s.get("openedNodes")]
        out.append(el("details", el("summary", "The nodes each change opens"),
                      table(("#", "change", "opens"), rows, numeric=[0])))
    return out


def _start(parts: list[Html]) -> int:
    """The number of the next list item (the lists continue each other's numbering)."""
    return 1 + sum(p.count("<li>") for p in parts if p.startswith("<ol"))


# -- the text view ----------------------------------------------------------------------------------

def _text(draw) -> str:
    buf = io.StringIO()
    console = text_console(buf, width=TEXT_WIDTH, force_terminal=False, color_system=None)
    draw(console)
    return buf.getvalue().rstrip("\n")


def _text_view(trace: Trace) -> Html:
    """The explanation as the terminal prints it, plain: every section, for whoever prefers it."""
    text = _text(lambda c: print_trace(trace, c))
    return el("details", el("summary", "The explanation as text (as the terminal prints it)"),
              el("pre", text, cls="text"), cls="textview")


# -- many pods --------------------------------------------------------------------------------------

def overview(doc: Mapping[str, Any], traces: list[Trace]) -> Html:
    """Where the pods went: per object of the file (its copies, per zone and node), or per pod
    of a list without placements (`--pending`); each pod linked to its explanation."""
    index = {pod_name(t): i for i, t in enumerate(traces)}
    placements = doc.get("placements")
    parts: list[Any] = [el("h2", "Pods", id="overview-h")]
    if placements:
        rows = []
        for p in placements:
            obj = p.get("object") or {}
            name = f"{obj.get('namespace')}/{obj.get('name')}"
            pods = p.get("pods") or []
            traced = [pp for pp in pods if f"{obj.get('namespace')}/{pp.get('name')}" in index]
            links = join((el("a", pp.get("name"), href=f"#t{index[obj.get('namespace') + '/' + pp.get('name')]}")
                          for pp in traced), ", ")
            zones = ", ".join(f"{z} {c:,}" for z, c in (p.get("zones") or {}).items())
            priority = "-" if p.get("priority") is None else str(p.get("priority"))    # (-: its pod refused)
            rows.append([obj.get("kind"), name, priority, f"{p.get('fit', 0):,} of {p.get('replicas', 0):,}",
                         f"{len(p.get('nodes') or {}):,}", zones or "-", links or "-"])
        parts.append(table(("kind", "object", "priority", "fit", "nodes", "per zone", "explained"), rows,
                           cls="placements", numeric=[2, 4]))
        parts += [el("p", note, cls="note") for p in placements for note in admitted_notes(p)]
        parts += jobs_sections(placements)      # once per job Kueue answered for (a JobSet's Jobs share one)
        retried = doc.get("retries") or []
        again = {_object_name(r.get("object") or {}) for r in retried}
        parts += [el("p", note + (" The scheduling queue retried them after the pass: see the table below."
                                  if _object_name(p.get("object") or {}) in again else ""), cls="untried")
                  for p in placements if (note := untried_note(p))]
        if retried:
            parts.append(table(("object", "pod", "where it ended up", "brought back when"),
                               [(_object_name(r.get("object") or {}), r.get("pod"),
                                 f"bound to {r['node']}" if r.get("node") else
                                 f"still unschedulable: {r.get('message') or ''}",
                                 f"{r.get('requeuedBy')} (round {r.get('round')})") for r in retried],
                               caption="Retried by the scheduling queue (after the pass in creation order: where "
                                       "the pods end up)"))
        parts.append(el("p", "Explained: the pods whose explanation is kept in full (of replicas: the first copy, the "
                             "first that does not fit and the last); every pod's explanation in brief (its verdict, "
                             "search, best nodes and rejections) opens from the table of each pod below.", cls="note"))
    else:       # a pod per row, as the text's list has it: its verdict in the scheduler's queue
        rows = []
        for i, t in enumerate(traces):
            status, host, why = pending_line(t)
            rows.append([el("a", pod_name(t), href=f"#t{i}"), status_badge(status), host or "-", why])
        parts.append(table(("pod", "verdict", "would go to", "why"), rows, cls="pods"))
    parts += held_workloads(doc.get("kueueHeld") or ())
    skipped = doc.get("skipped") or []
    if skipped:
        parts.append(table(("pod", "skipped because"), [(s.get("pod"), s.get("reason")) for s in skipped],
                           caption="Skipped"))
    parts.append(el("div", cls="mount", data_mount="overview"))
    return el("section", *parts, id="overview", aria_labelledby="overview-h")


def held_workloads(held: Any) -> list[Html]:
    """The Workloads Kueue holds whose pods are not created yet (`kueueHeld`), a row each as the
    text's list has them (`render.live.held_summary`), each badged held: work waits, no all-clear."""
    if not held:
        return []
    rows = []
    for h in held:
        name, workload, verdict, why = held_summary(h)
        rows.append([name, workload, el("span", f"{STATUS_MARK['Gated']} {verdict}", cls="badge st-Gated"), why])
    return [el("h3", held_heading(held), id="kueue-held"),
            table(("object", "workload", "Kueue", "why"), rows, cls="kueue-held")]


def _object_name(obj: Mapping[str, Any]) -> str:
    return f"{obj.get('kind')} {obj.get('namespace')}/{obj.get('name')}"


def admitted_notes(placement: Mapping[str, Any]) -> list[str]:
    """What happened to an object's pods before the scheduler met them (HPA replicas, no pod
    created, FailedCreate), as the table's section says it."""
    name = _object_name(placement.get("object") or {})
    out: list[str] = []
    hpa = placement.get("horizontalPodAutoscaler") or {}
    if hpa.get("message"):
        out.append(str(hpa["message"]))
    if (placement.get("reapplied") or {}).get("message"):      # applied onto the one the cluster runs
        out.append(f"{name} {placement['reapplied']['message']}")
    if placement.get("idle"):
        out.append(f"{name}: {placement['idle']}; its template is explained as its first pod would meet the "
                   "cluster, and takes no room")
    if placement.get("failedCreate"):
        out.append(f"{name}: {int(placement.get('created') or 0):,} of {int(placement.get('replicas') or 0):,} pods "
                   f"created (FailedCreate: {placement['failedCreate']})")
    return out


def untried_note(placement: Mapping[str, Any]) -> str | None:
    """Why the copies after the first that does not fit were never scheduled (None: all were):
    each later copy is the same pod under another name (`explain.placement.iter_placements`); a
    StatefulSet's `podManagementPolicy` says whether they exist yet."""
    pods = placement.get("pods") or []
    replicas = int(placement.get("created", placement.get("replicas")) or 0)      # (the pods its controller made)
    if len(pods) >= replicas or not pods or pods[-1].get("node"):
        return None
    obj = placement.get("object") or {}
    stopped = pods[-1].get("name")
    first, rest = len(pods) + 1, replicas - len(pods)
    which = f"copy {first}" if rest == 1 else f"copies {first} to {replicas:,} ({rest:,} of them)"
    if obj.get("kind") != "StatefulSet":
        why = (f"{stopped} is not bound, so the cluster stays as {stopped} found it, and each later copy, the same pod "
               "under another name, would be rejected the same way")
    elif placement.get("podManagementPolicy") == "Parallel":
        answered = "; each one's autoscaler answer is in the section below" if placement.get("autoscalers") else ""
        why = (f"{stopped} is not bound, and with podManagementPolicy Parallel the StatefulSet's controller creates "
               f"every ordinal at once: they are pending as {stopped} is, in the cluster as {stopped} found it, each "
               f"differing from it only by its ordinal: its name, labels and claims{answered}")
    else:
        why = (f"{stopped} is not bound, and with podManagementPolicy OrderedReady (the default) the StatefulSet's "
               "controller creates the next ordinal only once it runs")
    return (f"{_object_name(obj)}: {which} of {replicas:,} were never "
            f"scheduled: kexplain places the copies one by one and stops at the first that does not fit, "
            f"{stopped} (copy {len(pods)}): {why}.")


# -- lint -------------------------------------------------------------------------------------------

SEVERITY_MARK = {"error": "\u2717", "warning": "\u26a0", "info": "\u2139"}


def lint_section(doc: Mapping[str, Any], explained: Mapping[tuple[str, int], list[int]]) -> Html:
    """The findings, each linked to the explanations of its object's pods when it has some."""
    summary = doc.get("summary") or {}
    counts = ", ".join(f"{summary.get(k, 0):,} {k}" for k in ("files", "objects", "scheduled", "errors",
                                                              "warnings", "info"))
    rows = []
    for f in doc.get("findings") or ():
        obj = f.get("object") or {}
        ref = " ".join(x for x in (obj.get("kind"), "/".join(y for y in (obj.get("namespace"), obj.get("name")) if y))
                       if x) or "-"
        where = f"{f.get('file')}" + (f":{f['line']}" if f.get("line") else "")
        links = explained.get((str(f.get("file")), int(f.get("document") or 0)), [])
        message: Any = f.get("message", "")
        if f.get("suggestions"):
            message = join([message, el("ul", *(el("li", s) for s in f["suggestions"]))])
        sev = str(f.get("severity"))
        rows.append([el("span", f"{SEVERITY_MARK.get(sev, '')} {sev}", cls=f"sev sev-{sev}"), f.get("rule"), where,
                     ref, message, join((el("a", f"explanation {n + 1}", href=f"#t{n}") for n in links), ", ") or "-"])
    parts: list[Any] = [el("h2", "Findings", id="findings-h"), el("p", counts, cls="meta")]
    for w in doc.get("warnings") or ():
        parts.append(el("p", f"warning: {w}", cls="warn"))
    parts.append(table(("severity", "rule", "where", "object", "message", "explained"), rows, cls="findings"))
    parts.append(el("div", cls="mount", data_mount="findings"))
    return el("section", *parts, id="findings", aria_labelledby="findings-h")

