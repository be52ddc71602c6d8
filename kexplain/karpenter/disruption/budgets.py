"""NodePool disruption budgets (apis/v1/nodepool.go): `allowed_by_reason` is
GetAllowedDisruptionsByReason with each budget's arithmetic kept for the explanation."""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from kexplain.apimachinery.goints import wrap
from kexplain.apimachinery.strconv import parse_int64
from kexplain.config._decode import parse_duration
from kexplain.karpenter.utils.cron import CronError, parse_standard

MAX_INT32 = 2147483647
REASONS = ("Drifted", "Empty", "Underutilized")


@dataclass(frozen=True)
class BudgetVerdict:
    """One budget for one reason: whether it applies (its `reasons`), whether its window is active,
    and what it allows of `nodes` (MaxInt32 when inactive)."""

    index: int
    nodes: str
    applies: bool
    active: bool
    allowed: int
    schedule: str | None = None
    duration: str | None = None
    error: str = ""
    reasons: tuple[str, ...] | None = None




def is_active(budget, now: datetime) -> tuple[bool, str]:
    """Budget.IsActive: (active, error text) — walk back the duration, ask the schedule's next hit."""
    if budget.schedule is None and budget.duration is None:
        return True, ""
    try:
        schedule = parse_standard(f"TZ=UTC {budget.schedule or ''}")
    except CronError as err:
        return False, f"invariant violated, invalid cron, {err}"
    ns = parse_duration(budget.duration or "0s") or 0
    now = now.astimezone(timezone.utc)
    check = now - timedelta(microseconds=ns // 1000)
    if schedule.next(check, now) is not None:
        return True, ""
    # no hit by now: inactive if the schedule hits later, within the five years SpecSchedule.Next
    # searches (through the fifth year after the checkpoint's); none there is Go's zero time, which
    # is not after now: active
    start = check + timedelta(seconds=1)
    last = datetime(start.year + 5, 12, 31, 23, 59, tzinfo=timezone.utc)
    return schedule.next(now, last) is None, ""


def allowed_of(budget, now: datetime, num_nodes: int) -> tuple[int, bool, str]:
    """Budget.GetAllowedDisruptions: (allowed, active, error); a misconfigured budget fails closed."""
    active, err = is_active(budget, now)
    if err:
        return 0, False, err
    if not active:
        return MAX_INT32, False, ""
    value = parse_int64(budget.nodes)
    if value is not None:
        return wrap(value, 32), True, ""       # (intstr.FromInt: int32(val))
    if budget.nodes.endswith("%") and parse_int64(budget.nodes[:-1]) is not None:
        return math.ceil(float(parse_int64(budget.nodes[:-1])) * float(num_nodes) / 100), True, ""
    return 0, True, "invalid value for IntOrString: invalid type: string is not a percentage"


def verdicts(node_pool, now: datetime, num_nodes: int, reason: str) -> list[BudgetVerdict]:
    out = []
    for i, b in enumerate(node_pool.spec.disruption.budgets):
        allowed, active, err = allowed_of(b, now, num_nodes)
        applies = b.reasons is None or reason in b.reasons
        out.append(BudgetVerdict(i, b.nodes, applies, active, allowed, b.schedule, b.duration, err, b.reasons))
    return out


def allowed_by_reason(node_pool, now: datetime, num_nodes: int, reason: str) -> int:
    """MustGetAllowedDisruptions: the minimum over the budgets for the reason (MaxInt32 without
    one); 0 when any budget is misconfigured."""
    found = verdicts(node_pool, now, num_nodes, reason)
    if any(v.error for v in found):
        return 0
    return min([MAX_INT32, *(v.allowed for v in found if v.applies)])
