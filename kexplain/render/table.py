"""The human view of a trace (`-o table`, `-o wide`): the verdict, ranked feasible nodes,
rejected nodes grouped by reason, the search, preemption and fix suggestions; and
`print_trace`, which prints it, or with `--node` one node's verdict (`node`).

Everything shown comes from the trace (see `views` for the figures); a renderer only lays
them out, as blocks (`blocks`).
"""
from __future__ import annotations

import textwrap
from typing import Any, Iterable, Mapping

from rich.console import Console, Group
from rich.cells import cell_len
from rich.padding import Padding
from rich.text import Text

from kexplain.render.blocks import VERDICT_STYLE, Block, Laid, print_blocks
from kexplain.render.cluster_autoscaler import autoscaler_blocks, does_blocks, render_node_group
from kexplain.render.devices_view import device_blocks
from kexplain.render.karpenter_section import does_blocks as karpenter_does, karpenter_blocks, section_blocks
from kexplain.render.kueue_chain import print_answer
from kexplain.render.kubelet_pressure import pressure_sentence
from kexplain.render.dra_notes import dra_notes
from kexplain.render.evicted import eviction_blocks
from kexplain.render.facts import rejection as rejection_words
from kexplain.render.node import render_node
from kexplain.render.preemption import preemption_blocks
from kexplain.render.queue import queue_line, scheduler_line
from kexplain.render.style import GAP, Look, names_layout, quantities, quantity, short, wrap
from kexplain.render.suggestions import suggestion_blocks
from kexplain.render.volcano_pod import volcano_blocks
from kexplain.explain.describe import gate
from kexplain.render.views import (STOP_ERROR, STOP_FIRST, Ranked, RejectionGroup, SearchFigures, SharedReads,
                                   missing_prefilter_state, never_reason, no_nodes, prefilter_rejection, random_tie,
                                   ranking, rejection_groups, search_figures, shorten, tie_rule, version_text,
                                   admission_text)

TOP_NODES = 10          # feasible nodes listed in the default view
NODES_PER_REASON = 8    # node names listed per reason in the default view


# Why the cluster has no nodes, for a cluster read from files (`explain` names the case).
NO_NODES_HINT = ("The cluster has no nodes: --nodes was not given, or its files hold no Node object. Pass the "
                 "cluster's Nodes (and its bound Pods, PVCs, ...) with --nodes FILE|DIR, for example the output "
                 "of kubectl get nodes -o yaml.")


def render(trace: Mapping[str, Any], wide: bool = False, plain: bool = False, width: int = 80, *,
           no_nodes_hint: str | None = None) -> list[Block]:
    """The blocks of the default (or wide) view of one trace. `no_nodes_hint`: what to say when
    the cluster has no nodes (default NO_NODES_HINT)."""
    look = Look(plain=plain, wide=wide, width=width)
    if trace.get("volcano"):        # a pod Volcano schedules: its session's answer (`kexplain.app.volcano_pod`)
        return volcano_blocks(trace, look=look)
    removed = eviction_blocks(trace, look)      # who removed the pod, first: then the scheduler's answer now
    if trace.get("kubelet"):        # a pod bound by spec.nodeName: no cycle ran, its kubelet's verdict
        return removed + _kubelet_summary(trace) + (_resources(trace, look) if wide else [])
    blocks = [*removed, *_summary(trace, look), *_no_nodes(trace, no_nodes_hint, width), *_feasible(trace, look),
              *_rejected(trace, look), *device_blocks(trace, look)]
    if wide:
        blocks += _resources(trace, look)
    blocks += _search(trace, look)
    blocks += preemption_blocks(trace, look)
    blocks += autoscaler_blocks(trace, look)
    blocks += karpenter_blocks(trace, look)
    blocks += suggestion_blocks(trace, look)
    return blocks


def print_trace(trace: Mapping[str, Any], console: Console, wide: bool = False, *,
                node: str | None = None, no_nodes_hint: str | None = None, node_group: str | None = None,
                node_pool: str | None = None) -> None:
    """One trace's explanation: the default or wide view, or `node`'s (`node_group`'s) full verdict;
    `no_nodes_hint`: what to say when the cluster has no nodes."""
    plain = not console.is_terminal
    wide = wide or (node is not None and bool(trace.get("kubelet")))
    if node_group is not None:
        print_blocks(render_node_group(trace, node_group, plain=plain, width=console.width), console)
    elif node_pool is not None and trace.get("karpenter"):
        print_blocks(section_blocks(trace["karpenter"], Look(plain=plain, width=console.width), node_pool), console)
    elif node is not None and trace.get("volcano"):     # a Volcano pod: its predicates on that node
        print_blocks(volcano_blocks(trace, node=node), console)
    elif node is not None and not trace.get("kubelet"):     # (a bound pod: its kubelet's node, as wide shows it)
        blocks = render_node(trace, node, plain=plain, width=console.width) + _no_nodes(trace, no_nodes_hint,
                                                                                        console.width)
        print_blocks(blocks, console)
    else:
        if trace.get("kueue"):      # Kueue's answer comes first: it decides whether the pod is created
            print_answer(trace["kueue"], console)
            if trace["kueue"].get("idle"):      # (a held operator's pod set: no pod exists)
                console.print(Text(f"{trace['kueue']['idle']}; its template, explained without taking room:"))
            console.print()
        print_blocks(render(trace, wide=wide, plain=plain, width=console.width, no_nodes_hint=no_nodes_hint),
                     console)


def _no_nodes(trace: Mapping[str, Any], hint: str | None, width: int) -> list[Block]:
    """The hint when the cluster has no nodes (the scheduler only says "no nodes available"),
    broken between words only: a path longer than the line stays whole, to be copied."""
    if not no_nodes(trace):
        return []
    lines = textwrap.wrap(hint or NO_NODES_HINT, width, break_long_words=False, break_on_hyphens=False)
    return [Block(Text("\n".join(lines), style="yellow"), whole=True)]


# -- the summary -----------------------------------------------------------------------------------

def _kubelet_summary(trace: Mapping[str, Any]) -> list[Block]:
    """A pod bound by spec.nodeName (`kexplain.explain.kubelet`): no scheduling cycle, its
    kubelet's verdict: where it runs, or the event it records and the pod's status."""
    kubelet = trace["kubelet"]
    pod, status, node = trace["pod"], trace["result"]["status"], kubelet["node"]
    head = Text.assemble(("Pod ", ""), (f"{pod['namespace']}/{pod['name']}", "bold"),
                         (f" (spec.nodeName {node}): ", ""), (status, VERDICT_STYLE.get(status, "bold")))
    lines: list[Block] = [Block(head, gap=False), *_pod_facts(trace, "(kubelet ")]
    bypass = ("The scheduler never sees a pod that names its node: the node's kubelet admits it with its own "
              "checks (node pressure, resources, node selector and affinity, host ports, NoExecute taints; not a "
              "cordon nor NoSchedule taints, which are the scheduler's).")
    pressure = pressure_sentence(kubelet)
    if pressure:
        lines.append(Block(Text(pressure), gap=False))
    if kubelet["admitted"]:
        evicted = kubelet.get("evicted") or []
        said = (f" once it evicts {', '.join(evicted)} (a critical pod: the kubelet frees what it needs)"
                if evicted else "")
        lines.append(Block(Text(f"Runs on {node}: its kubelet admits it{said}."), gap=False))
        lines.append(Block(Text(bypass, style="dim"), gap=False))
        return lines
    pod_status = kubelet["status"]
    lines.append(Block(Text(f"The kubelet of {node} rejects it: the pod fails (phase {pod_status['phase']}, reason "
                            f"{pod_status['reason']})."), gap=False))
    lines.append(Block(Text(bypass, style="dim"), gap=False))
    event = kubelet["event"]
    lines += _events(event["type"], event["reason"], event["from"], event["message"])
    lines.append(Block(Text(f"Status: {pod_status['phase']}, reason {pod_status['reason']}: {pod_status['message']}"),
                       whole=True))
    return lines


def _pod_facts(trace: Mapping[str, Any], follower: str) -> list[Block]:
    """Dim: the version followed (its kube-scheduler, or for a bound pod its `follower`, the
    kubelet), then the pod's requests and priority."""
    version = version_text(trace.get("kubernetesVersion"))
    facts = (trace.get("details") or {}).get("pod")
    lines = [version.replace("(kube-scheduler ", follower)] if version else []
    admission = admission_text(trace)       # what an admission plugin beyond the defaults gave the pod
    if admission:
        lines.append(admission)
    if facts:
        lines.append(f"Requests {quantities(facts.get('requests'))}; priority {facts.get('priority', 0)}")
    return [Block(Text(line, style="dim"), gap=False) for line in lines]


def _summary(trace: Mapping[str, Any], look: Look) -> list[Block]:
    result = trace["result"]
    pod = trace["pod"]
    status = result["status"]
    head = Text.assemble(("Pod ", ""), (f"{pod['namespace']}/{pod['name']}", "bold"),
                         (f" (profile {trace['profile']}): ", ""), (status, VERDICT_STYLE.get(status, "bold")))
    lines: list[Block] = [Block(head, gap=False)]
    queue = queue_line(trace)      # the pods ahead of it in the scheduler's queue change its verdict
    if queue:
        lines.append(Block(Text(wrap(queue, look.width), style="bold"), gap=False))
    differs = scheduler_line(trace)     # CA's packing parts from the queue on it
    if status == "Unschedulable" or queue or differs:       # what the autoscalers will do, before the details
        lines += does_blocks(trace, look)
        lines += karpenter_does(trace, look)
    if differs:
        lines.append(Block(Text(wrap(differs, look.width)), gap=False))
    lines += _pod_facts(trace, "(kube-scheduler ")
    lines += [Block(Text(text, style="dim"), gap=False) for text in pod_note_lines(trace, look.width)]
    if status == "Scheduled":
        lines.append(Block(Text(_scheduled_line(trace)), gap=False))
    elif status == "Gated":
        g = gate(trace) or {}
        lines.append(Block(Text(f"Not scheduled: held back by {g.get('plugin', '?')}: "
                                f"{'; '.join(g.get('reasons') or []) or g.get('code', '')}"), gap=False))
    elif status == "Error":
        lines.append(Block(Text(f"The scheduler would fail with an error: {result.get('error', '')}",
                                style="red"), gap=False))
    pre = prefilter_rejection(trace)
    if pre is not None and status != "Error":
        lines.append(Block(Text(f"PreFilter stopped the cycle before any node was examined: {pre['plugin']} "
                                f"({pre['code']}): {'; '.join(pre.get('reasons') or [])}"), gap=False))
        lines += [Block(Padding(Text(line), (0, 0, 0, 2)), gap=False)       # what the message does not name
                  for line in rejection_words(trace.get("rejection"))]
    if status == "Unschedulable" and result.get("message"):
        lines += _events("Warning", "FailedScheduling", trace["profile"], result["message"])
        lines += _not_found(trace, pre)
    lines += [Block(Text(note, style="yellow")) for note in dra_notes(trace)]
    return lines


def pod_note_lines(trace: Mapping[str, Any], width: int = 80) -> list[str]:
    """What the pod got beyond its manifest (`explain.pod_notes`: a LimitRange's requests and
    limits, its controller's labels), each wrapped at `width`."""
    out = []
    limits = trace.get("limitRanger")
    if limits:
        names = list(limits.get("limitRanges") or ())
        source = (f"LimitRange{'s' if len(names) > 1 else ''} {', '.join(names)}" if names
                  else "a LimitRange of its namespace")
        out.append("\n".join(textwrap.wrap(f"Set by {source} (LimitRanger): {limits.get('set', '')}", width,
                                           subsequent_indent="  ", break_long_words=False, break_on_hyphens=False)))
    labels = trace.get("labels")
    if labels:
        out.append("\n".join(label_lines("Labels", labels, width)))
    return out


def label_lines(head: str, labels: Mapping[str, str], width: int = 80) -> list[str]:
    """`head k1=v1,k2=v2` as `kubectl get pods --show-labels` prints labels (sorted by key, joined
    by commas), wrapped at `width` between labels (continuation lines indented)."""
    pairs = [f"{k}={v}" for k, v in sorted(labels.items())]
    rows, row = [], head
    for i, pair in enumerate(pairs):
        piece = pair + ("," if i < len(pairs) - 1 else "")
        candidate = f"{row} {piece}" if row == head else row + piece
        if cell_len(candidate) > width:     # on a line of its own (a label longer than a line stays whole)
            rows.append(row)
            row = "  " + piece
        else:
            row = candidate
    return [*rows, row]


def _not_found(trace: Mapping[str, Any], pre: Mapping[str, Any] | None) -> list[Block]:
    """One line on the ". not found" v1.35.4 appends when PreFilter stopped early."""
    if missing_prefilter_state(trace) is None or not trace["result"]["message"].endswith("not found"):
        return []
    where = f" at {pre['plugin']}" if pre is not None else ""
    return [Block(Text(f'The trailing "not found" is the scheduler\'s own: its DynamicResources PostFilter found '
                       f"no state because PreFilter stopped{where} before DynamicResources' PreFilter ran; it is "
                       "not a missing object of yours.", style="dim"), gap=False)]


def _scheduled_line(trace: Mapping[str, Any]) -> str:
    result = trace["result"]
    host = result.get("suggestedHost") or ", ".join(result.get("selectedNodes") or ())
    score = trace.get("score") or {}
    if not score:
        return f"Would be bound to {host}: the only feasible node found (scoring skipped)"
    selected = result.get("selectedNodes") or []
    tied = random_tie(trace)
    if tied:
        total = score.get(tied[0], {}).get("total")
        return (f"Would be bound to one of the {len(tied)} nodes tied at the top (score {total}, best of "
                f"{len(score)} scored nodes), picked at random: {shorten(tied, NODES_PER_REASON)}")
    total = score.get(host, {}).get("total")
    line = f"Would be bound to {host} (score {total}, best of {len(score)} scored nodes)"
    if len(selected) > 1:
        others = [n for n in selected if n != host]
        line += (f"; tied with {others[0]}" if len(others) == 1 else f"; tied with {len(others)} other nodes") + \
            f": the tie goes to {tie_rule(trace)}"
    return line


def _events(kind: str, reason: str, source: str, message: str) -> list[Block]:
    """One event as `kubectl describe pod` lists it, the message unwrapped."""
    rows = [("Type", "Reason", "From", "Message"), ("----", "------", "----", "-------"),
            (kind, reason, source, message)]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = ["  " + "  ".join(r[i].ljust(widths[i]) for i in range(3)) + "  " + r[3] for r in rows]
    return [Block(Text.assemble(("Events:", "bold"))), Block(Text("\n".join(lines[:2])), gap=False),
            Block(Text(lines[2]), whole=True, gap=False)]


# -- feasible nodes ----------------------------------------------------------------------------------

def _feasible(trace: Mapping[str, Any], look: Look) -> list[Block]:
    ranked = ranking(trace)
    if not ranked:
        return []
    scored = ranked[0].total is not None
    shown = ranked if look.wide else ranked[:TOP_NODES]
    zones = any(r.zone for r in ranked)
    plugins: list[str] = []
    if look.wide and scored:
        plugins = list(dict.fromkeys(p for r in ranked for p in r.plugins))
    tied = bool(random_tie(trace))
    rows = []
    for r in shown:
        marked = r.selected if tied else r.chosen
        row = [f"{r.rank}{'*' if marked else ''}", r.node] + ([r.zone or "-"] if zones else [])
        if scored:
            row.append(str(r.total))
        if not plugins:
            row.append(_why(r, ranked) if scored else "the only feasible node: not scored")
        rows.append(row)
    scores = [[str((r.plugins.get(p) or {}).get("weighted", "-")) for p in plugins] for r in shown]
    headers = ["#", "node"] + (["zone"] if zones else []) + (["score"] if scored else [])
    # Node names are never broken: in the wide view, when the plugins' columns leave no room
    # for them, the plugins' scores get a table of their own, row by row the same nodes.
    apart = bool(plugins) and _width([*headers, *map(short, plugins)],
                                     [row + sc for row, sc in zip(rows, scores)]) > look.width
    table = look.table("Feasible nodes, best first")
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("node", no_wrap=True)
    if zones:
        table.add_column("zone", overflow="fold")
    if scored:
        table.add_column("score", justify="right", no_wrap=True)
    if not plugins:
        table.add_column("why this rank", overflow="fold")
    elif not apart:
        for p in plugins:
            table.add_column(short(p), justify="right", no_wrap=True)
    for row, sc in zip(rows, scores):
        table.add_row(*row, *([] if apart else sc))
    blocks = [Block(table)]
    by_plugin: list[Block] = []
    if apart:       # in as many tables as the width needs: a header is never cut
        columns = [[short(p), *(sc[i] for sc in scores)] for i, p in enumerate(plugins)]
        for part in _column_parts(look.width, ["#", *(row[0] for row in rows)], columns):
            t = look.table("Weighted scores per plugin, by rank" if not by_plugin else "(continued)")
            t.add_column("#", justify="right", no_wrap=True)
            for i in part:
                t.add_column(short(plugins[i]), justify="right", no_wrap=True)
            for row, sc in zip(rows, scores):
                t.add_row(row[0], *(sc[i] for i in part))
            by_plugin.append(Block(t))
    notes = []
    if len(shown) < len(ranked):
        notes.append(f"... and {len(ranked) - len(shown)} more (-o wide lists every node)")
    picks = ("* = the nodes tied at the top: the scheduler picks one of them at random" if tied
             else "* = the node the scheduler picks")
    notes.append(picks + ("; score = the sum of the plugins' weighted scores" if scored else ""))
    if plugins:
        notes.append("Columns: " + ", ".join(f"{short(p)} = {p} (weight {_weight(ranked, p)})" for p in plugins))
    elif scored and any(r.deciding for r in shown):
        used = list(dict.fromkeys(p for r in shown for p, _ in r.deciding))
        notes.append("Plugins: " + ", ".join(f"{short(p)} = {p}" for p in used if short(p) != p))
    if apart:
        blocks.append(Block(Text("\n".join(notes[:-1]), style="dim"), gap=False))
        blocks += [*by_plugin, Block(Text(notes[-1], style="dim"), gap=False)]
        return blocks
    blocks.append(Block(Text("\n".join(n for n in notes if not n.endswith(": ")), style="dim"), gap=False))
    return blocks


def _width(headers: list[str], rows: list[list[str]]) -> int:
    """The width of a table of these cells, none of them wrapped."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    return sum(widths) + GAP * (len(widths) - 1)


def _weight(ranked: list[Ranked], plugin: str) -> Any:
    return next(((r.plugins.get(plugin) or {}).get("weight") for r in ranked if plugin in r.plugins), "?")


def _why(r: Ranked, ranked: list[Ranked]) -> str:
    if r.against is None:
        return "the only scored node"
    other = next(x for x in ranked if x.node == r.against)
    if r.total == other.total:
        lead = f"tied with #{other.rank}"
        return lead + (": " + _diffs(r.deciding) if r.deciding else "")
    if not r.deciding:
        return f"vs #{other.rank}: no plugin differs"
    word = "over" if r.rank == 1 else "behind"
    return f"{_diffs(r.deciding)} ({word} #{other.rank})"


def _diffs(deciding: Iterable[tuple[str, int]]) -> str:
    return ", ".join(f"{short(p)} {d:+d}" for p, d in deciding)


# -- rejected nodes ----------------------------------------------------------------------------------

def _rejected(trace: Mapping[str, Any], look: Look) -> list[Block]:
    """The rejected nodes' table; one table, laid out once, for the traces that share their groups
    (`rejection_groups`: the pods of one shape, `SharedReads`)."""
    groups = rejection_groups(trace)
    if not groups:
        return []
    unsearched = trace.get("search") is None
    return list(_REJECTED_BLOCKS.get(tuple(groups), lambda: _rejected_blocks(groups, look, unsearched), look,
                                     unsearched))


_REJECTED_BLOCKS = SharedReads()


def _rejected_blocks(groups: list[RejectionGroup], look: Look, unsearched: bool) -> list[Block]:
    limit = None if look.wide else NODES_PER_REASON
    rows = []
    for g in groups:
        if g.named:
            reported = set(g.reported)
            which = shorten([n + ("*" if n in reported else "") for n in g.nodes], limit)
        else:
            which = "(every node)" if unsearched else "(not named)"
        rows.append((g.reason, g.plugin, str(g.count), which))
    # Plugin names are read whole, node names too: the reasons wrap (between words) first.
    plugin_w = max(len("plugin"), *(len(r[1]) for r in rows))
    count_w = max(len("nodes"), *(len(r[2]) for r in rows))
    room = look.width - plugin_w - count_w - 2 * GAP
    layout = names_layout(room, [("reason", "node names"), *((r[0], r[3]) for r in rows)])
    table = look.table("Rejected nodes, by reason")
    if layout.stacked:      # no room for the names beside the reasons: under them
        table.add_column("reason (node names below)", overflow="fold", width=layout.text)
    else:
        table.add_column("reason", overflow="fold", width=layout.text)
    table.add_column("plugin", overflow="fold", width=plugin_w)
    table.add_column("nodes", justify="right", no_wrap=True)
    if not layout.stacked:
        table.add_column("node names", overflow="fold", width=layout.names)
    for reason, plugin, count, which in rows:
        if layout.stacked:
            table.add_row(Group(Text(reason), Padding(Text(which), (0, 0, 0, 2))), plugin, count)
        else:
            table.add_row(reason, plugin, count, which)
    blocks = [Block(Laid(table))]
    if any(g.reported for g in groups if g.named):
        note = ("* = the reason the scheduler itself reported for the node (its first failing plugin, what the "
                "FailedScheduling message counts); every plugin's reasons are listed")
        blocks.append(Block(Text(note, style="dim"), gap=False))
    return blocks


# -- resources (wide) --------------------------------------------------------------------------------

def _resources(trace: Mapping[str, Any], look: Look) -> list[Block]:
    details = trace.get("details") or {}
    nodes: Mapping[str, Any] = details.get("nodes") or {}
    if not nodes:
        return []
    names = [r.node for r in ranking(trace)]
    ranked = set(names)             # (asked for every node: a list would make it quadratic)
    names += [n for n in nodes if n not in ranked and "resources" in nodes[n]]
    names = [n for n in names if "resources" in nodes.get(n, {})]
    resources = list(dict.fromkeys(k for n in names for k in nodes[n]["resources"]))
    cells = {n: [f"{quantity(r, nodes[n]['resources'][r]['requested'])}/"
                 f"{quantity(r, nodes[n]['resources'][r]['allocatable'])}"
                 if r in nodes[n]["resources"] else "-" for r in resources] for n in names}
    blocks: list[Block] = []
    for part in _column_parts(look.width, ["node", *names], [[r, *(cells[n][i] for n in names)]
                                                             for i, r in enumerate(resources)]):
        table = look.table("Resources" if not blocks else "Resources (continued)")
        table.add_column("node", no_wrap=True)
        for i in part:
            table.add_column(resources[i], justify="right", no_wrap=True)
        for n in names:
            table.add_row(n, *[cells[n][i] for i in part])
        blocks.append(Block(table))
    pod = (details.get("pod") or {}).get("requests") or {}
    note = ("Each cell: requested by the node's pods / allocatable. The pod requests "
            + quantities(pod) + ".")
    return blocks + [Block(Text(note, style="dim"), gap=False)]


def _column_parts(width: int, first: list[str], columns: list[list[str]]) -> list[list[int]]:
    """The columns in runs that fit `width` beside the first column (one table per run, the first
    column repeated); a column wider than the room has a run of its own."""
    used = max(cell_len(t) for t in first)
    parts: list[list[int]] = [[]]
    room = used
    for i, column in enumerate(columns):
        w = max(cell_len(t) for t in column)
        if parts[-1] and room + GAP + w > width:
            parts.append([])
            room = used
        parts[-1].append(i)
        room += GAP + w
    return parts if parts[0] else []


# -- the search --------------------------------------------------------------------------------------

def _search(trace: Mapping[str, Any], look: Look) -> list[Block]:
    fig = search_figures(trace)
    if fig is None:
        return []
    grid = look.grid()
    grid.add_row("nodes in the cluster", str(fig.num_all_nodes))
    if fig.outside_prefilter:
        grid.add_row("left out by PreFilter", f"{fig.outside_prefilter} (the search covered only the nodes "
                                               "PreFilter allowed, in an unspecified order)")
    if fig.not_in_cluster:
        grid.add_row("names of no node", f"{fig.not_in_cluster} of the node names PreFilter narrowed the search to "
                                         "(no such node in the cluster)")
    grid.add_row("feasible nodes to find", f"{fig.num_feasible_nodes_to_find} (numFeasibleNodesToFind: "
                                          f"{_to_find_why(fig)})")
    if fig.tried_first is not None:
        grid.add_row("tried first", _first(fig))
    start = f"index {fig.start_index}" + (f" ({fig.start_node})" if fig.start_node and fig.deterministic else "")
    if fig.stop == STOP_FIRST:
        start += ": not used, the node tried first fit"
    grid.add_row("round-robin started at", start)
    stopped = f"{fig.stop_node}, after {fig.examined} node(s)" if fig.stop_node else "no node examined"
    if fig.stop == STOP_ERROR:
        stopped += f", where {fig.error_plugin or 'a Filter plugin'} failed with an error"
    grid.add_row("stopped at", stopped)
    passed = str(fig.feasible_found)
    if fig.dropped:
        passed += f" ({fig.dropped} was one too many: dropped, not scored, first in line next time)"
    elif fig.stop == STOP_ERROR and fig.feasible_found:
        passed += " (not scored: the cycle ended with the error)"
    grid.add_row("passed Filter", passed)
    grid.add_row("next pod starts at", f"index {fig.next_start_index}")
    grid.add_row("never examined", _never(fig))
    for label, text in _unexamined_rows(fig, trace):
        grid.add_row(label, text)
    return [Block(Text("The search", style="bold")), Block(grid, gap=False)]


_FIRST_WHY = {"nominated": "the pod's nominated node (status.nominatedNodeName)",
              "hint": "OpportunisticBatching's hint (from the previous pod's ranking)"}


def _first(fig: SearchFigures) -> str:
    why = _FIRST_WHY.get(fig.first_why or "", "a node")
    outcome = "it fit, so no other node was filtered" if fig.stop == STOP_FIRST else "it did not fit"
    return f"{fig.tried_first}, {why}, filtered alone: {outcome}"


def _to_find_why(fig: SearchFigures) -> str:
    if fig.first_why == "hint" and fig.num_feasible_nodes_to_find == 1:
        return "1, the hinted node alone"
    if fig.num_feasible_nodes_to_find == 1 and fig.num_all_nodes > 1:
        return "1, the profile has no Score plugins"
    if fig.num_all_nodes - fig.outside_prefilter < 100:
        return "every node, below 100 nodes"
    return "from percentageOfNodesToScore, at least 100"


def _never(fig: SearchFigures) -> str:
    """How many nodes the search never reached, and why it stopped before them."""
    if not fig.never_examined:
        return "0: every node was looked at"
    if fig.stop_node is None:
        return str(fig.never_examined)
    return f"{fig.never_examined}: {never_reason(fig)}"


def _unexamined_rows(fig: SearchFigures, trace: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Would a node the search left out have won? (the extra key `unexamined`) Not asked of
    a cycle that ended with an error: no node wins it."""
    if fig.stop == STOP_ERROR or (not fig.never_examined and not fig.dropped):
        return []
    if not fig.evaluated:
        return [("could they win?", "not evaluated")]
    if fig.evaluation_error:
        return [("could they win?", f"could not be evaluated: {fig.evaluation_error}")]
    rows = []
    if fig.never_examined:
        rows.append(("would pass Filter", f"{fig.unexamined_feasible} of the {fig.never_examined}"))
    if fig.best_unexamined is None:
        return rows + [("could they win?", "no: none of them is feasible")]
    left_out = [f"the dropped {fig.dropped}"] if fig.dropped else []
    if fig.unexamined_feasible:
        left_out.append(f"{fig.unexamined_feasible} never examined")
    together = (f"scored together with the nodes that were scored, the best of them, {fig.best_unexamined}, "
                f"gets {fig.best_unexamined_total} against the winner's {fig.winner_total} ({fig.winner})")
    if fig.higher:
        answer = (f"yes: {len(fig.higher)} of the nodes left out ({' and '.join(left_out)}) would have scored "
                  f"higher than the winner; {together}")
    elif fig.best_unexamined_total == fig.winner_total:
        answer = (f"only by a tie: scored together with the nodes that were scored, the best of them, "
                  f"{fig.best_unexamined}, gets {fig.best_unexamined_total}, as much as the winner ({fig.winner}); "
                  f"the tie would go to {tie_rule(trace)}")
    else:
        answer = f"no: {together}"
    return rows + [("could they win?", answer)]
