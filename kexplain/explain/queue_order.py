"""The scheduler's queue (PrioritySort) over pods explained each alone. Never prints."""
from __future__ import annotations

from dataclasses import dataclass, replace
from operator import attrgetter
from typing import Any, Callable, Mapping, Sequence

from kexplain.explain.carryover import Carryover, terminating
from kexplain.explain.pending_pass import creation_order, creation_time
from kexplain.explain.placement import bind, chosen_node
from kexplain.explain.pod_inputs import Inputs
from kexplain.explain.request import RunOptions
from kexplain.framework.trace import SCHEDULED, UNSCHEDULABLE, Trace
from kexplain.model.pod import PodInfo
from kexplain.model.shapes import pending_key

Obj = dict[str, Any]


@dataclass(frozen=True)
class Alone:
    """A pending pod with its verdict alone: status, node, and PostFilter."""

    inputs: Inputs
    status: str
    node: str | None = None
    post_filter: Mapping[str, Any] | None = None

    @property
    def key(self) -> str:
        return self.inputs.pod.key

    @property
    def nominated(self) -> str:
        return str((self.post_filter or {}).get("nominatedNodeName") or "") if self.status == UNSCHEDULABLE else ""

    @property
    def moves(self) -> bool:
        """Whether it changes the cluster for the pods after it: bound, or nominated."""
        return self.fits or bool(self.nominated)

    @property
    def fits(self) -> bool:
        return self.status == SCHEDULED and self.node is not None

    @classmethod
    def of(cls, inputs: Inputs, trace: Trace | Mapping[str, Any]) -> "Alone":
        """From its explanation, a `Trace` or its JSON."""
        if isinstance(trace, Trace):
            return cls(inputs, trace.result.status, chosen_node(trace), trace.post_filter)
        result = trace.get("result") or {}
        status = str(result.get("status") or "")
        selected = result.get("selectedNodes") or ()
        node = min(selected) if selected and (trace.get("search") or {}).get("orderDeterministic") is False \
            else result.get("suggestedHost") or (min(selected) if selected else None)     # as `chosen_node`
        return cls(inputs, status, node if status == SCHEDULED else None, trace.get("postFilter"))


@dataclass(frozen=True)
class Placed:
    """A pod ahead in the queue and the node it is bound (or nominated) to."""

    pod: str
    node: str
    nominated: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"pod": self.pod, "node": self.node, **({"nominated": True} if self.nominated else {})}


@dataclass(frozen=True)
class QueueAnswer:
    """A pod's verdict in the scheduler's queue where it differs from its verdict alone."""

    pod: str
    ahead: int
    moved: int
    alone_status: str
    alone_node: str | None
    status: str
    node: str | None = None
    message: str = ""
    post_filter: Mapping[str, Any] | None = None
    taken_by: tuple[Placed, ...] = ()

    @property
    def fits(self) -> bool:
        return self.status == SCHEDULED

    @property
    def nominated(self) -> str:
        return str((self.post_filter or {}).get("nominatedNodeName") or "") if self.status == UNSCHEDULABLE else ""

    def result_json(self) -> dict[str, Any]:
        """Its verdict in the queue, in a trace's `result` words."""
        if self.status == SCHEDULED:
            return {"status": SCHEDULED, "suggestedHost": self.node}
        return {"status": self.status, "message": self.message}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ahead": self.ahead, "moved": self.moved,
                               "alone": {"status": self.alone_status,
                                         **({"node": self.alone_node} if self.alone_node else {})},
                               "result": self.result_json()}
        if self.nominated:
            post = self.post_filter or {}
            out["postFilter"] = {"nominatedNodeName": self.nominated, "victims": list(post.get("victims") or ())}
        out["takenBy"] = [p.to_json() for p in self.taken_by]
        return out


def queue_key(pod: PodInfo, index: int) -> tuple[Any, ...]:
    """PrioritySort's order: priority, then the time the pod entered the queue, then `index`."""
    return -pod.priority, creation_order(creation_time(pod)), index


def in_queue_order(pods: Sequence[Alone]) -> list[Alone]:
    return [p for _, p in sorted(enumerate(pods), key=lambda ip: queue_key(ip[1].inputs.pod, ip[0]))]


# At most this many pods are scheduled again (a cycle each); `QueueWalk.left` names the rest.
RERUNS = 64
PREEMPTION_RERUNS = 8


@dataclass(frozen=True)
class QueueWalk:
    """The walk's answers by pod key, and the pods it did not schedule again (`left`)."""

    answers: Mapping[str, QueueAnswer]
    left: tuple[str, ...] = ()

    def get(self, key: str) -> QueueAnswer | None:
        return self.answers.get(key)

    def post_filter(self, alone: Alone) -> Mapping[str, Any] | None:
        """Where the pod's preemption nominates it as the queue leaves it: what the autoscalers read."""
        answer = self.answers.get(alone.key)
        return answer.post_filter if answer is not None else alone.post_filter


def _stale(alone: Alone, moved: Sequence[Placed]) -> bool:
    """Whether the pods ahead (`moved`) changed the cluster the pod's verdict alone was found in."""
    if alone.fits:
        return bool(moved)
    return bool(alone.nominated) and any(p.node == alone.nominated for p in moved)


def walk(pods: Sequence[Alone], options: RunOptions, *, only: str | None = None,
         budget: int | None = None, preemptions: int | None = None) -> QueueWalk:
    """The scheduler's queue over `pods`: each pod's answer where it differs from its verdict alone."""
    if not pods:
        return QueueWalk({})
    left_to_run = {True: RERUNS if budget is None else budget,
                   False: PREEMPTION_RERUNS if preemptions is None else preemptions}    # by: fits alone
    base = pods[0].inputs.snapshot
    # what the pods so far did to the cluster and is not applied yet, in order: bindings and the victims
    # of preemptions (`_Moves`: only a pod scheduled again reads the cluster, none after the last)
    todo = _Moves(options)

    def snapshot() -> Any:
        """The cluster the pods so far left, their moves applied once someone reads it."""
        nonlocal base
        base = todo.applied(base)
        return base

    carry = Carryover.seeded(pods[0].inputs.nominated)
    plain = replace(options.plain(), filter_all=False)      # as a workload's middle copies: no extra keys
    moved: list[Placed] = []
    answers: dict[str, QueueAnswer] = {}
    left: list[str] = []
    for ahead, alone in enumerate(in_queue_order(pods)):
        stale = _stale(alone, moved)
        if stale and left_to_run[alone.fits] <= 0:
            left.append(alone.key)
            inputs, now = alone.inputs, alone
            carry.kept(inputs.pod, alone.status, alone.nominated)
        elif stale:     # the cluster the pods ahead left is not the one it was explained in
            left_to_run[alone.fits] -= 1
            inputs = replace(alone.inputs, snapshot=snapshot())
            trace = carry.run(inputs, plain)
            now = Alone(inputs, trace.result.status, chosen_node(trace), trace.post_filter)
            if (now.status, now.node, now.nominated) != (alone.status, alone.node, alone.nominated):
                answers[alone.key] = QueueAnswer(
                    alone.key, ahead, len(moved), alone.status, alone.node or alone.nominated or None, now.status,
                    now.node, trace.result.message or "", now.post_filter if now.nominated else None,
                    tuple(p for p in moved if p.node in (alone.node, alone.nominated)))
        else:
            inputs, now = alone.inputs, alone
            carry.kept(inputs.pod, alone.status, alone.nominated)
        if only is not None and alone.key == only:
            break
        if now.fits:
            assert now.node is not None
            todo.bound(inputs, now.node)
            moved.append(Placed(alone.key, now.node))
        elif now.nominated:
            todo.marked(now.post_filter or {})
            moved.append(Placed(alone.key, now.nominated, nominated=True))
    return QueueWalk(answers, tuple(left))


class _Moves:
    """The walk's changes to the cluster not applied yet, in queue order: each pod bound to its node
    (`placement.bind`), each preemption's victims marked terminating. Applied, in that order, only
    when a pod scheduled again reads the cluster: the pods after the last one read nothing."""

    def __init__(self, options: RunOptions) -> None:
        self.options = options
        self.todo: list[tuple[Inputs, str] | Mapping[str, Any]] = []

    def bound(self, inputs: Inputs, node: str) -> None:
        self.todo.append((inputs, node))

    def marked(self, post_filter: Mapping[str, Any]) -> None:
        self.todo.append(post_filter)

    def applied(self, snapshot: Any) -> Any:
        for move in self.todo:
            if isinstance(move, tuple):
                inputs, node = move
                snapshot = bind(snapshot, inputs, self.options, inputs.pod.obj, node)
            else:
                snapshot = terminating(snapshot, dict(move))
        self.todo.clear()
        return snapshot


def lowest_priority(snapshot: Any) -> int:
    """The lowest priority of a pod on a node: a pod of no higher priority finds no victim."""
    return min((min(map(_PRIORITY, ni.pods)) for ni in snapshot.node_infos if ni.pods), default=2 ** 31)


_PRIORITY = attrgetter("priority")      # (read in C: a large cluster's 150,000 pods)


def may_preempt(pod: PodInfo, lowest: int) -> bool:
    """Whether the pod's preemption can find a victim (its policy lets it, a lower priority exists)."""
    return pod.spec.get("preemptionPolicy") != "Never" and pod.priority > lowest


def needed(explained: Sequence[Alone], pending: Sequence[Inputs],
           explain_alone: Callable[[list[Inputs]], list[Alone]], *, nominations: bool) -> list[Alone]:
    """Every pod the walk needs, so `kexplain pod NAME` and `--pending` walk the same queue."""
    have = {a.key: a for a in explained}
    tried = set(have)       # (a pod that cannot be explained is tried once)
    shapes = {shape: a for a in explained if (shape := pending_key(a.inputs.pod)) is not None}
    order = [p for _, p in sorted(enumerate(pending), key=lambda ip: queue_key(ip[1].pod, ip[0]))]

    def explain_missing(pods: list[Inputs]) -> None:
        fresh: list[Inputs] = []
        for p in pods:
            if p.pod.key in tried:
                continue
            tried.add(p.pod.key)
            known = shapes.get(shape) if (shape := pending_key(p.pod)) is not None else None
            if known is not None:
                have[p.pod.key] = replace(known, inputs=p)
            else:
                fresh.append(p)
        for a in explain_alone(fresh) if fresh else ():
            have[a.key] = a
            if (shape := pending_key(a.inputs.pod)) is not None:
                shapes.setdefault(shape, a)

    if nominations and pending:
        lowest = lowest_priority(pending[0].snapshot)
        explain_missing([p for p in pending if may_preempt(p.pod, lowest)])
    last = max((i for i, p in enumerate(order) if (a := have.get(p.pod.key)) is not None and a.moves), default=0)
    explain_missing(order[:last])
    listed = {p.pod.key: i for i, p in enumerate(pending)}
    return sorted(have.values(), key=lambda a: listed.get(a.key, len(listed)))


def in_queue(trace: Mapping[str, Any]) -> Mapping[str, Any]:
    """A pod's verdict as the scheduler's queue leaves it, which every reader reads."""
    queue = trace.get("queue")
    return queue["result"] if queue else trace["result"]
