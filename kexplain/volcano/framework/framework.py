"""OpenSession and CloseSession (framework/framework.go, session.go's closeSession, job_updater.go,
cache.go's UpdateJobStatus and RecordJobStatusEvent): the plugins opened tier by tier; on close, the
plugins closed, each PodGroup's status computed and its events and pods' conditions written, and the
queues' allocated."""
from __future__ import annotations

from typing import Any

from kexplain.features.kube_version import KubeVersion
from kexplain.volcano import plugins
from kexplain.volcano.api.fit_errors import ALL_NODE_UNAVAILABLE_MSG
from kexplain.volcano.api.job import JobInfo
from kexplain.volcano.api.resource import Resource
from kexplain.volcano.api.task import TaskStatus, allocated_status, completed_status, scheduled_status
from kexplain.volcano.cache import ClusterInfo
from kexplain.volcano.conf import SchedulerConf
from kexplain.volcano.framework.session import Session


def open_session(cluster: ClusterInfo, conf: SchedulerConf, kube: KubeVersion, now: int | None = None) -> Session:
    """OpenSession: the snapshot's jobs, nodes and queues, every configured plugin opened in its tier's
    order; `now` (ns since the epoch) the clock sla and cdp read, one for the whole session."""
    total = Resource()
    for node in cluster.nodes.values():
        total.add(node.allocatable)
    ssn = Session(conf, cluster.jobs, cluster.nodes, cluster.node_list, cluster.queues, total, cluster.k8s,
                  enabled_actions=frozenset(conf.actions), now=now)
    ssn.kube = kube          # type: ignore[attr-defined]
    ssn.namespace_info, ssn.budgets = cluster.namespaces, cluster.budgets
    for job in ssn.jobs.values():
        pg = job.pod_group
        ssn.old_status[job.uid] = (pg.phase, [dict(c) for c in pg.conditions], (pg.running, pg.succeeded, pg.failed))
    for tier in conf.tiers:
        for opt in tier:
            if not plugins.known(opt.name):
                continue
            plugin = plugins.build(opt.name, opt.arguments)
            ssn.plugins[opt.name] = plugin
            plugin.on_session_open(ssn)
    return ssn


def _phase(job: JobInfo, unschedulable: bool) -> str:
    """getPodGroupPhase."""
    if job.index.get(TaskStatus.RUNNING) and unschedulable:
        return "Unknown"
    scheduled = sum(len(ts) for s, ts in job.index.items() if scheduled_status(s))
    completed = sum(len(ts) for s, ts in job.index.items() if completed_status(s))
    if scheduled >= job.pod_group.min_member:
        return "Completed" if scheduled == completed else "Running"
    return job.pod_group.phase if job.pod_group.phase == "Inqueue" else "Pending"


def _update_job(ssn: Session, job: JobInfo) -> None:
    """JobUpdater.updateJob, UpdateJobStatus and RecordJobStatusEvent."""
    pg = job.pod_group
    unschedulable = any(c.get("type") == "Unschedulable" and c.get("status") == "True"
                        and c.get("transitionID") == ssn.uid for c in pg.conditions)
    pg.phase = _phase(job, unschedulable)
    pg.running = job.count(TaskStatus.RUNNING)
    pg.failed = job.count(TaskStatus.FAILED)
    pg.succeeded = job.count(TaskStatus.SUCCEEDED)
    old_phase, old_conds, old_counts = ssn.old_status[job.uid]
    updated = (old_phase != pg.phase or old_counts != (pg.running, pg.succeeded, pg.failed)
               or _conds(old_conds) != _conds(pg.conditions))
    obj = f"PodGroup {job.uid}"
    fit, _ = job.fit_error()
    if pg.phase in ("Unknown", "Pending", "Inqueue"):
        ssn.record(obj, "Warning", "Unschedulable",
                   f"{job.count(TaskStatus.PENDING)}/{len(job.tasks)} tasks in gang unschedulable: {fit}")
    elif updated:
        ssn.record(obj, "Normal", "Scheduled", "pod group is ready")
    base = fit or ALL_NODE_UNAVAILABLE_MSG
    for status in (TaskStatus.ALLOCATED, TaskStatus.PENDING, TaskStatus.PIPELINED):
        for task in list(job.index.get(status, {}).values()):
            if task.sch_gated:
                continue
            reason, msg, nominated = job.task_scheduling_reason(task)
            _task_unschedulable(ssn, task, reason, msg or base, nominated)


def _conds(conds: list[dict[str, Any]]) -> list[tuple]:
    return [(c.get("type"), c.get("status"), c.get("reason"), c.get("message")) for c in conds]


def _task_unschedulable(ssn: Session, task: Any, reason: str, message: str, nominated: str) -> None:
    """taskUnschedulable: the PodScheduled condition, when it changes, with its FailedScheduling event."""
    status = task.pod.setdefault("status", {})
    conds = status.get("conditions") or []
    old = next((c for c in conds if c.get("type") == "PodScheduled"), None)
    new = {"type": "PodScheduled", "status": "False", "reason": reason, "message": message}
    changed = old is None or any(old.get(k) != v for k, v in new.items())
    nominate = bool(nominated) and status.get("nominatedNodeName") != nominated
    if not (changed or nominate):
        return
    if changed:
        status["conditions"] = [c for c in conds if c.get("type") != "PodScheduled"] + [new]
    if nominate:
        status["nominatedNodeName"] = nominated
    ssn.record(f"Pod {task.namespace}/{task.name}", "Warning", "FailedScheduling", message)


def queue_allocated(ssn: Session) -> dict[str, Resource]:
    """updateQueueStatus: each queue's allocated tasks, added up the parents to root."""
    out = {name: Resource() for name in ssn.queues}
    for job in ssn.jobs.values():
        for s, ts in job.index.items():
            if not allocated_status(s):
                continue
            for t in ts.values():
                out[job.queue].add(t.resreq)
                queue = ssn.queues[job.queue]
                while "root" in ssn.queues:
                    parent = queue.parent or "root"
                    if parent not in ssn.queues:      # (Go dereferences a missing parent and panics)
                        break
                    out[parent].add(t.resreq)
                    if parent == "root":
                        break
                    queue = ssn.queues[queue.parent]
    return out


def close_session(ssn: Session) -> dict[str, Resource]:
    for plugin in ssn.plugins.values():
        plugin.on_session_close(ssn)
    for job in ssn.jobs.values():
        _update_job(ssn, job)
    return queue_allocated(ssn)
