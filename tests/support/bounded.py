"""A bound on a hang, not a measurement: a test asserts what happens, and a case that never ends
fails after a generous wall-clock limit instead of stalling the run. How fast a case is belongs
to the benchmarks (`benchmarks/budgets_bench.py`), which measure on a quiet machine.

HANG_SECONDS is far above any case's time on a busy 2-core machine (the slowest takes a few
seconds), so other work running beside the tests never fails one."""
from __future__ import annotations

import signal
from contextlib import contextmanager
from typing import Iterator

import pytest

HANG_SECONDS = 300.0        # in-process work and child processes alike


@contextmanager
def no_hang(what: str, seconds: float = HANG_SECONDS) -> Iterator[None]:
    """Fail the test when the block runs longer than `seconds` of wall time (a timer signal in
    the test's main thread; pytest-xdist runs each test there). Nested use keeps the outer bound."""
    if signal.getitimer(signal.ITIMER_REAL)[0] > 0:     # an outer bound is running: it holds
        yield
        return

    def expired(signum: int, frame: object) -> None:
        pytest.fail(f"{what}: did not finish within {seconds:g} s (a hang)")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
