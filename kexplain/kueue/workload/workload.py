"""A Workload during the pass: its metadata and spec as stored, and the status Kueue changes
(conditions and admission), with Kueue's condition helpers (pkg/workload/workload.go,
admissionchecks.go) and the texts they write."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from datetime import datetime

from kexplain.kueue.apis.constants import (ADMITTED, EVICTED, FINISHED, PREEMPTED, QUOTA_RESERVED, REASON_ADMITTED,
                                           REASON_QUOTA_RESERVED)
from kexplain.kueue.apis.meta import ObjectMeta
from kexplain.kueue.apis.workload import Admission, Condition, WorkloadObject, WorkloadSpec

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

    @classmethod
    def of(cls, obj: WorkloadObject) -> "Workload":
        wl = cls(obj.meta, obj.spec, list(obj.conditions), obj.admission)
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


def has_active_quota_reservation(wl: Workload) -> bool:
    """HasActiveQuotaReservation: what the cache counts."""
    return has_quota_reservation(wl) and not is_finished(wl) and is_active(wl)


def sync_admitted_condition(wl: Workload, now: datetime) -> bool:
    """SyncAdmittedCondition for a Workload without admission checks: Admitted follows the
    quota reservation."""
    reserved = has_quota_reservation(wl)
    if is_admitted(wl) == reserved:
        return False
    if reserved:
        cond = Condition(ADMITTED, TRUE, REASON_ADMITTED, "The workload is admitted", now)
    else:
        cond = Condition(ADMITTED, FALSE, "NoReservation", "The workload has no reservation", now)
    return wl.set_condition(cond)


def set_quota_reservation(wl: Workload, admission: Admission, now: datetime) -> None:
    """SetQuotaReservation (plus, without admission checks, the Admitted condition)."""
    wl.admission = admission
    wl.set_condition(Condition(QUOTA_RESERVED, TRUE, REASON_QUOTA_RESERVED,
                               condition_message(f"Quota reserved in ClusterQueue {admission.cluster_queue}"), now))
    for ctype in (EVICTED, PREEMPTED):
        prev = wl.find(ctype)
        if prev is not None and prev.status == TRUE:
            wl.set_condition(Condition(ctype, FALSE, REASON_QUOTA_RESERVED,
                                       condition_message("Previously: " + prev.message), now))
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
