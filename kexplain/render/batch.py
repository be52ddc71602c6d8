"""Several pods, or a workload's replicas, in words: one section per object in scheduling order,
printed as soon as it is placed; a few copies listed one by one, many read in counts per node
or zone. Reads what `-o json` writes, never the engine's objects; names never cut."""
from __future__ import annotations

import textwrap
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Sequence, TypeVar

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from kexplain.explain.describe import counted
from kexplain.render.kueue_chain import print_answer
from kexplain.render.table import label_lines, print_trace

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.explain.batch import Outcome

NODES_LISTED = 10       # nodes named under a heading; the others are counted
COPIES_HEAD = 5         # copies listed first in a long table of copies
COPIES_TAIL = 5         # and last (the copy that does not fit is the last one)
FEW_COPIES = COPIES_HEAD + COPIES_TAIL + 1      # up to this many, every copy is listed
GROUPS_LISTED = 20      # rows of the grouped table; past this, per zone (or the first and last nodes)
NO_ZONE = "(no zone)"

T = TypeVar("T")


@dataclass(frozen=True)
class Section:
    """One object of a batch as this view reads it: its `placements` entry (`pods`: each copy's
    name, node, zone and status), the trace of its first pod and of its first that did not fit."""

    placement: dict[str, Any]
    first: dict[str, Any] | None = None
    unfit: dict[str, Any] | None = None

    @classmethod
    def of(cls, outcome: "Outcome") -> "Section":
        first = outcome.first.trace.to_json() if outcome.first else None
        unfit = outcome.first_unfit
        return cls(outcome.to_json(), first,
                   first if unfit is not None and unfit is outcome.first else unfit.trace.to_json() if unfit else None)

    @property
    def daemon(self) -> bool:
        """A DaemonSet's: placed on its eligible nodes (or none of its pods created)."""
        return "notEligible" in self.placement or (self.placement.get("object") or {}).get("kind") == "DaemonSet"

    @property
    def replicated(self) -> bool:
        """Placed copy by copy: replicas (more than one), or a DaemonSet."""
        return self.daemon or int(self.placement.get("replicas") or 0) > 1

    @property
    def pods(self) -> list[dict[str, Any]]:
        return list(self.placement.get("pods") or [])

    @property
    def many(self) -> bool:
        """Too many copies to list one by one: read in counts."""
        return len(self.pods) > FEW_COPIES


def _section(item: "Section | Outcome") -> Section:
    return item if isinstance(item, Section) else Section.of(item)


def num(n: int) -> str:
    """A count as people read large ones: `1,000`."""
    return f"{n:,}"


def zone_counts(section: Section) -> dict[str, int]:
    """Copies that fit per zone, in order of first placement (`(no zone)` for nodes without one);
    empty when no node has a zone."""
    zones = Counter(p.get("zone") or NO_ZONE for p in section.pods if p.get("node") is not None)
    return {} if set(zones) <= {NO_ZONE} else zones


def _counts_parts(counts: dict[str, int], what: str) -> list[str]:
    """`a 3,` `b 2` for the heading (the first NODES_LISTED, then how many more)."""
    shown = [f"{k} {num(c)}" for k, c in list(counts.items())[:NODES_LISTED]]
    if len(counts) > NODES_LISTED:
        shown.append(f"and {num(len(counts) - NODES_LISTED)} more {what}")
    return [s + ("," if i < len(shown) - 1 else "") for i, s in enumerate(shown)]


def heading_parts(section: "Section | Outcome") -> list[str]:
    """The parts of the heading a line may break between (`Kind`, `ns/name`, the priority, the
    replicas that fit; for many copies their counts per node and zone)."""
    s = _section(section)
    pl = s.placement
    obj = pl.get("object") or {}
    parts = [str(obj.get("kind")), f"{obj.get('namespace')}/{obj.get('name')}"]
    if pl.get("priority") is not None:      # (none: the API server refused its pod)
        parts.append(f"(priority {pl.get('priority')})")
    if pl.get("idle"):      # no pod: the template, explained as its first pod would be met
        return parts[:-1] + [parts[-1] + ":", *f"{pl['idle']}; its template, explained without taking room:".split()]
    if not s.replicated and "failedCreate" not in pl:
        return parts
    parts[-1] += ":"
    fit, replicas = int(pl.get("fit") or 0), int(pl.get("replicas") or 0)
    if s.daemon and not replicas:
        return parts + ["no eligible node, it would run no pod"]
    # a DaemonSet's eligible nodes whose pod the API server refused to create (a quota: `failedCreate`)
    unmade = len(pl.get("notCreated") or ())
    not_created = f"; no pod created on {num(unmade)} of them (FailedCreate)" if unmade else ""
    if not s.many:
        parts.append(f"fits on {fit} of {replicas} eligible nodes{not_created}" if s.daemon
                     else f"{fit} of {replicas} replicas fit")
        return parts
    nodes = len(pl.get("nodes") or {})
    verdict = (f"fits on {num(fit)} of {num(replicas)} eligible nodes{not_created}" if s.daemon
               else f"{num(fit)} of {num(replicas)} replicas fit on {num(nodes)} node{'s' if nodes != 1 else ''}")
    zones = zone_counts(s)
    if not zones:
        return parts + [verdict]
    return parts + [verdict + ":", *_counts_parts(zones, "zones")]


def headline(section: "Section | Outcome") -> str:
    """The heading on one line (`heading_parts` joined)."""
    return " ".join(heading_parts(section))


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


def _limited(counts: dict[str, int], what: str) -> list[str]:
    shown = [counted(n, c) for n, c in list(counts.items())[:NODES_LISTED]]
    if len(counts) > NODES_LISTED:
        shown.append(f"... and {len(counts) - NODES_LISTED} more {what}")
    return shown


def where_lines(section: "Section | Outcome", width: int = 80) -> list[str]:
    """Where the copies that fit went, by node in order of first placement (NODES_LISTED, then how
    many more) and per zone; wrapped between nodes."""
    s = _section(section)
    counts = dict(s.placement.get("nodes") or {})
    if not counts:
        return []
    lines = wrap_entries(f"On {len(counts)} node{'s' if len(counts) != 1 else ''}:", _limited(counts, "nodes"),
                         width)
    zones = zone_counts(s)
    if zones:
        lines += wrap_entries("By zone:", _limited(zones, "zones"), width)
    return lines


def copies_shown(attempts: Sequence[T]) -> tuple[list[tuple[int, T]], int]:
    """The copies a table lists: all of a few; of many, the first COPIES_HEAD and the last
    COPIES_TAIL, and how many are left out between."""
    numbered = list(enumerate(attempts))
    if len(numbered) <= FEW_COPIES:
        return numbered, 0
    return numbered[:COPIES_HEAD] + numbered[-COPIES_TAIL:], len(numbered) - COPIES_HEAD - COPIES_TAIL


def _cell(text: str, w: int) -> str:
    return text + " " * (w - cell_len(text))


def copies_lines(section: "Section | Outcome", width: int = 80) -> list[tuple[str, str]]:
    """The table of copies as (text, style) lines; past `width`, each node on a line under its pod
    (names are never cut)."""
    shown, left_out = copies_shown(_section(section).pods)
    rows = [(str(j), str(p.get("name")), p.get("node") or f"(does not fit: {p.get('status')})") for j, p in shown]
    num_w = max(1, *(len(r[0]) for r in rows))
    pod_w = max(3, *(cell_len(r[1]) for r in rows))
    side = max(cell_len(f" {_cell(r[0], num_w)}  {_cell(r[1], pod_w)}  {r[2]}") for r in rows) <= width
    out: list[tuple[str, str]] = [((f" {_cell('#', num_w)}  {_cell('pod', pod_w)}  node" if side
                                    else f" {_cell('#', num_w)}  pod / node"), "bold")]
    for k, (n, pod, node) in enumerate(rows):
        if left_out and k == COPIES_HEAD:
            out.append((f" {_cell('...', num_w)}  ({left_out} more copies)".rstrip(), "dim"))
        if side:
            out.append((f" {n.rjust(num_w)}  {_cell(pod, pod_w)}  {node}".rstrip(), ""))
        else:
            out.append((f" {n.rjust(num_w)}  {pod}".rstrip(), ""))
            out.append((f" {' ' * num_w}    {node}".rstrip(), ""))
    return out


@dataclass
class Group:
    """One row of the grouped copies table (a node, a zone, or one status of copies that did not
    fit), its first and last copy by number: generated names would fill the row."""

    key: str
    zone: str = ""
    copies: int = 0
    first: str = ""
    last: str = ""
    nodes: set[str] | None = None


def group_by(section: Section) -> tuple[str, list[Group]]:
    """How the grouped table groups the copies (`node` or `zone`) and its rows in order of
    first placement; copies that did not fit are grouped by status, where they come."""
    pods = section.pods
    nodes = {p["node"] for p in pods if p.get("node") is not None}
    by = "zone" if len(nodes) > GROUPS_LISTED and zone_counts(section) else "node"
    groups: dict[str, Group] = {}
    for i, p in enumerate(pods):
        node = p.get("node")
        if node is None:
            key = f"(does not fit: {p.get('status')})"
        else:
            key = node if by == "node" else (p.get("zone") or NO_ZONE)
        g = groups.get(key)
        if g is None:
            g = groups[key] = Group(key, zone=str(p.get("zone") or "") if by == "node" else "", first=f"#{i}",
                                    nodes=set())
        g.copies += 1
        g.last = f"#{i}"
        if node is not None and g.nodes is not None:
            g.nodes.add(node)
    return by, list(groups.values())


def grouped_lines(section: "Section | Outcome", width: int = 80) -> tuple[str, list[tuple[str, str]]]:
    """The copies table of many copies: one row per node (or zone), counts and first/last copy;
    past GROUPS_LISTED rows the first and last halves; narrow, counts under each node."""
    s = _section(section)
    by, groups = group_by(s)
    left_out = 0
    if len(groups) > GROUPS_LISTED:
        half = GROUPS_LISTED // 2
        left_out = len(groups) - 2 * half
        groups = groups[:half] + groups[-half:]
    zoned = by == "node" and any(g.zone for g in groups)
    header = [by] + (["zone"] if zoned else []) + (["nodes"] if by == "zone" else []) + ["copies", "first", "last"]
    rows = [[g.key] + ([g.zone] if zoned else []) + ([num(len(g.nodes)) if g.nodes else ""] if by == "zone" else [])
            + [num(g.copies), g.first, g.last if g.copies > 1 else ""] for g in groups]
    widths = [max(cell_len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    numeric = {i for i, h in enumerate(header) if h in ("nodes", "copies")}

    def joined(row: list[str], cols: range) -> str:
        cells = [row[i].rjust(widths[i]) if i in numeric else _cell(row[i], widths[i]) for i in cols]
        return (" " + "  ".join(cells)).rstrip()

    side = all(cell_len(joined(row, range(len(row)))) <= width for row in [header, *rows])
    out: list[tuple[str, str]] = []
    if side:
        out.append((joined(header, range(len(header))), "bold"))
    else:
        out.append((f" {by} / " + ", ".join(header[1:]), "bold"))
    for k, row in enumerate(rows):
        if left_out and k == GROUPS_LISTED // 2:
            out.append((f" ... ({num(left_out)} more {by}s)", "dim"))
        if side:
            out.append((joined(row, range(len(row))), ""))
        else:
            out.append((f" {row[0]}", ""))
            rest = [f"{h} {v}" for h, v in zip(header[1:], row[1:]) if v]
            out += [(text, "") for text in wrap_entries("     ", rest, width, indent=5)]
    title = f"Copies by {by}, in the order they were placed ({num(len(s.pods))} copies"
    title += f", {num(left_out)} {by}s not listed):" if left_out else "):"
    return title, out


def object_notes(section: "Section | Outcome") -> list[str]:
    """What happened to the object's pods before the scheduler (its FailedCreate); the HPA is said
    on stderr with the other warnings."""
    pl = _section(section).placement
    out = []
    if pl.get("failedCreate"):
        out.append(f"{num(int(pl.get('created') or 0))} of {num(int(pl.get('replicas') or 0))} pods created "
                   f"(FailedCreate: {pl['failedCreate']})")
    return out


def random_pick_note(section: "Section | Outcome") -> str | None:
    """Where copies were placed by a random pick among tied nodes (before 1.35), that the nodes
    shown from then on are one possible outcome."""
    picked = [pod for pod in _section(section).pods
              if ((pod.get("summary") or {}).get("randomPickAmong") or 0) > 1]
    if not picked:
        return None
    return (f"{num(len(picked))} of these copies went to one of several nodes tied at the top, which this "
            f"version's scheduler picks among at random: from {picked[0].get('name')} on, where the copies go "
            "is one possible outcome.")


def print_batch(outcomes: "Iterable[Section | Outcome]", console: Console, wide: bool = False) -> None:
    """Each object as it comes (`outcomes` may be produced while this prints): its heading, then
    its explanation."""
    fancy = bool(console.is_terminal)

    def line(text: str, style: str = "") -> None:
        console.print(Text(text, style=style if fancy else ""), soft_wrap=True, highlight=False)

    for i, item in enumerate(outcomes):
        s = _section(item)
        heading, parts = headline(s), heading_parts(s)
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
        for note in object_notes(s):        # wrapped between words (never a name cut)
            for text in textwrap.wrap(note, console.width, subsequent_indent="    ", break_long_words=False,
                                      break_on_hyphens=False):
                line(text)
        if s.placement.get("kueue"):        # Kueue's answer: whether (and how) its pods were created
            print_answer(s.placement["kueue"], console)
            console.print()
        if not s.replicated:
            if s.first is not None:
                print_trace(s.first, console, wide=wide)
            continue
        width = console.width
        excluded = s.placement.get("notEligible") or {}
        if excluded:     # a DaemonSet: the nodes it does not run on
            line("Nodes that are not eligible (the DaemonSet runs no pod there), by reason:")
            by_reason: dict[str, list[str]] = {}
            for n, reason in excluded.items():
                by_reason.setdefault(reason, []).append(n)
            for reason, nodes in by_reason.items():
                for text in wrap_entries(f"  {reason}:", nodes, width, indent=4):
                    line(text)
        if not s.pods:
            continue
        labels = (s.first or {}).get("labels")      # its controller's labels: the first pod's, shown
        if labels:
            for text in label_lines(f"Labels of {(s.first or {}).get('pod', {}).get('name')}:", labels, width):
                line(text)
        if s.many:
            title, rows = grouped_lines(s, width)
            line(title)
        else:
            for text in where_lines(s, width):
                line(text)
            line("Copies, in the order they were placed:")
            rows = copies_lines(s, width)
        for text, style in rows:
            line(text, style)
        note = random_pick_note(s)
        if note:
            line(note)
        waiting = s.placement.get("notCreatedPods")
        if waiting:         # an OrderedReady StatefulSet's later ordinals
            for text in wrap_words(f"Not created: {', '.join(waiting['pods'])}: {waiting['message']}", width, "  "):
                line(text)
        unfit = s.unfit      # replicas: the last copy; a DaemonSet: the first node it does not fit
        if unfit is not None:
            line(f"Why {(unfit.get('pod') or {}).get('name')} does not fit:")
            print_trace(unfit, console, wide=wide)


def print_batch_node(outcomes: "Iterable[Section | Outcome]", console: Console, node: str) -> None:
    """`--node NAME` for several pods or replicas: each object's heading, then the verdict on
    that node of its last pod shown (for replicas, the copy that did not fit)."""
    for i, item in enumerate(outcomes):
        last = None if isinstance(item, Section) else item.last
        s = _section(item)
        if console.is_terminal:
            console.rule(Text(headline(s)))
        else:       # plain text, as print_batch heads each object
            if i:
                console.print()
            console.print(Text(f"=== {headline(s)}"), soft_wrap=True)
        shown = s.unfit or (last.trace.to_json() if last is not None else s.first)
        if shown is not None:
            print_trace(shown, console, node=node)


def _atoms(text: str) -> list[str]:
    """The words of `text`, a parenthesised group kept as one (`(InterPodAffinity: Queue)`)."""
    out: list[str] = []
    depth = 0
    for word in text.split(" "):
        if depth > 0:
            out[-1] += " " + word
        else:
            out.append(word)
        depth = max(0, depth + word.count("(") - word.count(")"))
    return out


def wrap_words(text: str, width: int, indent: str = "") -> list[str]:
    """`text` wrapped at `width` between words, never inside a parenthesised group (a longer
    group stays whole on its line); continuation lines start with `indent`; no trailing blanks."""
    lines: list[str] = []
    line = text[:len(text) - len(text.lstrip(" "))]        # its own indent
    for atom in _atoms(text.lstrip(" ")):
        candidate = f"{line} {atom}" if line.strip() else f"{line}{atom}"
        if not line.strip() or cell_len(candidate) <= width:
            line = candidate
            continue
        lines.append(line.rstrip())
        line = indent + atom
    lines.append(line.rstrip())
    return lines


def retry_lines(retried: "Iterable[Any]", width: int = 80) -> list[str]:
    """What the queue's retry did after the first pass: per pod, where it went and which binding
    brought it back; wrapped between words."""
    lines: list[str] = []
    for r in retried:
        e = r.entry
        where = f"bound to {r.node}" if r.node is not None else f"still unschedulable: {r.message}"
        lines += wrap_words(f"{e.kind} {e.namespace}/{e.name}: {r.pod} {where}", width, "    ")
        lines += wrap_words(f"    requeued (round {r.round}) when {r.trigger}", width, "      ")
    return lines


def print_retries(retried: "Sequence[Any]", console: Console) -> None:
    """The section after the objects: the pods the queue's retry scheduled again."""
    if not retried:
        return
    console.print(Text("=== Retried by the scheduling queue (after the pass in creation order)", style="bold"),
                  soft_wrap=True)
    for line in retry_lines(retried, console.width):
        console.print(Text(line), soft_wrap=True, highlight=False)
