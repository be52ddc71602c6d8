"""The output of `kexplain pod`: what the scheduler said next to kexplain's verdict, the
one-line-per-pod list of `--pending`/`-A`, the trace's `live` key, the progress bar shown on
a terminal while the cluster is read, and the one shown while many pods are scheduled
(`scheduling_bar`, shared by `kexplain POD`, `kexplain pod --pending` and `kexplain lint`)."""
from __future__ import annotations

from contextlib import contextmanager, nullcontext
from typing import Any, Callable, ContextManager, Iterator, Optional, TextIO

from rich.console import Console
from rich.text import Text

from kexplain.explain.compare import Comparison, LivePod
from kexplain.render.consoles import text_console
from kexplain.render.queue import nomination_why, queue_why, scheduler_why
from kexplain.render.table import print_trace
from kexplain.render.views import random_tie, shorten

Progress = Callable[[str, int, Optional[int]], None]     # (resource, objects read, total or None)

# Why a live cluster has no nodes (the human view says it when it has none).
LIVE_NO_NODES = "The cluster has no nodes: the API server listed no Node object."
COLUMNS = ("POD", "KEXPLAIN", "SCHEDULER", "WHY")
TIED_LISTED = 8         # nodes named on a pod's line when a random pick among them is made


@contextmanager
def progress_bar(stream: TextIO, *, color: bool) -> Iterator[Progress]:
    """A callback drawing one bar per resource on `stream` (a terminal), gone when done."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bars, TextColumn

    console = text_console(stream, force_terminal=True, no_color=not color)
    with Bars(TextColumn("reading {task.description:<24}", markup=False), BarColumn(), MofNCompleteColumn(),
              console=console, transient=True) as bar:
        tasks: dict[str, Any] = {}

        def update(resource: str, done: int, total: Optional[int]) -> None:
            if resource not in tasks:
                tasks[resource] = bar.add_task(resource, total=total)
            bar.update(tasks[resource], completed=done, total=total)   # None: still unknown

        yield update


class ScheduleBar:
    """How far the scheduling of many pods went: `update(done, planned)` after each pod (the
    engine's progress callback); `paused()` hides the bar while something is printed to the
    same terminal. Without a terminal it draws nothing (`ScheduleBar(None)`)."""

    def __init__(self, bars: Any = None, task: Any = None) -> None:
        self._bars, self._task = bars, task

    def update(self, done: int, planned: int) -> None:
        if self._bars is not None:
            self._bars.update(self._task, completed=done, total=planned)

    def paused(self) -> ContextManager[None]:
        if self._bars is None:
            return nullcontext()
        return self._pause()

    @contextmanager
    def _pause(self) -> Iterator[None]:
        self._bars.stop()       # transient: the bar is erased
        try:
            yield
        finally:
            self._bars.start()


@contextmanager
def scheduling_bar(stream: TextIO, *, color: bool, enabled: bool, what: str = "scheduling pods") \
        -> Iterator[ScheduleBar]:
    """A bar on `stream` (stderr, when `enabled`: it is a terminal) while pods are scheduled,
    gone when done; never written to stdout, so `-o json`/`-o yaml` stay clean."""
    if not enabled:
        yield ScheduleBar()
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bars, TextColumn, TimeElapsedColumn

    console = text_console(stream, force_terminal=True, no_color=not color)
    with Bars(TextColumn(f"{what:<24}", markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
              console=console, transient=True, redirect_stdout=False, redirect_stderr=False) as bars:
        yield ScheduleBar(bars, bars.add_task(what, total=None))


def live_json(server: str, context: Optional[str], server_version: Optional[str],
              comparison: Optional[Comparison]) -> dict[str, Any]:
    """The trace's `live` key: where it was read, and the comparison with the scheduler."""
    return {"server": server, "context": context, "serverVersion": server_version,
            **(comparison.to_json() if comparison is not None else {})}


def print_comparison(console: Console, comparison: Comparison) -> None:
    """What the scheduler said (the PodScheduled condition), whether kexplain agrees, and why not."""
    cond = comparison.pod_scheduled
    if cond is not None:
        since = f", since {cond['lastTransitionTime']}" if cond.get("lastTransitionTime") else ""
        said = f": {cond['message']}" if cond.get("message") else ""
        console.print(Text(f"The scheduler said (PodScheduled={cond.get('status')}, "
                           f"{cond.get('reason') or 'no reason'}{since}){said}"))
    if comparison.agrees is True:
        console.print(Text("kexplain agrees with the scheduler.", style="green"))
    elif comparison.agrees is False:
        console.print(Text("kexplain differs from the scheduler. Possible reasons:", style="yellow"))
    for note in comparison.notes:
        console.print(Text(f"  - {note}"))
    for hint in comparison.hints:
        console.print(Text(f"Note: {hint}"))


def summary(res: LivePod) -> tuple[str, str, str, str]:
    """(pod, kexplain's verdict, whether the scheduler agrees, the one-line why)."""
    if res.trace is None:
        return res.key, "skipped", "-", res.skipped
    result = res.trace["result"]
    status = result["status"]
    tied = random_tie(res.trace)
    agrees = res.comparison.agrees if res.comparison is not None else None
    queued = queue_why(res.trace)       # the pods ahead in the scheduler's queue change its verdict
    differs = scheduler_why(res.trace)      # CA's loop parts from the queue on it
    if queued is not None:
        status = res.trace["queue"]["result"]["status"]
        why = queued
    elif status == "Scheduled" and tied:
        why = f"fits now: would be bound to one of {shorten(tied, TIED_LISTED)}, picked at random"
    elif status == "Scheduled":
        why = f"fits now: would be bound to {result.get('suggestedHost') or ', '.join(result['selectedNodes'])}"
    elif status == "Gated":
        gate = next((e for e in res.trace.get("preEnqueue") or [] if e.get("code") != "Success"), {})
        why = "; ".join(gate.get("reasons") or []) or f"gated by {gate.get('plugin', '')}"
    elif status == "Error":
        why = result.get("error") or ""
    else:
        why = (result.get("message") or "") + nomination_why(res.trace.get("postFilter"))
    if differs is not None:
        why += f"; {differs}"
    return res.key, status, {True: "agrees", False: "differs"}.get(agrees, "-"), why


def print_pending(out: TextIO, console: Console, rows: list[tuple[str, str, str, str]], detailed: list[LivePod], *,
                  where: str, wide: bool = False) -> None:
    """One line per pod (`summary` of each; the why column unpadded, however long); then each
    pod of `detailed` (--details) explained in full, with its comparison. `where`: the
    namespace(s) looked at."""
    if not rows:
        out.write(f"No pod in {where} is Pending with PodScheduled=False.\n")
        return
    table = [COLUMNS, *rows]
    widths = [max(len(row[i]) for row in table) for i in range(3)]
    for row in table:
        out.write("  ".join(cell.ljust(w) for cell, w in zip(row[:3], widths)) + "  " + row[3] + "\n")
    for res in detailed:
        if res.trace is None:
            continue
        out.write("\n")
        console.rule(Text(res.key))
        print_trace(res.trace, console, wide=wide, no_nodes_hint=LIVE_NO_NODES)
        print_comparison(console, res.comparison or Comparison())


def print_from_events(out: TextIO, doc: dict[str, Any]) -> None:
    """Pods explained by the scheduler's own word: the `FromEvents` document of one pod or the
    `FromEventsList` of `--pending` (what `-o json` writes), then one block of the reads RBAC
    refused, what each would add and the rules that allow them."""
    from kexplain.render.from_event import answer_lines, refused_lines

    many = doc.get("kind") == "FromEventsList"
    items = doc["items"] if many else [doc]
    if many and not items:
        out.write(f'No pod in namespace "{doc["namespace"]}" is Pending with PodScheduled=False.\n')
    for n, item in enumerate(items):
        if n:
            out.write("\n")
        out.writelines(line + "\n" for line in answer_lines(item))
    out.write("\n")
    refused = doc["refused"] if many else doc["fromEvent"]["refused"]
    out.writelines(line + "\n" for line in refused_lines(refused, doc["snapshot"] if many else doc["live"]["snapshot"]))
