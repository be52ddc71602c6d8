"""The bound the load tests put on a hang (`tests.support.bounded.no_hang`): a block that never
ends fails the test with a word saying so; a block that ends is untouched, and the timer is gone
after it."""
from __future__ import annotations

import signal
import time

import pytest

from tests.support.bounded import no_hang


def test_a_hang_fails_the_test():
    with pytest.raises(pytest.fail.Exception, match=r"reading: did not finish within 0.1 s \(a hang\)"):
        with no_hang("reading", seconds=0.1):
            time.sleep(60)
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0


def test_a_block_that_ends_is_untouched():
    with no_hang("reading", seconds=60):
        value = sum(range(10))
    assert value == 45
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0


def test_an_inner_bound_keeps_the_outer_one():
    with pytest.raises(pytest.fail.Exception, match="outer: did not finish"):
        with no_hang("outer", seconds=0.1):
            with no_hang("inner", seconds=60):
                time.sleep(60)
