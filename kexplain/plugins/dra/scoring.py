"""DynamicResources' Score: earlier `firstAvailable` subrequests are worth more.

Each allocated subrequest at position i of its request adds 8 - i
(FirstAvailableDeviceRequestMaxSize - i). v1.35.4 pairs the pod's claims (all of them) with the
allocations of the claims it had to allocate by position, so a pod with an allocated claim
and an unallocated one runs out of allocations: that is a Score error, kept here.
"""
from __future__ import annotations

from typing import Sequence

from kexplain.model.dra import ResourceClaim
from kexplain.plugins.dra.allocator import ClaimAllocation

FIRST_AVAILABLE_MAX = 8   # resourceapi.FirstAvailableDeviceRequestMaxSize


class ScoreError(Exception):
    """computeScore's error (the framework ends the cycle with it)."""


def is_subrequest_ref(ref: str) -> bool:
    return len(ref.split("/")) == 2


def compute_score(claims: Sequence[ResourceClaim], allocations: Sequence[ClaimAllocation]) -> int:
    score = 0
    for i, claim in enumerate(claims):
        if i >= len(allocations):
            raise ScoreError(f"number of allocations {len(allocations)} is smaller than number of claims")
        chosen = {d.request for d in allocations[i].devices if is_subrequest_ref(d.request)}
        for request in claim.requests:
            if request.exactly is not None:
                continue
            for j, sub in enumerate(request.first_available):
                if f"{request.name}/{sub.name}" in chosen:
                    score += FIRST_AVAILABLE_MAX - j
    return score
