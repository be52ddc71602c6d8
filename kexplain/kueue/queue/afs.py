"""Admission fair sharing in the queue manager (cache/queue/afs, workload.CalcLocalQueueFSUsage): a
LocalQueue's usage is its consumed resources plus its entry penalties, each weighted by the
Configuration's resourceWeights, over the LocalQueue's weight; a ClusterQueue in
UsageBasedAdmissionFairSharing orders its heads by it first.

The consumed resources are those stored in the LocalQueue's status: Kueue seeds its cache from them
with the time it reads them (no decay at read), so a snapshot orders by them as stored. Each
admission adds its entry penalty (its requests times the sampling interval's share of the
half-life) to its LocalQueue at once; the workload controller moves it into the consumed
resources at ~zero elapsed time, the same sum, so it counts for the rest of the pass."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from kexplain.kueue.apis.localqueue import LocalQueue
from kexplain.kueue.config_afs import AdmissionFairSharing
from kexplain.kueue.resources import CPU, Requests

USAGE_BASED = "UsageBasedAdmissionFairSharing"


def go_compare(a: float, b: float) -> int:
    """cmp.Compare on float64: a NaN sorts before any number."""
    if math.isnan(a) or math.isnan(b):
        return 0 if math.isnan(a) and math.isnan(b) else (-1 if math.isnan(a) else 1)
    return (a > b) - (a < b)


def go_divide(a: float, b: float) -> float:
    """float64 division: by zero, an infinity of the dividend's sign, or NaN for zero."""
    if b != 0:
        return a / b
    return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a)


@dataclass
class LocalQueueShare:
    """One LocalQueue as ordering reads it: the usage it is ordered by and what makes it up."""

    key: str
    weight: float
    consumed: dict[str, float]
    penalty: dict[str, float]
    usage: float


@dataclass
class FairSharingState:
    """The consumed resources and entry penalties of every LocalQueue (AfsConsumedResources,
    AfsEntryPenalties), shared by the ClusterQueues; penalties in millis (MulByFloat's)."""

    config: AdmissionFairSharing
    local_queues: dict[str, LocalQueue] = field(default_factory=dict)
    penalties: dict[str, dict[str, int]] = field(default_factory=dict)
    # v0.19's CalculateUsage: a weight of 0 or below ranks its LocalQueue last (+Inf); v0.17.8 divides
    # (zero usage over zero weight is NaN, which sorts first)
    nonpositive_weight_last: bool = False

    @classmethod
    def build(cls, config: AdmissionFairSharing, local_queues: list[LocalQueue],
              nonpositive_weight_last: bool = False) -> "FairSharingState":
        return cls(config, {lq.key: lq for lq in local_queues}, nonpositive_weight_last=nonpositive_weight_last)

    def share(self, lq_key: str) -> LocalQueueShare:
        """CalcLocalQueueFSUsage: a LocalQueue not found weighs 1."""
        lq = self.local_queues.get(lq_key)
        consumed = dict(lq.consumed) if lq is not None else {}
        penalty = {name: milli / 1000 for name, milli in self.penalties.get(lq_key, {}).items()}
        weight = lq.fair_weight if lq is not None else 1.0
        merged = {name: consumed.get(name, 0.0) + penalty.get(name, 0.0) for name in {*consumed, *penalty}}
        total = 0.0
        for name in sorted(merged):
            total += self.config.weight(name) * merged[name]
        if self.nonpositive_weight_last and weight <= 0:
            return LocalQueueShare(lq_key, weight, consumed, penalty, math.inf)
        return LocalQueueShare(lq_key, weight, consumed, penalty, go_divide(total, weight))

    def usage(self, lq_key: str) -> float:
        return self.share(lq_key).usage

    def push_penalty(self, lq_key: str, requests: Requests) -> None:
        """updateEntryPenalty(add): MulByFloat of the Workload's summed requests by alpha."""
        alpha = self.config.alpha()
        held = self.penalties.setdefault(lq_key, {})
        for name, amount in requests.items():
            milli = amount if name == CPU else amount * 1000
            held[name] = held.get(name, 0) + int(milli * alpha)

    def has_pending(self, lq_keys: set[str]) -> bool:
        """hasPendingPenalties: any LocalQueue of the ClusterQueue with a penalty entry."""
        return any(self.penalties.get(key) for key in lq_keys)


def _number(value: float) -> float | str:
    """A usage for the document: rounded, a non-finite one as Go prints it (+Inf, NaN)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return round(value, 6)


def shares_view(state: FairSharingState, lq_keys: set[str]) -> list[dict[str, object]]:
    """The LocalQueues of a ClusterQueue in the order their heads go (lowest usage first): each one's
    usage, weight, stored consumed resources and the entry penalties the pass added."""
    shares = sorted((state.share(key) for key in lq_keys),
                    key=lambda s: (0 if math.isnan(s.usage) else 1, 0.0 if math.isnan(s.usage) else s.usage, s.key))
    return [{"localQueue": s.key, "usage": _number(s.usage), "weight": _number(s.weight),
             "consumed": {k: _number(v) for k, v in sorted(s.consumed.items())},
             **({"penalty": {k: _number(v) for k, v in sorted(s.penalty.items())}} if s.penalty else {})}
            for s in shares]
