"""Exit codes, shared by every command (documented in --help, the README and the man page)."""
from __future__ import annotations

EXIT_SCHEDULED = 0
EXIT_UNSCHEDULABLE = 1
EXIT_BAD_INPUT = 2
EXIT_ERROR = 3
EXIT_INTERRUPTED = 130


def exit_code_for(trace: dict) -> int:
    """0 scheduled, 1 unschedulable or gated, 3 the scheduler would fail with an error."""
    return {"Scheduled": EXIT_SCHEDULED, "Unschedulable": EXIT_UNSCHEDULABLE,
            "Gated": EXIT_UNSCHEDULABLE}.get(trace["result"]["status"], EXIT_ERROR)
