"""The scheduler cache's snapshot (cache/cache.go Snapshot, cache/event_handlers.go) of the one cluster
state: nodes, the tasks of Volcano's pods and the pods of others on nodes, the jobs (PodGroups) whose
queue exists, the queues (`root` and `default` created when absent), the jobs' priorities; and the
kube-scheduler view its predicates and nodeorder read (`K8sView`, kexplain's own NodeInfos)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kexplain.apimachinery import quantity
from kexplain.errors import InputError
from kexplain.model.nodeinfo import Node, NodeInfo as K8sNodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot
from kexplain.volcano.api.disruption import budgets_of
from kexplain.volcano.api.job import JobInfo, PodGroup
from kexplain.volcano.api.namespace import NamespaceInfo, namespace_infos
from kexplain.volcano.api.node import NodeInfo
from kexplain.volcano.api.queue import QueueInfo, default_queue, queue_of
from kexplain.volcano.api.task import TaskInfo, TaskStatus, new_task

SCHEDULER_NAME = "volcano"
DEFAULT_QUEUE = "default"
PODGROUP_KIND, QUEUE_KIND = "PodGroup", "Queue"
VOLCANO_GROUP = "scheduling.volcano.sh"
QUANTITY_PATTERN = r"^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"


def is_volcano_object(obj: dict[str, Any]) -> bool:
    """A PodGroup or Queue of scheduling.volcano.sh (what the API server's admission does not read)."""
    api = str(obj.get("apiVersion") or "")
    return obj.get("kind") in (PODGROUP_KIND, QUEUE_KIND) and api.startswith(VOLCANO_GROUP + "/")


class K8sView:
    """kube-scheduler's NodeInfos (ssn.NodeMap) as kexplain's, kept as the session places and removes pods:
    a snapshot remade after a change, which the predicates' and nodeorder's plugins read."""

    def __init__(self, nodes: list[dict[str, Any]], namespaces: dict[str, dict[str, str]]) -> None:
        self.infos = {(n.get("metadata") or {}).get("name", ""): K8sNodeInfo(Node.from_obj(n)) for n in nodes}
        self.namespaces = namespaces
        self.pods: dict[str, PodInfo] = {}
        self._snapshot: Snapshot | None = None

    def add(self, task: TaskInfo, node: str) -> None:
        info = self.infos.get(node)
        if info is None:
            return
        pod = dict(task.pod)
        pod["spec"] = dict(pod.get("spec") or {}, nodeName=node)
        pi = PodInfo(pod)
        self.pods[task.uid] = pi
        if self._snapshot is None:
            info.add_pod(pi)
            return
        self._snapshot = self._snapshot.with_pod_bound(pi)      # (its indexes patched, not made again)
        self.infos[node] = self._snapshot.get(node)             # type: ignore[assignment]

    def remove(self, task: TaskInfo, node: str) -> None:
        info, pi = self.infos.get(node), self.pods.pop(task.uid, None)
        if info is None or pi is None:
            return
        info.remove_pod(pi)
        self._snapshot = None

    @property
    def snapshot(self) -> Snapshot:
        if self._snapshot is None:
            self._snapshot = Snapshot(list(self.infos.values()), self.namespaces)
        return self._snapshot


@dataclass
class ClusterInfo:
    """What the session opens on, and what the document reports of the inputs."""

    nodes: dict[str, NodeInfo]
    node_list: list[NodeInfo]
    jobs: dict[str, JobInfo]
    queues: dict[str, QueueInfo]
    pod_groups: list[PodGroup]
    tasks: list[TaskInfo]                       # Volcano's pods (with a group), in input order
    k8s: K8sView
    skipped: dict[str, str] = field(default_factory=dict)    # job -> why the snapshot left it out
    namespaces: dict[str, NamespaceInfo] = field(default_factory=dict)    # the ResourceQuotas' statuses
    budgets: list[Any] = field(default_factory=list)                        # the PodDisruptionBudgets


def _pod_group(obj: dict[str, Any]) -> PodGroup:
    meta = obj.get("metadata") or {}
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    mtm = spec.get("minTaskMember") if isinstance(spec.get("minTaskMember"), dict) else {}
    return PodGroup(
        namespace=meta.get("namespace") or "default", name=meta.get("name") or "", obj=obj,
        min_member=spec.get("minMember") if isinstance(spec.get("minMember"), int) else 0,
        queue=spec.get("queue") or DEFAULT_QUEUE,
        min_resources=spec.get("minResources") if isinstance(spec.get("minResources"), dict) else None,
        priority_class=spec.get("priorityClassName") or "",
        min_task_member={k: v for k, v in mtm.items() if isinstance(v, int)},
        phase=status.get("phase") or "Pending",
        conditions=[dict(c) for c in status.get("conditions") or () if isinstance(c, dict)],
        running=status.get("running") or 0, succeeded=status.get("succeeded") or 0, failed=status.get("failed") or 0)


def _priorities(objects: list[dict[str, Any]]) -> tuple[dict[str, int], int]:
    classes, default = {}, 0
    for o in objects:
        if o.get("kind") == "PriorityClass":
            name = (o.get("metadata") or {}).get("name", "")
            value = o.get("value") if isinstance(o.get("value"), int) else 0
            classes[name] = value
            if o.get("globalDefault") is True:
                default = value
    return classes, default


def _responsible(pod: dict[str, Any]) -> bool:
    """The pod informer's filter: Volcano's pods, and the others' bound to a node."""
    spec = pod.get("spec") or {}
    return spec.get("schedulerName") == SCHEDULER_NAME or bool(spec.get("nodeName"))


def check_quantities(obj: dict[str, Any], source: Any = None) -> None:
    """The quantities of a PodGroup or Queue, as their CRDs' schemas refuse them: InputError naming the field."""
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    lists = {"spec.minResources": spec.get("minResources"), "spec.capability": spec.get("capability"),
             "spec.deserved": spec.get("deserved"),
             "spec.guarantee.resource": (spec.get("guarantee") or {}).get("resource")
             if isinstance(spec.get("guarantee"), dict) else None}
    for path, rl in lists.items():
        if rl is None:
            continue
        if not isinstance(rl, dict):
            raise InputError("must be a map of resource names to quantities", source=source, obj=obj, field=path)
        for name, raw in rl.items():
            if not quantity.is_valid(raw):
                raise InputError(f"quantities must match the regular expression "
                                 f"'{QUANTITY_PATTERN}'", source=source, obj=obj, field=f"{path}.{name}")


def build(objects: list[dict[str, Any]], volcano: list[dict[str, Any]]) -> ClusterInfo:
    """The snapshot of admitted core `objects` and Volcano's own `volcano` objects (PodGroups, Queues)."""
    node_objs = [o for o in objects if o.get("kind") == "Node"]
    namespaces = {(o.get("metadata") or {}).get("name", ""): dict((o.get("metadata") or {}).get("labels") or {})
                  for o in objects if o.get("kind") == "Namespace"}
    nodes = {n.name: n for n in (NodeInfo.of(o) for o in node_objs)}
    node_list = list(nodes.values())
    k8s = K8sView(node_objs, namespaces)
    queues = {q.name: q for q in (queue_of(o) for o in volcano if o.get("kind") == QUEUE_KIND)}
    for name in ("root", DEFAULT_QUEUE):
        queues.setdefault(name, default_queue(name))
    groups = [_pod_group(o) for o in volcano if o.get("kind") == PODGROUP_KIND]
    all_jobs: dict[str, JobInfo] = {}
    tasks: list[TaskInfo] = []
    for pod in (o for o in objects if o.get("kind") == "Pod" and _responsible(o)):
        if "phase" not in (pod.get("status") or {}):        # (a dump's bound pod is a read-only view, phased)
            pod.setdefault("status", {}).setdefault("phase", "Pending")
        t = new_task(pod)
        if t.node_name and t.status not in (TaskStatus.SUCCEEDED, TaskStatus.FAILED):
            if t.node_name not in nodes:
                nodes[t.node_name] = NodeInfo(t.node_name, None)
            nodes[t.node_name].add_task(t)
            k8s.add(t, t.node_name)
        if t.job:
            tasks.append(t)
            all_jobs.setdefault(t.job, JobInfo(t.job)).add_task(t)
    classes, default_priority = _priorities(objects)
    jobs: dict[str, JobInfo] = {}
    skipped: dict[str, str] = {}
    for pg in groups:
        uid = f"{pg.namespace}/{pg.name}"
        job = all_jobs.setdefault(uid, JobInfo(uid))
        _set_pod_group(job, pg)
        job.priority = classes.get(pg.priority_class, default_priority)
        if pg.queue not in queues:
            skipped[uid] = f"queue {pg.queue} does not exist"
            continue
        jobs[uid] = job
    ready = {n: ni for n, ni in nodes.items() if ni.ready()}
    return ClusterInfo(ready, [ni for ni in node_list if ni.ready()], jobs, queues, groups, tasks, k8s, skipped,
                       namespace_infos(objects, (f"{g.namespace}/{g.name}" for g in groups if g.phase == "Pending")),
                       budgets_of(objects))


def _set_pod_group(job: JobInfo, pg: PodGroup) -> None:
    """JobInfo.SetPodGroup."""
    job.pod_group = pg
    job.name, job.namespace = pg.name, pg.namespace
    job.min_available = pg.min_member
    job.queue = pg.queue
    job.creation = str((pg.obj.get("metadata") or {}).get("creationTimestamp") or "")
    job.task_min_available = dict(pg.min_task_member)
