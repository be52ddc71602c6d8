"""The scheduler's queue over pods explained each on its own (`kexplain pod NAME`, `--pending`).

kexplain explains a live cluster's pending pod against the cluster as it is, alone: the verdict
its next attempt would get if nothing else moved first. But the scheduler's queue holds every
pending pod and pops them one at a time, by PrioritySort (priority, highest first, then the time
each entered the queue, taken here as its creation time; the listing's order after that), each
bound, or nominated by preemption, before the next is tried. A pod that fits alone may find its
room taken by the pods ahead of it; five pods that fit alone where one fits are not five that
will be scheduled. The Cluster Autoscaler's loop packs every pending pod the same way (in its
own order: `kexplain.autoscaler.podlistprocessor`), so where the two are put side by side the
pod's answer in the queue is the one to compare.

`walk` takes the pods with their verdicts alone (`Alone`) and goes through the queue. Each pod
changes the cluster for those after it as the scheduler leaves it: one that fits is bound
where it goes; one whose preemption nominates a node is nominated there (counted there for
the pods of at most its priority), its victims terminating. A pod that fits alone is scheduled
again, as the scheduler would, against the cluster the pods ahead of it left, once one of them
changed it (quietly, as a workload's middle copies are: no extra keys; its preemption only when
it does not fit and some pod on a node has a lower priority, else none is a victim), at most
`RERUNS` of them (`QueueWalk.left` names the others: they keep their verdict alone). The other
pods keep their verdict alone: a pod that fits nowhere alone fits nowhere once others take room
(pod affinity and topology spread, which the pods ahead can help, are the exception kexplain
does not try), and a pod's preemption is not run again (its nomination alone stands, even where
a preemptor ahead was nominated to the same node).
Its answer (`QueueAnswer`) for each pod whose verdict there differs from its verdict alone.
`ahead_of` picks, for one pod, the pending pods the queue takes before it. Never prints; no
trace kept but the answers' few facts.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from kexplain.explain.inputs import Inputs
from kexplain.explain.pending_pass import creation_order, creation_time
from kexplain.explain.request import RunOptions
from kexplain.framework.trace import SCHEDULED, UNSCHEDULABLE, Trace
from kexplain.model.pod import PodInfo

Obj = dict[str, Any]


@dataclass(frozen=True)
class Alone:
    """A pending pod with its verdict alone (its explanation): status, the node it would be
    bound to (Scheduled), its PostFilter (a trace's `postFilter`: where preemption nominates
    it, and the victims)."""

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
        from kexplain.explain.placement import chosen_node
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
    """A pod's verdict in the scheduler's queue where it differs from its verdict alone: how
    many pending pods come before it (`ahead`) and how many of those moved the cluster
    (`moved`: bound or nominated), its verdict alone, its verdict after them (status; the node
    it goes to; else the scheduler's message; where its preemption nominates it then), and the
    pods ahead bound or nominated where it went alone (`taken_by`)."""

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
    """PrioritySort's order: priority, highest first; then the time the pod entered the queue
    (its creation time; a pod without one after those with one); then `index` (the listing)."""
    return -pod.priority, creation_order(creation_time(pod)), index


def in_queue_order(pods: Sequence[Alone]) -> list[Alone]:
    return [p for _, p in sorted(enumerate(pods), key=lambda ip: queue_key(ip[1].inputs.pod, ip[0]))]


# The pods the walk schedules again at most: each is a scheduling cycle over the whole cluster
# (one that fails, with preemption's dry run when there are pods it could evict); the pods after
# that keep their verdict alone, and `QueueWalk.left` names them.
RERUNS = 64


@dataclass(frozen=True)
class QueueWalk:
    """The walk's answers by pod key, and the pods that change the cluster it did not schedule
    again once `RERUNS` were (`left`, keys in queue order: they keep their verdict alone)."""

    answers: Mapping[str, QueueAnswer]
    left: tuple[str, ...] = ()

    def get(self, key: str) -> QueueAnswer | None:
        return self.answers.get(key)


def walk(pods: Sequence[Alone], options: RunOptions, *, only: str | None = None,
         budget: int | None = None) -> QueueWalk:
    """The scheduler's queue over `pods` (see the module docstring): each pod's answer where its
    verdict there differs from its verdict alone, by pod key. With `only` (a key), the walk
    stops at that pod. Pods share one cluster: the first pod's snapshot and nominations. At
    most `budget` (default `RERUNS`) pods are scheduled again."""
    from kexplain.explain.carryover import terminating
    from kexplain.explain.placement import bind, chosen_node, quiet_options
    from kexplain.explain.run import explain

    if not pods:
        return QueueWalk({})
    budget = RERUNS if budget is None else budget
    snapshot = pods[0].inputs.snapshot
    nominated = {n: list(p) for n, p in pods[0].inputs.nominated.items()}
    moved: list[Placed] = []
    answers: dict[str, QueueAnswer] = {}
    left: list[str] = []
    lowest: list[int] = []      # the lowest priority among the pods on nodes, once needed
    for ahead, alone in enumerate(in_queue_order(pods)):
        if only is not None and alone.key != only and not alone.moves:
            continue
        if alone.fits and moved and budget <= 0:
            left.append(alone.key)
            inputs, now = alone.inputs, alone
        elif alone.fits and moved:      # the cluster the pods ahead left is not the one it was explained in
            budget -= 1
            inputs = replace(alone.inputs, snapshot=snapshot, nominated=_without(nominated, alone.inputs.pod))
            trace = explain(inputs, quiet_options(options))     # as a workload's copies: quiet unless it fails
            if trace.result.status == UNSCHEDULABLE and options.preemption and \
                    alone.inputs.pod.priority > _lowest(snapshot, lowest):     # else no pod is a victim
                trace = explain(inputs, replace(options.plain(), filter_all=False))
            status, node, post = trace.result.status, chosen_node(trace), trace.post_filter
            now = Alone(inputs, status, node, post)
            if (status, node, now.nominated) != (alone.status, alone.node, alone.nominated):
                answers[alone.key] = QueueAnswer(
                    alone.key, ahead, len(moved), alone.status, alone.node or alone.nominated or None, status,
                    node, trace.result.message or "", post if now.nominated else None,
                    tuple(p for p in moved if p.node in (alone.node, alone.nominated)))
        else:
            inputs, now = alone.inputs, alone
        if only is not None and alone.key == only:
            break
        if now.status == SCHEDULED and now.node is not None:
            snapshot = bind(snapshot, inputs, options, inputs.pod.obj, now.node)
            moved.append(Placed(alone.key, now.node))
            if lowest:
                lowest[0] = min(lowest[0], inputs.pod.priority)
        elif now.nominated:
            snapshot = terminating(snapshot, now.post_filter)
            obj = {**inputs.pod.obj, "status": {**inputs.pod.status, "nominatedNodeName": now.nominated}}
            nominated = _without(nominated, inputs.pod)
            nominated.setdefault(now.nominated, []).append(PodInfo(obj))
            moved.append(Placed(alone.key, now.nominated, nominated=True))
    return QueueWalk(answers, tuple(left))


def _lowest(snapshot: Any, memo: list[int]) -> int:
    """The lowest priority of a pod on a node (remembered in `memo`): a pod of no higher
    priority finds no victim, so its preemption cannot help."""
    if not memo:
        memo.append(min((p.priority for ni in snapshot.node_infos for p in ni.pods), default=2 ** 31))
    return memo[0]


def _without(nominated: Mapping[str, list[PodInfo]], pod: PodInfo) -> dict[str, list[PodInfo]]:
    """The nominations but the pod's own (a pod is never filtered with itself counted in)."""
    out = {n: [p for p in pods if p.key != pod.key] for n, pods in nominated.items()}
    return {n: pods for n, pods in out.items() if pods}


def ahead_of(key: str, pods: Sequence[PodInfo]) -> list[PodInfo]:
    """The pods of `pods` (every pending pod of one queue, as listed, the pod `key` among them)
    the queue takes before the pod `key` (`queue_key`); none when it is not among them."""
    ordered = [p for _, p in sorted(enumerate(pods), key=lambda ip: queue_key(ip[1], ip[0]))]
    at = next((i for i, p in enumerate(ordered) if p.key == key), None)
    return ordered[:at] if at is not None else []
