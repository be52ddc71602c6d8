"""The document's queues: per queue its spec (parent, weight, capability, deserved, guarantee), what the
queue plugin (proportion or capacity) computed of it in the session (deserved, real capability,
allocated, request, inqueue, share), its jobs' drf shares, and why a job of it waits on the queue rather
than on nodes: the enqueue refusal in the refusing plugin's words, a task the queue could not take
(allocatable), or the queue overused."""
from __future__ import annotations

import math
from typing import Any

from kexplain.volcano.api.job import JobInfo
from kexplain.volcano.api.queue import QueueInfo
from kexplain.volcano.api.resource import Resource
from kexplain.volcano.api.task import TaskStatus
from kexplain.volcano.cache import ClusterInfo
from kexplain.volcano.framework.session import Session
from kexplain.volcano.plugins.util import format_names

QUEUE_PLUGINS = ("capacity", "proportion")
UNLIMITED = "unlimited"
HUGE = 9.2e18          # math.MaxInt64 as a float and above: what Volcano uses for "no limit"


def resources(res: Resource | None) -> dict[str, str] | None:
    """A Resource as the document writes quantities; a dimension without limit as "unlimited"."""
    if res is None:
        return None
    out = res.as_list()
    values = {"cpu": res.milli_cpu, "memory": res.memory, **(res.scalars or {})}
    for name, v in values.items():
        if math.isinf(v) or v >= HUGE:
            out[name] = UNLIMITED
    return out


def _plugin_attr(ssn: Session, name: str) -> tuple[str, Any]:
    for plugin in QUEUE_PLUGINS:
        attrs = getattr(ssn.plugins.get(plugin), "attrs", None)
        if attrs is not None and name in attrs:
            return plugin, attrs[name]
    return "", None


def _computed(plugin: str, attr: Any, q: QueueInfo, ready: bool) -> dict[str, Any]:
    """What the plugin made of the queue; a capacity whose hierarchy broke computed no real capability
    nor share, and its request and inqueue stop at the job Go met first (Go stops building there)."""
    out: dict[str, Any] = {"plugin": plugin, "deserved": resources(attr.deserved)}
    if ready:
        out.update(realCapability=resources(attr.real_capability), request=resources(attr.request),
                   inqueue=resources(attr.inqueue), share=round(attr.share, 4))
    if q.capability or (plugin == "capacity" and attr.capability is not None and not attr.capability.is_empty()):
        out["capability"] = resources(attr.capability)
    if not attr.guarantee.is_empty():
        out["guarantee"] = resources(attr.guarantee)
    if plugin == "capacity" and getattr(attr, "ancestors", None):
        out["parent"] = attr.ancestors[-1]
    if plugin == "capacity" and ready and attr.deserved.is_empty():
        out["bestEffort"] = True
    return out


def _spec(q: QueueInfo) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, rl in (("capability", q.capability), ("deserved", q.deserved), ("guarantee", q.guarantee)):
        if rl:
            out[key] = resources(Resource.of(rl))
    return out


def _enqueue_reason(ssn: Session, job: JobInfo, plugin: str, queue: QueueInfo) -> str:
    """The refusing plugin's own account where it keeps one (resourcequota: the quota, in plain numbers),
    else its event (Volcano's words), else what its code checks without an event."""
    explained = getattr(ssn.plugins.get(plugin), "explain", None)
    own = explained(job.uid) if explained is not None else None
    if own:
        return own
    said = [e.message for e in ssn.events if e.obj == f"PodGroup {job.uid}" and e.type == "Normal"
            and e.reason == "Unschedulable"]
    if said:
        return said[-1]
    if queue.state != "Open":
        return f"queue {queue.name} is {queue.state}: {plugin} enqueues no job of a queue that is not Open"
    cap = ssn.plugins.get("capacity")
    if plugin == "capacity" and cap is not None and not cap.ready:
        return f"capacity cannot use the queue hierarchy: {cap.error}"
    if plugin == "capacity" and cap is not None and cap.hierarchy and not cap.is_leaf(queue.name):
        return f"queue {queue.name} has child queues: capacity enqueues jobs only in leaf queues"
    return f"{plugin} refused the job's enqueue"


def _allocate_reason(ssn: Session, job: JobInfo, plugin: str, queue: QueueInfo, task_uid: str) -> str:
    """Which queue the task does not fit in, and on which resources (as the queue stands at the end)."""
    task = job.tasks[task_uid]
    if queue.state != "Open":
        return f"queue {queue.name} is {queue.state}: {plugin} allocates no task of a queue that is not Open"
    cap = ssn.plugins.get(plugin)
    if plugin == "capacity" and cap is not None:
        if not cap.ready:
            return f"capacity cannot use the queue hierarchy: {cap.error}"
        if cap.hierarchy and not cap.is_leaf(queue.name):
            return f"queue {queue.name} has child queues: capacity allocates tasks only in leaf queues"
        for name in cap.chain(queue.name):
            attr = cap.attrs[name]
            ok, names = attr.allocated.clone().add(task.resreq).less_equal_with_dimension(attr.real_capability, task.resreq)
            if not ok:
                return format_names(f"task {task.name} does not fit in queue {name}'s real capability "
                                    f"(allocatable)", "insufficient", names)
        return "a task does not fit in the queue's real capability (allocatable)"
    if plugin == "proportion" and cap is not None and queue.name in cap.attrs:
        attr = cap.attrs[queue.name]
        ok, names = attr.allocated.clone().add(task.resreq).less_equal_with_dimension(attr.deserved, task.resreq)
        if not ok:
            return format_names(f"task {task.name} does not fit in queue {queue.name}'s deserved (allocatable)",
                                "insufficient", names)
        return "a task does not fit in the queue's deserved (allocatable)"
    return f"{plugin} refused a task of the job (allocatable)"


def _waiting(ssn: Session, job: JobInfo, queue: QueueInfo) -> dict[str, str] | None:
    refused = ssn.enqueue_refused.get(job.uid)
    if refused and job.is_pending():
        return {"podGroup": job.uid, "plugin": refused, "reason": _enqueue_reason(ssn, job, refused, queue)}
    pending = [uid for uid in job.index.get(TaskStatus.PENDING, {}) if uid in ssn.allocate_refused]
    if pending:
        plugin = ssn.allocate_refused[pending[0]]
        return {"podGroup": job.uid, "plugin": plugin, "reason": _allocate_reason(ssn, job, plugin, queue, pending[0])}
    if queue.name in ssn.overused_queues and job.index.get(TaskStatus.PENDING):
        plugin = _plugin_attr(ssn, queue.name)[0]
        return {"podGroup": job.uid, "plugin": plugin or "overused",
                "reason": f"queue {queue.name} is overused: its allocated reached its deserved, "
                          f"{_skipping(ssn.conf.actions)} it"}
    return None


def _skipping(actions: tuple[str, ...]) -> str:
    """The configured actions that pass an overused queue by (`ssn.Overused`), as words."""
    named = [a for a in actions if a in ("allocate", "reclaim", "gangreclaim")] or ["allocate"]
    if len(named) == 1:
        return f"{named[0]} skips"
    return f"{', '.join(named[:-1])} and {named[-1]} skip"


def _jobs(ssn: Session, queue: QueueInfo) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    drf = getattr(ssn.plugins.get("drf"), "attrs", None)
    jobs, waiting = [], []
    for job in sorted((j for j in ssn.jobs.values() if j.queue == queue.name), key=lambda j: j.uid):
        entry: dict[str, Any] = {"podGroup": job.uid, "phase": job.pod_group.phase}
        if drf is not None and job.uid in drf:
            entry["drfShare"] = round(drf[job.uid].share, 4)
        jobs.append(entry)
        w = _waiting(ssn, job, queue)
        if w is not None:
            waiting.append(w)
    return jobs, waiting


def queues(cluster: ClusterInfo, ssn: Session, allocated: dict[str, Resource]) -> list[dict[str, Any]]:
    """Per queue (by name): the keys the cases compare (name, state, allocated), then kexplain's own."""
    out = []
    for q in sorted(cluster.queues.values(), key=lambda q: q.name):
        entry: dict[str, Any] = {"name": q.name, "state": q.state, "allocated": allocated[q.name].as_list(),
                                 "weight": q.weight}
        if q.parent:
            entry["parent"] = q.parent
        if q.priority:
            entry["priority"] = q.priority
        plugin, attr = _plugin_attr(ssn, q.name)
        ready = getattr(ssn.plugins.get(plugin), "ready", True)
        entry.update(_computed(plugin, attr, q, ready) if attr is not None else _spec(q))
        if q.name in ssn.overused_queues:
            entry["overused"] = True
        jobs, waiting = _jobs(ssn, q)
        if jobs:
            entry["jobs"] = jobs
        if waiting:
            entry["waiting"] = waiting
        out.append(entry)
    return out

