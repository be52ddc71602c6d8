"""Several pods, and a workload's replicas: explained one after another, as the scheduler's
queue would meet them.

A POD file with several Pods (or workloads) is one batch. Every pod goes through admission
first (that gives its priority); then the pods are taken in PrioritySort order (priority
descending, then order of appearance in the file, which is the order they would have been
created in) and each is scheduled against the cluster as the previous ones left it: a pod
that fits is bound to the node the scheduler picks (`place.chosen_node`) before the next pod
is scheduled, and the round-robin position is carried over. A workload with more than one
replica (`spec.replicas`; a Job's parallelism, at most its completions; or `--replicas N` for
every object of the file) is placed copy by copy with `kexplain.explain.placement`, copies named
`<name>-<i>` (a StatefulSet's: its pods of each ordinal, each with its own claims), until one
does not fit: how many fit, where, and the trace of the first copy that does not fit, with its
reasons.

The file's other objects that the scheduler reads (claims, Services, PriorityClasses, bound
Pods, ...) join the cluster of --nodes first, as applying the file would create them
(`explain.PodFile`, `Pool.extended`), with the claims of its StatefulSets.

A file with one Pod or workload of one replica is not a batch: it is explained exactly as
`load_inputs` explains it (one trace).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, BinaryIO, Callable

from kexplain.admission.workloads import pods_of
from kexplain.errors import Source
from kexplain.explain.run import CLUSTER_KINDS, POD_KINDS, Inputs, PodFile, Pool, Request, created_objects, explain, inputs_for, \
    load_pool, missing_node_warnings, pending_pod, pod_of, read_config, single_inputs
from kexplain.load.gcpolicy import bulk_load
from kexplain.load.manifests import check_objects, load_objects
from kexplain.load.workloads import Copies, copies_of, replica_count, workload_name
from kexplain.model.snapshot import Snapshot
from kexplain.explain.placement import bind, chosen_node, iter_placements
from kexplain.framework.trace import ERROR, SCHEDULED, UNSCHEDULABLE, Trace

Suggester = Callable[[Inputs, Trace, Request], list[Any]]


@dataclass(frozen=True)
class Entry:
    """One object of the POD file: a Pod, or a workload and how many copies of its pod to place."""

    kind: str
    namespace: str
    name: str
    pod: dict[str, Any]          # the pending pod (a workload's: made from its template)
    source: Source
    copies: int                  # how many copies to place; 1 without replicas
    replicated: bool             # placed copy by copy, copies named `<name>-<i>`
    position: int                # order of appearance in the file
    naming: Copies | None = None             # how its copies are named (a StatefulSet's: ordinals, claims)
    workload: dict[str, Any] | None = None   # the Pod or workload as the file has it


@dataclass
class Attempt:
    """One pod (or copy) scheduled: its inputs, its trace, the node it was bound to (None: it did not fit)."""

    inputs: Inputs
    trace: Trace
    node: str | None


@dataclass
class Outcome:
    entry: Entry
    priority: int
    attempts: list[Attempt] = field(default_factory=list)

    @property
    def placed(self) -> list[str]:
        return [a.node for a in self.attempts if a.node is not None]

    @property
    def fits(self) -> bool:
        return len(self.placed) == self.entry.copies

    def to_json(self) -> dict[str, Any]:
        nodes: dict[str, int] = {}
        for n in self.placed:
            nodes[n] = nodes.get(n, 0) + 1
        e = self.entry
        return {"object": {"kind": e.kind, "namespace": e.namespace, "name": e.name}, "priority": self.priority,
                "replicas": e.copies, "fit": len(self.placed), "nodes": nodes,
                "pods": [{"name": a.inputs.pod.name, "node": a.node, "status": a.trace.result.status}
                         for a in self.attempts]}


# --- reading the POD file --------------------------------------------------------------------------

def entries(objs: list[tuple[dict[str, Any], Source]], path: str, replicas: int | None = None, *,
            stored: bool = False) -> list[Entry]:
    """The Pods and workloads of the POD file that are explained (`PodFile`), in order;
    `replicas` overrides every count. A workload's pod is its first copy, `<name>-0` (a
    StatefulSet's, its first ordinal's); a workload the API server would refuse is refused
    with its message (`kexplain.admission.workloads`), unless `stored`."""
    out: list[Entry] = []
    for obj, src in PodFile.of(objs, path).explained:
        kind = str(obj.get("kind"))
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        copies = replicas if replicas is not None else replica_count(obj)
        copies = max(1, copies)     # a workload scaled to zero: its template is still explained once
        pod = pod_of(obj, src, stored=stored)
        out.append(Entry(kind, str(meta.get("namespace") or "default"), workload_name(obj), pod, src, copies,
                         copies > 1, len(out), copies_of(obj), obj))
    if not out:
        pending_pod(objs, path)      # raises its "no Pod or workload to explain" error
    return out


@dataclass
class Loaded:
    """What the POD file holds: `single` inputs (one pod, one trace: as `load_inputs`), or a batch."""

    single: Inputs | None = None
    batch: list[Entry] = field(default_factory=list)
    pool: Pool | None = None


def load(req: Request, stdin: BinaryIO | None = None, replicas: int | None = None) -> Loaded:
    """Read the POD file once; one pod of one copy takes the same path as `load_inputs`."""
    with bulk_load():
        return _load(req, stdin, replicas)


def _load(req: Request, stdin: BinaryIO | None, replicas: int | None) -> Loaded:
    config = read_config(req.config_path, req.max_bytes)
    objs = load_objects([req.pod_path], req.max_bytes, stdin)
    # kubectl --validate, for the objects explained and those that join the cluster (PodFile)
    warnings = check_objects(objs, POD_KINDS | CLUSTER_KINDS, validate=req.validate, stored=req.stored)
    pod_file = PodFile.of(objs, req.pod_path)
    found = entries(objs, req.pod_path, replicas, stored=req.stored)
    if len(found) == 1 and found[0].copies == 1:
        entry = found[0]
        cluster = load_objects(req.node_paths, req.max_bytes, stdin)
        warnings += check_objects(cluster, CLUSTER_KINDS, validate=req.validate, stored=req.stored)
        assert entry.workload is not None
        with pods_of(entry.workload):       # a workload's pod refused: its controller's requests would be
            single = single_inputs(pod_file, entry.workload, entry.pod, entry.source, cluster, config,
                                   stored=req.stored)
        single.warnings[:0] = warnings
        return Loaded(single=single)
    pool = load_pool(req.node_paths, None, stored=req.stored, max_bytes=req.max_bytes, stdin=stdin,
                     validate=req.validate)
    created = [c for e in found if e.workload is not None for c in created_objects(e.workload, e.source, e.copies)]
    pool = pool.extended(pod_file.cluster, created, stored=req.stored)
    pool.config = config
    pool.warnings[:0] = warnings
    pool.warnings += missing_node_warnings(pod_file.cluster, pool.snapshot)
    return Loaded(batch=found, pool=pool)


# --- scheduling them in turn ----------------------------------------------------------------------

def _onto(carried: Snapshot, inputs: Inputs, pool: Pool) -> tuple[Inputs, Snapshot]:
    """The pod's inputs on the snapshot the earlier pods left, with any Namespace its admission
    created (inputs_for adds it to the pool's snapshot) added to it as well."""
    extra = {ns: labels for ns, labels in inputs.snapshot.namespaces.items() if ns not in carried.namespaces}
    if extra:
        added = [o for o in inputs.snapshot.of_kind("Namespace") if (o.get("metadata") or {}).get("name") in extra]
        objects = {**carried.objects, "Namespace": [*carried.of_kind("Namespace"), *added]}
        carried = carried.with_objects({**carried.namespaces, **extra}, objects)
    return replace(inputs, snapshot=carried), carried


def _admitted(entry: Entry, pool: Pool, req: Request) -> Inputs:
    """The entry's pod admitted against the pool; a workload's pod refused is said of the
    workload (`admission.workloads.pods_of`)."""
    with pods_of(entry.workload):
        return inputs_for(entry.pod, entry.source, pool, stored=req.stored)


def explain_batch(batch: list[Entry], pool: Pool, req: Request, suggester: Suggester | None = None) -> list[Outcome]:
    """Every entry in PrioritySort order, each against the cluster the earlier ones left; an
    Unschedulable attempt gets `suggestions` in its trace's extra keys when a suggester is given."""
    admitted = [(e, _admitted(e, pool, req)) for e in batch]
    admitted.sort(key=lambda ei: (-ei[1].pod.priority, ei[0].position))
    carried, start = pool.snapshot, req.start_index
    outcomes: list[Outcome] = []
    for entry, inputs in admitted:
        inputs, carried = _onto(carried, inputs, pool)
        run_req = replace(req, start_index=start)
        outcome = Outcome(entry, inputs.pod.priority)
        if entry.replicated:
            for p in iter_placements(inputs, run_req, entry.copies, entry.naming):
                outcome.attempts.append(Attempt(p.inputs, p.trace, p.node))
        else:
            trace = explain(inputs, run_req)
            outcome.attempts.append(Attempt(inputs, trace, chosen_node(trace)))
        last = outcome.attempts[-1]
        carried = last.inputs.snapshot if last.node is None else \
            bind(last.inputs.snapshot, last.inputs, run_req, last.inputs.pod.obj, last.node)
        if last.trace.search is not None:
            start = last.trace.search.next_start_index
        if suggester is not None and last.trace.result.status == UNSCHEDULABLE:
            start_req = replace(req, start_index=last.trace.search.start_index if last.trace.search else start)
            last.trace.extra["suggestions"] = [s.to_json() for s in suggester(last.inputs, last.trace, start_req)]
        outcomes.append(outcome)
    return outcomes


# --- output ------------------------------------------------------------------------------------------

def to_json(outcomes: list[Outcome]) -> dict[str, Any]:
    """A `SchedulingTraceList`: every attempt's trace in the order they were scheduled, and
    per object how many copies fit and where."""
    return {"apiVersion": "kexplain/v1", "kind": "SchedulingTraceList",
            "items": [a.trace.to_json() for o in outcomes for a in o.attempts],
            "placements": [o.to_json() for o in outcomes]}


def exit_code(outcomes: list[Outcome]) -> int:
    """0 when every pod (every copy) is scheduled; 3 when the scheduler would fail with an error
    on one; 1 otherwise."""
    if any(a.trace.result.status == ERROR for o in outcomes for a in o.attempts):
        return 3
    if all(o.fits and all(a.trace.result.status == SCHEDULED for a in o.attempts) for o in outcomes):
        return 0
    return 1


NODES_LISTED = 10       # nodes named under a heading; the others are counted
COPIES_HEAD = 5         # copies listed first in a long table of copies
COPIES_TAIL = 5         # and last (the copy that does not fit is the last one)


def node_counts(nodes: list[str]) -> dict[str, int]:
    """How many copies went to each node, in order of first placement."""
    counts: dict[str, int] = {}
    for n in nodes:
        counts[n] = counts.get(n, 0) + 1
    return counts


def _counted(name: str, count: int) -> str:
    return name if count == 1 else f"{name} ×{count}"


def nodes_text(nodes: list[str]) -> str:
    """`n1 ×2, n2` in order of first placement."""
    return ", ".join(_counted(n, c) for n, c in node_counts(nodes).items())


def heading_parts(outcome: Outcome) -> list[str]:
    """The parts of the heading a line may break between: `Kind`, `ns/name`, `(priority P)`
    and, for replicas, `(priority P):` `N of M replicas fit`."""
    e = outcome.entry
    parts = [e.kind, f"{e.namespace}/{e.name}", f"(priority {outcome.priority})"]
    if e.replicated:
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
    from rich.cells import cell_len

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


def _zone(attempt: Attempt, node: str) -> str:
    """The node's zone: from the trace's details when recorded, else from the node's labels."""
    facts = ((attempt.trace.extra.get("details") or {}).get("nodes") or {}).get(node) or {}
    if facts.get("zone"):
        return str(facts["zone"])
    from kexplain.framework.trace import zone_of
    info = attempt.inputs.snapshot.get(node)
    return zone_of(info.node.labels) if info is not None else ""


def _limited(counts: dict[str, int], what: str) -> list[str]:
    shown = [_counted(n, c) for n, c in list(counts.items())[:NODES_LISTED]]
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


def copies_shown(attempts: list[Attempt]) -> tuple[list[tuple[int, Attempt]], int]:
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
    from rich.cells import cell_len

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


def print_batch(outcomes: list[Outcome], console: Any, wide: bool = False) -> None:
    """Each object in scheduling order: a short heading with its name (and for replicas how
    many fit), then its explanation (for replicas: where the copies went, grouped by node, the
    copies in the order they were placed, and the first copy that did not fit explained in
    full). Plain text, without box-drawing characters and trailing blanks, when not on a
    terminal; every name is printed as it is (never read as markup) and never cut."""
    from rich.cells import cell_len
    from rich.text import Text

    from kexplain.render.table import print_trace

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
        for text in where_lines(o, width):
            line(text)
        shown, left_out = copies_shown(o.attempts)
        title = "Copies, in the order they were placed"
        if left_out:
            title += f" (the first {COPIES_HEAD} and the last {COPIES_TAIL} of {len(o.attempts)})"
        line(f"{title}:")
        for text, style in copies_lines(o, width):
            line(text, style)
        last = o.attempts[-1]
        if last.node is None:
            line(f"Why {last.inputs.pod.name} does not fit:")
            print_trace(last.trace.to_json(), console, wide=wide)
