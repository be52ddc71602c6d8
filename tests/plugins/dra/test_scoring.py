"""computeScore: 8 - i per allocated subrequest, and v1.35.4's error for mixed claims."""
from __future__ import annotations

import pytest

from kexplain.plugins.dra.allocator import AllocatedDevice, ClaimAllocation
from kexplain.plugins.dra.scoring import ScoreError, compute_score
from tests.plugins.dra.builders import GPU, claim, claims, exact, first, req


def alloc(*requests: str) -> ClaimAllocation:
    return ClaimAllocation("default/c", tuple(AllocatedDevice(r, GPU, "p", f"d{i}") for i, r in enumerate(requests)))


SUBS = first("gpu", ("a", exact(GPU)), ("b", exact(GPU)), ("c", exact(GPU)))


@pytest.mark.parametrize("chosen,want", [("gpu/a", 8), ("gpu/b", 7), ("gpu/c", 6)])
def test_earlier_subrequests_score_more(chosen, want):
    assert compute_score(claims(claim("c", SUBS)), [alloc(chosen)]) == want


def test_each_subrequest_counts_once_and_exact_requests_nothing():
    got = compute_score(claims(claim("c", SUBS, req("plain"))), [alloc("gpu/b", "gpu/b", "plain")])
    assert got == 7


def test_claims_are_summed():
    assert compute_score(claims(claim("x", SUBS), claim("y", SUBS)), [alloc("gpu/a"), alloc("gpu/c")]) == 14


def test_fewer_allocations_than_claims_is_an_error():
    with pytest.raises(ScoreError, match="^number of allocations 1 is smaller than number of claims$"):
        compute_score(claims(claim("x", SUBS), claim("y", SUBS)), [alloc("gpu/a")])
