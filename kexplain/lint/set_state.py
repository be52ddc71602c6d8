"""The set being linted as the Linter walks it: its files (`SetFile`), the pool as the set leaves it
(`SetCluster`), the Pods and workloads queued for its one batch (`Queued`), what the queue's
retry needs (`RetryLog`) and what the autoscalers see of it (`Gathered`)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Sequence

from kexplain.controllers.existing import Children
from kexplain.errors import InputError, Source
from kexplain.explain.pending_pass import PassBuilder, object_ref
from kexplain.explain.retry import Bound, waiting_of
from kexplain.lint.documents import Document, Location
from kexplain.lint.findings import Finding, ObjectRef
from kexplain.lint.report import LintedObject
from kexplain.state.apply import without_pods

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.explain.batch import Outcome
    from kexplain.explain.pod_file import Entry
    from kexplain.explain.pod_inputs import Inputs
    from kexplain.explain.placement import Placement
    from kexplain.state.cluster import ClusterState


def objects_of(items: list[Document]) -> tuple[list[tuple[dict[str, Any], Source]], dict[int, Document]]:
    """The objects of `items` (documents that are mappings with a kind), each with a Source of
    its own, and the document of each Source (by its id)."""
    objs: list[tuple[dict[str, Any], Source]] = []
    where: dict[int, Document] = {}
    for doc in items:
        if isinstance(doc.obj, dict) and isinstance(doc.obj.get("kind"), str):
            src = Source(doc.location.path, doc.location.doc)
            objs.append((doc.obj, src))
            where[id(src)] = doc
    return objs, where


@dataclass(frozen=True)
class SetFile:
    """One file read: its documents, the error that ended its reading, and whether it counts
    as a file (not a path that could not be walked)."""

    path: str
    items: list[Document]
    error: InputError | None
    counted: bool = True


@dataclass
class SetCluster:
    """The pool as the linted set leaves it, the set's refused objects (their findings), its Pods
    and workloads queued as one batch, and what the autoscalers read of it."""

    pool: "ClusterState"
    refused: dict[tuple[str, int, int | None], Finding] = field(default_factory=dict)
    queued: list["Queued"] = field(default_factory=list)
    hpas: dict[tuple[str, str, str], list[dict[str, Any]]] = field(default_factory=dict)   # by target, in order
    ledger: Any = None      # the quotas of the set's namespaces, its pods charged as queued (`explain.created`)
    # by id of each document's object: the set's policies created after it (`policies_after`)
    later: dict[int, frozenset[tuple[str, str, str]]] = field(default_factory=dict)
    children: Children = field(default_factory=lambda: Children(()))   # what the set's controllers made already
    autoscaled: list = field(default_factory=list)
    created: list = field(default_factory=list)
    running: "Running" = field(default_factory=lambda: Running())     # the pool's workloads the set applies again


@dataclass(frozen=True)
class Running:
    """The pool's Deployments and StatefulSets the set applies again: each as the pool has it (by
    kind, namespace, name), their ReplicaSets and pods, and the running pods (namespace, name) their
    controllers delete before creating new ones (`controllers.reapplied`)."""

    live: dict[tuple[str, str, str], Any] = field(default_factory=dict)
    children: Children = field(default_factory=lambda: Children(()))
    deleted: frozenset[tuple[str, str]] = frozenset()

    def without_deleted(self, pool: "ClusterState") -> "ClusterState":
        """`pool` without the pods deleted first."""
        if not self.deleted:
            return pool
        snapshot = pool.snapshot
        for info in list(snapshot.node_infos):
            for pod in list(info.pods):
                if (pod.namespace, pod.name) in self.deleted:
                    snapshot = snapshot.without_pod(info.name, pod.namespace, pod.name)
        objects = without_pods(pool.objects, self.deleted)
        return replace(pool, snapshot=snapshot, objects=objects, pod_keys=pool.pod_keys - self.deleted)


@dataclass
class RetryLog:
    """The set's pass as the queue's retry needs it: every binding and attempt numbered
    (`saw`), and each object left with unschedulable pods (`left`)."""

    events: list[Any] = field(default_factory=list)
    waiting: list[tuple["Queued", Any]] = field(default_factory=list)
    seq: int = 0
    # per object waiting (by id): where its copies went on the first pass (node, zone), and the
    # placement of its last try that did not fit (kept only for these objects)
    placed: dict[int, list[tuple[str, str]]] = field(default_factory=dict)
    unfit: dict[int, Any] = field(default_factory=dict)

    def next(self) -> int:
        self.seq += 1
        return self.seq

    def saw(self, placement: "Placement") -> None:
        at = self.next()
        if placement.node is not None:
            self.events.append(Bound(at, placement.inputs.pod, placement.node))

    def left(self, q: "Queued", outcome: "Outcome") -> None:
        w = waiting_of(outcome.entry, q.inputs, len(outcome.placed), outcome.first_unfit, self.next())
        if w is not None:
            self.waiting.append((q, w))
            self.placed[id(w)] = [(c.node, c.zone) for c in outcome.copies if c.node is not None]
            self.unfit[id(w)] = outcome.first_unfit


class Gathered:
    """What the autoscalers see of the set (`PassBuilder`) as the queue places it, and per object
    its pod, what it stands for and its bound copies' span (`objects`, queue order)."""

    def __init__(self, cluster: SetCluster) -> None:
        self.builder = PassBuilder()
        self.builder.add_objects(cluster.autoscaled, cluster.created)
        self.objects: list[tuple[Queued, str, Any, tuple[int, int]]] = []
        self.retried: set[str] = set()      # what the objects the queue's retry placed pods of stand for

    def settle(self, retried: Sequence[Any]) -> None:
        """The pods the queue's retry placed are bound, not pending (`PassBuilder.settle`)."""
        self.builder.settle(retried)
        self.retried |= {object_ref(r.entry.kind, r.entry.namespace, r.entry.name) for r in retried
                         if r.node is not None}

    def add(self, q: "Queued", outcome: "Outcome") -> None:
        before = len(self.builder.bound)
        self.builder.add_outcome(outcome)
        if q.pinned is None and not q.entry.idle and outcome.daemon is None:
            self.objects.append((q, object_ref(q.entry.kind, q.entry.namespace, q.entry.name), outcome.inputs.pod,
                                 (before, len(self.builder.bound))))


@dataclass(frozen=True)
class Queued:
    """A Pod or workload of the file, admitted, waiting for the file's batch: its findings go
    at index `at` of the report (after its schema findings)."""

    entry: "Entry"
    inputs: "Inputs"
    ref: ObjectRef
    loc: Location
    pinned: str | None = None             # the node it is bound to, which the pool does not have
    at: int = 0
    linted: LintedObject | None = None
    made: int = 0                         # which object Kueue made of its document (a JobSet's Jobs)

