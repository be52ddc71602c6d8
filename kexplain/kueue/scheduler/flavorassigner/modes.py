"""The modes a flavor can be assigned in and how the assigner compares them (flavorassigner.go:
FlavorAssignmentMode, preemptionMode, granularMode, isPreferred, shouldTryNextFlavor)."""
from __future__ import annotations

from dataclasses import dataclass

from kexplain.kueue.apis.clusterqueue import FlavorFungibility
from kexplain.kueue.apis.constants import BORROWING_OVER_PREEMPTION, PREEMPTION_OVER_BORROWING, TRY_NEXT_FLAVOR
from kexplain.kueue.scheduler.preemption.common import NO_CANDIDATES, PREEMPT, RECLAIM

# FlavorAssignmentMode, lowest preference first
NO_FIT, PREEMPT_MODE, FIT = 0, 1, 2
MODE_NAMES = {NO_FIT: "NoFit", PREEMPT_MODE: "Preempt", FIT: "Fit"}

# preemptionMode
PM_NO_FIT, PM_NO_CANDIDATES, PM_PREEMPT, PM_RECLAIM, PM_FIT = range(5)
PM_NAMES = {PM_NO_FIT: "noFit", PM_NO_CANDIDATES: "noPreemptionCandidates", PM_PREEMPT: "preempt",
            PM_RECLAIM: "reclaim", PM_FIT: "fit"}
MAX_INT = (1 << 63) - 1


def from_possibility(possibility: int) -> int:
    return {NO_CANDIDATES: PM_NO_CANDIDATES, PREEMPT: PM_PREEMPT, RECLAIM: PM_RECLAIM}[possibility]


def possibility_of(pm: int) -> int | None:
    """preemptionMode.preemptionPossibility: None for fit and noFit."""
    return {PM_NO_CANDIDATES: NO_CANDIDATES, PM_PREEMPT: PREEMPT, PM_RECLAIM: RECLAIM}.get(pm)


def assignment_mode(pm: int) -> int:
    """preemptionMode.flavorAssignmentMode."""
    if pm == PM_NO_FIT:
        return NO_FIT
    if pm == PM_FIT:
        return FIT
    return PREEMPT_MODE


@dataclass(frozen=True)
class GranularMode:
    preemption: int
    borrowing: int

    def is_preempt(self) -> bool:
        return self.preemption in (PM_PREEMPT, PM_RECLAIM)


WORST = GranularMode(PM_NO_FIT, MAX_INT)
BEST = GranularMode(PM_FIT, 0)


def is_preferred(a: GranularMode, b: GranularMode, fungibility: FlavorFungibility,
                 no_candidates_lowest: bool = False) -> bool:
    """isPreferred: whether mode `a` is better than `b` (never when `a` does not fit; with
    `no_candidates_lowest`, v0.19's, a mode without preemption candidates below any viable one)."""
    if a.preemption == PM_NO_FIT:
        return False
    if b.preemption == PM_NO_FIT:
        return True
    if no_candidates_lowest and (a.preemption == PM_NO_CANDIDATES) != (b.preemption == PM_NO_CANDIDATES):
        return a.preemption != PM_NO_CANDIDATES

    def borrowing_over_preemption() -> bool:
        if a.preemption != b.preemption:
            return a.preemption > b.preemption
        return a.borrowing < b.borrowing

    def preemption_over_borrowing() -> bool:
        if a.borrowing != b.borrowing:
            return a.borrowing < b.borrowing
        return a.preemption > b.preemption

    if fungibility.preference == PREEMPTION_OVER_BORROWING:
        return preemption_over_borrowing()
    if fungibility.preference == BORROWING_OVER_PREEMPTION:
        return borrowing_over_preemption()
    return borrowing_over_preemption()


def should_try_next_flavor(mode: GranularMode, fungibility: FlavorFungibility) -> str:
    """shouldTryNextFlavor, as the rule that says so ("" when the search may stop here)."""
    if mode.preemption == PM_NO_FIT:
        return "noFit"
    if mode.preemption == PM_NO_CANDIDATES:
        return "noPreemptionCandidates"
    if mode.is_preempt() and fungibility.when_can_preempt == TRY_NEXT_FLAVOR:
        return "whenCanPreempt=TryNextFlavor"
    if mode.borrowing != 0 and fungibility.when_can_borrow == TRY_NEXT_FLAVOR:
        return "whenCanBorrow=TryNextFlavor"
    return ""
