"""The workload controller's PodsReady timeout (workload_controller.go reconcileNotReadyTimeout,
admittedNotReadyWorkload), with `waitForPodsReady` in the Configuration: an admitted Workload whose
PodsReady condition is not True past its timeout (since it was admitted, or since PodsReady went
False with reason WaitForRecovery: the recovery timeout) is evicted (PodsReadyTimeout) and requeued
after a backoff (UpdateRequeueState: base·2^(n-1) seconds for the n-th requeue, capped; Kueue adds
a jitter of up to a ten-thousandth, left out here); past backoffLimitCount it is deactivated instead
(RequeuingLimitExceeded). What a snapshot cannot say (when pods will be ready) is not guessed: a
Workload within its timeout is left alone."""
from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from kexplain.kueue.apis.constants import ADMITTED, EVICTED_BY_ADMISSION_CHECK, EVICTED_BY_PODS_READY_TIMEOUT, REASON_DEACTIVATED
from kexplain.kueue.apis.workload import Condition, RequeueState
from kexplain.kueue.config import WaitForPodsReady
from kexplain.kueue.controller.core.workload_controller import CheckContext, deactivate, evict
from kexplain.kueue.workload import workload as wlmod
from kexplain.kueue.workload.workload import Workload

PODS_READY = "PodsReady"                        # kueue.WorkloadPodsReady
WAIT_FOR_START = "WaitForStart"
WAIT_FOR_RECOVERY = "WaitForRecovery"
TIMEOUT_MESSAGE = "Exceeded the PodsReady timeout {}"
REQUEUING_LIMIT_EXCEEDED = "RequeuingLimitExceeded"
REQUEUING_LIMIT_MESSAGE = "exceeding the maximum number of re-queuing retries"
# Reconcile of an active Workload whose Requeued condition is False, once its backoff is over
REQUEUED_AFTER = {REASON_DEACTIVATED: ("Reactivated", "The workload was reactivated"),
                  EVICTED_BY_PODS_READY_TIMEOUT: ("BackoffFinished", "The workload backoff was finished"),
                  EVICTED_BY_ADMISSION_CHECK: ("BackoffFinished", "The workload backoff was finished")}


def not_ready(wl: Workload, ready: WaitForPodsReady) -> tuple[str, datetime | None]:
    """admittedNotReadyWorkload: the underlying cause ("" when none: not admitted, or PodsReady True)
    and when its timeout ends (None when the condition's time is not known)."""
    if not wlmod.is_admitted(wl) or wl.is_true(PODS_READY):
        return "", None
    cond = wl.find(PODS_READY)
    if cond is None or cond.reason in (WAIT_FOR_START, PODS_READY):
        admitted = wl.find(ADMITTED)
        since = admitted.last_transition if admitted is not None else None
        return WAIT_FOR_START, since + timedelta(seconds=ready.timeout) if since is not None else None
    if cond.reason == WAIT_FOR_RECOVERY and ready.recovery_timeout is not None:
        since = cond.last_transition
        return WAIT_FOR_RECOVERY, since + timedelta(seconds=ready.recovery_timeout) if since is not None else None
    return "", None


def backoff(n: int, base: int, cap: int) -> int:
    """Backoff.WaitTime(n) in seconds: the base for the first, then doubled up to the cap."""
    return base if n <= 1 else min(base * 2 ** (n - 1), cap)


def reconcile_timeout(wl: Workload, ready: WaitForPodsReady, ctx: CheckContext) -> bool:
    """reconcileNotReadyTimeout at `ctx.now`: whether it evicted or deactivated the Workload."""
    if not wl.spec.active or wlmod.is_evicted(wl):
        return False
    cause, due = not_ready(wl, ready)
    if not cause or due is None or due > ctx.now:
        return False
    count = wl.requeue_state.count if wl.requeue_state is not None else 0
    if ready.backoff_limit_count is not None and count + 1 > ready.backoff_limit_count:
        wlmod.set_deactivation_target(wl, REQUEUING_LIMIT_EXCEEDED, REQUEUING_LIMIT_MESSAGE)
        wl.spec = replace(wl.spec, active=False)        # (the next two Reconciles: inactive, then evicted)
        deactivate(wl, ctx)
        return True
    requeue_at = ctx.now + timedelta(seconds=backoff(count + 1, ready.backoff_base_seconds, ready.backoff_max_seconds))
    stored_at = wl.requeue_state.requeue_at if wl.requeue_state is not None else None
    wl.requeue_state = RequeueState(count + 1, requeue_at if stored_at is None or stored_at < requeue_at
                                    else stored_at)
    evict(wl, EVICTED_BY_PODS_READY_TIMEOUT, TIMEOUT_MESSAGE.format(wl.key), cause, ctx)
    return True


def requeue_after_backoff(wl: Workload, now: datetime) -> bool:
    """Reconcile of an active Workload at `now` once its requeueAt is reached (or it has none): a pending
    one's requeueAt cleared, and Requeued=False set True (BackoffFinished after a PodsReady timeout or an
    admission check's eviction, Reactivated after a deactivation). Whether it changed the Workload."""
    state = wl.requeue_state
    if not wl.spec.active or (state is not None and state.requeue_at is not None and state.requeue_at > now):
        return False
    changed = False
    if state is not None and state.requeue_at is not None and not wlmod.has_quota_reservation(wl):
        wl.requeue_state = RequeueState(state.count, None)
        changed = True
    cond = wl.find(wlmod.REQUEUED)
    if cond is not None and cond.status == wlmod.FALSE and cond.reason in REQUEUED_AFTER:
        reason, message = REQUEUED_AFTER[cond.reason]
        changed = wl.set_condition(Condition(wlmod.REQUEUED, wlmod.TRUE, reason, message, now)) or changed
    return changed
