"""`--node NAME`: one node's full verdict, plugin by plugin, with the facts behind each.

The scheduler's own words (code and reason) sit beside plain ones built from the plugins'
recorded facts (`details.nodes.<node>`): requested against allocatable, the taint and the
toleration that is missing, the skew per domain, the pods in the way, the claim, volume,
zone or limit at fault.
"""
from __future__ import annotations

from typing import Any, Mapping

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from kexplain.render.blocks import VERDICT_STYLE, Block
from kexplain.render.dra_notes import dra_notes
from kexplain.render.facts import describe
from kexplain.render.preemption import preemption_view
from kexplain.render.style import Look, TextTable, quantity
from kexplain.render.views import REJECTED, never_reason, ranking, search_figures, tie_rule, version_text


def render_node(trace: Mapping[str, Any], node: str, plain: bool = False, width: int = 80) -> list[Block]:
    look = Look(plain=plain, width=width)
    pod = trace["pod"]
    facts: Mapping[str, Any] = ((trace.get("details") or {}).get("nodes") or {}).get(node) or {}
    if facts.get("exists") is False:
        return [Block(Text(f"There is no node named {node} in the cluster.", style="bold red"), gap=False)]
    zone = f" (zone {facts['zone']})" if facts.get("zone") else ""
    head = Text.assemble(("Node ", ""), (node, "bold"), (zone, ""), (" for pod ", ""),
                         (f"{pod['namespace']}/{pod['name']}", "bold"), (": ", ""),
                         (trace["result"]["status"], VERDICT_STYLE.get(trace["result"]["status"], "bold")),
                         (" overall", ""))
    blocks = [Block(head, gap=False)]
    version = version_text(trace.get("kubernetesVersion"))
    if version:
        blocks.append(Block(Text(version, style="dim"), gap=False))
    blocks.append(Block(Text(node_verdict(trace, node)), gap=False))
    blocks += [Block(Text(note, style="yellow")) for note in dra_notes(trace)]
    blocks += _filters(trace, node, facts, look)
    blocks += _scores(trace, node, facts, look)
    blocks += _resources(trace, facts, look)
    blocks += _preemption(trace, node)
    return blocks


# -- the verdict on the node ------------------------------------------------------------------------

def node_verdict(trace: Mapping[str, Any], node: str) -> str:
    """The verdict on the node in one sentence (what `--node` says first; the HTML page too)."""
    first = (trace.get("filter") or {}).get(node)
    result = trace["result"]
    if trace.get("search") is None:
        pre = next((p for p in trace.get("preFilter") or () if p.get("code") in REJECTED), None)
        if pre is not None:
            return (f"Not examined: PreFilter plugin {pre['plugin']} rejected the pod for every node: "
                    f"{'; '.join(pre.get('reasons') or [])}")
        return "Not examined: the scheduling cycle never reached the nodes."
    if first is None:
        return _never_examined(trace, node)
    if first.get("code") == "Error":
        return (f"Filter failed with an error here: {first.get('plugin')}: {'; '.join(first.get('reasons') or [])}"
                " - the scheduler stopped at this node and the cycle ended with the error (* below).")
    if first.get("code") != "Success":
        return (f"Rejected by {first.get('plugin')} ({first.get('code')}): {'; '.join(first.get('reasons') or [])}"
                " - the reason the scheduler reports for this node (* below).")
    for r in ranking(trace):
        if r.node == node:
            if r.total is None:
                return "Feasible: the only feasible node found, so not scored: the pod goes here."
            tied = f" - tied at the top: the tie goes to {tie_rule(trace)}"
            picked = " - the scheduler picks it" if r.chosen else (tied if r.selected else "")
            line = f"Feasible: rank {r.rank} of {len(trace.get('score') or {})}, score {r.total}{picked}."
            if r.deciding and r.against:
                diffs = ", ".join(f"{p} {d:+d}" for p, d in r.deciding)
                line += f" Against {r.against}: {diffs}."
            return line
    fig = search_figures(trace)
    if fig is not None and fig.dropped == node:
        return ("Feasible, but found after the search already had enough feasible nodes: dropped, not scored "
                "(first in line for the next pod).")
    if result["status"] == "Error" and not trace.get("score"):
        return "Passed Filter; not scored: the cycle ended with the error."
    if result["status"] != "Scheduled":
        return "Passed Filter."
    return "Feasible (not scored)."


def _never_examined(trace: Mapping[str, Any], node: str) -> str:
    narrowed = trace.get("preFilterNodeNames")
    if narrowed is not None and node not in narrowed:
        return "Never examined: not among the nodes PreFilter narrowed the search to."
    extra = trace.get("unexamined") or {}
    fig = search_figures(trace)
    text = f"Never examined: {never_reason(fig) if fig is not None else 'the search stopped before it'}."
    st = (extra.get("filter") or {}).get(node)
    if st is None:
        return text
    if st.get("code") != "Success":
        return (f"{text} Had it been, {st.get('plugin')} would have rejected it: "
                f"{'; '.join(st.get('reasons') or [])}.")
    total = (extra.get("totals") or {}).get(node)
    winner = extra.get("winner") or {}
    if total is None:
        return f"{text} It would have passed Filter."
    if total == winner.get("total"):
        return (f"{text} It would have passed Filter and, scored together with the others, got {total}: as much "
                f"as the winner {winner.get('node')}, a tie that would go to {tie_rule(trace)}.")
    better = "higher than" if total > winner.get("total", 0) else "lower than"
    return (f"{text} It would have passed Filter and, scored together with the others, got {total}: "
            f"{better} the winner {winner.get('node')} ({winner.get('total')}).")


# -- plugin by plugin ----------------------------------------------------------------------------------

def _filters(trace: Mapping[str, Any], node: str, facts: Mapping[str, Any], look: Look) -> list[Block]:
    every = (trace.get("filterAll") or {}).get(node) or facts.get("filterAll")
    first = (trace.get("filter") or {}).get(node) or {}
    plugin_facts: Mapping[str, Any] = facts.get("plugins") or {}
    if not every:
        if not plugin_facts:
            return []
        every = {p: None for p in plugin_facts}
    own = first.get("plugin") if first.get("code") in (*REJECTED, "Error") else None
    title = "Filter plugins, each run on its own" + (" (* = the scheduler's first failure)" if own else "")
    return [Block(Group(*plugin_lines(title, every, plugin_facts, own)))]


def plugin_lines(title: str, every: Mapping[str, Any], plugin_facts: Mapping[str, Any],
                 own: str | None) -> list[RenderableType]:
    """Every Filter plugin's verdict with its facts in words, `own` marked `*`: a node's
    (`--node`) or a node group's template (`--node-group`)."""
    lines: list[RenderableType] = [Text(title, style="bold")]
    width = max((len(p) for p in every), default=0) + 2
    skipped = []
    for plugin, st in every.items():
        words = filter_words(plugin, plugin_facts.get(plugin))
        if st is not None and st.get("code") == "Skip" and not words:
            skipped.append(plugin)
            continue
        code = "-" if st is None else st.get("code", "")
        verdict = Text(code, style="red" if code in (*REJECTED, "Error") else ("green" if code == "Success" else None))
        if st is not None and st.get("reasons"):
            verdict.append(": " + "; ".join(st["reasons"]))
        head = TextTable.grid()
        head.add_column(width=width, no_wrap=True, style="bold")
        head.add_column()
        head.add_row(plugin + (" *" if plugin == own else ""), verdict)
        lines.append(head)
        for w in words:     # a line's own leading blanks nest it (kept when it wraps)
            lines.append(Padding(Text(w.lstrip(" ")), (0, 0, 0, 4 + len(w) - len(w.lstrip(" ")))))
    if skipped:
        lines.append(Text(f"Nothing to check for this pod (PreFilter returned Skip): {', '.join(skipped)}",
                          style="dim"))
    return lines


def _scores(trace: Mapping[str, Any], node: str, facts: Mapping[str, Any], look: Look) -> list[Block]:
    entry = (trace.get("score") or {}).get(node)
    if entry is None:
        return []
    plugin_facts: Mapping[str, Any] = facts.get("plugins") or {}
    plugins: Mapping[str, Mapping[str, int]] = entry["plugins"]
    lines: list[RenderableType] = [Text(f"Score plugins: raw score -> normalized x weight = weighted "
                                        f"(total {entry['total']})", style="bold")]
    if not plugins:
        lines.append(Text("none: PreScore skipped every Score plugin, so every node scores 0"))
        return [Block(Group(*lines))]
    width = max(len(p) for p in plugins) + 2
    digits = {k: max(len(str(s[k])) for s in plugins.values()) for k in ("raw", "normalized", "weight", "weighted")}
    for plugin, sc in plugins.items():
        numbers = (f"{sc['raw']:>{digits['raw']}} -> {sc['normalized']:>{digits['normalized']}} x "
                   f"{sc['weight']:>{digits['weight']}} = {sc['weighted']:>{digits['weighted']}}")
        head = TextTable.grid()
        head.add_column(width=width, no_wrap=True, style="bold")
        head.add_column(no_wrap=True)
        head.add_row(plugin, numbers)
        lines.append(head)
        for w in score_words(plugin, plugin_facts.get(plugin)):
            lines.append(Padding(Text(w), (0, 0, 0, 4)))
    return [Block(Group(*lines))]


# The parts of a plugin's facts that explain its score; the rest explains its Filter verdict.
_SCORE_PARTS = {"NodeResourcesFit": ("score",), "PodTopologySpread": ("soft",), "NodeAffinity": ("preferred",),
                "InterPodAffinity": (), "VolumeBinding": (), "DynamicResources": ()}


def score_words(plugin: str, facts: Mapping[str, Any] | None) -> list[str]:
    """The plugin's facts that explain its score, in --node's words (the HTML page's too)."""
    if not facts:
        return []
    if plugin == "TaintToleration":
        return [w for w in describe(plugin, facts) if "PreferNoSchedule" in w]
    if plugin in _SCORE_PARTS:
        return describe(plugin, {k: facts[k] for k in _SCORE_PARTS[plugin] if k in facts})
    return describe(plugin, facts)


def filter_words(plugin: str, facts: Mapping[str, Any] | None) -> list[str]:
    """The plugin's facts that explain its Filter verdict, in --node's words (the HTML page's too)."""
    if not facts:
        return []
    parts = _SCORE_PARTS.get(plugin, ())
    return describe(plugin, {k: v for k, v in facts.items() if k not in parts})


def _resources(trace: Mapping[str, Any], facts: Mapping[str, Any], look: Look) -> list[Block]:
    res: Mapping[str, Any] = facts.get("resources") or {}
    if not res:
        return []
    pod = ((trace.get("details") or {}).get("pod") or {}).get("requests") or {}
    table = look.table("Resources")
    table.add_column("resource", overflow="fold")
    table.add_column("the pod requests", justify="right", overflow="fold")
    table.add_column("the node's pods request", justify="right", overflow="fold")
    table.add_column("allocatable", justify="right", overflow="fold")
    for name, r in res.items():
        want = "1" if name == "pods" else quantity(name, pod.get(name))
        table.add_row(name, want, quantity(name, r.get("requested")), quantity(name, r.get("allocatable")))
    for name, q in pod.items():
        if name not in res:
            table.add_row(name, quantity(name, q), "-", "0 (the node does not offer it)")
    return [Block(table)]


def _preemption(trace: Mapping[str, Any], node: str) -> list[Block]:
    view = preemption_view(trace)
    if view is None:
        return []
    if view.nominated == node:
        victims = ", ".join(f"{v.pod} (priority {v.priority})" if v.priority is not None else v.pod
                            for v in view.victims)
        text = f"Preemption: the pod would be nominated to this node, evicting {victims}."
    else:
        reason = next((r for r, nodes in view.why_not.items() if node in nodes), None)
        if reason is None:
            text = "Preemption: " + (f"the pod would be nominated to {view.nominated}." if view.nominated
                                     else "would not help anywhere.")
        else:
            text = f"Preemption: not chosen here: {reason}."
    return [Block(Text(text))]
