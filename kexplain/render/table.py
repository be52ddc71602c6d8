"""The human view of a trace: verdict, ranked feasible nodes, rejected nodes with reasons."""
from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text


def _rejections(trace: dict[str, Any]) -> dict[str, list[tuple[str, str, bool]]]:
    """node -> [(plugin, reason, is the scheduler's own first reason)], every plugin that said no."""
    out: dict[str, list[tuple[str, str, bool]]] = {}
    first = trace.get("filter") or {}
    for node, plugins in (trace.get("filterAll") or {}).items():
        own = (first.get(node) or {}).get("plugin")
        for plugin, st in plugins.items():
            if st.get("code") in ("Unschedulable", "UnschedulableAndUnresolvable"):
                for reason in st.get("reasons") or [st["code"]]:
                    out.setdefault(node, []).append((plugin, reason, plugin == own))
    for node, st in first.items():
        if node not in out and st.get("code") not in ("Success", None):
            out[node] = [(st.get("plugin", ""), r, True) for r in st.get("reasons") or [st["code"]]]
    return out


def render(trace: dict[str, Any], wide: bool = False) -> Group:
    result = trace["result"]
    pod = trace["pod"]
    parts: list[Any] = []
    status = result["status"]
    style = {"Scheduled": "bold green", "Unschedulable": "bold red", "Gated": "bold yellow"}.get(status, "bold")
    head = Text.assemble(("Pod ", ""), (f"{pod['namespace']}/{pod['name']}", "bold"),
                         (f"  profile {trace['profile']}  ", "dim"), (status, style))
    parts.append(head)
    if status == "Scheduled":
        parts.append(Text(f"Would be bound to {result.get('suggestedHost') or ', '.join(result['selectedNodes'])}"))
    elif status == "Gated":
        gate = next((e for e in trace.get("preEnqueue") or [] if e.get("code") != "Success"), {})
        parts.append(Text(f"Not scheduled: {gate.get('plugin', '')}: {'; '.join(gate.get('reasons') or [])}"))
    elif result.get("message"):
        parts.append(Text(f"FailedScheduling: {result['message']}"))
    if result.get("error"):
        parts.append(Text(f"Error: {result['error']}", style="red"))

    score = trace.get("score") or {}
    if score:
        table = Table(title="Feasible nodes, best first", title_justify="left")
        table.add_column("#", justify="right")
        table.add_column("node")
        table.add_column("score", justify="right")
        plugins = sorted({p for s in score.values() for p in s["plugins"]})
        if wide:
            for p in plugins:
                table.add_column(p, justify="right")
        ranked = sorted(score.items(), key=lambda kv: (-kv[1]["total"], kv[0]))
        for i, (node, s) in enumerate(ranked, 1):
            row = [str(i), node, str(s["total"])]
            if wide:
                row += [str(s["plugins"].get(p, {}).get("weighted", "")) for p in plugins]
            table.add_row(*row)
        parts.append(table)

    rejected = _rejections(trace)
    if rejected:
        table = Table(title="Rejected nodes (* = the scheduler's first reason)", title_justify="left")
        table.add_column("node")
        table.add_column("plugin")
        table.add_column("reason")
        for node, reasons in rejected.items():
            for j, (plugin, reason, own) in enumerate(reasons):
                table.add_row(node if j == 0 else "", plugin + (" *" if own else ""), reason)
        parts.append(table)

    search = trace.get("search")
    if search:
        parts.append(Text(
            f"Search: {search['numNodesSearched']} of {search['numAllNodes']} nodes examined from index "
            f"{search['startIndex']}, looking for {search['numFeasibleNodesToFind']} feasible; "
            f"{search['numFilterSuccess']} passed; the next pod starts at {search['nextStartIndex']}.",
            style="dim"))
    return Group(*parts)


def print_trace(trace: dict[str, Any], console: Console, wide: bool = False) -> None:
    console.print(render(trace, wide))
