"""The check state Kueue's ProvisioningRequest controller writes from its request's conditions
(controller.go syncCheckStates, podSetUpdates): Failed → Retry while attempts are left
("Retrying after failure: ..."), else Rejected; Provisioned → Ready with the pod sets'
updates (the request's name and class as pod annotations, the config's node selectors from the
class's details); Accepted with a Provisioned condition → Pending with its message."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Sequence

from kexplain.kueue.apis.admissioncheck import ProvisioningRequestConfig
from kexplain.kueue.apis.constants import CHECK_PENDING, CHECK_READY, CHECK_REJECTED, CHECK_RETRY
from kexplain.kueue.apis.workload import AdmissionCheckState, PodSetUpdate
from kexplain.kueue.controller.admissionchecks.provisioning import Created

CHECK_INACTIVE_MESSAGE = "the check is not active"          # constants.go
NO_REQUEST_NEEDED = "the provisioning request is not needed"
ACCEPTED, PROVISIONED, FAILED, BOOKING_EXPIRED, CAPACITY_REVOKED = (
    "Accepted", "Provisioned", "Failed", "BookingExpired", "CapacityRevoked")
CONSUME_ANNOTATION = "autoscaling.x-k8s.io/consume-provisioning-request"   # autoscaling.x-k8s.io/v1
CLASS_ANNOTATION = "autoscaling.x-k8s.io/provisioning-class-name"

Conditions = Sequence[Mapping[str, Any]]


def _find(conditions: Conditions, ctype: str) -> Mapping[str, Any] | None:
    return next((c for c in conditions if c.get("type") == ctype), None)


def _true(conditions: Conditions, ctype: str) -> bool:
    found = _find(conditions, ctype)
    return found is not None and found.get("status") == "True"


def requeue_after(retry_count: int, base: int, cap: int) -> int:
    """UpdateAdmissionCheckRequeueState's delay: base·2^(n-1) seconds for the n-th requeue, capped
    (the jitter, a ten-thousandth, truncated away)."""
    return min(base * 2 ** retry_count, cap)


def inactive(state: AdmissionCheckState) -> AdmissionCheckState:
    """The check with no ProvisioningRequestConfig: Pending, "the check is not active"."""
    return replace(state, state=CHECK_PENDING, message=CHECK_INACTIVE_MESSAGE)


def not_needed(state: AdmissionCheckState) -> AdmissionCheckState:
    """No pod set uses a managed resource: Ready, with its message, once."""
    if state.state == CHECK_READY:
        return state
    return replace(state, state=CHECK_READY, message=NO_REQUEST_NEEDED, pod_set_updates=())


def synced(state: AdmissionCheckState, created: Created, conditions: Conditions,
           config: ProvisioningRequestConfig, details: Mapping[str, str] | None = None) -> AdmissionCheckState:
    """syncCheckStates for one check from its request's `conditions` (`details`: the request's
    status.provisioningClassDetails)."""
    failed = _find(conditions, FAILED)
    if _true(conditions, FAILED) and failed is not None:
        if created.attempt <= config.backoff_limit_count:
            out = replace(state, message=f"Retrying after failure: {failed.get('message') or ''}")
            retries = state.retry_count or 0
            if created.attempt > retries:
                out = replace(out, state=CHECK_RETRY, requeue_after_seconds=requeue_after(
                    retries, config.backoff_base_seconds, config.backoff_max_seconds))
            return out
        return replace(state, state=CHECK_REJECTED, message=str(failed.get("message") or ""))
    if _true(conditions, PROVISIONED):
        if state.state == CHECK_READY:
            return state
        message = str((_find(conditions, PROVISIONED) or {}).get("message") or "")
        return replace(state, state=CHECK_READY, message=message or state.message,
                       pod_set_updates=pod_set_updates(created, config, details or {}))
    provisioned = _find(conditions, PROVISIONED)
    if _true(conditions, ACCEPTED):
        if provisioned is not None:
            return replace(state, state=CHECK_PENDING, message=str(provisioned.get("message") or "") or state.message)
        return state
    return replace(state, state=CHECK_PENDING)


def pod_set_updates(created: Created, config: ProvisioningRequestConfig, details: Mapping[str, str]
                    ) -> tuple[PodSetUpdate, ...]:
    """podSetUpdates: per pod set of the request, the annotations naming it and its class, and the
    config's node selectors valued from the class's details (a detail missing is skipped)."""
    name = created.name
    cls = str(created.request["spec"].get("provisioningClassName") or "")
    selector = {key: details[detail] for key, detail in config.pod_set_updates if detail in details}
    return tuple(PodSetUpdate(created.pod_sets.get(str(ps["podTemplateRef"]["name"]), ""),
                              {CONSUME_ANNOTATION: name, CLASS_ANNOTATION: cls},
                              node_selector=selector if config.pod_set_updates else {})
                 for ps in created.request["spec"]["podSets"])
