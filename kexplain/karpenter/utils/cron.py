"""The cron schedules of NodePool disruption budgets, as github.com/robfig/cron/v3's
`ParseStandard` reads them and `SpecSchedule.Next` walks them (five fields or a descriptor,
`TZ=UTC` prefixed by Karpenter), minute by minute."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from kexplain.apimachinery.fielderrors import go_quote
from kexplain.apimachinery.strconv import parse_int64
from kexplain.karpenter.disruption.pods import go_duration_error

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

    def day_ok(self, d: date) -> bool:
        """Whether the schedule fires on the day at all (its month and dayMatches)."""
        return d.month in self.month and self.day_matches(datetime.combine(d, time()))

    def window_end(self, span: timedelta, now: datetime, limit: datetime) -> datetime | None:
        """When a budget active at `now` (a firing within `span` before it) stops being active:
        the end of the first firing's window that the next firing does not reach (Budget.IsActive
        is active at t while a firing lies in (t - span, t]; a firing at the very end of a window
        keeps it active). None: no such end by `limit` (each window reaches the next firing)."""
        minutes = sorted(h * 60 + m for h in self.hour for m in self.minute)
        if not minutes or span <= timedelta(0):
            return None
        gaps = [i for i in range(len(minutes) - 1) if timedelta(minutes=minutes[i + 1] - minutes[i]) > span]
        since = now - span
        prev: datetime | None = None
        day = since.date()
        while datetime.combine(day, time(), tzinfo=now.tzinfo) <= limit:
            if self.day_ok(day):
                start = datetime.combine(day, time(), tzinfo=now.tzinfo)
                first = start + timedelta(minutes=minutes[0])
                if prev is not None and prev > since and first - prev > span:
                    return prev + span
                for i in gaps:
                    if start + timedelta(minutes=minutes[i]) > since:
                        return start + timedelta(minutes=minutes[i]) + span
                prev = start + timedelta(minutes=minutes[-1])
            day += timedelta(days=1)
        return None


def _number(text: str, names: dict[str, int]) -> int:
    """parseIntOrName, then mustParseInt: a name, else strconv.Atoi's integer (its errors as Go
    words them, the text quoted as %q quotes it), never negative."""
    if text.lower() in names:
        return names[text.lower()]
    value = parse_int64(text)
    if value is None:
        body = text[1:] if text[:1] in "+-" else text
        why = "value out of range" if body and body.isascii() and body.isdigit() else "invalid syntax"
        raise CronError(f"failed to parse int from {text}: strconv.Atoi: parsing {go_quote(text)}: {why}")
    if value < 0:
        raise CronError(f"negative number ({value}) not allowed: {text}")
    return value


def _field(expr: str, low: int, high: int, names: dict[str, int]) -> tuple[frozenset[int], bool]:
    values: set[int] = set()
    star = False
    for part in (p for p in expr.split(",") if p):      # (strings.FieldsFunc: no empty range)
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
    """ParseStandard (after Karpenter's `TZ=UTC ` prefix, which only names the zone): a descriptor
    when what follows the zone starts with `@`, else exactly five fields."""
    if not spec:
        raise CronError("empty spec string")
    if spec.startswith(("TZ=", "CRON_TZ=")) and " " in spec:
        spec = spec[spec.index(" "):].strip()
    if spec.startswith("@"):
        if spec.startswith("@every "):      # (a ConstantDelaySchedule; what the CRD's pattern lets through never parses)
            raise CronError(f"failed to parse duration {spec}: {go_duration_error(spec[7:]) or 'time: invalid duration'}")
        if spec not in _DESCRIPTORS:
            raise CronError(f"unrecognized descriptor: {spec}")
        spec = _DESCRIPTORS[spec]
    fields = spec.split()
    if len(fields) != 5:
        raise CronError(f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]")
    parsed = [_field(f, lo, hi, names) for f, (lo, hi, names) in zip(fields, _BOUNDS)]
    return Schedule(parsed[0][0], parsed[1][0], parsed[2][0], parsed[3][0], parsed[4][0],
                    parsed[2][1], parsed[4][1])


_FULL = {**{n: m for m in _MONTHS for n in ("january", "february", "march", "april", "may", "june", "july",
                                             "august", "september", "october", "november", "december")
            if n.startswith(m)},
         **{n: d for d in _DAYS for n in ("sunday", "monday", "tuesday", "wednesday", "thursday", "friday",
                                          "saturday") if n.startswith(d)}}


def _short(token: str) -> str:
    """A day or month written longer than robfig/cron's three letters (`monday`, `Thurs`): its three."""
    low = token.lower()
    return next((short for full, short in _FULL.items() if len(low) > 3 and full.startswith(low)), token)


def _dow(field: str) -> str:
    """Day-of-week 7 (Sunday elsewhere) as robfig/cron's 0: `7` is `0`, `N-7` is `N-6,0`."""
    parts = []
    for part in field.split(","):
        if part == "7":
            part = "0"
        elif part.endswith("-7") and part[:-2].isdigit():
            part = f"{part[:-2]}-6,0" if int(part[:-2]) < 7 else "0"
        parts.append(part)
    return ",".join(parts)


def corrected(spec: str) -> str | None:
    """A schedule ParseStandard refuses, written as robfig/cron reads it, when the slip is a usual
    one (full day or month names, Sunday as 7, a leading seconds field of 0); None otherwise, or
    when the result does not parse either."""
    fields = spec.split()
    if len(fields) == 6 and fields[0] == "0":
        fields = fields[1:]
    if len(fields) != 5:
        return None
    fields = ["".join(_short(t) if t.isalpha() else t for t in _tokens(f)) for f in fields]
    fields[4] = _dow(fields[4])
    out = " ".join(fields)
    try:
        parse_standard(f"TZ=UTC {out}")
    except CronError:
        return None
    return out if out != spec else None


def _tokens(field: str) -> list[str]:
    """The field split into runs of letters and the rest (`monday-friday` -> monday, -, friday)."""
    out: list[str] = []
    for ch in field:
        if out and out[-1][-1].isalpha() == ch.isalpha():
            out[-1] += ch
        else:
            out.append(ch)
    return out
