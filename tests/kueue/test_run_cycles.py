"""The pass's cycles (run.run_pass): they stop at the first state met before, so heads that take
their flavors in turn (a state of period two or more, as TAS failures on two flavors make) end the
pass at once instead of at its bound."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from kexplain.kueue.run import CYCLES_PER_WORKLOAD
from kexplain.kueue.scheduler.scheduler import Scheduler
from tests.kueue.builders import cluster_queue, flavor, local_queue, run, workload

DOCS = (flavor("default"), local_queue("q", "cq"),
        cluster_queue("cq", {"default": {"cpu": "4"}}, queueingStrategy="StrictFIFO"))
TOO_BIG = workload("big", "q", {"cpu": "8"})


def test_a_head_that_cannot_fit_ends_the_pass_when_nothing_changes() -> None:
    done = run(*DOCS, submitted=(TOO_BIG,))
    assert len(done.scheduler.cycles) == 2       # tried, then tried again to the same state


@pytest.mark.parametrize("period", [2, 3])
def test_a_state_that_comes_round_again_ends_the_pass(monkeypatch: pytest.MonkeyPatch, period: int) -> None:
    """Each cycle leaves the head's message in one of `period` texts in turn, as a head whose flavors
    are tried in turn leaves it: the pass ends when the first text comes round again."""
    schedule = Scheduler.schedule
    calls = {"n": 0}

    def turning(self: Scheduler) -> Any:
        went = schedule(self)
        calls["n"] += 1
        for info in self.queues.cluster_queues["cq"].heap.items():
            wl = info.obj
            wl.conditions = [replace(c, message=f"turn {calls['n'] % period}") for c in wl.conditions]
        return went

    monkeypatch.setattr(Scheduler, "schedule", turning)
    done = run(*DOCS, submitted=(TOO_BIG,))
    assert len(done.scheduler.cycles) == period + 1 < CYCLES_PER_WORKLOAD + 2
