"""Volcano's TaskInfo (api/job_info.go NewTaskInfo, api/pod_info.go): one pod as the scheduler holds it."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntFlag
from typing import Any

from kexplain.volcano.api.resource import PODS, Resource

GROUP_NAME_ANNOTATION = "scheduling.k8s.io/group-name"
TASK_SPEC_KEY = "volcano.sh/task-spec"
TASK_PRIORITY_ANNOTATION = "volcano.sh/task-priority"
PREEMPTABLE_KEY = "volcano.sh/preemptable"


class TaskStatus(IntFlag):
    """api.TaskStatus, its bit values in Go's order."""

    PENDING = 1 << 0
    ALLOCATED = 1 << 1
    PIPELINED = 1 << 2
    BINDING = 1 << 3
    BOUND = 1 << 4
    RUNNING = 1 << 5
    RELEASING = 1 << 6
    SUCCEEDED = 1 << 7
    FAILED = 1 << 8
    UNKNOWN = 1 << 9

    def __str__(self) -> str:
        return {1: "Pending", 2: "Allocated", 4: "Pipelined", 8: "Binding", 16: "Bound", 32: "Running",
                64: "Releasing", 128: "Succeeded", 256: "Failed"}.get(int(self), "Unknown")


ALLOCATED_STATUSES = (TaskStatus.BOUND, TaskStatus.BINDING, TaskStatus.RUNNING, TaskStatus.ALLOCATED)


def allocated_status(s: TaskStatus) -> bool:
    return s in ALLOCATED_STATUSES


def scheduled_status(s: TaskStatus) -> bool:
    return s in (TaskStatus.RUNNING, TaskStatus.BOUND, TaskStatus.FAILED, TaskStatus.SUCCEEDED)


def completed_status(s: TaskStatus) -> bool:
    return s in (TaskStatus.FAILED, TaskStatus.SUCCEEDED)


def task_status(pod: dict[str, Any]) -> TaskStatus:
    """getTaskStatus."""
    phase = (pod.get("status") or {}).get("phase")
    deleting = bool((pod.get("metadata") or {}).get("deletionTimestamp"))
    if phase == "Running":
        return TaskStatus.RELEASING if deleting else TaskStatus.RUNNING
    if phase == "Pending":
        if deleting:
            return TaskStatus.RELEASING
        return TaskStatus.BOUND if (pod.get("spec") or {}).get("nodeName") else TaskStatus.PENDING
    return {"Succeeded": TaskStatus.SUCCEEDED, "Failed": TaskStatus.FAILED}.get(phase or "", TaskStatus.UNKNOWN)


def pod_request(pod: dict[str, Any]) -> Resource:
    """GetPodResourceRequest: containers summed, the init containers' maximum (sidecars added), one pod,
    the overhead."""
    spec = pod.get("spec") or {}
    result = Resource()
    for c in spec.get("containers") or ():
        result.add(Resource.of((c.get("resources") or {}).get("requests")))
    restartable, init = Resource(), Resource()
    for c in spec.get("initContainers") or ():
        req = Resource.of((c.get("resources") or {}).get("requests"))
        if c.get("restartPolicy") == "Always":
            result.add(req)
            restartable.add(req)
            req = restartable
        else:
            req = req.clone().add(restartable)
        init.set_max(req)
    result.set_max(init)
    result.add_scalar(PODS, 1)
    if result.scalars is None:
        result.scalars = {}
    if spec.get("overhead"):
        result.add(Resource.of(spec["overhead"]))
    return result


@dataclass
class TxContext:
    """TransactionContext: where and in which status a task was."""

    node_name: str
    status: TaskStatus
    eviction_occurred: bool = False


@dataclass(eq=False)
class TaskInfo:
    uid: str
    job: str                     # "ns/podgroup" or ""
    name: str
    namespace: str
    role: str
    priority: int
    pod: dict[str, Any]
    resreq: Resource
    init_resreq: Resource
    best_effort: bool
    node_name: str
    status: TaskStatus
    sch_gated: bool
    creation: str
    last_tx: TxContext | None = None
    eviction_occurred: bool = False
    nominated: str = field(default="")
    preemptable: bool = True
    k8s_pod: Any = field(default=None, repr=False)     # kube-scheduler's PodInfo of the pod, made once

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def tx_context(self) -> TxContext:
        return TxContext(self.node_name, self.status, self.eviction_occurred)

    def generate_last_tx(self) -> None:
        self.last_tx = self.tx_context()

    def clear_last_tx(self) -> None:
        self.last_tx = None


def new_task(pod: dict[str, Any]) -> TaskInfo:
    """NewTaskInfo."""
    meta = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    ann = meta.get("annotations") or {}
    labels = meta.get("labels") or {}
    group = ann.get(GROUP_NAME_ANNOTATION) or ""
    req = pod_request(pod)
    priority = spec.get("priority") if isinstance(spec.get("priority"), int) else 1
    tp = ann.get(TASK_PRIORITY_ANNOTATION)
    if tp is not None:
        try:
            priority = int(tp)
        except ValueError:
            pass
    ns = meta.get("namespace") or "default"
    return TaskInfo(
        uid=meta.get("uid") or f"{ns}/{meta.get('name', '')}", job=f"{ns}/{group}" if group else "",
        name=meta.get("name") or "", namespace=ns, role=ann.get(TASK_SPEC_KEY) or labels.get(TASK_SPEC_KEY) or "",
        priority=priority, pod=pod, resreq=req, init_resreq=req.clone(), best_effort=req.is_empty(),
        node_name=spec.get("nodeName") or "", status=task_status(pod), sch_gated=bool(spec.get("schedulingGates")),
        creation=str(meta.get("creationTimestamp") or ""),
        nominated=(pod.get("status") or {}).get("nominatedNodeName") or "", preemptable=_preemptable(ann, labels))


def _preemptable(annotations: dict[str, str], labels: dict[str, str]) -> bool:
    """GetPodPreemptable: the annotation, else the label, read as strconv.ParseBool; true when neither."""
    for source in (annotations, labels):
        if PREEMPTABLE_KEY in source:
            return str(source[PREEMPTABLE_KEY]) in ("1", "t", "T", "true", "TRUE", "True")
    return True


def preemptable_status(s: TaskStatus) -> bool:
    return s in (TaskStatus.BOUND, TaskStatus.RUNNING)
