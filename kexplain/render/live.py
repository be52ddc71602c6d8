"""The output of `kexplain pod`: what the scheduler said next to kexplain's verdict, the
one-line-per-pod list of `--pending`/`-A`, the trace's `live` key, the progress bar shown on
a terminal while the cluster is read, and the one shown while many pods are scheduled
(`scheduling_bar`, shared by `kexplain POD`, `kexplain pod --pending` and `kexplain lint`)."""
from __future__ import annotations

from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, Any, Callable, ContextManager, Iterator, Mapping, Optional, Sequence, TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bars, TextColumn, TimeElapsedColumn
from rich.text import Text

from kexplain.render.consoles import text_console
from kexplain.render.queue import kueue_why, pending_line
from kexplain.render.table import print_trace

if TYPE_CHECKING:  # pragma: no cover  (a type only: an offline run never compares)
    from kexplain.explain.compare import Comparison

Progress = Callable[[str, int, Optional[int]], None]     # (resource, objects read, total or None)

# Why a live cluster has no nodes (the human view says it when it has none).
LIVE_NO_NODES = "The cluster has no nodes: the API server listed no Node object."
COLUMNS = ("POD", "KEXPLAIN", "SCHEDULER", "WHY")
HELD_COLUMNS = ("OBJECT", "WORKLOAD", "KUEUE", "WHY")


@contextmanager
def progress_bar(stream: TextIO, *, color: bool) -> Iterator[Progress]:
    """A callback drawing one bar per resource on `stream` (a terminal), gone when done."""
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
    """How far the scheduling of many pods went (`update(done, planned)`; `paused()` while other
    output goes to the terminal); without a terminal it draws nothing."""

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

    console = text_console(stream, force_terminal=True, no_color=not color)
    with Bars(TextColumn(f"{what:<24}", markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
              console=console, transient=True, redirect_stdout=False, redirect_stderr=False) as bars:
        yield ScheduleBar(bars, bars.add_task(what, total=None))


def live_json(server: str, context: Optional[str], server_version: Optional[str],
              comparison: Optional[Comparison]) -> dict[str, Any]:
    """The trace's `live` key: where it was read, and the comparison with the scheduler."""
    return {"server": server, "context": context, "serverVersion": server_version,
            **(comparison.to_json() if comparison is not None else {})}


def print_comparison(console: Console, live: Mapping[str, Any]) -> None:
    """What the scheduler said (the PodScheduled condition), whether kexplain agrees, and why
    not: a trace's `live` key (`live_json`)."""
    cond = live.get("podScheduled")
    if cond is not None:
        since = f", since {cond['lastTransitionTime']}" if cond.get("lastTransitionTime") else ""
        said = f": {cond['message']}" if cond.get("message") else ""
        console.print(Text(f"The scheduler said (PodScheduled={cond.get('status')}, "
                           f"{cond.get('reason') or 'no reason'}{since}){said}"))
    if live.get("agrees") is True:
        console.print(Text("kexplain agrees with the scheduler.", style="green"))
    elif live.get("agrees") is False:
        console.print(Text("kexplain differs from the scheduler. Possible reasons:", style="yellow"))
    for note in live.get("notes") or ():
        console.print(Text(f"  - {note}"))
    for hint in live.get("hints") or ():
        console.print(Text(f"Note: {hint}"))


def pod_key(doc: Mapping[str, Any]) -> str:
    pod = doc.get("pod") or {}
    return f"{pod.get('namespace')}/{pod.get('name')}" if isinstance(pod, Mapping) else str(pod)


def summary(item: Mapping[str, Any]) -> tuple[str, str, str, str]:
    """A pod's row of `--pending`'s list, from its list item or its `skipped` entry: (pod, verdict
    in the queue, whether the scheduler agrees, why: `render.queue.pending_line`)."""
    if "result" not in item:
        return pod_key(item), "skipped", "-", str(item.get("reason") or "")
    status, _, why = pending_line(item)
    agrees = (item.get("live") or {}).get("agrees")
    return pod_key(item), status, {True: "agrees", False: "differs"}.get(agrees, "-"), why


def print_pending(out: TextIO, console: Console, listed: Sequence[Mapping[str, Any]],
                  detailed: Sequence[Mapping[str, Any]] = (), *, where: str, wide: bool = False,
                  held: Sequence[Mapping[str, Any]] = ()) -> None:
    """One line per pod of `listed` (the why column unpadded), then each of `detailed` (--details)
    in full with its comparison; `where`: the namespace(s) looked at. Then the Workloads Kueue holds
    whose pods are not created yet (`held`: `kexplain.kueue.chain.Held.to_json`), one line each."""
    if not listed:
        out.write(f"No pod in {where} is Pending with PodScheduled=False" + (";" if held else ".") + "\n")
    else:
        _print_rows(out, [COLUMNS, *(summary(i) for i in listed)])
    if held:
        out.write(("\n" if listed else "") + held_heading(held) + ":\n")
        _print_rows(out, [HELD_COLUMNS, *(held_summary(h) for h in held)])
    for item in detailed:
        out.write("\n")
        console.rule(Text(pod_key(item)))
        print_trace(item, console, wide=wide, no_nodes_hint=LIVE_NO_NODES)
        print_comparison(console, item.get("live") or {})


def _print_rows(out: TextIO, table: Sequence[tuple[str, ...]]) -> None:
    """Rows whose columns but the last are padded to their widest cell (the last, a why, is not)."""
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]) - 1)]
    for row in table:
        out.write("  ".join(cell.ljust(w) for cell, w in zip(row[:-1], widths)) + "  " + row[-1] + "\n")


def _reserved(answer: Mapping[str, Any]) -> list[str]:
    """Where a Workload waiting for its checks holds quota, as the files' text says it: per pod set."""
    return [f"; pod set {name}: quota reserved on flavor {', '.join(sorted(set(flavors.values())))}"
            for name, flavors in (answer.get("reservedFlavors") or {}).items() if flavors]


def held_heading(held: Sequence[Mapping[str, Any]]) -> str:
    """The line over the Workloads Kueue holds (the text's and the page's)."""
    return f"Kueue holds {len(held)} Workload(s) whose pods are not created yet"


def held_summary(held: Mapping[str, Any]) -> tuple[str, str, str, str]:
    """A held Workload's row: (its job, or the Workload if it has no owner; the Workload; Kueue's
    verdict now; why, with the stored QuotaReserved condition where it says otherwise)."""
    answer = held.get("kueue") or {}
    owner = held.get("owner")
    name = (f"{owner.get('kind')} {owner.get('namespace')}/{owner.get('name')}" if owner
            else f"Workload {held['workload']}")
    verdict = str(answer.get("verdict") or "-")
    if verdict != "Admitted":
        why = str(answer.get("message") or answer.get("error") or "")
        return name, str(held.get("workload")), verdict, why + "".join(_reserved(answer))
    stored = next((c for c in (answer.get("live") or {}).get("conditions") or () if c.get("type") == "QuotaReserved"),
                  None)
    said = f"QuotaReserved {stored.get('status')} ({stored.get('reason')})" if stored else "no QuotaReserved"
    why = f"{kueue_why(answer)} now; the cluster stores {said}: no pod until Kueue's next cycle admits it"
    return name, str(held.get("workload")), verdict, why
