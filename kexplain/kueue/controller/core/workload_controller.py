"""The workload controller (workload_controller.go, Reconcile): its inadmissible checks, in its
order (a pending Workload meeting one gets QuotaReserved=False, reason Inadmissible), and its
steps for admission checks (`reconcile_checks`)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Callable, Mapping

from kexplain.apimachinery.fielderrors import go_quote
from kexplain.kueue.apis.clusterqueue import ClusterQueue
from kexplain.kueue.apis.constants import (CHECK_REJECTED, CHECK_RETRY, DEACTIVATION_TARGET, EVENT_NORMAL,
                                           EVENT_WARNING, EVICTED, EVICTED_BY_ADMISSION_CHECK, QUOTA_RESERVED,
                                           REASON_ADMITTED, REASON_DEACTIVATED, REASON_INADMISSIBLE)
from kexplain.kueue.apis.localqueue import LocalQueue
from kexplain.kueue.apis.workload import AdmissionCheckState
from kexplain.kueue.versions import KueueVersion
from kexplain.kueue.workload import admissionchecks
from kexplain.kueue.workload import workload as wlmod
from kexplain.kueue.workload.workload import Workload

LQ_MISSING = "LocalQueue {} doesn't exist"
LQ_INACTIVE = "LocalQueue {} is inactive"
CQ_MISSING = "ClusterQueue {} doesn't exist"
CQ_INACTIVE = "ClusterQueue {} is inactive"

# What each check found, as values: (the check, the queue it names)
LOCAL_QUEUE_MISSING, LOCAL_QUEUE_STOPPED, CLUSTER_QUEUE_MISSING, CLUSTER_QUEUE_INACTIVE = (
    "LocalQueueMissing", "LocalQueueStopped", "ClusterQueueMissing", "ClusterQueueInactive")
TEXTS = {LOCAL_QUEUE_MISSING: LQ_MISSING, LOCAL_QUEUE_STOPPED: LQ_INACTIVE,
         CLUSTER_QUEUE_MISSING: CQ_MISSING, CLUSTER_QUEUE_INACTIVE: CQ_INACTIVE}


def inadmissible(wl: Workload, local_queues: Mapping[str, LocalQueue],
                 cluster_queue_for: Callable[[str, str], tuple[str, bool]],
                 cluster_queue_active: Callable[[str], bool]) -> tuple[str, str] | None:
    """The first check a pending Workload fails, as (check, queue name), or None."""
    lq = local_queues.get(f"{wl.meta.namespace}/{wl.spec.queue_name}")
    if lq is None:
        return LOCAL_QUEUE_MISSING, wl.spec.queue_name
    if lq.stopped:
        return LOCAL_QUEUE_STOPPED, wl.spec.queue_name
    cq_name, cq_ok = cluster_queue_for(wl.meta.namespace, wl.spec.queue_name)
    if not cq_ok:
        return CLUSTER_QUEUE_MISSING, cq_name or lq.cluster_queue
    if not cluster_queue_active(cq_name):
        return CLUSTER_QUEUE_INACTIVE, cq_name
    return None


def reconcile(wl: Workload, found: tuple[str, str], now: datetime) -> bool:
    """Write the check's condition; whether it changed the Workload."""
    check, name = found
    return wlmod.unset_quota_reservation(wl, REASON_INADMISSIBLE, TEXTS[check].format(name), now)


# -- admission checks (Reconcile's steps for a Workload of a ClusterQueue with checks) ---------
DEACTIVATED = "The workload is deactivated"
RETRY_EVICTION_0_17 = "At least one admission check is false"
Record = Callable[[str, str, str, str], None]


@dataclass(frozen=True)
class CheckContext:
    """What Reconcile reads besides the Workload: its ClusterQueue (None: not found), the clock,
    the version's texts and where events go."""

    cluster_queue: ClusterQueue | None
    now: datetime
    version: KueueVersion
    record: Record


def reconcile_checks(wl: Workload, ctx: CheckContext) -> bool:
    """One Reconcile of a Workload with admission checks, in the controller's order: deactivation,
    the check states synced to its ClusterQueue's checks, the Admitted condition, then eviction
    for a check in Retry or Rejected. Whether it changed the Workload (Reconcile runs again)."""
    if wl.spec.active and wl.is_true(DEACTIVATION_TARGET):
        wl.spec = replace(wl.spec, active=False)
        return True
    if not wl.spec.active and not wlmod.is_evicted(wl):
        deactivate(wl, ctx)
        return True
    if ctx.cluster_queue is not None:
        states, changed = admissionchecks.synced(wl.admission_checks,
                                                 admissionchecks.for_workload(wl, ctx.cluster_queue), ctx.now)
        if changed:
            wl.admission_checks = states
            return True
    if not wlmod.is_admitted(wl):
        if wlmod.sync_admitted_condition(wl, ctx.now):
            if wlmod.is_admitted(wl) and wl.admission is not None:
                _admitted_event(wl, ctx)
            return True
    if wlmod.has_quota_reservation(wl):
        return _check_based_eviction(wl, ctx)
    return False


def _admitted_event(wl: Workload, ctx: CheckContext) -> None:
    reserved = wl.find(QUOTA_RESERVED)
    since = reserved.last_transition if reserved is not None and reserved.last_transition else ctx.now
    waited = (ctx.now - since).total_seconds()
    ctx.record(wl.key, EVENT_NORMAL, REASON_ADMITTED,
               f"Admitted by ClusterQueue {wl.admission.cluster_queue}, wait time since reservation was {waited:.0f}s")


def _states_message(checks: list[AdmissionCheckState], state: str) -> str:
    """buildAdmissionChecksMessage (v0.18+): each check quoted, with its message."""
    parts = [f"{go_quote(c.name)} ({c.message})" if c.message else go_quote(c.name)
             for c in sorted(checks, key=lambda c: c.name)]
    noun = "AdmissionChecks" if len(checks) > 1 else "AdmissionCheck"
    return f"{noun} in {state} state: {'; '.join(parts)}"


def _check_based_eviction(wl: Workload, ctx: CheckContext) -> bool:
    """reconcileCheckBasedEviction: a Rejected check marks the Workload for deactivation, a Retry
    one evicts it."""
    rejected = wlmod.checks_in_state(wl, CHECK_REJECTED)
    retry = wlmod.checks_in_state(wl, CHECK_RETRY)
    if wlmod.is_evicted(wl) or not (rejected or retry):
        return False
    named = ctx.version.check_states_named
    if rejected:
        message = (_states_message(rejected, CHECK_REJECTED) if named
                   else f"Admission check(s): {','.join(c.name for c in rejected)}, were rejected")
        wlmod.set_deactivation_target(wl, EVICTED_BY_ADMISSION_CHECK, message)
        event = (f"Deactivated due to {message}" if named else
                 f"Deactivating workload because AdmissionCheck for {rejected[0].name} was Rejected: "
                 f"{rejected[0].message}")
        ctx.record(wl.key, EVENT_WARNING, "AdmissionCheckRejected", wlmod.event_message(event))
        return True
    message = f"Evicted due to {_states_message(retry, CHECK_RETRY)}" if named else RETRY_EVICTION_0_17
    evict(wl, EVICTED_BY_ADMISSION_CHECK, message, "", ctx)
    return True


def deactivate(wl: Workload, ctx: CheckContext) -> None:
    """Reconcile of an inactive Workload not evicted yet: evicted as Deactivated, with the cause
    its DeactivationTarget condition gave (which goes)."""
    target = wl.find(DEACTIVATION_TARGET)
    message = f"{DEACTIVATED} due to {target.message}" if target is not None else DEACTIVATED
    cause = target.reason if target is not None else ""
    wl.remove_condition(DEACTIVATION_TARGET)
    evict(wl, REASON_DEACTIVATED, message, cause, ctx)


def evict(wl: Workload, reason: str, message: str, cause: str, ctx: CheckContext) -> None:
    """workload.Evict: the Evicted condition (reason with its cause for a deactivation), the
    checks reset, and the event (for a Workload that had an admission)."""
    condition_reason = wlmod.reason_with_cause(reason, cause) if reason == REASON_DEACTIVATED and cause else reason
    wlmod.prepare_for_eviction(wl, condition_reason, message, ctx.now)
    if wl.admission is None:
        return
    event = wlmod.reason_with_cause(EVICTED, reason)
    if reason == REASON_DEACTIVATED and cause:
        event = wlmod.reason_with_cause(event, cause)
    ctx.record(wl.key, EVENT_NORMAL, event, wlmod.event_message(message))
