"""The workload controllers' rule `not-created`: a controller that creates no pod now (a suspended
Job or CronJob; what it makes is in the set already), its template scheduled taking no room."""
from __future__ import annotations

from typing import TYPE_CHECKING

from kexplain.lint.findings import Finding
from kexplain.lint.rule import POOL, Severity, declare
from kexplain.lint.rules.scheduling import Suggest, verdict

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.explain.batch import Outcome
    from kexplain.lint.set_state import Queued

RULES = (
    declare("not-created", Severity.INFO, POOL,
            "The workload's controller creates no pod now (a suspended Job or CronJob): its template is scheduled, "
            "taking no room, for when it is resumed; or what it makes is in the set already, each linted by "
            "itself.",
            "the Job and CronJob controllers (spec.suspend); a controller's adoption of what "
            "it made (ReplicaSets, pods)"),
)


def not_created(q: "Queued", outcome: "Outcome", suggest: Suggest) -> Finding:
    """A workload whose controller creates no pod now (`Entry.idle`: suspended): a note, with
    what its template met (scheduled taking no room), whatever that verdict."""
    last = outcome.last
    assert last is not None
    found = verdict(q.ref, q.loc, False, 1, outcome.placed, last.inputs, last.trace, suggest)
    said = found.message if found.rule == "fits" else f"{found.rule}: {found.message}"
    return Finding("not-created", q.loc, q.ref, f"{q.entry.idle}; its pod, once resumed: {said}",
                   suggestions=found.suggestions, details={**found.details, "idle": q.entry.idle})
