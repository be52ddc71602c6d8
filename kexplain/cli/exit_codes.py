"""How kexplain ends: one set of exit codes for every command (documented in --help, the
README and the man page), and one rule for a run that gives several verdicts."""
from __future__ import annotations

from enum import IntEnum
from typing import Iterable


class ExitStatus(IntEnum):
    SUCCESS = 0             # the pod would be scheduled; lint: no finding at or above --fail-on
    UNSCHEDULABLE = 1       # unschedulable, gated, or rejected by its node's kubelet; lint: findings >= --fail-on
    FINDINGS = 1
    BAD_INPUT = 2           # bad usage or bad input (a KexplainError)
    SCHEDULER_ERROR = 3     # the scheduler itself would fail with an error
    INTERNAL_ERROR = 4      # a kexplain bug
    INTERRUPTED = 130
    CLOSED_PIPE = 141       # the output pipe closed before every verdict was reached (128 + SIGPIPE)


HELP = """Exit codes: 0 schedulable, 1 unschedulable, gated or rejected by its node's kubelet, 2 bad usage or bad input,
3 the scheduler would fail with an error, 4 internal error (a kexplain bug: please report it),
130 interrupted, 141 the output pipe closed before every verdict was reached (as SIGPIPE)."""

# Which verdict wins when a run gives several (pods, copies, pending pods, lint's outcomes).
_PRECEDENCE = (ExitStatus.SUCCESS, ExitStatus.UNSCHEDULABLE, ExitStatus.BAD_INPUT, ExitStatus.SCHEDULER_ERROR)
_BY_RESULT = {"Scheduled": ExitStatus.SUCCESS, "Unschedulable": ExitStatus.UNSCHEDULABLE,
              "Gated": ExitStatus.UNSCHEDULABLE,
              "Failed": ExitStatus.UNSCHEDULABLE}     # a pod bound by spec.nodeName its kubelet rejects


def for_result(status: str) -> ExitStatus:
    """A trace's `result.status`: Scheduled 0, Unschedulable, Gated or Failed (its node's kubelet
    rejects a pod bound to it) 1, Error 3."""
    return _BY_RESULT.get(status, ExitStatus.SCHEDULER_ERROR)


def for_trace(trace: dict) -> ExitStatus:
    return for_result(trace["result"]["status"])


def aggregate(statuses: Iterable[ExitStatus]) -> ExitStatus:
    """The exit status of a run of several verdicts: the worst of them (an error of the
    scheduler, then bad input, then a pod that would not be scheduled); 0 when there are none."""
    return max(statuses, key=_PRECEDENCE.index, default=ExitStatus.SUCCESS)

