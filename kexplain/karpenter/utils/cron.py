"""The cron schedules of NodePool disruption budgets, as github.com/robfig/cron/v3's
`ParseStandard` reads them and `SpecSchedule.Next` walks them (five fields or a descriptor,
`TZ=UTC` prefixed by Karpenter), minute by minute."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

_MONTHS = {n: i for i, n in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
                                        "nov", "dec"), start=1)}
_DAYS = {n: i for i, n in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
_BOUNDS = ((0, 59, {}), (0, 23, {}), (1, 31, {}), (1, 12, _MONTHS), (0, 6, _DAYS))
_DESCRIPTORS = {"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
                "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *"}


class CronError(ValueError):
    """A schedule robfig/cron refuses (its message)."""


@dataclass(frozen=True)
class Schedule:
    minute: frozenset[int]
    hour: frozenset[int]
    dom: frozenset[int]
    month: frozenset[int]
    dow: frozenset[int]
    dom_star: bool
    dow_star: bool

    def matches(self, t: datetime) -> bool:
        return t.minute in self.minute and t.hour in self.hour and t.month in self.month and self.day_matches(t)

    def day_matches(self, t: datetime) -> bool:
        dom, dow = t.day in self.dom, (t.weekday() + 1) % 7 in self.dow
        # dayMatches: either field a star -> both must match; else either
        return dom and dow if self.dom_star or self.dow_star else dom or dow

    def next(self, t: datetime, limit: datetime) -> datetime | None:
        """Next(t): the first matching minute strictly after t, or None when it is after `limit`.
        A month, day or hour that does not match is passed over whole, as SpecSchedule.Next does
        (a year's window is a few hundred steps, not half a million minutes)."""
        m = (t + timedelta(seconds=1)).replace(microsecond=0)
        if m.second:
            m = m.replace(second=0) + timedelta(minutes=1)
        while m <= limit:
            if m.month not in self.month:
                m = (m.replace(day=1, hour=0, minute=0) + timedelta(days=32)).replace(day=1)
            elif not self.day_matches(m):
                m = m.replace(hour=0, minute=0) + timedelta(days=1)
            elif m.hour not in self.hour:
                m = m.replace(minute=0) + timedelta(hours=1)
            elif m.minute not in self.minute:
                m += timedelta(minutes=1)
            else:
                return m
        return None


def _number(text: str, names: dict[str, int]) -> int:
    if text.lower() in names:
        return names[text.lower()]
    if not text.isdigit():
        raise CronError(f"failed to parse int from {text}: strconv.Atoi: parsing {text!r}: invalid syntax")
    return int(text)


def _field(expr: str, low: int, high: int, names: dict[str, int]) -> tuple[frozenset[int], bool]:
    values: set[int] = set()
    star = False
    for part in expr.split(","):
        range_step = part.split("/")
        low_high = range_step[0].split("-")
        single = len(low_high) == 1
        if low_high[0] in ("*", "?"):
            start, end, extra = low, high, True
        else:
            start = _number(low_high[0], names)
            end = _number(low_high[1], names) if len(low_high) == 2 else start
            extra = False
            if len(low_high) > 2:
                raise CronError(f"too many hyphens: {part}")
        step = 1
        if len(range_step) == 2:
            step = _number(range_step[1], {})
            if single:
                end = high
            if step > 1:
                extra = False
        elif len(range_step) > 2:
            raise CronError(f"too many slashes: {part}")
        if start < low:
            raise CronError(f"beginning of range ({start}) below minimum ({low}): {part}")
        if end > high:
            raise CronError(f"end of range ({end}) above maximum ({high}): {part}")
        if start > end:
            raise CronError(f"beginning of range ({start}) beyond end of range ({end}): {part}")
        if step == 0:
            raise CronError(f"step of range should be a positive number: {part}")
        values.update(range(start, end + 1, step))
        star = star or extra
    return frozenset(values), star


def parse_standard(spec: str) -> Schedule:
    """ParseStandard (after Karpenter's `TZ=UTC ` prefix, which only names the zone)."""
    fields = spec.split()
    if fields and fields[0].startswith(("TZ=", "CRON_TZ=")):
        fields = fields[1:]
    if len(fields) == 1 and fields[0].startswith("@"):
        if fields[0] not in _DESCRIPTORS:
            raise CronError(f"unrecognized descriptor: {fields[0]}")
        fields = _DESCRIPTORS[fields[0]].split()
    if len(fields) != 5:
        raise CronError(f"expected exactly 5 fields, found {len(fields)}: {fields}")
    parsed = [_field(f, lo, hi, names) for f, (lo, hi, names) in zip(fields, _BOUNDS)]
    return Schedule(parsed[0][0], parsed[1][0], parsed[2][0], parsed[3][0], parsed[4][0],
                    parsed[2][1], parsed[4][1])
