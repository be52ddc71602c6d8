"""Verified fix suggestions (the trace's `suggestions` key): what to change, and how many
nodes each change opens, as the re-run found."""
from __future__ import annotations

from typing import Any, Mapping

from rich.text import Text

from kexplain.render.blocks import Block
from kexplain.render.style import Look, TextTable, wrap
from kexplain.render.views import shorten

NODES_NAMED = 5
# Targets listed under "On the pod": the pod, and the claims (or templates) it asks for devices with.
POD_TARGETS = ("pod", "ResourceClaim ", "ResourceClaimTemplate ")


def suggestion_rows(trace: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(heading or number, text) rows, changes to the pod first, then to the cluster, each
    with the nodes it opens: ("1.", "lower the cpu request ...: opens 2 nodes (node-4, node-6)")."""
    found = list(trace.get("suggestions") or ())
    on_pod = [s for s in found if str(s.get("target", "")).startswith(POD_TARGETS)]
    on_cluster = [s for s in found if s not in on_pod]
    rows: list[tuple[str, str]] = []
    number = 0
    for title, group in (("On the pod:", on_pod), ("On the cluster:", on_cluster)):
        if not group:
            continue
        rows.append((title, ""))
        for s in group:
            number += 1
            ups = (s.get("verified") or {}).get("scaleUps")
            if (s.get("verified") or {}).get("by") == "autoscaler":
                plan = ", ".join(f"{u['nodeGroup']} {u['currentSize']} -> {u['newSize']}" for u in ups or ())
                tied = len((s.get("verified") or {}).get("randomPickAmong") or ())
                also = f" (or another of the {tied} groups the expander ties, picked at random)" if tied > 1 else ""
                rows.append((f"{number}.", f"{s.get('description', '')}: CA would scale up {plan}{also}"))
                continue
            opened = list(s.get("openedNodes") or ())
            count = s.get("nodesOpened", len(opened))
            at_least = "" if s.get("nodesOpenedExact", True) else "at least "
            names = f" ({shorten(opened, NODES_NAMED)})" if opened else ""
            rows.append((f"{number}.", f"{s.get('description', '')}: opens {at_least}{count} "
                                       f"node{'' if count == 1 else 's'}{names}"))
    return rows


def suggestion_blocks(trace: Mapping[str, Any], look: Look) -> list[Block]:
    rows = suggestion_rows(trace)
    if not rows:
        return []
    by_ca = any((s.get("verified") or {}).get("by") == "autoscaler" for s in trace.get("suggestions") or ())
    head = Text("What would make it schedule (each change verified by scheduling the changed input again"
                + (", or by running the Cluster Autoscaler's loop again" if by_ca else "") + ")", style="bold")

    def numbered() -> TextTable:
        grid = TextTable.grid(padding=(0, 1))
        grid.add_column(justify="right", no_wrap=True)
        grid.add_column(overflow="fold")
        return grid

    grid = numbered()
    blocks = [Block(head)]
    label_w = max(len("  " + label) for label, text in rows if text) if any(t for _, t in rows) else 0
    for label, text in rows:
        if not text:
            if grid.row_count:
                blocks.append(Block(grid, gap=False))
                grid = numbered()
            blocks.append(Block(Text(label), gap=False))
        else:       # never cut: a node group's URL breaks after a `/`
            grid.add_row("  " + label, wrap(text, look.width - label_w - 1))
    blocks.append(Block(grid, gap=False))
    return blocks
