"""What kube-scheduler carries between cycles besides bound pods: nominations, victims, batching's ranking."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from kexplain.admission.pipeline import copy_json
from kexplain.explain import pod_notes
from kexplain.explain.pod_inputs import Inputs
from kexplain.explain.kubelet import bound_node, kubelet_trace
from kexplain.explain.request import RunOptions
from kexplain.explain.run import framework_for, schedule_options
from kexplain.framework.opportunistic_batch import OPPORTUNISTIC_BATCHING, OpportunisticBatch
from kexplain.framework.runtime import Framework
from kexplain.framework.schedule import schedule_pod
from kexplain.framework.trace import GATED, SCHEDULED, UNSCHEDULABLE, Trace
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot
from kexplain.plugins.default_preemption import DISRUPTION_TARGET, REASON_PREEMPTION_BY_SCHEDULER

# What graceful deletion stamps on a victim; only its presence is ever read.
DELETION_TIMESTAMP = "1970-01-01T00:00:00Z"


@dataclass
class Carryover:
    """The scheduler's memory across the cycles of one sequence (mutable, one per sequence)."""

    nominated: dict[str, list[PodInfo]] = field(default_factory=dict)
    cycle: int = 0
    batches: dict[str, OpportunisticBatch] = field(default_factory=dict)
    # The framework of each profile as the cycles run it (`Framework.for_cycle`), by what builds it
    frameworks: dict[tuple[Any, ...], tuple[Any, Framework]] = field(default_factory=dict, repr=False)

    @classmethod
    def seeded(cls, nominated: dict[str, list[PodInfo]]) -> "Carryover":
        return cls({node: list(pods) for node, pods in nominated.items()})

    def run(self, inputs: Inputs, options: RunOptions, quiet: RunOptions | None = None) -> Trace:
        """One cycle after the cycles before it; a `quiet` run is redone in full if not scheduled."""
        node = bound_node(inputs.pod, inputs)
        if node is not None:
            return kubelet_trace(inputs, options, node)
        inputs = replace(inputs, nominated={n: list(p) for n, p in self.nominated.items() if p})
        if quiet is not None:
            kept = {name: b.clone() for name, b in self.batches.items()}
            trace = self._cycle(inputs, quiet)
            if trace.result.status != SCHEDULED:
                self.batches = kept
                trace = self._cycle(inputs, options)
        else:
            trace = self._cycle(inputs, options)
        if trace.result.status != GATED:       # a gated pod never leaves the queue: no cycle
            self.cycle += 1
        if trace.result.status == UNSCHEDULABLE and trace.post_filter:
            self._nominate(inputs.pod, trace.post_filter.get("nominatedNodeName") or "")
        return trace

    def settled(self) -> tuple[tuple[str, tuple[PodInfo, ...]], ...] | None:
        """What the next cycle reads of this memory, when the cycles before it decide nothing
        else: the pods nominated per node (the same objects while no preemption nominates
        again). None when a profile's batch may hand the next pod a hint."""
        if any(b.may_hint(self.cycle + 1) for b in self.batches.values()):
            return None
        return tuple((node, tuple(pods)) for node, pods in sorted(self.nominated.items()) if pods)

    def kept(self, pod: PodInfo, status: str, nominated: str = "") -> None:
        """A cycle whose verdict is known without running it, counted as `run` counts one."""
        if status != GATED:
            self.cycle += 1
        if status == UNSCHEDULABLE:
            self._nominate(pod, nominated)

    def _cycle(self, inputs: Inputs, options: RunOptions) -> Trace:
        """The cycle itself, with the batch of the pod's profile (changed by it)."""
        fw = self._framework(inputs, options)
        # Each profile batches only where the OpportunisticBatching gate is on (1.35 on, by default).
        batch = self.batches.setdefault(fw.profile_name, OpportunisticBatch()) \
            if fw.kube.enabled(OPPORTUNISTIC_BATCHING) else None
        trace = schedule_pod(fw, inputs.pod, replace(schedule_options(inputs, options), batch=batch,
                                                     cycle=self.cycle + 1))
        pod_notes.record(trace.extra, inputs.pod, inputs.snapshot, inputs.config.kube)
        return trace

    def _framework(self, inputs: Inputs, options: RunOptions) -> Framework:
        """The framework of the pod's profile, built for the first cycle that needs it (its
        configuration, scheduler name and preemption settings) and bound to each cycle's cluster."""
        key = (id(inputs.config), inputs.pod.spec.get("schedulerName"), options.preemption, options.preemption_offset)
        held = self.frameworks.get(key)
        if held is None or held[0] is not inputs.config:
            held = self.frameworks[key] = (inputs.config, framework_for(inputs, options))
            return held[1]
        return held[1].for_cycle(inputs.snapshot, inputs.nominated)

    def _nominate(self, pod: PodInfo, node: str) -> None:
        """The pod nominated to `node` (a nomination to no node leaves an earlier one)."""
        if not node:
            return
        for pods in self.nominated.values():
            pods[:] = [p for p in pods if p.uid != pod.uid]
        obj = copy_json(pod.obj)
        obj.setdefault("status", {})["nominatedNodeName"] = node
        self.nominated.setdefault(node, []).append(PodInfo(obj))


def terminating(snapshot: Snapshot, post_filter: dict | None) -> Snapshot:
    """The cluster after a cycle's preemption, its victims marked as the scheduler marks them."""
    post = post_filter or {}
    node, victims = post.get("nominatedNodeName") or "", set(post.get("victims") or ())
    info = snapshot.get(node) if node else None
    if info is None or not victims:
        return snapshot
    replaced = {}
    for pod in info.pods:
        if pod.key in victims and not pod.deletion_timestamp:
            replaced[id(pod)] = PodInfo(preempted(pod.obj))
    return snapshot.with_pods_replaced(node, replaced) if replaced else snapshot


def preempted(obj: dict) -> dict:
    """A preemption victim as the scheduler leaves it: DisruptionTarget and a deletionTimestamp."""
    if (obj.get("metadata") or {}).get("deletionTimestamp"):
        return obj
    obj = copy_json(obj)
    obj.setdefault("metadata", {})["deletionTimestamp"] = DELETION_TIMESTAMP
    status = obj.setdefault("status", {})
    status["conditions"] = [*(status.get("conditions") or []), {
        "type": DISRUPTION_TARGET, "status": "True", "reason": REASON_PREEMPTION_BY_SCHEDULER}]
    return obj
