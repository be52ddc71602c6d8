"""The taint eviction controller (`pkg/controller/tainteviction/taint_eviction.go`), one pass over
one node: `handle_node_update` takes the node's NoExecute taints and `process_pod_on_node` decides
each pod: a taint no toleration tolerates evicts it now; else the minimum tolerationSeconds over
the tolerations used (`min_toleration_seconds`) schedules its deletion, counted from when the
controller sees the taint (not from the taint's `timeAdded`), or never when none of them has
seconds. `delete_pod` is `deletePodHandler`: the DisruptionTarget condition, then the event."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Mapping, Sequence

from kexplain.apimachinery.goints import wrap
from kexplain.eviction.tainteviction.helper import first_tolerating, matching_tolerations
from kexplain.eviction.tainteviction.timed_workers import TimedWorker, TimedWorkerQueue
from kexplain.model.taints import NO_EXECUTE

EVICT_NOW, EVICT_AFTER, KEEP = "evictNow", "evictAfter", "keep"     # the decisions, as the document says them
CONDITION_TYPE = "DisruptionTarget"
CONDITION_REASON = "DeletionByTaintManager"
CONDITION_MESSAGE = "Taint manager: deleting due to NoExecute taint"
EVENT_TYPE = "Normal"
EVENT_REASON = "TaintManagerEviction"
EVENT_MESSAGE = "Marking for deletion Pod {}"       # the pod's namespace/name
OBSERVED_GENERATION_GATE = "PodObservedGenerationTracking"


def no_execute_taints(taints: object) -> list[dict]:
    """getNoExecuteTaints: the node's taints whose effect is NoExecute, in the node's order."""
    return [t for t in taints if isinstance(t, dict) and t.get("effect") == NO_EXECUTE] \
        if isinstance(taints, list) else []


def min_toleration_seconds(tolerations: Sequence[Mapping[str, Any]]) -> int | None:
    """getMinTolerationTime in seconds: 0 for no tolerations or any tolerationSeconds <= 0, the
    smallest positive one, None (forever) when none of them sets tolerationSeconds."""
    if not tolerations:
        return 0
    least: int | None = None
    for toleration in tolerations:
        seconds = toleration.get("tolerationSeconds")
        if seconds is None:
            continue
        if seconds <= 0:
            return 0
        least = seconds if least is None else min(least, seconds)
    return least


def toleration_nanoseconds(seconds: int) -> int:
    """time.Duration(seconds) * time.Second: an int64 of nanoseconds, wrapping as Go's does (a
    tolerationSeconds past 9223372036 can come out negative, or small)."""
    return wrap(seconds * 1_000_000_000, 64)


@dataclass(frozen=True)
class PodDecision:
    """One pod's answer: `decision` (EVICT_NOW, EVICT_AFTER, KEEP), `after_seconds` for EVICT_AFTER;
    `matches`: each NoExecute taint with the toleration that tolerates it (None: none does; the
    controller stops at the first such taint, the explanation shows them all)."""

    key: str
    decision: str
    after_seconds: int | None = None
    matches: tuple[tuple[dict, Mapping[str, Any] | None], ...] = ()


@dataclass(frozen=True)
class Deletion:
    """deletePodHandler's work for one pod: when it fires, the condition it sets, its event."""

    key: str
    fire_at: datetime
    condition: dict
    event: dict


@dataclass
class Controller:
    """The controller's state for one pass: its timed queue and what it decided."""

    comparison_operators: bool = False
    observed_generation: bool = False
    queue: TimedWorkerQueue = field(default_factory=TimedWorkerQueue)

    def process_pod_on_node(self, key: str, tolerations: Sequence[Mapping[str, Any]], taints: Sequence[dict],
                            now: datetime) -> PodDecision:
        """processPodOnNode for a pod with these tolerations on a node with these NoExecute taints."""
        matches = tuple((t, first_tolerating(t, tolerations, self.comparison_operators)) for t in taints)
        all_tolerated, used = matching_tolerations(taints, tolerations, self.comparison_operators)
        if not all_tolerated:
            self.queue.cancel_work(key)
            self.queue.add_work(key, now, now)
            return PodDecision(key, EVICT_NOW, None, matches)
        seconds = min_toleration_seconds(used)
        ns = toleration_nanoseconds(seconds) if seconds is not None else None
        if ns is None or ns < 0:        # (infinite, or a time.Duration that wrapped negative: the same)
            self.queue.cancel_work(key)
            return PodDecision(key, KEEP, None, matches)
        delay = timedelta(microseconds=ns // 1000)
        start, trigger = now, now + delay
        scheduled = self.queue.get_worker(key)
        if scheduled is not None:           # (work scheduled before this pass stands)
            start = scheduled.created_at
            if start + delay < trigger:
                return self._scheduled(key, now, matches)
            self.queue.cancel_work(key)
        self.queue.add_work(key, start, trigger)
        return self._scheduled(key, now, matches)

    def _scheduled(self, key: str, now: datetime, matches: tuple) -> PodDecision:
        """The decision the pod's worker in the queue says: now when its delay is not positive."""
        worker = self.queue.get_worker(key)
        assert worker is not None
        seconds = math.ceil((worker.fire_at - now).total_seconds())
        return PodDecision(key, EVICT_AFTER, seconds, matches) if seconds > 0 else PodDecision(key, EVICT_NOW, None,
                                                                                                  matches)

    def handle_node_update(self, node: Mapping[str, Any], pods: Sequence[tuple[str, Sequence[Mapping[str, Any]]]],
                           now: datetime) -> list[PodDecision]:
        """handleNodeUpdate: each pod (key, tolerations) on the node decided in the given order; a
        node without NoExecute taints cancels every eviction (every pod kept)."""
        taints = no_execute_taints((node.get("spec") or {}).get("taints"))
        if not taints:
            for key, _ in pods:
                self.queue.cancel_work(key)
            return [PodDecision(key, KEEP) for key, _ in pods]
        return [self.process_pod_on_node(key, tolerations, taints, now) for key, tolerations in pods]

    def delete_pods(self, generations: Mapping[str, int]) -> list[Deletion]:
        """Every timed worker run to its end, in the order they fire (deletePodHandler); `generations`:
        each pod's metadata.generation (for the condition's observedGeneration)."""
        return [self.delete_pod(worker, generations.get(worker.key, 0)) for worker in self.queue.fire_all()]

    def delete_pod(self, worker: TimedWorker, generation: int) -> Deletion:
        """deletePodHandler: the event first, then addConditionAndDeletePod's condition."""
        condition: dict = {"type": CONDITION_TYPE, "status": "True"}
        if self.observed_generation and generation:     # CalculatePodConditionObservedGeneration
            condition["observedGeneration"] = generation
        condition.update(reason=CONDITION_REASON, message=CONDITION_MESSAGE)
        event = {"object": worker.key, "type": EVENT_TYPE, "reason": EVENT_REASON,
                 "message": EVENT_MESSAGE.format(worker.key)}
        return Deletion(worker.key, worker.fire_at, condition, event)
