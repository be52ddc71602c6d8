"""`--compare-versions`: what changes for one pod from one Kubernetes version to another, in
words, read from the VersionComparison `-o json` writes (`kexplain.explain.versions`): only
what differs, one column per version."""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from rich.console import Console
from rich.text import Text

from kexplain.render.blocks import VERDICT_STYLE, Block, print_blocks
from kexplain.render.style import Look
from kexplain.render.views import version_text

NODES_SHOWN = 10        # nodes listed per table in the default view (-o wide: every one)

# What each kind of change is called in the summary table (the rest have tables of their own).
LABELS = {"status": "verdict", "node": "chosen node", "tie": "random tie among",
          "error": "scheduler error", "gate": "held back by", "preFilter": "PreFilter", "preemption": "preemption"}


def render(doc: Mapping[str, Any], wide: bool = False, plain: bool = False, width: int = 80) -> list[Block]:
    """The blocks of the comparison view."""
    look = Look(plain=plain, wide=wide, width=width)
    versions = doc.get("versions") or []
    minors = [v["minor"] for v in versions]
    pod = doc.get("pod") or {}
    span = f"{minors[0]} to {minors[-1]}" if len(minors) == 2 else ", ".join(minors)
    head = Text.assemble(("Pod ", ""), (f"{pod.get('namespace')}/{pod.get('name')}", "bold"),
                         (f": what changes from Kubernetes {span}" if len(minors) == 2
                          else f": what changes across Kubernetes {span}", ""))
    blocks = [Block(head, gap=False)]
    verdicts = doc.get("verdicts") or {}
    for v in versions:
        blocks.append(Block(Text.assemble((f"{version_text(v)}: ", "dim"),
                                          *_verdict_parts(verdicts.get(v["minor"]) or {})), gap=False))
    changes = list(doc.get("changes") or [])
    if not changes:
        blocks.append(Block(Text(f"Nothing changes: the same verdict, the same Filter reasons on every node and the "
                                 f"same scores under {' and '.join(minors)}.", style="green")))
        return blocks
    blocks += _summary(changes, minors, look)
    blocks += _event(changes, minors)
    blocks += _filter(changes, minors, look)
    blocks += _score(changes, minors, look)
    return blocks


def print_comparison(doc: Mapping[str, Any], console: Console, wide: bool = False) -> None:
    """Print the comparison view (plain text when not on a terminal)."""
    print_blocks(render(doc, wide=wide, plain=not console.is_terminal, width=console.width), console)


def _verdict_parts(v: Mapping[str, Any]) -> list[tuple[str, str]]:
    status = str(v.get("status") or "")
    parts = [(status, VERDICT_STYLE.get(status, "bold"))]
    if v.get("tiedNodes"):
        parts.append((f" on one of {', '.join(v['tiedNodes'])}, picked at random", ""))
    elif v.get("node"):
        parts.append((f" on {v['node']}", ""))
    if v.get("error"):      # refused: the version's API server or scheduler does not take the input
        parts.append((f" (the input): {v['error']}", ""))
    return parts


def _of(changes: Sequence[Mapping[str, Any]], *what: str) -> list[Mapping[str, Any]]:
    return [c for c in changes if c["what"] in what]


def _table(look: Look, title: str, first: Sequence[str], minors: Sequence[str]):
    table = look.table(title)
    for i, header in enumerate(first):
        table.add_column(header, no_wrap=i == 0, overflow="fold")
    for m in minors:
        table.add_column(m, overflow="fold")
    return table


def _summary(changes: Sequence[Mapping[str, Any]], minors: Sequence[str], look: Look) -> list[Block]:
    rows = _of(changes, *LABELS)
    if not rows:
        return []
    table = _table(look, "What changes", [""], minors)
    for c in rows:
        label = LABELS[c["what"]] + (f" {c['plugin']}" if c.get("plugin") else "")
        table.add_row(label, *(_cell(c["what"], c["values"].get(m)) for m in minors))
    return [Block(table)]


def _cell(what: str, value: Any) -> str:
    """One version's value of a change, in words ("-": none under that version)."""
    if value is None:
        return {"tie": "no tie: one node", "preemption": "no node nominated"}.get(what, "-")
    if what == "tie":
        return ", ".join(value)
    if what in ("gate", "preFilter"):
        reasons = "; ".join(value.get("reasons") or [])
        who = f"{value['plugin']} " if what == "gate" and value.get("plugin") else ""
        return f"{who}{value.get('code')}" + (f": {reasons}" if reasons else "")
    if what == "preemption":
        victims = ", ".join(value.get("victims") or []) or "no victim"
        return f"nominates {value.get('nominatedNodeName')}, evicting {victims}"
    return str(value)


def _event(changes: Sequence[Mapping[str, Any]], minors: Sequence[str]) -> list[Block]:
    """The FailedScheduling message of each version, unwrapped, as `kubectl describe` shows it."""
    change = next(iter(_of(changes, "message")), None)
    if change is None:
        return []
    blocks = [Block(Text("The FailedScheduling event", style="bold"))]
    for m in minors:
        message = change["values"].get(m)
        blocks.append(Block(Text(f"{m}: {message if message is not None else '(none: no event)'}"),
                            whole=True, gap=False))
    return blocks


def _filter(changes: Sequence[Mapping[str, Any]], minors: Sequence[str], look: Look) -> list[Block]:
    return _per_node_plugin(changes, minors, look, "filter", "Filter verdicts that change, plugin by plugin",
                            _filter_cell, "passes = the plugin lets the pod on the node; - = the node is not "
                                          "examined under that version")


def _score(changes: Sequence[Mapping[str, Any]], minors: Sequence[str], look: Look) -> list[Block]:
    return _per_node_plugin(changes, minors, look, "score", "Scores that change (weighted, as the total adds them)",
                            _score_cell, "- = not scored under that version (the node is not feasible, or the "
                                         "plugin does not score)")


def _per_node_plugin(changes: Sequence[Mapping[str, Any]], minors: Sequence[str], look: Look, kind: str,
                     title: str, cell: Callable[[Any], str], legend: str) -> list[Block]:
    """One table of the changes of `kind` (a node and plugin a row, a minor a column)."""
    rows = _of(changes, kind)
    if not rows:
        return []
    rows, more = _limit(rows, look)
    table = _table(look, title, ["node", "plugin"], minors)
    for c in rows:
        table.add_row(c["node"], c["plugin"], *(cell(c["values"].get(m)) for m in minors))
    return [Block(table), *_more(more, legend)]


def _filter_cell(value: Mapping[str, Any] | None) -> str:
    if value is None:
        return "-"
    if value.get("code") == "Success":
        return "passes"
    return "; ".join(value.get("reasons") or []) or str(value.get("code"))


def _score_cell(value: Any) -> str:
    if value is None:
        return "-"
    return str(value.get("weighted") if isinstance(value, Mapping) else value)


def _limit(rows: list[Mapping[str, Any]], look: Look) -> tuple[list[Mapping[str, Any]], int]:
    """The rows of the first NODES_SHOWN nodes (every row with -o wide), and how many nodes more."""
    nodes = list(dict.fromkeys(c["node"] for c in rows))
    if look.wide or len(nodes) <= NODES_SHOWN:
        return rows, 0
    kept = set(nodes[:NODES_SHOWN])
    return [c for c in rows if c["node"] in kept], len(nodes) - NODES_SHOWN


def _more(more: int, legend: str) -> list[Block]:
    lines = ([f"... and {more} more node(s) (-o wide lists every one)"] if more else []) + [legend]
    return [Block(Text("\n".join(lines), style="dim"), gap=False)]
