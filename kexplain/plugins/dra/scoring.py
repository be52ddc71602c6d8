"""DynamicResources' Score: earlier `firstAvailable` subrequests are worth more (8 - i,
FirstAvailableDeviceRequestMaxSize - i); 1.35's positional pairing and its Score error are kept,
and Score is 0 while prioritized lists are off."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from kexplain.features import KubeVersion
from kexplain.model.dra import ResourceClaim
from kexplain.plugins.dra.allocator import ClaimAllocation

FIRST_AVAILABLE_MAX = 8   # resourceapi.FirstAvailableDeviceRequestMaxSize
# computeScore reads an allocated claim's own allocation (no gate).
ALLOCATED_CLAIMS_SCORED_SINCE = "1.36"


class ScoreError(Exception):
    """computeScore's error (the framework ends the cycle with it)."""


@dataclass(frozen=True)
class ScoreRules:
    """How the version followed scores, resolved once."""

    allocated_claims_scored: bool = False   # 1.36: allocated claims count with their own allocation
    prioritized_list: bool = True           # 1.36: Score is 0 while DRAPrioritizedList is off

    @classmethod
    def of(cls, kube: KubeVersion) -> "ScoreRules":
        fixed = kube.since(ALLOCATED_CLAIMS_SCORED_SINCE)
        return cls(fixed, kube.enabled("DRAPrioritizedList") or not fixed)


def is_subrequest_ref(ref: str) -> bool:
    return len(ref.split("/")) == 2


def _claim_score(claim: ResourceClaim, requests: Iterable[str]) -> int:
    chosen = {r for r in requests if is_subrequest_ref(r)}
    score = 0
    for request in claim.requests:
        if request.exactly is not None:
            continue
        for j, sub in enumerate(request.first_available):
            if f"{request.name}/{sub.name}" in chosen:
                score += FIRST_AVAILABLE_MAX - j
    return score


def compute_score(claims: Sequence[ResourceClaim], allocations: Sequence[ClaimAllocation],
                  rules: ScoreRules = ScoreRules()) -> int:
    """The node's score for the pod's `claims`, given the `allocations` Filter made there for
    those it had to allocate (in order)."""
    if not rules.prioritized_list:
        return 0
    score = 0
    made = iter(allocations)
    for i, claim in enumerate(claims):
        if rules.allocated_claims_scored and claim.allocation is not None:
            score += _claim_score(claim, (r.request for r in claim.allocation.results))
            continue
        allocation = next(made, None) if rules.allocated_claims_scored else \
            (allocations[i] if i < len(allocations) else None)
        if allocation is None:
            suffix = " needing allocation" if rules.allocated_claims_scored else ""
            raise ScoreError(f"number of allocations {len(allocations)} is smaller than number of claims{suffix}")
        score += _claim_score(claim, (d.request for d in allocation.devices))
    return score
