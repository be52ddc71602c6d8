"""The allocate action (actions/allocate, jobs without network topology or sub-group policies): queues by
share, jobs by order, each job's pending tasks placed in a statement committed only when the gang is
ready, kept when pipelined, discarded otherwise."""
from __future__ import annotations

from itertools import compress, islice, repeat
from operator import eq
from typing import Any, Callable

from kexplain.volcano.api.fit_errors import Code, FitError, FitErrors, Status, pre_predicate_failed
from kexplain.volcano.api.job import JobInfo
from kexplain.volcano.api.node import NodeInfo
from kexplain.volcano.api.queue import QueueInfo
from kexplain.volcano.api.task import TaskInfo
from kexplain.volcano.framework.session import Decision, Session
from kexplain.volcano.framework.statement import PriorityQueue, Statement
from kexplain.volcano.plugins.args import get_bool
from kexplain.volcano.plugins.memo import KeptCheck, failing, fitting, memo_of, memoized_check

MIN_NODES_TO_FIND, MIN_PERCENTAGE, BASELINE_PERCENTAGE = 100, 5, 50
SCAN_CHUNK = 256        # nodes whose kept verdicts `_scan_kept` makes current at a time
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
    want, start = num_nodes_to_find(len(nodes)), ssn.last_node_index
    if isinstance(check, KeptCheck) and check.kept.nodes is nodes:
        processed = _scan_kept(task, check, start, want, known if failed_before else None, known, fe, out)
    else:
        processed = _scan(task, nodes, check, start, want, known if failed_before else None, known, fe, out)
    if cache is not None and not known:
        cache.pop(group, None)
    ssn.last_node_index = (start + processed) % len(nodes)
    return out, fe


def _scan(task: TaskInfo, nodes: list[NodeInfo], check: Callable[[TaskInfo, NodeInfo], Any], start: int, want: int,
          before: dict[str, FitError] | None, known: dict[str, FitError], fe: FitErrors, out: list[NodeInfo]) -> int:
    """The search node by node from `start`; how many nodes it went through."""
    processed = 0
    for i in range(len(nodes)):
        node = nodes[(start + i) % len(nodes)]
        processed += 1
        if before is not None and node.name in before:
            fe.set_node_error(node.name, known_error(before, node.name))
            continue
        err = check(task, node)
        if err is not None:
            known[node.name] = err
            fe.set_node_error(node.name, err)
            continue
        out.append(node)
        if len(out) >= want:
            break
    return processed


def _scan_kept(task: TaskInfo, check: KeptCheck, start: int, want: int, before: dict[str, Any] | None,
               known: dict[str, Any], fe: FitErrors, out: list[NodeInfo]) -> int:
    """`_scan` over kept verdicts: a chunk of nodes at a time, its changed nodes checked again, its fits and
    failures picked out in C; the same nodes found, the same errors in the same order. A failure is kept
    in `known` as (task key, statuses), its FitError made when read (`known_error`); `fe` is filled only
    when no node fits (allocate reads a search's errors only then)."""
    nodes = check.kept.nodes
    bad = set(map(check.kept.index.get, before)) if before else None
    if bad:
        bad.discard(None)
    processed = 0
    failed: list[int] = []
    for seg_lo, seg_hi in ((start, len(nodes)), (0, start)):
        for lo in range(seg_lo, seg_hi, SCAN_CHUNK):
            hi = min(lo + SCAN_CHUNK, seg_hi)
            statuses = check.refresh(task, lo, hi)
            ok = fitting(statuses, bad, lo)
            picks = list(islice(compress(range(lo, hi), ok), want - len(out)))
            end = picks[-1] + 1 if len(out) + len(picks) >= want else hi
            for i in failing(ok, lo, end):
                failed.append(i)
                if bad is None or i not in bad:
                    known[nodes[i].name] = (task.key, statuses[i - lo])
            out.extend(map(nodes.__getitem__, picks))
            processed += end - lo
            if len(out) >= want:
                return processed
    if not out:
        for i in failed:
            fe.set_node_error(nodes[i].name, known_error(known, nodes[i].name))
    return processed


def known_error(known: dict[str, Any], node: str) -> FitError:
    """The error cache's FitError of `node` (made once from the (task key, statuses) `_scan_kept` keeps)."""
    err = known[node]
    if isinstance(err, tuple):
        err = known[node] = FitError(err[0], node, list(err[1]))
    return err


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
    best = list(compress(nodes, map(eq, scores.values(), repeat(top))))     # (`scores` in the nodes' order)
    ssn.decisions[task.uid] = Decision(best[0].name, [n.name for n in best], scores)
    return best[0]


def _prioritize(ssn: Session, task: TaskInfo, nodes: list[NodeInfo]) -> NodeInfo | None:
    """The nodes whose idle holds the task scored first, then those whose future idle does."""
    memo = memo_of(ssn)
    if memo is not None:
        fits = memo.fits(task, nodes)
        idle = [n for n, (now, _) in zip(nodes, fits) if now]
        future = [n for n, (now, later) in zip(nodes, fits) if not now and later]
    else:
        idle = [n for n in nodes if task.init_resreq.less_equal(n.idle)]
        taken = set(map(id, idle))
        future = [n for n in nodes if id(n) not in taken and task.init_resreq.less_equal(n.future_idle())]
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
        kept = memoized_check(ssn, task, check)
        nominated = ssn.nodes.get(task.nominated) if task.nominated else None
        if nominated is not None and task.init_resreq.less_equal(nominated.future_idle()):
            nodes, fe = predicate_nodes(ssn, task, [nominated], kept, cache)
        if not nodes:
            nodes, fe = predicate_nodes(ssn, task, ssn.node_list, kept, cache)
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
        tasks = PriorityQueue(ssn.task_order_less, [t for t in job.pending() if not t.resreq.is_empty()],
                              ssn.task_key())
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
