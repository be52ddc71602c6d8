"""The preempt action (actions/preempt, without topology-aware preemption): each starving job's pending
tasks, queue by queue, evict lower tasks of the same queue (then of the same job) on the best node that
holds them, and are pipelined there; a job's statement committed only when it is pipelined."""
from __future__ import annotations

from typing import Callable

from kexplain.volcano.api.node import NodeInfo
from kexplain.volcano.api.resource import Resource
from kexplain.volcano.api.task import TaskInfo, preemptable_status
from kexplain.volcano.framework.session import Session
from kexplain.volcano.framework.statement import PriorityQueue, Statement
from kexplain.volcano.actions.allocate import error_cache, predicate_nodes

Filter = Callable[[TaskInfo], bool]


def candidate_nodes(ssn: Session, task: TaskInfo, cache: dict | None) -> list[NodeInfo]:
    """FilterOutUnschedulableAndUnresolvableNodesForTask, then PredicateForPreemptAction."""
    job = ssn.jobs.get(task.job)
    fe = job.nodes_fit_errors.get(task.uid) if job is not None else None
    skip = fe.unresolvable_nodes() if fe is not None else set()
    nodes = [n for n in ssn.node_list if n.name not in skip] if skip else ssn.node_list
    return predicate_nodes(ssn, task, nodes, ssn.predicate_for_preempt, cache)[0]


def on_node(ssn: Session, node: NodeInfo, keep: Filter) -> list[TaskInfo]:
    """The session's tasks on `node` the filter keeps (by the status the node holds them in)."""
    out = []
    for held in node.tasks.values():
        task = held.task          # type: ignore[attr-defined]
        job = ssn.jobs.get(task.job)
        if job is not None and task.uid in job.tasks and keep(job.tasks[task.uid]):
            out.append(job.tasks[task.uid])
    return out


def sorted_by_score(ssn: Session, task: TaskInfo, nodes: list[NodeInfo]) -> list[NodeInfo]:
    """util.SortNodes: highest score first (equal scores in node order: Go's map order is random)."""
    if not nodes:
        return []
    scores = ssn.node_scores(task, nodes)
    return sorted(nodes, key=lambda n: -scores[n.name])


def validate(task: TaskInfo, node: NodeInfo, victims: list[TaskInfo]) -> bool:
    """ValidateVictims."""
    idle = node.future_idle()
    for v in victims:
        idle.add(v.resreq)
    return task.init_resreq.less_equal(idle)


def normal_preempt(ssn: Session, stmt: Statement, preemptor: TaskInfo, keep: Filter, nodes: list[NodeInfo]) -> bool:
    queue = ssn.queues[ssn.jobs[preemptor.job].queue]
    for node in sorted_by_score(ssn, preemptor, nodes):
        victims = ssn.preemptable(preemptor, on_node(ssn, node, keep))
        if not validate(preemptor, node, victims):
            continue
        node_stmt = Statement(ssn)
        pq = PriorityQueue(ssn.victim_less(preemptor), victims)
        preempted = Resource()
        while not pq.empty():
            if ssn.allocatable(queue, preemptor) and preemptor.init_resreq.less_equal(node.future_idle()):
                break
            victim = pq.pop()
            node_stmt.evict(victim, "preempt")
            preempted.add(victim.resreq)
        if ssn.allocatable(queue, preemptor) and preemptor.init_resreq.less_equal(node.future_idle()):
            node_stmt.pipeline(preemptor, node, not preempted.is_empty())
            stmt.merge(node_stmt)
            return True
        node_stmt.discard()
    return False


def preempt(ssn: Session, stmt: Statement, preemptor: TaskInfo, keep: Filter, cache: dict | None) -> bool:
    if (preemptor.pod.get("spec") or {}).get("preemptionPolicy") == "Never":
        return False
    if ssn.pre_predicate(preemptor):
        return False
    return normal_preempt(ssn, stmt, preemptor, keep, candidate_nodes(ssn, preemptor, cache))


def _starving(ssn: Session) -> tuple[dict[str, PriorityQueue], dict[str, PriorityQueue], dict[str, list]]:
    preemptors: dict[str, PriorityQueue] = {}
    tasks: dict[str, PriorityQueue] = {}
    under: dict[str, list] = {}
    for job in ssn.jobs.values():
        vr = ssn.job_valid(job) if not job.is_pending() else None
        if job.is_pending() or (vr is not None and not vr.passed) or job.queue not in ssn.queues:
            continue
        if not ssn.job_starving(job):
            continue
        preemptors.setdefault(job.queue, PriorityQueue(ssn.job_order_less)).push(job)
        under.setdefault(job.queue, []).append(job)
        tasks[job.uid] = PriorityQueue(ssn.task_order_less, [t for t in job.pending() if not t.sch_gated])
    return preemptors, tasks, under


def execute(ssn: Session) -> None:
    preemptors, tasks, under = _starving(ssn)
    queues = PriorityQueue(ssn.queue_order_less, [ssn.queues[q] for q in preemptors])
    cache: dict | None = {} if error_cache(ssn, "preempt") else None     # one predicate helper for the action
    while not queues.empty():
        queue = queues.pop()
        jobs = preemptors[queue.uid]
        while not jobs.empty():
            job = jobs.pop()
            stmt, assigned = Statement(ssn), False
            while ssn.job_starving(job) and not tasks[job.uid].empty():
                preemptor = tasks[job.uid].pop()

                def across(t: TaskInfo, p: TaskInfo = preemptor, q: str = job.queue) -> bool:
                    other = ssn.jobs.get(t.job)
                    return (preemptable_status(t.status) and not (p.best_effort and not t.best_effort)
                            and t.preemptable and other is not None and other.queue == q and p.job != t.job)
                assigned = preempt(ssn, stmt, preemptor, across, cache)
            if not ssn.job_pipelined(job):
                stmt.discard()
                continue
            stmt.commit()
            if assigned:
                jobs.push(job)
        for job in under.get(queue.uid, []):
            _within(ssn, job, cache)


def _within(ssn: Session, job, cache: dict | None) -> None:
    """The same job's tasks preempting one another (task priorities)."""
    pending = PriorityQueue(ssn.task_order_less, [t for t in job.pending() if not t.sch_gated])
    while not pending.empty():
        preemptor = pending.pop()

        def same(t: TaskInfo, p: TaskInfo = preemptor) -> bool:
            return (preemptable_status(t.status) and not (p.best_effort and not t.best_effort)
                    and t.preemptable and p.job == t.job)
        stmt = Statement(ssn)
        if not preempt(ssn, stmt, preemptor, same, cache):
            stmt.discard()
            break
        stmt.commit()
