"""CA's default pod list processors, in CA's order (ClearTPURequests, FilterOutExpendable,
CurrentlyDrainedNodes, FilterOutSchedulable, FilterOutDaemonSet), with --enable-provisioning-requests
the one its builder adds after them (processors/provreq ProvisioningRequestPodsFilter: a pod that
consumes a ProvisioningRequest triggers no scale-up), and the young pods' filter (TooYoung:
--new-pod-scale-up-delay or the pod-scale-up-delay annotation) after them all."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Sequence

from kexplain.autoscaler.equivalence import spec_key
from kexplain.autoscaler.podutil import controller_ref, is_daemonset_pod
from kexplain.apimachinery.gosort import go_sort
from kexplain.autoscaler.orchestrator import Event
from kexplain.autoscaler.params import Settings
from kexplain.autoscaler.provisioningrequest.conditions import CONSUME_ANNOTATION, ENABLE_FLAG
from kexplain.autoscaler.simulator import ClusterSim
from kexplain.model.pod import PodInfo
from kexplain.config._decode import parse_duration

EXPENDABLE = "FilterOutExpendable"
SCHEDULABLE = "FilterOutSchedulable"
DAEMONSET = "FilterOutDaemonSet"
TOO_YOUNG = "TooYoung"
PROVISIONING_REQUEST = "ProvisioningRequestPodsFilter"
# the annotations naming the request a pod consumes (provreqpods: the deprecated key read second)
CONSUME_ANNOTATIONS = (CONSUME_ANNOTATION, "cluster-autoscaler.kubernetes.io/consume-provisioning-request")
MAX_PROVISIONING_REQUEST_EVENTS = 50        # maxProvReqEvent: the filter's events a loop
SCALE_UP_DELAY_ANNOTATION = "cluster-autoscaler.kubernetes.io/pod-scale-up-delay"
MAX_SIMILAR_PER_CONTROLLER = 10


@dataclass
class Processed:
    """The pods left for the scale-up, in CA's order, and which processor dropped the others."""

    pods: list[PodInfo]
    filtered_by: dict[int, str] = field(default_factory=dict)     # id(pod) -> processor
    placed: dict[int, str] = field(default_factory=dict)          # id(pod) -> the node FilterOutSchedulable put it on
    events: dict[int, list[Event]] = field(default_factory=dict)  # id(pod) -> what the processors record on it


def process(pods: Sequence[PodInfo], created: Sequence[datetime], sim: ClusterSim, settings: Settings,
            now: datetime) -> Processed:
    """Run the processors over the unschedulable `pods` (`created`: each one's creation time)."""
    dropped: dict[int, str] = {}
    placed: dict[int, str] = {}
    cutoff = settings.flag("expendable-pods-priority-cutoff")
    left = []
    for pod in pods:
        if pod.spec.get("priority") is not None and pod.priority < cutoff:
            dropped[id(pod)] = EXPENDABLE
        else:
            left.append(pod)
    left = filter_out_schedulable(left, sim, dropped, placed)
    kept = []
    for pod in left:
        if is_daemonset_pod(pod):
            dropped[id(pod)] = DAEMONSET
        else:
            kept.append(pod)
    events: dict[int, list[Event]] = {}
    if settings.flag(ENABLE_FLAG):
        kept = without_request_pods(kept, dropped, events)
    born = {id(p): t for p, t in zip(pods, created)}
    delay = settings.flag("new-pod-scale-up-delay")
    old = []
    for pod in kept:
        if (now - born[id(pod)]).total_seconds() > _scale_up_delay(pod, delay):
            old.append(pod)
        else:
            dropped[id(pod)] = TOO_YOUNG
    return Processed(old, dropped, placed, events)


def consumed_request(pod: PodInfo) -> str | None:
    """The name of the ProvisioningRequest the pod consumes (provisioningRequestName), if any."""
    annotations = pod.metadata.get("annotations") or {}
    return next((str(annotations[k]) for k in CONSUME_ANNOTATIONS if k in annotations), None)


def without_request_pods(pods: list[PodInfo], dropped: dict[int, str],
                         events: dict[int, list[Event]]) -> list[PodInfo]:
    """ProvisioningRequestPodsFilter.Process: the pods consuming a ProvisioningRequest left out of the
    scale-up, each (the loop's first 50) with CA's Normal event of no reason saying so."""
    out = []
    for pod in pods:
        name = consumed_request(pod)
        if name is None:
            out.append(pod)
            continue
        dropped[id(pod)] = PROVISIONING_REQUEST
        if len(events) < MAX_PROVISIONING_REQUEST_EVENTS:
            events[id(pod)] = [Event(pod.key, "Normal", "", "Unschedulable pod didn't trigger scale-up, because "
                                     f"it's consuming ProvisioningRequest {pod.namespace}/{name}")]
    return out


def _scale_up_delay(pod: PodInfo, delay: float) -> float:
    text = (pod.metadata.get("annotations") or {}).get(SCALE_UP_DELAY_ANNOTATION)
    nanos = parse_duration(text) if isinstance(text, str) else None
    return max(delay, nanos / 1e9) if nanos is not None else delay


def filter_out_schedulable(pods: list[PodInfo], sim: ClusterSim, dropped: dict[int, str],
                           placed: dict[int, str] | None = None) -> list[PodInfo]:
    """The pods that fit no existing node, in the order CA leaves them (sorted by priority,
    highest first, with sort.Slice); those that fit are bound where they fit (`placed`: where)."""
    ordered = list(pods)
    go_sort(ordered, lambda a, b: a.priority > b.priority)
    unschedulable_like: dict[str, list[tuple[dict, str]]] = {}
    out = []
    for pod in ordered:
        ref = controller_ref(pod)
        uid = str(ref.get("uid")) if ref is not None else None
        key = None
        if uid is not None:
            key = spec_key(pod)
            if any(labels == pod.labels and k == key for labels, k in unschedulable_like.get(uid, ())):
                out.append(pod)
                continue
        node = sim.schedule_anywhere(pod)
        if node is not None:
            dropped[id(pod)] = SCHEDULABLE
            if placed is not None:
                placed[id(pod)] = node
            continue
        out.append(pod)
        if uid is not None and not is_daemonset_pod(pod):
            similar = unschedulable_like.setdefault(uid, [])
            if len(similar) < MAX_SIMILAR_PER_CONTROLLER:
                similar.append((pod.labels, key))
    return out
