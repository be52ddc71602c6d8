"""Several pods scheduled one after another in PrioritySort order, lazily (memory flat in their number);
the next pod of a shape whose Unschedulable cycle nothing has changed since takes it renamed (`shared_cycles`)."""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Callable, Iterable, Iterator

from kexplain.admission.workloads import pods_of, workload_warnings
from kexplain.controllers.workloads import ordered_ready_why
from kexplain.errors import ConfigError, KexplainError, LeftOutNote
from kexplain.apimachinery.labels import zone_of
from kexplain.explain.carryover import Carryover, terminating
from kexplain.admission.resourcequota import QuotaLedger
from kexplain.explain.copy_summary import summarize
from kexplain.explain.created import created, refused_creates
from kexplain.explain.inputs import inputs_for
from kexplain.explain.pod_file import Entry, ordered_ready
from kexplain.explain.pod_inputs import Inputs
from kexplain.state.cluster import ClusterState
from kexplain.explain.placement import DaemonNodes, Placement, bind, daemon_nodes, iter_daemon_placements, \
    iter_placements, place, siblings_matter
from kexplain.explain.request import RunOptions
from kexplain.explain.retry import Bound, Waiting, retry, waiting_of
from kexplain.explain.run import explain
from kexplain.explain.shapes import renamed
from kexplain.explain.shared_cycles import SharedCycles, shapes_kept
from kexplain.framework.trace import UNSCHEDULABLE, Trace
from kexplain.model.shapes import pending_key
from kexplain.model.snapshot import Snapshot

Suggester = Callable[[Inputs, Trace, RunOptions], list[Any]]
Refused = Callable[[Entry, KexplainError], None]      # an entry left out of the batch, and why
Sink = Callable[[Placement], None]          # each pod's placement, as it is produced
Progress = Callable[[int, int], None]       # (pods scheduled so far, pods planned)


@dataclass(frozen=True)
class CopyRecord:
    """What stays of one pod once its trace is gone: enough for the copies table and the exit code."""

    name: str
    node: str | None
    status: str
    zone: str = ""          # the node's topology.kubernetes.io/zone label ("" without one)
    summary: dict[str, Any] | None = field(default=None, compare=False)    # `copy_summary.summarize`

    @classmethod
    def of(cls, placement: Placement) -> "CopyRecord":
        node = placement.node
        info = placement.inputs.snapshot.get(node) if node is not None else None
        zone = zone_of(info.node.labels) if info is not None else ""
        return cls(placement.inputs.pod.name, node, placement.trace.result.status, zone,
                   summarize(placement.trace, shared=placement.shared))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "node": self.node, "status": self.status}
        if self.zone:
            out["zone"] = self.zone
        if self.summary is not None:
            out["summary"] = self.summary
        return out


@dataclass
class Outcome:
    """One Pod or workload of a batch, scheduled: its copies without traces, and the placements shown."""

    entry: Entry
    inputs: Inputs | None
    daemon: DaemonNodes | None = None
    copies: list[CopyRecord] = field(default_factory=list)
    first: Placement | None = None
    first_unfit: Placement | None = None
    last: Placement | None = None

    def record(self, placement: Placement) -> None:
        """Count one more placement, keeping its trace only when it is one that is shown."""
        self.copies.append(CopyRecord.of(placement))
        if self.first is None:
            self.first = placement
        if placement.node is None and self.first_unfit is None:
            self.first_unfit = placement
        self.last = placement

    @property
    def attempts(self) -> list[Placement]:
        """The placements kept (first, first that does not fit, last), in order."""
        kept = {id(p): p for p in (self.first, self.first_unfit, self.last) if p is not None}
        return sorted(kept.values(), key=lambda p: p.index)

    @property
    def priority(self) -> int | None:
        """Its pod's priority as admitted (None: the API server refused its pod)."""
        return self.inputs.pod.priority if self.inputs is not None else None

    @property
    def placed(self) -> list[str]:
        return [c.node for c in self.copies if c.node is not None]

    @property
    def fits(self) -> bool:
        """Every pod the controller creates fits, and no quota refused one."""
        return bool(self.entry.idle) or (len(self.placed) == self.entry.copies and not self.entry.failed_create)

    def _never_created(self) -> dict[str, Any] | None:
        """An OrderedReady StatefulSet's ordinals after the copy that does not fit: never created."""
        e, last = self.entry, self.last
        if e.kind != "StatefulSet" or not ordered_ready(e.workload) or last is None or last.node is not None \
                or len(self.copies) >= e.copies or e.naming is None:
            return None
        return {"pods": [e.naming.name(i) for i in range(len(self.copies), e.copies)],
                "message": ordered_ready_why(last.inputs.pod.name)}

    def to_json(self) -> dict[str, Any]:
        """The object's entry of `placements`: copies that fit per node and zone, and each copy's record."""
        nodes: dict[str, int] = {}
        zones: dict[str, int] = {}
        for c in self.copies:
            if c.node is not None:
                nodes[c.node] = nodes.get(c.node, 0) + 1
                if c.zone:
                    zones[c.zone] = zones.get(c.zone, 0) + 1
        e = self.entry
        out: dict[str, Any] = {"object": {"kind": e.kind, "namespace": e.namespace, "name": e.name}}
        if self.priority is not None:
            out["priority"] = self.priority
        if e.autoscaled_by is not None:
            out["horizontalPodAutoscaler"] = e.autoscaled_by
        if e.kueue is not None:         # Kueue's answer, before its controller created its pods
            out["kueue"] = e.kueue
        if e.reapplied is not None:     # applied onto the one the cluster runs: what its controllers do now
            out["reapplied"] = e.reapplied
        if e.kind == "StatefulSet":     # whether its controller creates the ordinals one by one
            out["podManagementPolicy"] = "OrderedReady" if ordered_ready(e.workload) else "Parallel"
        if e.idle:      # no pod: its template, explained, took no room
            out.update({"replicas": 0, "fit": 0, "nodes": {}, "idle": e.idle, "pods": [],
                        "template": self.copies[0].to_json() if self.copies else None})
            return out
        out.update({"replicas": e.asked if e.failed_create else e.copies, "fit": len(self.placed), "nodes": nodes})
        if e.failed_create:     # the controller created only `created` pods (a quota, or none: refused)
            out.update({"created": e.copies, "failedCreate": e.failed_create})
        if zones:
            out["zones"] = zones
        out["pods"] = [c.to_json() for c in self.copies]
        waiting = self._never_created()
        if waiting:
            out["notCreatedPods"] = waiting
        if self.daemon is not None:
            out["notEligible"] = dict(self.daemon.excluded)
            if self.daemon.not_created:     # eligible, but no pod was created (`failedCreate`)
                out["notCreated"] = list(self.daemon.not_created)
        return out


def admitted(entry: Entry, pool: ClusterState, *, stored: bool = False) -> Inputs:
    """The entry's pod admitted against the pool; a workload's refused pod is said of the workload."""
    with pods_of(entry.workload, pool.config.kube):
        inputs = inputs_for(entry.pod, entry.source, pool, stored=stored, later=entry.later_policies)
    return replace(inputs, warnings=workload_warnings(inputs.warnings, entry.workload))


class OtherScheduler(LeftOutNote):
    """A pod of another scheduler (spec.schedulerName no profile here): neither unschedulable nor bad input."""


def other_scheduler(entry: Entry, inputs: Inputs, pool: ClusterState) -> OtherScheduler | None:
    """Why the entry's pod is not this kube-scheduler's (`SchedulerConfig.profile_for`); None when it is."""
    try:
        pool.config.profile_for(inputs.pod.spec.get("schedulerName") or "default-scheduler")
    except ConfigError as err:
        return OtherScheduler(f"not scheduled by this kube-scheduler: {err.message}", source=entry.source,
                              obj=entry.workload)
    return None


def queue_order(entry: Entry, inputs: Inputs) -> tuple[int, int]:
    """PrioritySort's sort key: priority descending, then order of appearance."""
    return -inputs.pod.priority, entry.position


def _order(entry: Entry, inputs: Inputs | None) -> tuple[int, int]:
    """`queue_order`, a refused entry at priority 0 (only where its section comes)."""
    return queue_order(entry, inputs) if inputs is not None else (0, entry.position)


@dataclass(frozen=True)
class _Unbound:
    """What the queue needs to bind an outcome's pods when the next object comes."""

    base: Snapshot
    last: Placement | None
    each: tuple[tuple[Inputs, str], ...] = ()
    preempted: tuple[dict[str, Any], ...] = ()


class Queue:
    """The scheduler working through a batch: each entry placed against the cluster the ones before it left."""

    def __init__(self, pool: ClusterState, options: RunOptions, *,
                 on_first_unfit: Callable[[Placement], None] | None = None) -> None:
        self.options = options
        self.start = options.start_index
        self.carry = Carryover.seeded(pool.nominated)
        self.on_first_unfit = on_first_unfit
        self._snapshot = pool.snapshot
        self._unbound: _Unbound | None = None   # the last outcome, bound when needed
        self._shared = SharedCycles()

    def snapshot(self) -> Snapshot:
        """The cluster with every pod placed so far bound to its node."""
        if self._unbound is not None:
            u = self._unbound
            snapshot = u.base
            if u.last is not None:          # each copy bound before the next: only the last is left
                snapshot = u.last.inputs.snapshot
                if u.last.node is not None:
                    snapshot = bind(snapshot, u.last.inputs, self.options, u.last.inputs.pod.obj, u.last.node)
            for inputs, node in u.each:
                snapshot = bind(snapshot, inputs, self.options, inputs.pod.obj, node)
            for post in u.preempted:
                snapshot = terminating(snapshot, post)
            self._snapshot, self._unbound = snapshot, None
        return self._snapshot

    def place(self, entry: Entry, inputs: Inputs, sink: Sink | None = None) -> Outcome:
        """Schedule the entry's pod or copies, each placement to `sink`; only those shown are kept."""
        base = _with_namespaces(self.snapshot(), inputs)
        inputs = replace(inputs, snapshot=base)
        options = self.options.at(self.start)
        outcome, bound_each = Outcome(entry, inputs), True
        placements: Iterable[Placement]
        if entry.daemon:
            nodes = daemon_nodes(inputs.pod, base)
            if entry.failed_create:         # the quota let its controller create `copies` pods only
                nodes = nodes.created(entry.copies)
            bound_each = siblings_matter(inputs.pod, inputs)
            outcome.entry, outcome.daemon = replace(entry, copies=len(nodes.eligible)), nodes
            placements = iter_daemon_placements(inputs, options, nodes.eligible, bound_each, entry.naming,
                                                self.carry)
        elif entry.replicated:
            placements = iter_placements(inputs, options, entry.copies, entry.naming, self.carry)
        else:
            placements = (self._place_one(inputs, options, entry.idle) for _ in range(1))
            bound_each = not entry.idle     # an idle workload's template: explained, never bound
        start = self.start
        each: list[tuple[Inputs, str]] = []
        preempted: list[dict[str, Any]] = []
        for placement in placements:
            if entry.idle:      # its template, explained: a pod its controller does not create now
                placement.trace.extra["notCreated"] = entry.idle
            first_unfit = placement.node is None and outcome.first_unfit is None
            outcome.record(placement)
            if first_unfit and self.on_first_unfit is not None and not placement.shared:
                self.on_first_unfit(placement)
            if placement.node is None:
                post = placement.trace.post_filter or {}
                if post.get("nominatedNodeName") and post.get("victims"):
                    preempted.append({"nominatedNodeName": post["nominatedNodeName"],
                                      "victims": list(post["victims"])})
            elif not bound_each and not entry.idle:
                each.append((placement.inputs, placement.node))
            if sink is not None:
                sink(placement)
            start = placement.next_start_index
        self.start = start
        self._snapshot = base
        self._unbound = _Unbound(base, outcome.last if bound_each else None, tuple(each), tuple(preempted))
        return outcome

    def _place_one(self, inputs: Inputs, options: RunOptions, idle: bool) -> Placement:
        """`inputs.pod` itself, or the cycle of the pod of its shape before it when nothing it
        reads changed since (`explain.shared_cycles`: counted as a cycle all the same)."""
        key = None if idle else self._shared.key(inputs, options, self.carry)
        found = self._shared.found(key, inputs)
        if found is not None:
            self.carry.kept(inputs.pod, UNSCHEDULABLE)
            return found
        placement = place(inputs, options, self.carry)
        self._shared.keep(key, placement)
        return placement


def _with_namespaces(carried: Snapshot, inputs: Inputs) -> Snapshot:
    """The snapshot the earlier pods left, plus any Namespace the pod's admission created."""
    extra = {ns: labels for ns, labels in inputs.snapshot.namespaces.items() if ns not in carried.namespaces}
    if not extra:
        return carried
    added = [o for o in inputs.snapshot.of_kind("Namespace") if (o.get("metadata") or {}).get("name") in extra]
    objects = {**carried.objects, "Namespace": [*carried.of_kind("Namespace"), *added]}
    return carried.with_objects({**carried.namespaces, **extra}, objects)


@dataclass(frozen=True)
class Batch:
    """A file's pods to schedule lazily, each `Outcome` yielded as soon as it is placed, placements to `sink`."""

    batch: tuple[Entry, ...]
    pool: ClusterState
    options: RunOptions
    suggester: Suggester | None = None
    stored: bool = False
    sink: Sink | None = None
    progress: Progress | None = None
    refused: Refused | None = None
    # filled once every outcome is yielded: the queue's retry (`kexplain.explain.retry`) and what it left
    retried: list[Any] = field(default_factory=list, compare=False)
    still_pending: dict[int, int] = field(default_factory=dict, compare=False)

    def __iter__(self) -> Iterator[Outcome]:
        held = self.__dict__.get("held")
        return iter(held) if held is not None else self._scheduled()

    @cached_property
    def held(self) -> list[Outcome]:
        """Every outcome, held in memory (what indexing reads): for small batches and tests."""
        return list(self._scheduled())

    def __getitem__(self, i: int) -> Outcome:
        return self.held[i]

    def _scheduled(self) -> Iterator[Outcome]:
        queue = Queue(self.pool, self.options, on_first_unfit=self._suggest if self.suggester else None)
        pods = sorted(self._admitted(), key=lambda ei: _order(*ei))
        planned = [e.copies for e, _ in pods]
        done = 0
        seq = itertools.count()
        events: list[Bound] = []        # the bindings, numbered with the attempts (`retry`)
        waiting: list[Waiting] = []

        def counted(placement: Placement) -> None:
            nonlocal done
            done += 1
            at = next(seq)
            if placement.node is not None:
                events.append(Bound(at, placement.inputs.pod, placement.node))
            if self.sink is not None:
                self.sink(placement)
            if self.progress is not None:
                self.progress(done, max(done, sum(planned)))

        for i, (entry, inputs) in enumerate(pods):
            if entry.not_created:       # no pod to place: its controller's FailedCreate says why
                yield Outcome(entry, inputs)
                continue
            assert inputs is not None
            outcome = queue.place(entry, inputs, counted)
            planned[i] = len(outcome.copies)        # stopped early, or a DaemonSet's eligible nodes
            w = waiting_of(outcome.entry, inputs, len(outcome.placed), outcome.first_unfit, next(seq))
            if w is not None:       # left unschedulable: the queue's retry may bring it back
                waiting.append(w)
            yield outcome
        self.retried[:] = retry(queue, waiting, events, lambda: next(seq), lambda w: queue_order(w.entry, w.inputs))
        self.still_pending.clear()
        self.still_pending.update({w.entry.position: w.pending for w in waiting})

    def _admitted(self) -> Iterator[tuple[Entry, Inputs | None]]:
        """Each entry with its pod admitted and as many copies as the quotas let be created."""
        ledger = None if self.stored else QuotaLedger.of_pairs(self.pool.objects,
                                                               self.pool.kube.enabled("PodLevelResources"))
        for entry in self.batch:
            try:
                inputs = admitted(entry, self.pool, stored=self.stored)
                entry, _ = created(entry, inputs, ledger)
            except KexplainError as err:
                none = None if self.stored else refused_creates(entry, err, self.pool)
                if none is not None:
                    yield none, None
                    continue
                if self.refused is None:
                    raise
                self.refused(entry, err)
                continue
            if self.refused is None:
                yield entry, inputs
                continue
            other = other_scheduler(entry, inputs, self.pool)
            if other is not None:
                self.refused(entry, other)
                continue
            yield entry, inputs

    def _suggest(self, unfit: Placement) -> None:
        assert self.suggester is not None
        if unfit.trace.result.status == UNSCHEDULABLE:
            found = self.suggester(unfit.inputs, unfit.trace, self.options.plain().at(unfit.start_index))
            unfit.trace.extra["suggestions"] = [s.to_json() for s in found]

    def with_sink(self, sink: Sink) -> "Batch":
        """The same batch, with `sink` also seeing every placement (after the one it had)."""
        if self.sink is None:
            return replace(self, sink=sink)
        before = self.sink

        def both(placement: Placement) -> None:
            before(placement)
            sink(placement)
        return replace(self, sink=both)


def explain_batch(batch: Iterable[Entry], pool: ClusterState, options: RunOptions, suggester: Suggester | None = None, *,
                  stored: bool = False, sink: Sink | None = None, progress: Progress | None = None,
                  refused: Refused | None = None) -> Batch:
    """The entries as a `Batch`: scheduled as it is iterated (see `Batch`)."""
    return Batch(tuple(batch), pool, options, suggester, stored, sink, progress, refused)


API_VERSION = "kexplain/v1"
LIST_KIND = "SchedulingTraceList"


def to_json(batch: Batch) -> dict[str, Any]:
    """A `SchedulingTraceList` held in memory, for small batches and tests (the CLI streams it)."""
    if not isinstance(batch, Batch):
        raise TypeError("to_json needs the Batch itself (explain_batch's result), not its outcomes: "
                        "their traces are not kept")
    items: list[dict[str, Any]] = []
    placements = [o.to_json() for o in batch.with_sink(lambda p: items.append(p.trace.to_json()))]
    return {"apiVersion": API_VERSION, "kind": LIST_KIND, "items": items, "placements": placements}


@dataclass(frozen=True)
class Verdict:
    """One pod explained on its own: its trace, or its own error."""

    inputs: Inputs
    trace: Trace | None = None
    error: str = ""


# Shapes whose first verdict `explain_each` keeps at once, the one met again last dropped first: as
# many as a queue's `SharedCycles` keeps (`shared_cycles.shapes_kept`: by nodes times shapes).
_NEVER = float("inf")


def explain_each(pods: Iterable[Inputs], options: RunOptions, suggester: Suggester | None = None, *,
                 planned: int = 0, progress: Progress | None = None) -> Iterator[Verdict]:
    """Pods all pending now (`kexplain pod --pending`), each explained alone against the cluster, in order,
    as one batch: a pod of the shape (`pending_key`) and state of one explained before gets that pod's
    verdict renamed (the filters read nothing else), so each shape and state runs the scheduler once. The
    pods are listed first to see which verdicts are met again: only those are kept, at most `shapes_kept`,
    the one met again last dropped first (Belady's), so shapes that come round robin all hit."""
    pods = list(pods)
    keys = [alone_key(inputs) for inputs in pods]
    again = _next_uses(keys)
    most = shapes_kept(pods[0].snapshot if pods else None)
    kept: dict[tuple, tuple[Verdict, float]] = {}       # key -> its first verdict, where it is met next
    for done, (inputs, key, next_use) in enumerate(zip(pods, keys, again), 1):
        held = kept.pop(key, None) if key is not None else None
        if held is not None:
            first = held[0]
            assert first.trace is not None
            verdict = Verdict(inputs, renamed(first.trace, first.inputs.pod, inputs.pod))
        else:
            first = verdict = _alone(inputs, options, suggester)
        if key is not None and first.trace is not None and next_use != _NEVER:
            kept[key] = (first, next_use)
            if len(kept) > most:
                del kept[max(kept, key=lambda k: kept[k][1])]
        if progress is not None:
            progress(done, max(done, planned))
        yield verdict


def alone_key(inputs: Inputs) -> tuple | None:
    """What a pod's verdict alone reads: its shape and the state it is explained against (by identity:
    a verdict kept holds its inputs, so the ids stay its own); None when its verdict is its own."""
    shape = pending_key(inputs.pod)
    if shape is None:
        return None
    return shape, id(inputs.snapshot), id(inputs.config), id(inputs.nominated)


def _next_uses(keys: list[tuple | None]) -> list[float]:
    """For each position, the next one of the same key (`_NEVER`: none, or no key)."""
    out: list[float] = [_NEVER] * len(keys)
    last: dict[tuple, int] = {}
    for i in range(len(keys) - 1, -1, -1):
        key = keys[i]
        if key is not None:
            out[i] = last.get(key, _NEVER)
            last[key] = i
    return out


def _alone(inputs: Inputs, options: RunOptions, suggester: Suggester | None) -> Verdict:
    """One pod explained alone, its verified fixes when Unschedulable; or its own error."""
    try:
        trace = explain(inputs, options)
        if suggester is not None and trace.result.status == UNSCHEDULABLE:
            trace.extra["suggestions"] = [s.to_json() for s in suggester(inputs, trace, options)]
        return Verdict(inputs, trace)
    except KexplainError as err:
        return Verdict(inputs, error=err.message)
