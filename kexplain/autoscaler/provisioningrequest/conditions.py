"""The ProvisioningRequest conditions CA writes (provisioningrequest/conditions/conditions.go,
apis/provisioningrequest/autoscaling.x-k8s.io/v1) and the classes it supports
(supported_classes.go), as values."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

ENABLE_FLAG = "enable-provisioning-requests"     # CA handles ProvisioningRequests only with it (default false)
# condition types (v1/types.go)
ACCEPTED, BOOKING_EXPIRED, CAPACITY_REVOKED, PROVISIONED, FAILED = (
    "Accepted", "BookingExpired", "CapacityRevoked", "Provisioned", "Failed")
# the classes CA implements
CHECK_CAPACITY = "check-capacity.autoscaling.x-k8s.io"
BEST_EFFORT_ATOMIC = "best-effort-atomic-scale-up.autoscaling.x-k8s.io"
# the annotations a consuming pod carries (v1/types.go)
CONSUME_ANNOTATION = "autoscaling.x-k8s.io/consume-provisioning-request"
CLASS_ANNOTATION = "autoscaling.x-k8s.io/provisioning-class-name"
# reasons and messages (conditions.go)
ACCEPTED_REASON = "Accepted"
ACCEPTED_MSG = "ProvisioningRequest is accepted by ClusterAutoscaler"
CAPACITY_IS_NOT_FOUND_REASON = "CapacityIsNotFound"
CAPACITY_IS_FOUND_REASON = "CapacityIsFound"
CAPACITY_IS_FOUND_MSG = "Capacity is found in the cluster"
CAPACITY_IS_PROVISIONED_REASON = "CapacityIsProvisioned"
CAPACITY_IS_PROVISIONED_MSG = "Capacity is found in the cluster"
# written inline by the classes (checkcapacity/provisioningclass.go, besteffortatomic/provisioning_class.go)
NOT_FOUND_RETRY_MSG = "Capacity is not found, CA will try to find it later."
NOT_FOUND_NO_RETRY_MSG = "CA could not find requested capacity"
NO_RETRY_PARAMETER = "noRetry"                      # checkcapacity.NoRetryParameterKey
PROCESSOR_INSTANCE_PARAMETER = "processorInstance"  # CheckCapacityProcessorInstanceKey


@dataclass(frozen=True)
class Condition:
    """One status condition of a ProvisioningRequest."""

    type: str
    status: str         # "True" / "False"
    reason: str
    message: str

    def to_json(self) -> dict[str, str]:
        return {"type": self.type, "status": self.status, "reason": self.reason, "message": self.message}


def add_or_update(conditions: list[Condition], new: Condition) -> list[Condition]:
    """AddOrUpdateCondition: `new` in the place of its type, else appended."""
    if any(c.type == new.type for c in conditions):
        return [new if c.type == new.type else c for c in conditions]
    return [*conditions, new]


def supported_check_capacity(class_name: str, parameters: Mapping[str, Any], instance: str = "") -> bool:
    """SupportedCheckCapacityClass: the check-capacity class, for this CA's processor instance."""
    theirs = str(parameters.get(PROCESSOR_INSTANCE_PARAMETER) or "")
    if not instance:
        return not theirs and class_name == CHECK_CAPACITY
    if theirs:
        return theirs == instance and class_name == CHECK_CAPACITY
    return class_name.startswith(instance) and class_name[len(instance):] == CHECK_CAPACITY


def supported(class_name: str, parameters: Mapping[str, Any], instance: str = "") -> bool:
    """SupportedProvisioningClass: best-effort atomic (only without a processor instance) or check-capacity."""
    if class_name == BEST_EFFORT_ATOMIC:
        return not instance
    return supported_check_capacity(class_name, parameters, instance)
