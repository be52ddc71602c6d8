"""A Workload during the pass: its metadata and spec as stored, and the status Kueue changes
(conditions and admission), with Kueue's condition helpers (pkg/workload/workload.go,
admissionchecks.go) and the texts they write."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from datetime import datetime

from kexplain.kueue.apis.constants import (ADMITTED, CHECK_PENDING, CHECK_READY, CHECK_RETRY,
                                           DEACTIVATION_TARGET, EVICTED, FINISHED, PREEMPTED, QUOTA_RESERVED,
                                           REASON_ADMITTED, REASON_QUOTA_RESERVED)
from kexplain.kueue.apis.meta import ObjectMeta
from kexplain.kueue.apis.workload import (Admission, AdmissionCheckState, Condition, RequeueState, WorkloadObject,
                                         WorkloadSpec)

MAX_CONDITION_MESSAGE = 32 * 1024
MAX_EVENT_MESSAGE = 1024
TRUE, FALSE = "True", "False"


def truncate(message: str, limit: int) -> str:
    """api.truncateMessage: cut to `limit` bytes ending in ` ...`."""
    raw = message.encode()
    if len(raw) <= limit:
        return message
    return raw[:limit - 4].decode(errors="ignore") + " ..."


def condition_message(message: str) -> str:
    return truncate(message, MAX_CONDITION_MESSAGE)


def event_message(message: str) -> str:
    return truncate(message, MAX_EVENT_MESSAGE)


@dataclass
class Workload:
    """One Workload: `meta` and `spec` as stored, `conditions` and `admission` as the pass
    leaves them. `admitted_in_input`: it came in holding quota."""

    meta: ObjectMeta
    spec: WorkloadSpec
    conditions: list[Condition] = field(default_factory=list)
    admission: Admission | None = None
    admitted_in_input: bool = False
    admission_checks: list[AdmissionCheckState] = field(default_factory=list)   # status.admissionChecks
    requeue_state: RequeueState | None = None                                   # status.requeueState
    reclaimable_pods: tuple[tuple[str, int], ...] = ()                          # status.reclaimablePods

    @classmethod
    def of(cls, obj: WorkloadObject) -> "Workload":
        wl = cls(obj.meta, obj.spec, list(obj.conditions), obj.admission,
                 admission_checks=list(obj.admission_checks), requeue_state=obj.requeue_state,
                 reclaimable_pods=obj.reclaimable_pods)
        wl.admitted_in_input = has_quota_reservation(wl)
        return wl

    @functools.cached_property
    def key(self) -> str:
        """`NAMESPACE/NAME` (workload.Key; made once: `meta` is frozen and never replaced)."""
        return f"{self.meta.namespace}/{self.meta.name}"

    def find(self, ctype: str) -> Condition | None:
        for c in self.conditions:
            if c.type == ctype:
                return c
        return None

    def is_true(self, ctype: str) -> bool:
        c = self.find(ctype)
        return c is not None and c.status == TRUE

    def set_condition(self, new: Condition) -> bool:
        """apimeta.SetStatusCondition: the transition time moves only when the status does;
        reason and message are replaced. Whether anything changed."""
        for i, old in enumerate(self.conditions):
            if old.type != new.type:
                continue
            updated = old
            if old.status != new.status:
                updated = replace(updated, status=new.status, last_transition=new.last_transition)
            updated = replace(updated, reason=new.reason, message=new.message)
            self.conditions[i] = updated
            return updated != old
        self.conditions.append(new)
        return True

    def remove_condition(self, ctype: str) -> bool:
        """apimeta.RemoveStatusCondition."""
        kept = [c for c in self.conditions if c.type != ctype]
        changed = len(kept) != len(self.conditions)
        self.conditions = kept
        return changed


def has_quota_reservation(wl: Workload) -> bool:
    return wl.is_true(QUOTA_RESERVED)


def is_admitted(wl: Workload) -> bool:
    return wl.is_true(ADMITTED)


def is_evicted(wl: Workload) -> bool:
    return wl.is_true(EVICTED)


def is_finished(wl: Workload) -> bool:
    return wl.is_true(FINISHED)


def is_active(wl: Workload) -> bool:
    return wl.spec.active


def is_admissible(wl: Workload) -> bool:
    """IsAdmissible: a Workload the queues take (not finished, active, holding no quota)."""
    return not is_finished(wl) and is_active(wl) and not has_quota_reservation(wl)


REQUEUED = "Requeued"


def backoff_expired(wl: Workload, now: datetime | None) -> bool:
    """backoffWaitingTimeExpired: not Requeued=False, and its requeueState's requeueAt reached (a
    Workload still in its backoff waits in the inadmissible list)."""
    cond = wl.find(REQUEUED)
    if cond is not None and cond.status == FALSE:
        return False
    at = wl.requeue_state.requeue_at if wl.requeue_state is not None else None
    return at is None or now is None or now >= at


def has_active_quota_reservation(wl: Workload) -> bool:
    """HasActiveQuotaReservation: what the cache counts."""
    return has_quota_reservation(wl) and not is_finished(wl) and is_active(wl)


def has_all_checks_ready(wl: Workload) -> bool:
    return all(c.state == CHECK_READY for c in wl.admission_checks)


def checks_in_state(wl: Workload, state: str) -> list[AdmissionCheckState]:
    """RejectedChecks / RetryChecks: the Workload's checks in `state`, in its order."""
    return [c for c in wl.admission_checks if c.state == state]


# SyncAdmittedCondition's Admitted=False, by (has a reservation, has all checks ready)
_NOT_ADMITTED = {(False, False): ("NoReservationUnsatisfiedChecks",
                                  "The workload has no reservation and not all checks ready"),
                 (False, True): ("NoReservation", "The workload has no reservation"),
                 (True, False): ("UnsatisfiedChecks", "The workload has not all checks ready")}


def sync_admitted_condition(wl: Workload, now: datetime) -> bool:
    """SyncAdmittedCondition: Admitted follows the quota reservation and every admission check
    being Ready (topology requests are never delayed here); whether it changed."""
    reserved, ready = has_quota_reservation(wl), has_all_checks_ready(wl)
    if is_admitted(wl) == (reserved and ready):
        return False
    if reserved and ready:
        return wl.set_condition(Condition(ADMITTED, TRUE, REASON_ADMITTED, "The workload is admitted", now))
    reason, message = _NOT_ADMITTED[(reserved, ready)]
    return wl.set_condition(Condition(ADMITTED, FALSE, reason, message, now))


def set_quota_reservation(wl: Workload, admission: Admission, now: datetime, sync_admitted: bool = True) -> None:
    """SetQuotaReservation, then the Admitted condition when `sync_admitted` (the scheduler's
    prepareWorkload: when the Workload holds every check its admission requires)."""
    wl.admission = admission
    wl.set_condition(Condition(QUOTA_RESERVED, TRUE, REASON_QUOTA_RESERVED,
                               condition_message(f"Quota reserved in ClusterQueue {admission.cluster_queue}"), now))
    for ctype in (EVICTED, PREEMPTED):
        prev = wl.find(ctype)
        if prev is not None and prev.status == TRUE:
            wl.set_condition(Condition(ctype, FALSE, REASON_QUOTA_RESERVED,
                                       condition_message("Previously: " + prev.message), now))
    if sync_admitted:
        sync_admitted_condition(wl, now)


def unset_quota_reservation(wl: Workload, reason: str, message: str, now: datetime) -> bool:
    """UnsetQuotaReservationWithCondition: QuotaReserved=False with `reason` and `message`."""
    changed = wl.set_condition(Condition(QUOTA_RESERVED, FALSE, reason, condition_message(message), now))
    if wl.admission is not None:
        wl.admission = None
        changed = True
    return sync_admitted_condition(wl, now) or changed


def reason_with_cause(reason: str, cause: str) -> str:
    """ReasonWithCause: `EvictedDueToPreempted`."""
    return f"{reason}DueTo{cause}"


def set_preempted(wl: Workload, reason: str, message: str, now: datetime) -> None:
    wl.set_condition(Condition(PREEMPTED, TRUE, reason, condition_message(message), now))


def set_evicted(wl: Workload, reason: str, message: str, now: datetime) -> None:
    wl.set_condition(Condition(EVICTED, TRUE, reason, condition_message(message), now))


def set_deactivation_target(wl: Workload, reason: str, message: str) -> bool:
    return wl.set_condition(Condition(DEACTIVATION_TARGET, TRUE, reason, message))


def reset_checks_on_eviction(wl: Workload, now: datetime) -> None:
    """resetChecksOnEviction: every check back to Pending, saying what it was."""
    for i, check in enumerate(wl.admission_checks):
        if check.state == CHECK_PENDING:
            continue
        retries = (check.retry_count or 0) + 1 if check.state == CHECK_RETRY else None
        wl.admission_checks[i] = AdmissionCheckState(check.name, CHECK_PENDING,
                                                     f"Reset to Pending after eviction. Previously: {check.state}",
                                                     now, check.requeue_after_seconds, retries)


def prepare_for_eviction(wl: Workload, reason: str, message: str, now: datetime) -> None:
    """prepareForEviction: the Evicted condition, the checks reset (nothing else it resets is modelled)."""
    set_evicted(wl, reason, message, now)
    reset_checks_on_eviction(wl, now)
