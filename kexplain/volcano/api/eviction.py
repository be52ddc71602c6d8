"""EvictionContext (api/types.go): what the plugins' unified evictable functions are asked about, by
gangpreempt and gangreclaim (the preemptor's job and the hyper-node domain searched)."""
from __future__ import annotations

from dataclasses import dataclass

from kexplain.volcano.api.job import JobInfo

GANG_PREEMPT, GANG_RECLAIM = "GangPreempt", "GangReclaim"       # EvictionKindGangPreempt, EvictionKindGangReclaim


@dataclass(frozen=True)
class EvictionContext:
    kind: str
    job: JobInfo
    hyper_node: str
