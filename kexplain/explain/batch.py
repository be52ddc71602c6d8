"""Several pods, a workload's replicas, a DaemonSet: scheduled one after another, as the
scheduler's queue would meet them.

A POD file with several Pods (or workloads) is one batch (`kexplain.explain.inputs.load`).
Every pod goes through admission first (that gives its priority); then the pods are taken in
PrioritySort order (priority descending, then order of appearance in the file, which is the
order they would have been created in) and each is scheduled against the cluster as the
previous ones left it: a pod that fits is bound to the node the scheduler picks
(`placement.chosen_node`) before the next pod is scheduled, and the round-robin position is
carried over (`Queue`). A workload with more than one replica (`spec.replicas`; a Job's
parallelism, at most its completions; or `--replicas N` for every object of the file) is placed
copy by copy (`placement.iter_placements`), copies named `<name>-<i>` (a StatefulSet's: its pods
of each ordinal, each with its own claims), until one does not fit: how many fit, where, and
the trace of the first copy that does not fit, with its reasons. A DaemonSet is placed as its
controller places it: one pod pinned to each node it would run on
(`placement.iter_daemon_placements`); with no such node it runs no pod, and there is nothing
to schedule.

The file's other objects that the scheduler reads (claims, Services, PriorityClasses, bound
Pods, ...) join the cluster of --nodes first, as applying the file would create them
(`inputs.PodFile`, `Pool.extended`), with the claims of its StatefulSets.

`kexplain POD` and `kexplain lint` both schedule a file's pods this way. Never prints.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

from kexplain.admission.workloads import pods_of
from kexplain.explain.carryover import Carryover, terminating
from kexplain.explain.inputs import Entry, Inputs, Pool, inputs_for
from kexplain.explain.placement import DaemonNodes, Placement, bound_after, daemon_nodes, iter_daemon_placements, \
    iter_placements, place, siblings_matter
from kexplain.explain.request import RunOptions
from kexplain.framework.trace import UNSCHEDULABLE, Trace
from kexplain.model.snapshot import Snapshot

Suggester = Callable[[Inputs, Trace, RunOptions], list[Any]]


@dataclass
class Outcome:
    """One Pod or workload of a batch, scheduled: `attempts`, its pod (or each copy) in the
    order they were scheduled. `entry` is the entry as placed (a DaemonSet's `copies`: its
    eligible nodes); `inputs` its pod as admitted, before any copy; `daemon`: which nodes a
    DaemonSet runs on, and why not the others."""

    entry: Entry
    inputs: Inputs
    attempts: list[Placement] = field(default_factory=list)
    daemon: DaemonNodes | None = None

    @property
    def priority(self) -> int:
        return self.inputs.pod.priority

    @property
    def placed(self) -> list[str]:
        return [a.node for a in self.attempts if a.node is not None]

    @property
    def fits(self) -> bool:
        return len(self.placed) == self.entry.copies

    @property
    def first_unfit(self) -> Placement | None:
        """The first attempt that did not fit (of replicas: the last attempt), if any."""
        return next((a for a in self.attempts if a.node is None), None)

    def to_json(self) -> dict[str, Any]:
        nodes: dict[str, int] = {}
        for n in self.placed:
            nodes[n] = nodes.get(n, 0) + 1
        e = self.entry
        out = {"object": {"kind": e.kind, "namespace": e.namespace, "name": e.name}, "priority": self.priority,
               "replicas": e.copies, "fit": len(self.placed), "nodes": nodes,
               "pods": [{"name": a.inputs.pod.name, "node": a.node, "status": a.trace.result.status}
                        for a in self.attempts]}
        if self.daemon is not None:
            out["notEligible"] = dict(self.daemon.excluded)
        return out


def admitted(entry: Entry, pool: Pool, *, stored: bool = False) -> Inputs:
    """The entry's pod admitted against the pool; a workload's pod refused is said of the
    workload (`admission.workloads.pods_of`)."""
    with pods_of(entry.workload):
        return inputs_for(entry.pod, entry.source, pool, stored=stored)


def queue_order(entry: Entry, inputs: Inputs) -> tuple[int, int]:
    """Where an admitted entry comes in PrioritySort order: priority descending, then order of
    appearance (a sort key)."""
    return -inputs.pod.priority, entry.position


class Queue:
    """The scheduler working through a batch: each entry placed (`place`) against the cluster
    as the entries before it left it, from the round-robin position they left. An entry that
    fails to be placed (an exception) leaves the queue as it was."""

    def __init__(self, pool: Pool, options: RunOptions) -> None:
        self.options = options
        self.start = options.start_index
        self.carry = Carryover.seeded(pool.nominated)
        self._snapshot = pool.snapshot
        self._unbound: tuple[Outcome, Snapshot, bool] | None = None   # the last outcome, bound when needed

    def snapshot(self) -> Snapshot:
        """The cluster with every pod placed so far bound to its node."""
        if self._unbound is not None:
            outcome, base, bound_each = self._unbound
            snapshot = bound_after(outcome.attempts, base, self.options, bound_each=bound_each)
            for attempt in outcome.attempts:
                if attempt.node is None:
                    snapshot = terminating(snapshot, attempt.trace)
            self._snapshot, self._unbound = snapshot, None
        return self._snapshot

    def place(self, entry: Entry, inputs: Inputs) -> Outcome:
        """Schedule the entry's pod (admitted: `inputs`), its copies, or its DaemonSet's pods."""
        base = _with_namespaces(self.snapshot(), inputs)
        inputs = replace(inputs, snapshot=base)
        options = self.options.at(self.start)
        outcome, bound_each = Outcome(entry, inputs), True
        if entry.daemon:
            nodes = daemon_nodes(inputs.pod, base)
            bound_each = siblings_matter(inputs.pod, inputs)
            outcome.entry, outcome.daemon = replace(entry, copies=len(nodes.eligible)), nodes
            outcome.attempts = list(iter_daemon_placements(inputs, options, nodes.eligible, bound_each,
                                                           entry.naming, self.carry))
        elif entry.replicated:
            outcome.attempts = list(iter_placements(inputs, options, entry.copies, entry.naming, self.carry))
        else:
            outcome.attempts = [place(inputs, options, self.carry)]
        if outcome.attempts:
            self.start = outcome.attempts[-1].next_start_index
        self._snapshot, self._unbound = base, (outcome, base, bound_each)
        return outcome


def _with_namespaces(carried: Snapshot, inputs: Inputs) -> Snapshot:
    """The snapshot the earlier pods left, with any Namespace the pod's admission created
    (`inputs_for` adds it to the pool's snapshot) added to it as well."""
    extra = {ns: labels for ns, labels in inputs.snapshot.namespaces.items() if ns not in carried.namespaces}
    if not extra:
        return carried
    added = [o for o in inputs.snapshot.of_kind("Namespace") if (o.get("metadata") or {}).get("name") in extra]
    objects = {**carried.objects, "Namespace": [*carried.of_kind("Namespace"), *added]}
    return carried.with_objects({**carried.namespaces, **extra}, objects)


def explain_batch(batch: list[Entry], pool: Pool, options: RunOptions, suggester: Suggester | None = None, *,
                  stored: bool = False) -> list[Outcome]:
    """Every entry in PrioritySort order, each against the cluster the earlier ones left. The
    first attempt of an entry that does not fit, when Unschedulable, gets `suggestions` in its
    trace's extra keys when a suggester is given (run with `options.plain()`: no extra keys)."""
    queue = Queue(pool, options)
    pods = sorted(((e, admitted(e, pool, stored=stored)) for e in batch), key=lambda ei: queue_order(*ei))
    outcomes = [queue.place(e, inputs) for e, inputs in pods]
    if suggester is not None:
        for outcome in outcomes:
            unfit = outcome.first_unfit
            if unfit is not None and unfit.trace.result.status == UNSCHEDULABLE:
                found = suggester(unfit.inputs, unfit.trace, options.plain().at(unfit.start_index))
                unfit.trace.extra["suggestions"] = [s.to_json() for s in found]
    return outcomes


def to_json(outcomes: list[Outcome]) -> dict[str, Any]:
    """A `SchedulingTraceList`: every attempt's trace in the order they were scheduled, and
    per object how many copies fit and where."""
    return {"apiVersion": "kexplain/v1", "kind": "SchedulingTraceList",
            "items": [a.trace.to_json() for o in outcomes for a in o.attempts],
            "placements": [o.to_json() for o in outcomes]}
