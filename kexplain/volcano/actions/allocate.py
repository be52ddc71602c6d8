"""The allocate action (actions/allocate, jobs without network topology or sub-group policies): queues by
share, jobs by order, each job's pending tasks placed in a statement committed only when the gang is
ready, kept when pipelined, discarded otherwise."""
from __future__ import annotations

from typing import Any, Callable

from kexplain.volcano.api.fit_errors import Code, FitError, FitErrors, Status, pre_predicate_failed
from kexplain.volcano.api.job import JobInfo
from kexplain.volcano.api.node import NodeInfo
from kexplain.volcano.api.queue import QueueInfo
from kexplain.volcano.api.task import TaskInfo
from kexplain.volcano.framework.session import Decision, Session
from kexplain.volcano.framework.statement import PriorityQueue, Statement
from kexplain.volcano.plugins.args import get_bool

MIN_NODES_TO_FIND, MIN_PERCENTAGE, BASELINE_PERCENTAGE = 100, 5, 50
PREDICATE_ERROR_CACHE = "predicateErrorCacheEnable"


def resource_fit(task: TaskInfo, node: NodeInfo) -> FitError | None:
    """The action's own first check: the request within the node's future idle, else the first
    resource short ("Insufficient cpu")."""
    ok, names = task.init_resreq.less_equal_names(node.future_idle())
    if ok:
        return None
    return FitError(task.key, node.name, [Status(Code.UNSCHEDULABLE, "Insufficient " + names[0])])


def num_nodes_to_find(all_nodes: int) -> int:
    """CalculateNumOfFeasibleNodesToFind with the scheduler's defaults (at least 100 nodes, else 50% less
    a point per 125 nodes, at least 5%)."""
    if all_nodes <= MIN_NODES_TO_FIND:
        return all_nodes
    percentage = max(BASELINE_PERCENTAGE - all_nodes // 125, MIN_PERCENTAGE)
    return max(all_nodes * percentage // 100, MIN_NODES_TO_FIND)


def predicate_nodes(ssn: Session, task: TaskInfo, nodes: list[NodeInfo], check: Callable[[TaskInfo, NodeInfo], Any],
                    cache: dict[str, dict[str, FitError]] | None = None) -> tuple[list[NodeInfo], FitErrors]:
    """PredicateHelper.PredicateNodes: from where the last search stopped, until enough feasible nodes
    are found; a node that failed a task of the same job and role before fails again unchecked
    (the predicate error cache, for tasks with a role)."""
    fe = FitErrors()
    out: list[NodeInfo] = []
    if not nodes:
        return out, fe
    group = f"{task.job}/{task.role}"
    use_cache = cache is not None and bool(task.role)
    failed_before = use_cache and group in cache        # type: ignore[operator]
    known = cache.setdefault(group, {}) if cache is not None else {}
    want, start, processed = num_nodes_to_find(len(nodes)), ssn.last_node_index, 0
    for i in range(len(nodes)):
        node = nodes[(start + i) % len(nodes)]
        processed += 1
        if failed_before and node.name in known:
            fe.set_node_error(node.name, known[node.name])
            continue
        err = check(task, node)
        if err is not None:
            known[node.name] = err
            fe.set_node_error(node.name, err)
            continue
        out.append(node)
        if len(out) >= want:
            break
    if cache is not None and not known:
        cache.pop(group, None)
    ssn.last_node_index = (start + processed) % len(nodes)
    return out, fe


def error_cache(ssn: Session, action: str) -> bool:
    """The action's `predicateErrorCacheEnable` (configurations), on by default."""
    return get_bool(ssn.conf.configurations.get(action) or {}, PREDICATE_ERROR_CACHE, True)


def allocate_predicate(ssn: Session) -> Callable[[TaskInfo, NodeInfo], Any]:
    """The action's predicate: the request within the node's future idle, then PredicateForAllocateAction."""
    def check(task: TaskInfo, node: NodeInfo) -> Any:
        err = resource_fit(task, node)
        return err if err is not None else ssn.predicate(task, node)
    return check


def best_node(ssn: Session, task: TaskInfo, nodes: list[NodeInfo]) -> NodeInfo | None:
    """prioritizeNodes' choice: the highest score (Go picks at random among equal ones: kept as candidates)."""
    if not nodes:
        return None
    if len(nodes) == 1:
        ssn.decisions[task.uid] = Decision(nodes[0].name, [nodes[0].name])
        return nodes[0]
    scores = ssn.node_scores(task, nodes)
    top = max(scores.values())
    best = [n for n in nodes if scores[n.name] == top]
    ssn.decisions[task.uid] = Decision(best[0].name, [n.name for n in best], scores)
    return best[0]


def _prioritize(ssn: Session, task: TaskInfo, nodes: list[NodeInfo]) -> NodeInfo | None:
    idle = [n for n in nodes if task.init_resreq.less_equal(n.idle)]
    future = [n for n in nodes if n not in idle and task.init_resreq.less_equal(n.future_idle())]
    for group in (idle, future):
        node = best_node(ssn, task, group)
        if node is not None:
            return node
    return None


def allocate_tasks(ssn: Session, job: JobInfo, tasks: PriorityQueue[TaskInfo]) -> Statement | None:
    """allocateResourcesForTasks."""
    queue = ssn.queues[job.queue]
    stmt = Statement(ssn)
    cache: dict[str, dict[str, FitError]] | None = {} if error_cache(ssn, "allocate") else None
    check = allocate_predicate(ssn)
    while not tasks.empty():
        task = tasks.pop()
        if not ssn.allocatable(queue, task):
            continue
        if task.sch_gated:
            continue
        if job.task_has_fit_errors(task):
            fe = FitErrors(err=f"Task {task.name} with role spec {task.role} has already predicated failed, skip")
            job.nodes_fit_errors[task.uid] = fe
            continue
        err = ssn.pre_predicate(task)
        if err:
            job.nodes_fit_errors[task.uid] = pre_predicate_failed(task.key, (n.name for n in ssn.node_list), err)
            if job.need_continue_allocating():
                continue
            break
        nodes: list[NodeInfo] = []
        nominated = ssn.nodes.get(task.nominated) if task.nominated else None
        if nominated is not None and task.init_resreq.less_equal(nominated.future_idle()):
            nodes, fe = predicate_nodes(ssn, task, [nominated], check, cache)
        if not nodes:
            nodes, fe = predicate_nodes(ssn, task, ssn.node_list, check, cache)
        if not nodes:
            job.nodes_fit_errors[task.uid] = fe
            if job.need_continue_allocating():
                continue
            break
        node = _prioritize(ssn, task, nodes)
        if node is None:
            continue
        if task.init_resreq.less_equal(node.idle):
            stmt.allocate(task, node)
        elif task.init_resreq.less_equal(node.future_idle()):
            stmt.pipeline(task, node, False)
        if ssn.job_ready(job):
            break
    if ssn.job_ready(job) or ssn.job_pipelined(job):
        return stmt
    stmt.discard()
    return None


def _allocatable_jobs(ssn: Session) -> tuple[PriorityQueue[QueueInfo], dict[str, PriorityQueue[JobInfo]],
                                             dict[str, PriorityQueue[TaskInfo]]]:
    """buildAllocateContext."""
    queues: PriorityQueue[QueueInfo] = PriorityQueue(ssn.queue_order_less)
    jobs_by_queue: dict[str, PriorityQueue[JobInfo]] = {}
    tasks_of: dict[str, PriorityQueue[TaskInfo]] = {}
    for job in ssn.jobs.values():
        if job.is_pending():
            if "enqueue" in ssn.enabled_actions:
                continue
            job.pod_group.phase = "Inqueue"
        vr = ssn.job_valid(job)
        if vr is not None and not vr.passed:
            continue
        if job.queue not in ssn.queues:
            continue
        tasks = PriorityQueue(ssn.task_order_less, [t for t in job.pending() if not t.resreq.is_empty()])
        if tasks.empty():
            continue
        if job.queue not in jobs_by_queue:
            jobs_by_queue[job.queue] = PriorityQueue(ssn.job_order_less)
            queues.push(ssn.queues[job.queue])
        jobs_by_queue[job.queue].push(job)
        tasks_of[job.uid] = tasks
    return queues, jobs_by_queue, tasks_of


def execute(ssn: Session) -> None:
    """allocateResources."""
    queues, jobs_by_queue, tasks_of = _allocatable_jobs(ssn)
    while not queues.empty():
        queue = queues.pop()
        if ssn.overused(queue):
            continue
        jobs = jobs_by_queue.get(queue.uid)
        if jobs is None or jobs.empty():
            continue
        job = jobs.pop()
        tasks = tasks_of[job.uid]
        stmt = allocate_tasks(ssn, job, tasks)
        if stmt is not None and ssn.job_ready(job):
            stmt.commit()
            if len(tasks) > 0:
                jobs.push(job)
        queues.push(queue)
