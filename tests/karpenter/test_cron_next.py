"""`Schedule.next` passes over months, days and hours that cannot match (as SpecSchedule.Next does):
the same answer as asking every minute, and a year's window in a few hundred steps."""
import random
from datetime import datetime, timedelta, timezone

import pytest

from kexplain.karpenter.utils.cron import parse_standard

NOW = datetime(2026, 1, 1, 12, tzinfo=timezone.utc)
SPECS = ["* * * * *", "*/15 * * * *", "0 9 * * mon-fri", "30 22 * * 0", "0 0 1 * *", "0 0 31 * *",
         "0 0 29 2 *", "5 4 13 * 5", "0 */6 * * *", "0 0 1 1 *", "@daily", "@weekly", "@monthly", "@yearly",
         "15 10 28-31 * *", "0 12 * jan,jul *", "0 0 30 2 *"]


def _every_minute(schedule, t: datetime, limit: datetime):
    m = (t + timedelta(seconds=1)).replace(microsecond=0)
    if m.second:
        m = m.replace(second=0) + timedelta(minutes=1)
    while m <= limit:
        if schedule.matches(m):
            return m
        m += timedelta(minutes=1)
    return None


@pytest.mark.parametrize("spec", SPECS)
def test_next_is_the_first_matching_minute(spec):
    schedule = parse_standard(f"TZ=UTC {spec}")
    rng = random.Random(spec)
    for _ in range(6):
        start = NOW - timedelta(minutes=rng.randrange(0, 60 * 24 * 40), seconds=rng.randrange(0, 60))
        limit = start + timedelta(days=rng.choice((1, 7, 40)))
        assert schedule.next(start, limit) == _every_minute(schedule, start, limit), (spec, start, limit)


def test_a_schedule_once_a_year_is_found_across_the_year_at_once():
    schedule = parse_standard("TZ=UTC 0 9 1 1 *")
    assert schedule.next(NOW - timedelta(hours=8760), NOW) == datetime(2026, 1, 1, 9, tzinfo=timezone.utc)
    assert schedule.next(NOW, NOW + timedelta(days=366)) == datetime(2027, 1, 1, 9, tzinfo=timezone.utc)
    assert parse_standard("TZ=UTC 0 0 30 2 *").next(NOW, NOW + timedelta(days=366 * 4)) is None
