"""What gangpreempt and gangreclaim share (actions/utils simulate.go and util.go, the actions' Execute):
a starving job takes room for all its pending tasks at once. Victim bundles are added one by one until
the domain's idle and releasing room with them covers the job's need; then the victims are evicted and
every pending task pipelined (a trial, undone unless the whole job ends pipelined) before anything is
kept. kexplain models no hyper-nodes and no sub-group policies: the one domain is the session's virtual
cluster-top hyper-node holding every node, and each job is its one default sub-job (so the sub-job's
ready and pipelined are the job's, and the nomination of a hyper-node it earns has no reader)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from kexplain.volcano.actions.allocate import error_cache, predicate_nodes, resource_fit
from kexplain.volcano.actions.bundles import WHOLE, Bundle, apply_allowed, flatten, sum_resreq
from kexplain.volcano.api.eviction import EvictionContext
from kexplain.volcano.api.job import JobInfo
from kexplain.volcano.api.node import NodeInfo
from kexplain.volcano.api.queue import QueueInfo
from kexplain.volcano.api.resource import Resource
from kexplain.volcano.api.task import TaskInfo
from kexplain.volcano.framework.session import Session
from kexplain.volcano.framework.statement import PriorityQueue, Statement
from kexplain.volcano.plugins.args import get_bool, get_int

CLUSTER_TOP = "<cluster-top-hypernode>"        # framework.ClusterTopHyperNode
MAX_DOMAINS, ALLOW_WHOLE_BUNDLE = "maxDomains", "allowWholeBundle"
DEFAULT_MAX_DOMAINS = 8
PREEMPTABLE_KEY = "volcano.sh/preemptable"
TRUE = ("1", "t", "T", "true", "TRUE", "True")
Select = Callable[[Session, JobInfo, list[TaskInfo], Resource, list[NodeInfo], str], list[Bundle]]


@dataclass(frozen=True)
class GangArgs:
    """The action's arguments (parseArguments): domains scanned, whether whole bundles may go, and
    allocate's predicateErrorCacheEnable for the simulation."""

    max_domains: int = DEFAULT_MAX_DOMAINS
    allow_whole_bundle: bool = True
    error_cache: bool = True


def parse_arguments(ssn: Session, action: str) -> GangArgs:
    """parseArguments: maxDomains (an int; 0 or less falls back to 8) and allowWholeBundle."""
    args = ssn.conf.configurations.get(action) or {}
    domains = get_int(args, MAX_DOMAINS, DEFAULT_MAX_DOMAINS)
    return GangArgs(domains if domains > 0 else DEFAULT_MAX_DOMAINS, get_bool(args, ALLOW_WHOLE_BUNDLE, True),
                    error_cache(ssn, "allocate"))


def pick_domains(gradients: list[list[str | None]], max_domains: int, fallback: str) -> list[str]:
    """PickDomainsFromGradients: the gradients' hyper-nodes in order, once each, at most max_domains."""
    out: list[str] = []
    for row in gradients:
        for name in row:
            if name is None or name in out:
                continue
            out.append(name)
            if 0 < max_domains <= len(out):
                return out
    return out or ([fallback] if fallback else [])


def gang_preemptable(job: JobInfo | None) -> bool:
    """IsJobPreemptableForGangEviction: a PodGroup's volcano.sh/preemptable (annotation, else label) when
    set, read as ParseBool (anything else false); allowed when unset."""
    if job is None or job.pod_group is None:
        return True
    meta = job.pod_group.obj.get("metadata") or {}
    for source in (meta.get("annotations") or {}, meta.get("labels") or {}):
        if PREEMPTABLE_KEY in source:
            return str(source[PREEMPTABLE_KEY]) in TRUE
    return True


def unified_evictable(ssn: Session, ctx: EvictionContext, candidates: list[TaskInfo]) -> list[TaskInfo]:
    """Session.UnifiedEvictable: the plugins' answers intersected within a tier (no switch asked); an
    abstention is skipped, an empty answer ends the tier and the next tier is asked."""
    fns = ssn.fns.get("unifiedEvictable", {})
    victims: list[TaskInfo] | None = None
    for tier in ssn.conf.tiers:
        for opt in tier:
            fn = fns.get(opt.name)
            if fn is None:
                continue
            found, vote = fn(ctx, candidates)
            if vote == 0:
                continue
            if not found:
                victims = None
                break
            uids = {c.uid for c in found}
            victims = list(found) if victims is None else [v for v in victims if v.uid in uids]
        if victims is not None:
            return victims
    return victims or []


def choose_bundles(ssn: Session, ctx: EvictionContext, bundles: list[Bundle], allow_whole: bool,
                   order: Callable[[list[Bundle]], list[Bundle]]) -> list[Bundle]:
    """selectDomainBundles' common end: ordered, narrowed to what the plugins allow (a whole bundle
    all or nothing), ordered again, whole bundles dropped unless allowed."""
    if not bundles:
        return []
    bundles = order(bundles)
    allowed = unified_evictable(ssn, ctx, flatten(bundles))
    if not allowed:
        return []
    valid = apply_allowed(bundles, {t.uid for t in allowed})
    return [b for b in order(valid) if b.type != WHOLE or allow_whole]


def pending_tasks(ssn: Session, job: JobInfo) -> list[TaskInfo]:
    """CollectPendingTasksForGangEviction (one sub-job): the pending tasks that ask for something and
    are not gated, in task order."""
    tasks = [t for t in job.pending() if not t.sch_gated and not t.resreq.is_empty()]
    pq = PriorityQueue(ssn.task_order_less, tasks, ssn.task_key())
    return [pq.pop() for _ in range(len(pq))]


def _schedulable(ssn: Session, task: TaskInfo, domain: list[NodeInfo]) -> list[NodeInfo]:
    """FilterOutUnschedulableAndUnresolvableNodesForTask within the domain (intersectNodesByName: when
    every node is unresolvable the filter is empty and the domain stays whole)."""
    job = ssn.jobs.get(task.job)
    fe = job.nodes_fit_errors.get(task.uid) if job is not None else None
    skip = fe.unresolvable_nodes() if fe is not None else set()
    if not skip:
        return domain
    allow = {n.name for n in ssn.node_list if n.name not in skip}
    return [n for n in domain if n.name in allow] if allow else domain


def _best(ssn: Session, task: TaskInfo, nodes: list[NodeInfo]) -> NodeInfo | None:
    """prioritizeNodesForSimulate: the nodes whose idle holds the task first, then those whose future idle
    does; the highest score among them (Go picks at random among equal ones)."""
    idle = [n for n in nodes if task.init_resreq.less_equal(n.idle)]
    future = [n for n in nodes if not task.init_resreq.less_equal(n.idle)
              and task.init_resreq.less_equal(n.future_idle())]
    for group in (idle, future):
        if len(group) == 1:
            return group[0]
        if group:
            scores = ssn.node_scores(task, group)
            top = max(scores.values())
            return next(n for n in group if scores[n.name] == top)
    return None


def _place(ssn: Session, trial: Statement, queue: QueueInfo | None, task: TaskInfo, domain: list[NodeInfo],
           victims_present: bool, cache: dict | None) -> bool:
    """One task of runSimulateTrialAtHyperNode: pipelined on the best node of the domain it fits."""
    if queue is not None and not ssn.allocatable(queue, task):
        return False
    nodes = _schedulable(ssn, task, domain)
    if not nodes or ssn.pre_predicate(task):
        return False

    def check(t: TaskInfo, n: NodeInfo) -> Any:
        err = resource_fit(t, n)
        return err if err is not None else ssn.predicate_for_preempt(t, n)
    found, _ = predicate_nodes(ssn, task, nodes, check, cache)
    node = _best(ssn, task, found)
    if node is None or not task.init_resreq.less_equal(node.future_idle()):
        return False
    trial.pipeline(task, node, victims_present)
    return True


def simulate(ssn: Session, queue: QueueInfo | None, job: JobInfo, domain: list[NodeInfo], victims: list[TaskInfo],
             reason: str, cache_on: bool) -> Statement | None:
    """BuildNominationPlanInDomain: the victims evicted and every pending task pipelined in the domain;
    the statement (still applied) when the job ends pipelined, else everything undone. Go saves the
    operations, undoes them and replays them on the action's statement: the same as keeping them."""
    tasks = pending_tasks(ssn, job)
    if not domain or not tasks:
        return None
    plan = Statement(ssn)
    for victim in victims:
        plan.evict(victim, reason)
    trial = Statement(ssn)
    cache: dict | None = {} if cache_on else None       # one predicate helper per trial
    placed = all(_place(ssn, trial, queue, t, domain, bool(victims), cache) for t in tasks)
    if not placed or not trial.operations or not (ssn.job_ready(job) or ssn.job_pipelined(job)):
        trial.discard()
        plan.discard()
        return None
    plan.merge(trial)
    if not ssn.job_pipelined(job):
        plan.discard()
        return None
    return plan


def evict_for_job(ssn: Session, stmt: Statement, queue: QueueInfo, job: JobInfo, reason: str, args: GangArgs,
                  select: Select, pending: list[TaskInfo]) -> bool:
    """preemptJobInDomains / reclaimJobInDomains: per domain, bundles added in order until the domain's
    idle and releasing room with them covers the need, then the plan tried with all of them so far."""
    need = Resource()
    for t in pending:
        need.add(t.init_resreq)
    for domain in pick_domains([[CLUSTER_TOP]], args.max_domains, CLUSTER_TOP):
        nodes = ssn.node_list            # RealNodesList of the cluster-top hyper-node
        if not nodes:
            continue
        bundles = select(ssn, job, pending, need, nodes, domain)
        if not bundles:
            continue
        idle = Resource()
        for n in nodes:
            idle.add(n.idle).add(n.releasing)
        chosen: list[TaskInfo] = []
        for bundle in bundles:
            chosen.extend(bundle.tasks)
            if not need.less_equal(idle.clone().add(sum_resreq(chosen))):
                continue
            plan = simulate(ssn, queue, job, nodes, list(chosen), reason, args.error_cache)
            if plan is not None:
                stmt.merge(plan)
                return True
    return False


def settle(stmt: Statement, ssn: Session, job: JobInfo) -> None:
    """Committed only when the job ends pipelined (the legacy actions' rule)."""
    if ssn.job_pipelined(job):
        stmt.commit()
    else:
        stmt.discard()
