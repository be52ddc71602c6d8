"""The events the scheduler and provisioner record (provisioning/scheduling/events.go)."""
from __future__ import annotations

from dataclasses import dataclass

NOMINATED = "Nominated"
FAILED_SCHEDULING = "FailedScheduling"
NO_COMPATIBLE_INSTANCE_TYPES = "NoCompatibleInstanceTypes"
NORMAL = "Normal"
WARNING = "Warning"
NO_COMPATIBLE_MESSAGE = "NodePool requirements filtered out all compatible available instance types"
NO_COMPATIBLE_MIN_VALUES_MESSAGE = ("NodePool requirements filtered out all compatible available instance types due "
                                    "to minValues incompatibility")


@dataclass(frozen=True)
class Event:
    """One recorded event; `pod` is the pod's `namespace/name` for an event on a pod."""

    object: str
    type: str
    reason: str
    message: str
    pod: str = ""

    def to_json(self) -> dict[str, str]:
        return {"object": self.object, "type": self.type, "reason": self.reason, "message": self.message}


def nominate_pod_event(pod_key: str, node_name: str | None, node_claim_name: str | None) -> Event:
    """NominatePodEvent: `Pod should schedule on: nodeclaim/NAME, node/NAME` (each when there is one)."""
    info = []
    if node_claim_name is not None:
        info.append(f"nodeclaim/{node_claim_name}")
    if node_name is not None:
        info.append(f"node/{node_name}")
    return Event(f"Pod {pod_key}", NORMAL, NOMINATED, f"Pod should schedule on: {', '.join(info)}", pod_key)


def no_compatible_instance_types(node_pool: str, min_values_incompatible: bool) -> Event:
    """NoCompatibleInstanceTypes on a NodePool whose requirements leave no instance type."""
    message = NO_COMPATIBLE_MIN_VALUES_MESSAGE if min_values_incompatible else NO_COMPATIBLE_MESSAGE
    return Event(f"NodePool {node_pool}", WARNING, NO_COMPATIBLE_INSTANCE_TYPES, message)


def pod_failed_to_schedule_event(pod_key: str, err: object) -> Event:
    """PodFailedToScheduleEvent: `Failed to schedule pod, ERROR`."""
    return Event(f"Pod {pod_key}", WARNING, FAILED_SCHEDULING, f"Failed to schedule pod, {err}", pod_key)
