"""computeScore: 8 - i per allocated subrequest, v1.35's error for mixed claims and 1.36's fix."""
from __future__ import annotations

import pytest

from kexplain.features import KubeVersion
from kexplain.plugins.dra.allocator import AllocatedDevice, ClaimAllocation
from kexplain.plugins.dra.scoring import ScoreError, ScoreRules, compute_score
from tests.plugins.dra.builders import GPU, allocation, claim, claims, exact, first, req


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


# -- 1.36: allocated claims are scored by their own allocation ----------------------------------------

FIXED = ScoreRules.of(KubeVersion("1.36"))


def test_136_scores_an_allocated_claim_by_its_allocation():
    done = claim("x", SUBS, allocation=allocation(("gpu/b", GPU, "p", "d0")))
    # 1.35: the allocated claim takes the one allocation made in this cycle, and the other has none.
    with pytest.raises(ScoreError, match="^number of allocations 1 is smaller than number of claims$"):
        compute_score(claims(done, claim("y", SUBS)), [alloc("gpu/a")], ScoreRules.of(KubeVersion("1.35")))
    assert compute_score(claims(done, claim("y", SUBS)), [alloc("gpu/a")], FIXED) == 7 + 8


def test_136_error_counts_the_claims_needing_allocation():
    with pytest.raises(ScoreError, match="^number of allocations 1 is smaller than number of claims needing "
                                         "allocation$"):
        compute_score(claims(claim("x", SUBS), claim("y", SUBS)), [alloc("gpu/a")], FIXED)


def test_136_scores_nothing_without_prioritized_lists():
    off = ScoreRules.of(KubeVersion("1.36").with_feature_gates("DRAPrioritizedList=false"))
    assert compute_score(claims(claim("c", SUBS)), [alloc("gpu/a")], off) == 0
    # 1.35 scores what it finds whatever the gate.
    on_135 = ScoreRules.of(KubeVersion("1.35").with_feature_gates("DRAPrioritizedList=false"))
    assert compute_score(claims(claim("c", SUBS)), [alloc("gpu/a")], on_135) == 8
