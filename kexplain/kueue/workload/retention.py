"""objectRetentionPolicies.workloads (the ObjectRetentionPolicies gate: locked on): what Kueue deletes
of the Workloads it holds at the pass's clock. The workload controller deletes a Workload Finished
longer than `afterFinished` ago (event `Deleted` on it); the job reconciler deletes the job of a
Workload it deactivated (inactive, Evicted with a `DeactivatedDueTo...` reason) longer than
`afterDeactivatedByKueue` ago (event `Deleted` on the job), its Workload going with it."""
from __future__ import annotations

from datetime import datetime, timedelta

from kexplain.kueue.apis.constants import EVICTED, FINISHED, REASON_DEACTIVATED
from kexplain.kueue.config import ObjectRetention
from kexplain.kueue.workload.workload import Workload, reason_with_cause

REASON_DELETED = "Deleted"
FINISHED_DELETED = "Deleted finished workload due to elapsed retention"
JOB_DELETED = "Deleted job: deactivation retention period expired"
Event = tuple[str, str, str, str]       # (object, type, reason, message)


def _elapsed(since: datetime | None, retention: float | None, now: datetime) -> bool:
    return since is not None and retention is not None and now >= since + timedelta(seconds=retention)


def deleted(wl: Workload, retention: ObjectRetention, now: datetime) -> Event | None:
    """The event of Kueue deleting `wl` (or its job) at `now`, None when it keeps it."""
    finished = wl.find(FINISHED)
    if finished is not None and finished.status == "True":
        if _elapsed(finished.last_transition, retention.after_finished, now):
            return wl.key, "Normal", REASON_DELETED, FINISHED_DELETED
        return None
    evicted = wl.find(EVICTED)
    if (not wl.spec.active and evicted is not None and evicted.status == "True" and wl.meta.owner_name
            and evicted.reason.startswith(reason_with_cause(REASON_DEACTIVATED, ""))
            and _elapsed(evicted.last_transition, retention.after_deactivated, now)):
        return f"{wl.meta.namespace}/{wl.meta.owner_name}", "Normal", REASON_DELETED, JOB_DELETED
    return None
