"""NodePool disruption budgets (apis/v1/nodepool.go): `allowed_by_reason` is
GetAllowedDisruptionsByReason with each budget's arithmetic kept for the explanation."""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone

from kexplain.apimachinery.goints import wrap
from kexplain.apimachinery.strconv import parse_int64
from kexplain.config._decode import parse_duration
from kexplain.karpenter.utils.cron import CronError, corrected, parse_standard

MAX_INT32 = 2147483647
REASONS = ("Drifted", "Empty", "Underutilized")
HORIZON = timedelta(days=366 * 8)     # how far a window's end or next opening is looked for (two leap cycles)
LOG = "detected disruption budget errors"


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
    change: str = ""                # `window`'s: closes, opens, always, never ("" unscheduled or failing)
    change_at: datetime | None = None



def is_active(budget, now: datetime) -> tuple[bool, str]:
    """Budget.IsActive: (active, error text) — walk back the duration, ask the schedule's next hit."""
    if budget.schedule is None and budget.duration is None:
        return True, ""
    try:
        schedule = parse_standard(f"TZ=UTC {budget.schedule or ''}")
    except CronError as err:
        return False, f"invariant violated, invalid cron, {err} (cron=<nil>)"     # (serrors.Wrap's values)
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


def verdicts(node_pool, now: datetime, num_nodes: int, reason: str, windows: bool = False) -> list[BudgetVerdict]:
    """Each budget's verdict for the reason; `windows`: with when its window closes or opens."""
    out = []
    for i, b in enumerate(node_pool.spec.disruption.budgets):
        allowed, active, err = allowed_of(b, now, num_nodes)
        applies = b.reasons is None or reason in b.reasons
        change, at = window(b, now) if windows and not err else ("", None)
        out.append(BudgetVerdict(i, b.nodes, applies, active, allowed, b.schedule, b.duration, err, b.reasons,
                                 change, at))
    return out


def allowed_by_reason(node_pool, now: datetime, num_nodes: int, reason: str) -> int:
    """MustGetAllowedDisruptions: the minimum over the budgets for the reason (MaxInt32 without
    one); 0 when any budget is misconfigured."""
    found = verdicts(node_pool, now, num_nodes, reason)
    if any(v.error for v in found):
        return 0
    return min([MAX_INT32, *(v.allowed for v in found if v.applies)])


def budget_errors(node_pool, now: datetime) -> list[tuple[int, str]]:
    """Each budget of the NodePool that fails (its index, IsActive's or the value's error): any one
    makes GetAllowedDisruptionsByReason fail, and MustGetAllowedDisruptions then allows 0 for every
    reason, whatever the budget's `reasons`."""
    out = []
    for i, b in enumerate(node_pool.spec.disruption.budgets):
        err = allowed_of(b, now, 0)[2]
        if err:
            out.append((i, err))
    return out


def invalid_log(node_pool, now: datetime) -> str:
    """Controller.logInvalidBudgets' error for the NodePool (its message LOG), "" when none fails:
    the budgets' errors joined as multierr joins them."""
    errs = budget_errors(node_pool, now)
    if not errs:
        return ""
    return f"invalid disruption budgets in nodepool {node_pool.name}, {'; '.join(e for _, e in errs)}"


def window(budget, now: datetime) -> tuple[str, datetime | None]:
    """When a scheduled budget's activity changes by itself: ("closes", t) while active, ("opens", t)
    while not, ("always", None) when active and no window ever ends before the next firing (a
    duration at least the gap between firings: `0 0 * * *` for 24h), ("never", None) when it
    never opens (a zero duration), ("", None) without a schedule or when it does not parse."""
    if budget.schedule is None:
        return "", None
    try:
        schedule = parse_standard(f"TZ=UTC {budget.schedule}")
    except CronError:
        return "", None
    span = timedelta(microseconds=(parse_duration(budget.duration or "0s") or 0) // 1000)
    now = now.astimezone(timezone.utc)
    if is_active(budget, now)[0]:
        end = schedule.window_end(span, now, now + HORIZON)
        return ("closes", end) if end is not None else ("always", None)
    if span <= timedelta(0):
        return "never", None
    nxt = schedule.next(now, now + HORIZON)
    return ("opens", nxt) if nxt is not None else ("never", None)


def schedule_fixes(node_pool, now: datetime, num_nodes: int) -> list[dict]:
    """Each budget whose schedule Karpenter cannot parse: its index, schedule, error, the schedule
    written as robfig/cron reads it (`cron.corrected`, when the slip is a usual one) and what the
    NodePool's budgets then allow per reason at `now` (GetAllowedDisruptionsByReason again, with
    the corrected schedule; still 0 while another budget fails)."""
    budgets = node_pool.spec.disruption.budgets
    out = []
    for i, err in budget_errors(node_pool, now):
        schedule = budgets[i].schedule
        if schedule is None or "invalid cron" not in err:
            continue
        entry: dict = {"index": i, "schedule": schedule, "error": err}
        fix = corrected(schedule)
        if fix is not None:
            fixed = tuple(replace(b, schedule=fix) if j == i else b for j, b in enumerate(budgets))
            pool = replace(node_pool, spec=replace(node_pool.spec, disruption=replace(node_pool.spec.disruption,
                                                                                      budgets=fixed)))
            entry.update({"fix": fix, "allowsWithFix": {r: allowed_by_reason(pool, now, num_nodes, r)
                                                        for r in REASONS}})
        out.append(entry)
    return out
