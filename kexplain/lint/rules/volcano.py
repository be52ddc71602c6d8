"""Volcano's rules (`kexplain.lint.volcano`'s checks, each at the line of its field): a Volcano Job
its job webhook refuses (`volcano-job-refused`: minAvailable above its tasks' replicas, ...), a Job or
PodGroup in a queue that does not exist or is not Open (`volcano-queue`, with Volcano's Queues in the
set or the pool), a job whose minResources exceed its queue's capability (`volcano-over-capability`)."""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from kexplain.lint.documents import Document, line_of_field
from kexplain.lint.findings import Finding, ObjectRef
from kexplain.lint.rule import SCHEMAS, VOLCANO, Severity, declare
from kexplain.lint.volcano import JOB_REFUSED, OVER_CAPABILITY, QUEUE, check_volcano

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.state.cluster import ClusterState

_V = "Volcano v1.15.1"
RULES = (
    declare(JOB_REFUSED, Severity.ERROR, SCHEMAS,
            "Volcano's job webhook refuses the Volcano Job (its minAvailable above its tasks' replicas, a task's "
            "minAvailable above its replicas, a duplicated task name, an unknown job plugin, ...): the message "
            "is the webhook's; or a count or a task's pod template would not decode, at its field.",
            _V + ": the job webhooks (jobs/mutate createPatch, jobs/validate validateJobCreate)"),
    declare(QUEUE, Severity.ERROR, VOLCANO,
            "A Volcano Job or PodGroup names a queue the set and the pool do not have, or one not Open (or root, "
            "or a parent queue): Volcano's webhook refuses it, in its words.",
            _V + ": validateJobCreate's and the PodGroup webhook's checkQueueState queue checks"),
    declare(OVER_CAPABILITY, Severity.ERROR, VOLCANO,
            "A Volcano job's minResources (its PodGroup's, as the job controller computes them) exceed its "
            "queue's capability: the enqueue action never admits it.",
            _V + ": the job controller's calcPGMinResources, the proportion plugin's JobEnqueueable "
            "(queue resource quota insufficient)"),
)


def volcano_findings(items: list[Document], pool: "ClusterState | None") -> tuple[dict[str, list[Finding]], bool]:
    """Volcano's rules for the set's Jobs and PodGroups, with the Queues, PriorityClasses and Namespaces of
    the set and the pool; by file. And whether the queues were known (the queue rules could find)."""
    pool_objs = [o for o, _ in (*pool.objects, *pool.other_kinds)] if pool is not None else []
    problems, known = check_volcano(items, pool_objs)
    out: dict[str, list[Finding]] = {}
    for p in problems:
        location = replace(p.doc.location, line=line_of_field(p.doc.node, p.field) or p.doc.location.line)
        out.setdefault(p.doc.location.path, []).append(Finding(p.rule, location, ObjectRef.of(p.doc.obj), p.message,
                                                               details=p.details, field=p.field))
    return out, known
