"""Several pods, or a workload's replicas (`kexplain.explain.batch`), in words: one section per
object in scheduling order, a short heading (and for replicas how many fit), then its
explanation; for replicas where the copies went, the copies in the order they were placed and
the first copy that did not fit explained in full (`table.print_trace`).

Plain text, without box-drawing characters and trailing blanks, when not on a terminal; every
name is printed as it is (never read as markup) and never cut: lines break between names.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, Sequence, TypeVar

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from kexplain.apimachinery.labels import zone_of
from kexplain.explain.describe import counted, node_counts
from kexplain.render.table import print_trace

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.explain.batch import Outcome
    from kexplain.framework.trace import Trace

NODES_LISTED = 10       # nodes named under a heading; the others are counted
COPIES_HEAD = 5         # copies listed first in a long table of copies
COPIES_TAIL = 5         # and last (the copy that does not fit is the last one)

T = TypeVar("T")


class Copy(Protocol):
    """One pod (or copy) of an outcome as this view reads it: its inputs (the pod's name, the
    cluster it was placed in), its trace, the node it was bound to (None: it did not fit)."""

    inputs: Any
    trace: Trace
    node: str | None


def heading_parts(outcome: Outcome) -> list[str]:
    """The parts of the heading a line may break between: `Kind`, `ns/name`, `(priority P)`
    and, for replicas, `(priority P):` `N of M replicas fit`."""
    e = outcome.entry
    parts = [e.kind, f"{e.namespace}/{e.name}", f"(priority {outcome.priority})"]
    if outcome.daemon is not None:          # a DaemonSet: copies are its eligible nodes
        parts[-1] += ":"
        parts.append(f"fits on {len(outcome.placed)} of {e.copies} eligible nodes" if e.copies
                     else "no eligible node, it would run no pod")
    elif e.replicated:
        parts[-1] += ":"
        parts.append(f"{len(outcome.placed)} of {e.copies} replicas fit")
    return parts


def headline(outcome: Outcome) -> str:
    """`Kind ns/name (priority P)`, and for replicas `: N of M replicas fit` (where they went
    is said below it: `where_lines`)."""
    return " ".join(heading_parts(outcome))


def wrap_entries(label: str, entries: list[str], width: int, indent: int = 2, sep: str = ",") -> list[str]:
    """`label e1, e2, ...` wrapped at `width` between entries, never inside one (a node name
    longer than the line stays whole); continuation lines indented by `indent`."""
    lines: list[str] = []
    line, empty = label, True
    for i, entry in enumerate(entries):
        piece = entry + (sep if i < len(entries) - 1 else "")
        candidate = f"{line} {piece}" if line.strip() else f"{line}{piece}"
        if empty or cell_len(candidate) <= width:
            line, empty = candidate, False
            continue
        lines.append(line)
        line = " " * indent + piece
    lines.append(line)
    return lines


def _zone(attempt: Copy, node: str) -> str:
    """The node's zone: from the trace's details when recorded, else from the node's labels."""
    facts = ((attempt.trace.extra.get("details") or {}).get("nodes") or {}).get(node) or {}
    if facts.get("zone"):
        return str(facts["zone"])
    info = attempt.inputs.snapshot.get(node)
    return zone_of(info.node.labels) if info is not None else ""


def _limited(counts: dict[str, int], what: str) -> list[str]:
    shown = [counted(n, c) for n, c in list(counts.items())[:NODES_LISTED]]
    if len(counts) > NODES_LISTED:
        shown.append(f"... and {len(counts) - NODES_LISTED} more {what}")
    return shown


def where_lines(outcome: Outcome, width: int = 80) -> list[str]:
    """Where the copies that fit went, grouped by node with counts in order of first placement
    (the first NODES_LISTED nodes, then how many more), and per zone when the nodes have one;
    wrapped at `width` between nodes."""
    placed = [(a, a.node) for a in outcome.attempts if a.node is not None]
    if not placed:
        return []
    counts = node_counts([n for _, n in placed])
    lines = wrap_entries(f"On {len(counts)} node{'s' if len(counts) != 1 else ''}:", _limited(counts, "nodes"),
                         width)
    zones: dict[str, int] = {}
    known: dict[str, str] = {}
    for attempt, node in placed:
        if node not in known:
            known[node] = _zone(attempt, node)
        zone = known[node] or "(no zone)"
        zones[zone] = zones.get(zone, 0) + 1
    if set(zones) != {"(no zone)"}:
        lines += wrap_entries("By zone:", _limited(zones, "zones"), width)
    return lines


def copies_shown(attempts: Sequence[T]) -> tuple[list[tuple[int, T]], int]:
    """The copies a table lists: all of a few; of many, the first COPIES_HEAD and the last
    COPIES_TAIL (the last one is the first that does not fit, when one does not), and how many
    are left out between them."""
    numbered = list(enumerate(attempts))
    if len(numbered) <= COPIES_HEAD + COPIES_TAIL + 1:
        return numbered, 0
    return numbered[:COPIES_HEAD] + numbered[-COPIES_TAIL:], len(numbered) - COPIES_HEAD - COPIES_TAIL


def copies_lines(outcome: Outcome, width: int = 80) -> list[tuple[str, str]]:
    """The table of copies as (text, style) lines, without trailing blanks: `#`, pod, node; a
    copy that does not fit says its status. When a row would pass `width`, every node goes on
    a line of its own under its pod (names are never cut)."""
    shown, left_out = copies_shown(outcome.attempts)
    rows = [(str(j), a.inputs.pod.name, a.node or f"(does not fit: {a.trace.result.status})") for j, a in shown]
    num_w = max(1, *(len(r[0]) for r in rows))
    pod_w = max(3, *(cell_len(r[1]) for r in rows))

    def cell(text: str, w: int) -> str:
        return text + " " * (w - cell_len(text))

    side = max(cell_len(f" {cell(r[0], num_w)}  {cell(r[1], pod_w)}  {r[2]}") for r in rows) <= width
    out: list[tuple[str, str]] = [((f" {cell('#', num_w)}  {cell('pod', pod_w)}  node" if side
                                    else f" {cell('#', num_w)}  pod / node"), "bold")]
    for k, (num, pod, node) in enumerate(rows):
        if left_out and k == COPIES_HEAD:
            out.append((f" {cell('...', num_w)}  ({left_out} more copies)".rstrip(), "dim"))
        if side:
            out.append((f" {num.rjust(num_w)}  {cell(pod, pod_w)}  {node}".rstrip(), ""))
        else:
            out.append((f" {num.rjust(num_w)}  {pod}".rstrip(), ""))
            out.append((f" {' ' * num_w}    {node}".rstrip(), ""))
    return out


def print_batch(outcomes: list[Outcome], console: Console, wide: bool = False) -> None:
    """Each object in scheduling order: a short heading with its name (and for replicas how
    many fit), then its explanation (for replicas: where the copies went, grouped by node, the
    copies in the order they were placed, and the first copy that did not fit explained in
    full)."""
    fancy = bool(console.is_terminal)

    def line(text: str, style: str = "") -> None:
        console.print(Text(text, style=style if fancy else ""), soft_wrap=True, highlight=False)

    for i, o in enumerate(outcomes):
        heading, parts = headline(o), heading_parts(o)
        if fancy and cell_len(heading) + 6 <= console.width:
            console.rule(Text(heading))
        elif fancy:          # too long for a rule: a rule, then the heading wrapped between its parts
            console.rule()
            for text in wrap_entries(parts[0], parts[1:], console.width, sep=""):
                line(text, "bold")
        else:
            if i:
                console.print()
            for text in wrap_entries(f"=== {parts[0]}", parts[1:], console.width, indent=4, sep=""):
                line(text)
        if not o.entry.replicated:
            print_trace(o.attempts[0].trace.to_json(), console, wide=wide)
            continue
        width = console.width
        if o.daemon is not None and o.daemon.excluded:     # a DaemonSet: the nodes it does not run on
            line("Nodes that are not eligible (the DaemonSet runs no pod there), by reason:")
            by_reason: dict[str, list[str]] = {}
            for n, reason in o.daemon.excluded.items():
                by_reason.setdefault(reason, []).append(n)
            for reason, nodes in by_reason.items():
                for text in wrap_entries(f"  {reason}:", nodes, width, indent=4):
                    line(text)
        if not o.attempts:
            continue
        for text in where_lines(o, width):
            line(text)
        shown, left_out = copies_shown(o.attempts)
        title = "Copies, in the order they were placed"
        if left_out:
            title += f" (the first {COPIES_HEAD} and the last {COPIES_TAIL} of {len(o.attempts)})"
        line(f"{title}:")
        for text, style in copies_lines(o, width):
            line(text, style)
        unfit = o.first_unfit      # replicas: the last copy; a DaemonSet: the first node it does not fit
        if unfit is not None:
            line(f"Why {unfit.inputs.pod.name} does not fit:")
            print_trace(unfit.trace.to_json(), console, wide=wide)


def print_batch_node(outcomes: list[Outcome], console: Console, node: str) -> None:
    """`--node NAME` for several pods or replicas: each object's heading, then the verdict on
    that node of its last pod (for replicas, the copy that did not fit)."""
    for i, o in enumerate(outcomes):
        if console.is_terminal:
            console.rule(headline(o))
        else:       # plain text, as print_batch heads each object
            console.print(("\n" if i else "") + f"=== {headline(o)}", soft_wrap=True, highlight=False,
                          markup=False)
        shown = o.first_unfit or (o.attempts[-1] if o.attempts else None)
        if shown is not None:
            print_trace(shown.trace.to_json(), console, node=node)
