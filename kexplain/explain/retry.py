"""The scheduling queue's retry of a set's pods by QueueingHints (pkg/scheduler/backend/queue), e.g.
InterPodAffinity's isSchedulableAfterPodChange."""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from kexplain.explain.pod_file import Entry
from kexplain.explain.pod_inputs import Inputs
from kexplain.framework.trace import UNSCHEDULABLE, Trace
from kexplain.controllers.workloads import Copies
from kexplain.model.labels import SelectorError, parse_selector
from kexplain.model.pod import PodInfo

QUEUE, QUEUE_SKIP = "Queue", "QueueSkip"
REJECTED = ("Unschedulable", "UnschedulableAndUnresolvable")
MAX_ROUNDS = 1000


@dataclass(frozen=True)
class Bound:
    """An AssignedPod/Add event: a pod of the set bound to a node."""

    seq: int
    pod: PodInfo
    node: str

    def __str__(self) -> str:
        return f"pod {self.pod.namespace}/{self.pod.name} bound to {self.node}"


def rejecting_plugins(trace: Trace) -> frozenset[str]:
    """The plugins that rejected the pod in an attempt (its unschedulable plugins)."""
    out = {s.get("plugin") for s in trace.pre_filter or () if s.get("code") in REJECTED}
    out |= _filter_rejecters(trace.filter or {})
    return frozenset(p for p in out if p)


_REJECTERS: OrderedDict[int, tuple[dict, set]] = OrderedDict()     # id(filter) -> (filter, its rejecting plugins)
_REJECTERS_KEPT = 64


def _filter_rejecters(statuses: dict[str, dict[str, Any]]) -> set:
    """The plugins of `statuses`' rejections, worked out once per dict: the pods of a shape share
    their first one's (`explain.shared_cycles`), and a trace is read only once made."""
    kept = _REJECTERS.get(id(statuses))
    if kept is not None and kept[0] is statuses:
        return kept[1]
    values = list(statuses.values())
    unique = dict(zip(map(id, values), values)).values()        # (nodes share their status objects)
    found = {s.get("plugin") for s in unique if s.get("code") in REJECTED}
    _REJECTERS[id(statuses)] = (statuses, found)
    while len(_REJECTERS) > _REJECTERS_KEPT:
        _REJECTERS.popitem(last=False)
    return found


def _affinity_hint(pod: PodInfo, event: Bound) -> bool:
    terms = pod.required_affinity_terms
    return bool(terms) and all(t.matches(event.pod, {}) for t in terms)


def _spread_hint(pod: PodInfo, event: Bound) -> bool:
    if event.pod.namespace != pod.namespace:
        return False
    for c in pod.spec.get("topologySpreadConstraints") or ():
        try:
            if isinstance(c, dict) and parse_selector(c.get("labelSelector")).matches(event.pod.labels):
                return True
        except SelectorError:
            continue
    return False


# plugin -> its queueing hint for a bound pod (plugins without one never bring a pod back on it)
HINTS: dict[str, Callable[[PodInfo, Bound], bool]] = {
    "InterPodAffinity": _affinity_hint,
    "PodTopologySpread": _spread_hint,
}


def requeued_by(pod: PodInfo, plugins: frozenset[str], event: Bound) -> str:
    """The plugin whose hint answers Queue for `event`, "" when every one answers QueueSkip."""
    for plugin in sorted(plugins):
        hint = HINTS.get(plugin)
        if hint is not None and hint(pod, event):
            return plugin
    return ""


@dataclass(frozen=True)
class Retried:
    """A pod scheduled again on a retry: where it went, what brought it back, and in which round."""

    entry: Entry
    pod: str
    node: str | None
    trigger: str
    round: int
    message: str = ""       # still unschedulable: the FailedScheduling message of its last try

    def to_json(self) -> dict[str, Any]:
        e = self.entry
        out: dict[str, Any] = {"object": {"kind": e.kind, "namespace": e.namespace, "name": e.name},
                               "pod": self.pod, "node": self.node, "round": self.round, "requeuedBy": self.trigger}
        if self.message:
            out["message"] = self.message
        return out


@dataclass
class Waiting:
    """An object with a pod left unschedulable, and the plugins that rejected it when last tried."""

    entry: Entry
    inputs: Inputs
    next_index: int
    tried_at: int
    plugins: frozenset[str]
    message: str = ""
    landed: list[str] = field(default_factory=list)     # copies placed on a retry

    @property
    def pending(self) -> int:
        return self.entry.copies - self.next_index


@dataclass(frozen=True)
class _Shifted(Copies):
    """The copies of a workload from copy `offset` on (a retry starts at the first not placed)."""

    offset: int = 0

    def ordinal(self, index: int) -> int:
        return super().ordinal(index + self.offset)


def waiting_of(entry: Entry, inputs: Inputs, placed: int, unfit: Any, seq: int) -> Waiting | None:
    """What waits of an object after its first attempt; None when nothing does."""
    if unfit is None or entry.daemon or entry.idle or unfit.trace.result.status != UNSCHEDULABLE:
        return None
    if unfit.index != placed:       # copies placed each on its own, a later one placed: not retried from here
        return None
    if (unfit.trace.post_filter or {}).get("nominatedNodeName"):
        return None
    return Waiting(entry, inputs, placed, seq, rejecting_plugins(unfit.trace), unfit.trace.result.message)


def retry(queue: Any, waiting: list[Waiting], events: list[Bound], next_seq: Callable[[], int],
          order: Callable[[Waiting], Any], on_unfit: Callable[[Waiting, Any], None] | None = None) -> list[Retried]:
    """Retry the `waiting` objects on `queue` until none moves; what each retry did, in order."""
    out: list[Retried] = []
    for round_ in range(1, MAX_ROUNDS + 1):
        moved = False
        for w in sorted((w for w in waiting if w.pending > 0), key=order):
            pod = w.inputs.pod
            trigger = next(((e, p) for e in events if e.seq > w.tried_at
                            for p in [requeued_by(pod, w.plugins, e)] if p), None)
            if trigger is None:
                continue
            event, plugin = trigger
            said = f"{event} ({plugin}: {QUEUE})"
            naming = w.entry.naming or Copies.of_pod(pod.name)
            shifted = _Shifted(naming.base, naming.statefulset, naming.generate, naming.namespace, naming.indexed,
                               w.next_index)
            entry = replace(w.entry, copies=w.pending, naming=shifted,
                            replicated=w.entry.replicated or w.pending > 1)
            landed: list[tuple[str, str]] = []

            def sink(placement: Any) -> None:
                if placement.node is not None:
                    events.append(Bound(next_seq(), placement.inputs.pod, placement.node))
                    landed.append((placement.inputs.pod.name, placement.node))

            outcome = queue.place(entry, w.inputs, sink)
            w.tried_at = next_seq()
            for name, node in landed:
                out.append(Retried(w.entry, name, node, said, round_))
            w.landed += [name for name, _ in landed]
            w.next_index += len(landed)
            if landed:
                moved = True
            unfit = outcome.first_unfit
            if unfit is not None:
                w.plugins = rejecting_plugins(unfit.trace) or w.plugins
                w.message = unfit.trace.result.message
                if on_unfit is not None:
                    on_unfit(w, unfit)
                out.append(Retried(w.entry, unfit.inputs.pod.name, None, said, round_, w.message))
        if not moved:
            break
    return out
