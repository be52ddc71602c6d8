"""The flavors a pod set's assignment considered, merged per flavor across its resources, and
the text the QuotaReserved event appends (flavor_assigner_attempts.go)."""
from __future__ import annotations

from dataclasses import dataclass, field

from kexplain.kueue.cache.snapshot import ClusterQueueSnapshot
from kexplain.kueue.scheduler.flavorassigner.modes import MODE_NAMES, NO_FIT, FIT, assignment_mode, possibility_of
from kexplain.kueue.scheduler.preemption.common import POSSIBILITY_NAMES


@dataclass
class Attempt:
    flavor: str
    mode: int
    borrow: int = 0
    possibility: int | None = None
    reasons: list[str] = field(default_factory=list)


def no_fit_attempt(flavor: str, reasons: list[str]) -> Attempt:
    return Attempt(flavor, NO_FIT, reasons=list(reasons))


def representative_attempt(flavor: str, pm: int, max_borrow: int, reasons: list[str]) -> Attempt:
    return Attempt(flavor, assignment_mode(pm), max_borrow, possibility_of(pm), sorted(reasons))


def merge(dst: dict[str, Attempt], src: list[Attempt]) -> None:
    """mergeFlavorAttempts: per flavor, the worst mode, the largest borrow, the lowest
    preemption possibility, every reason once (sorted)."""
    for at in src:
        existing = dst.get(at.flavor)
        if existing is not None:
            possibility = existing.possibility
            if at.possibility is not None and (possibility is None or at.possibility < possibility):
                possibility = at.possibility
            dst[at.flavor] = Attempt(at.flavor, min(at.mode, existing.mode), max(at.borrow, existing.borrow),
                                     possibility, sorted(set(existing.reasons) | set(at.reasons)))
        else:
            dst[at.flavor] = Attempt(at.flavor, at.mode, at.borrow, at.possibility, sorted(set(at.reasons)))


def merge_for_resource(dst: dict[str, Attempt], src: list[Attempt], resource: str, cq: ClusterQueueSnapshot) -> None:
    """mergeFlavorAttemptsForResource: a flavor of the resource's group considered before but
    not for this resource does not provide it."""
    merge(dst, src)
    if not src:
        return
    group = cq.rg_by_resource(resource)
    present = {a.flavor for a in src}
    for flavor, at in list(dst.items()):
        if group is None or flavor not in group.flavors or flavor in present:
            continue
        at.mode = NO_FIT
        at.reasons = sorted(set(at.reasons) | {f"flavor {flavor} does not provide resource {resource}"})


def finalize(attempts: dict[str, Attempt]) -> list[Attempt]:
    return sorted(attempts.values(), key=lambda a: a.flavor)


def format_for_events(pod_sets: list[tuple[str, list[Attempt]]]) -> str:
    """FormatFlavorAssignmentAttemptsForEvents: `PODSET: FLAVOR(MODE[;borrow=N][;REASONS]), ...`
    joined with ` | `, leaving out flavors that fit without borrowing."""
    parts = []
    for name, attempts in pod_sets:
        shown = []
        for at in attempts:
            if at.mode == FIT and at.borrow == 0:
                continue
            text = MODE_NAMES[at.mode] if at.possibility is None else f"preemptionMode={POSSIBILITY_NAMES[at.possibility]}"
            if at.borrow > 0:
                text += f";borrow={at.borrow}"
            if at.reasons:
                text += ";" + ";".join(at.reasons)
            shown.append(f"{at.flavor}({text})")
        if shown:
            parts.append(f"{name}: {', '.join(shown)}")
    return " | ".join(parts)
