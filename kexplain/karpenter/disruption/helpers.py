"""The disruption helpers (controllers/disruption/helpers.go) over one pass's `Context`:
SimulateScheduling (the provisioning scheduler over the other nodes, the pending pods and the
candidates' pods), GetCandidates, BuildNodePoolMap, BuildDisruptionBudgetMapping, and the
provisioner's NewScheduler and GetPendingPods they call."""
from __future__ import annotations

import operator
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Callable, Mapping, Sequence

from kexplain.apimachinery.identity import as_dict
from kexplain.controllers.disruption import (KIND as PDB_KIND, NamespacePods, Statuses, computed, controllers_of,
                                             needs_status, pods_by_namespace, with_status)
from kexplain.karpenter.disruption import budgets as bud
from kexplain.karpenter.disruption import events as ev
from kexplain.karpenter.disruption.candidate import (EVENTUAL, GRACEFUL, NODEPOOL_LABEL, Candidate, CandidateError,
                                                    new_candidate, validate_pods)
from kexplain.karpenter.disruption.pods import Limits, PodTraits, under_consolidate_after
from kexplain.karpenter.disruption.versions import DisruptionRules
from kexplain.karpenter.errors import GoError, WrappedError, multierr_errors
from kexplain.karpenter.provisioning.provisioner import (DoesNotExistError, _is_managed_pool, daemonset_pods, not_provisionable_reason,
                                                         order_by_weight, truncate_instance_types, validate)
from kexplain.karpenter.provisioning.scheduling.existingnode import NodeBases
from kexplain.karpenter.provisioning.scheduling.scheduler import Options, Placeholders, Results, Scheduler
from kexplain.karpenter.provisioning.scheduling.topology import new_topology
from kexplain.karpenter.provisioning.scheduling.volumetopology import VolumeTopology
from kexplain.karpenter.utils.objects import name_of
from kexplain.model.pod import PodInfo

NODE_POOLS_NOT_FOUND = "no nodepools found"
_BY_KEY = operator.attrgetter("namespace", "name")      # a node's pods' order (150,000 pods: no lambda)
WORKLOAD_KINDS = ("Deployment", "ReplicaSet", "StatefulSet", "ReplicationController")     # the finders' kinds


def budget_statuses(inputs: Any, budgets: Sequence[Any]) -> Statuses:
    """The status the disruption controller writes within seconds for each budget of `budgets` that
    the input gives without one (a manifest's), of every pod of the input and its workload controllers
    (`controllers.disruption.statuses_of`, the rule preemption and `evict drain` read): read as written,
    a budget would allow no eviction and keep every node holding its pods. Each namespace's pods are
    its bound pods then its pending ones (`statuses_of`'s order), the bound pods' version the one other
    readers of the same pods made (`_namespaces`)."""
    todo = [b for b in budgets if needs_status(b)]
    if not todo:
        return {}
    controllers = controllers_of(o for kind in WORKLOAD_KINDS for o in inputs.objects.get(kind, ())
                                 if isinstance(o, Mapping))
    by_namespace = _namespaces(inputs.bound_pods, inputs.pending)
    out: Statuses = {}
    for pdb in todo:
        namespace = as_dict(pdb.get("metadata")).get("namespace") or "default"
        out[id(pdb)] = (pdb, computed(pdb, by_namespace.get(namespace, ()), controllers))
    return out


def _namespaces(bound: list[PodInfo], pending: list[PodInfo]) -> dict[str, NamespacePods]:
    """`pods_by_namespace` of the bound pods then the pending ones, the bound pods' alone first: a cluster
    state's other readers (its notes, CA, the drains) listed them, and their version of a namespace, its
    label index and budgets' selections, is shared (`NamespacePods`); a namespace with pending pods is
    that version with them added (`with_added`: only they are read), not a version of its own (150,000
    bound pods' selections made again for a few hundred pending ones, which the pass's own copies)."""
    by_namespace = pods_by_namespace(bound)
    if not pending:
        return by_namespace
    added: dict[str, list[PodInfo]] = {}
    for pod in pending:
        added.setdefault(pod.namespace, []).append(pod)
    for namespace, pods in added.items():
        found = by_namespace.get(namespace)
        by_namespace[namespace] = found.with_added(pods) if found is not None else NamespacePods(pods)
    return by_namespace


class SimulationError(Exception):
    """An error SimulateScheduling returns (Go's wrapped error text)."""


class CandidateDeleting(Exception):
    """errCandidateDeleting: a candidate was marked for deletion meanwhile."""


@dataclass
class Context:
    """One disruption pass: the inputs read once, the cluster state, the cloud provider, the clock,
    the PodDisruptionBudgets, each node's pods, the recorder."""

    inputs: Any
    cloud: Any
    cluster: Any
    now: datetime
    rules: DisruptionRules
    recorder: ev.Recorder = field(default_factory=ev.Recorder)
    pdbs: Limits = field(init=False)
    pods_by_node: dict[str, list[PodInfo]] = field(init=False)
    pending: list[PodInfo] = field(init=False)
    node_pools: dict[str, Any] = field(init=False)
    instance_types: dict[str, dict[str, Any]] = field(init=False)
    # NewCandidate's answer per state node and disruption class, with the events it published: the
    # methods' GetCandidates and the per-node verdicts ask it of the same unchanged state
    candidates: dict[tuple[int, str], tuple[Any, Candidate | CandidateError, list[ev.Event]]] = \
        field(init=False, default_factory=dict)
    # what each state node alone decides of the scheduler's existing node, made once: every
    # simulation schedules over the same state nodes less its candidates (the cluster state's:
    # `shared_node_bases`)
    node_bases: NodeBases = field(init=False, default_factory=NodeBases)
    # the hostnames of the NodeClaims every scheduler of the pass makes, numbered on as Go's
    # package-level counter numbers them (step 2's Schedule, then each simulation in turn)
    placeholders: Placeholders = field(init=False, default_factory=Placeholders)
    pod_checks: dict[int, tuple[Any, str | None, list[ev.Event]]] = field(init=False, default_factory=dict)
    _traits_on: dict[int, tuple[Any, list[PodTraits]]] = field(init=False, default_factory=dict)
    _deleting: list[Any] | None = field(init=False, default=None)
    _named: list[tuple[Any, str]] | None = field(init=False, default=None)
    _node_counts: tuple[dict[str, int], dict[str, int]] | None = field(init=False, default=None)
    candidates_made: list[Candidate] = field(default_factory=list)     # GetCandidates' before its filter
    # the disruption controller's status of each PodDisruptionBudget written without one (by its
    # identity), which pdb.Limits reads as Karpenter reads the status in a cluster (`budget_statuses`)
    budget_statuses: Statuses = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        budgets = list(self.inputs.objects.get(PDB_KIND, ()))
        self.budget_statuses = budget_statuses(self.inputs, budgets)
        self.pdbs = Limits(with_status(budgets, (), self.budget_statuses))
        self.pods_by_node = {}
        for pod in self.inputs.bound_pods:
            self.pods_by_node.setdefault(pod.node_name, []).append(pod)
        for pods in self.pods_by_node.values():
            pods.sort(key=_BY_KEY)
        self.pending = pending_pods(self.inputs, self.cloud, self.cluster)
        self.node_pools, self.instance_types = build_node_pool_map(self.inputs, self.cloud)
        if hasattr(self.cluster, "node_bases"):
            self.node_bases = shared_node_bases(self.cluster)

    def pods_on(self, state: Any) -> list[PodInfo]:
        """StateNode.Pods: the pods bound to its Node (none without a Node)."""
        return self.pods_by_node.get(name_of(state.node), []) if state.node is not None else []

    def candidate(self, state: Any, disruption_class: str, recorder: ev.Recorder) -> Candidate:
        """NewCandidate for `state` (raises CandidateError), made once per pass and class: a
        later ask replays the events the first one published into `recorder`."""
        hit = self.candidates.get((id(state), disruption_class))
        if hit is None or hit[0] is not state:
            hit = self._as_in_other_class(state, disruption_class)
        if hit is None:
            capture = ev.Capture()
            try:
                answer: Candidate | CandidateError = new_candidate(
                    state, self.pods_on(state), self.pdbs, self.node_pools, self.instance_types, self.now, capture,
                    disruption_class, lambda: self._pods_check(state), lambda: self.traits_on(state))
            except CandidateError as err:
                answer = err
            hit = self.candidates[(id(state), disruption_class)] = (state, answer, capture.events)
        recorder.publish(*hit[2])
        if isinstance(hit[1], CandidateError):
            raise hit[1]
        return hit[1]

    def _as_in_other_class(self, state: Any, disruption_class: str
                           ) -> tuple[Any, Candidate | CandidateError, list[ev.Event]] | None:
        """NewCandidate's answer for `state` in `disruption_class`, made of the other class's answer
        (kept as this class's) where the class cannot change it: it decides only what becomes of the
        pods check's refusal, so a node refused before that check, or whose pods pass it, is answered
        alike (and publishes the same events). None: to be worked out."""
        other = self.candidates.get((id(state), EVENTUAL if disruption_class == GRACEFUL else GRACEFUL))
        if other is None or other[0] is not state:
            return None
        answer = other[1]
        if isinstance(answer, CandidateError):
            if answer.pod_block:            # (the eventual class may take the node anyway)
                return None
            made: Candidate | CandidateError = CandidateError(answer.text)
        else:
            check = self.pod_checks.get(id(state))
            if check is None or check[0] is not state or check[1] is not None:
                return None
            made = replace(answer, reschedulable_pods=list(answer.reschedulable_pods))
        hit = self.candidates[(id(state), disruption_class)] = (state, made, other[2])
        return hit

    def _pods_check(self, state: Any) -> tuple[str | None, list[ev.Event]]:
        """ValidatePodsDisruptable of the node's pods, with its events: the same in both disruption
        classes (only what NewCandidate does with a refusal differs)."""
        hit = self.pod_checks.get(id(state))
        if hit is None or hit[0] is not state:
            capture = ev.Capture()
            err = validate_pods(self.pods_on(state), self.pdbs, self.now, capture, self.traits_on(state))
            hit = self.pod_checks[id(state)] = (state, err, capture.events)
        return hit[1], hit[2]

    def traits_on(self, state: Any) -> list[PodTraits]:
        """The `PodTraits` of the node's pods (`pods_on`), in their order, read once per node."""
        hit = self._traits_on.get(id(state))
        if hit is None or hit[0] is not state:
            hit = self._traits_on[id(state)] = (state, [self.pdbs.traits(p) for p in self.pods_on(state)])
        return hit[1]

    def reschedulable_on(self, state: Any) -> int:
        """How many of the node's pods are reschedulable: off their traits where read already, else
        off the cluster state's count (`StateNode.reschedulable_pods`, counted as it read the bound pods),
        else off what IsReschedulable reads alone (`Limits.reschedulable`): a node refused before its pods
        are read, most of a cluster, has its 30 pods' budgets and costs read for nothing."""
        hit = self._traits_on.get(id(state))
        if hit is not None and hit[0] is state:
            return sum(1 for t in hit[1] if t.reschedulable)
        counted = getattr(state, "reschedulable_pods", None)
        if counted is not None and state.node is not None:      # (the cluster state's count, read with its pods)
            return counted
        return sum(map(self.pdbs.reschedulable, self.pods_on(state)))

    def named_nodes(self) -> list[tuple[Any, str]]:
        """The state nodes with their names, in the cluster's order."""
        if self._named is None:
            self._named = [(n, n.name()) for n in self.cluster.nodes]
        return self._named

    def deleting(self) -> list[Any]:
        """The state nodes marked for deletion (StateNodes.Deleting), in the cluster's order."""
        if self._deleting is None:
            self._deleting = [n for n in self.cluster.nodes if n.marked_for_deletion()]
        return self._deleting

    def gate(self, name: str) -> bool:
        return bool(getattr(self.inputs.settings.feature_gates, name))


def shared_node_bases(cluster: Any) -> NodeBases:
    """The `NodeBases` of the cluster state's nodes (`Cluster.node_bases`), made at the first ask: a
    node's base and start depend on the state node alone (and the DaemonSet pods, by key), so every
    scheduler over the same state nodes shares them."""
    if cluster.node_bases is None:
        cluster.node_bases = NodeBases()
    return cluster.node_bases


def pending_pods(inputs: Any, cloud: Any, cluster: Any) -> list[PodInfo]:
    """Provisioner.GetPendingPods: the provisionable pods that pass Validate."""
    topology = VolumeTopology(cluster.volume_index)
    return [p for p in inputs.pending if not_provisionable_reason(p) is None and validate(p, cloud, topology) is None]


def publish_ignored(ctx: Context, recorder: ev.Recorder) -> None:
    """GetPendingPods' FailedScheduling events for the provisionable pods Validate refuses (none
    for a pod asking not to run on Karpenter's nodes)."""
    topology = VolumeTopology(ctx.cluster.volume_index)
    for p in ctx.inputs.pending:
        if not_provisionable_reason(p) is not None:
            continue
        err = validate(p, ctx.cloud, topology)
        if err is not None and not any(isinstance(e, DoesNotExistError) for e in multierr_errors(err)):
            recorder.publish(ev.Event(f"Pod {p.key}", ev.WARNING, "FailedScheduling", f"Failed to schedule pod, {err}",
                                      (p.uid,)))


def build_node_pool_map(inputs: Any, cloud: Any) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """BuildNodePoolMap: the managed NodePools by name, and the instance types of those whose
    types resolve (by NodePool, then by type name)."""
    pools: dict[str, Any] = {}
    types: dict[str, dict[str, Any]] = {}
    for np in inputs.node_pools:
        if not np.is_managed():
            continue
        pools[np.name] = np
        its, err = cloud.get_instance_types(np.obj)
        if err is not None or not its:
            continue
        types[np.name] = {it.name: it for it in its}
    return pools, types


def get_candidates(ctx: Context, should_disrupt: Callable[[Candidate], bool], disruption_class: str
                   ) -> list[Candidate]:
    """GetCandidates: every state node through NewCandidate, then the method's filter."""
    out = []
    for state in ctx.cluster.nodes:
        try:
            c = ctx.candidate(state, disruption_class, ctx.recorder)
        except CandidateError:
            continue
        out.append(c)
    ctx.candidates_made = out
    return [c for c in out if should_disrupt(c)]


@dataclass(frozen=True)
class PoolBudget:
    """One NodePool's budget for a reason: its nodes, those disrupting, what its budgets allow."""

    node_pool: str
    nodes: int
    disrupting: int
    allowed: int              # MustGetAllowedDisruptions
    remaining: int            # what the method is given: allowed less disrupting, at least 0


def node_counts(ctx: Context) -> tuple[dict[str, int], dict[str, int]]:
    """The managed, initialized nodes per NodePool label (not terminating), and those NotReady or
    marked for deletion (counted once per pass: the pass changes no node)."""
    if ctx._node_counts is None:
        ctx._node_counts = _node_counts(ctx)
    return ctx._node_counts


def _node_counts(ctx: Context) -> tuple[dict[str, int], dict[str, int]]:
    nodes: dict[str, int] = {}
    disrupting: dict[str, int] = {}
    for state in ctx.cluster.nodes:
        if not state.managed() or not state.initialized():
            continue
        claim_conditions = ((state.node_claim.get("status") or {}).get("conditions") or ())
        if any(isinstance(c, dict) and c.get("type") == "InstanceTerminating" and c.get("status") == "True"
               for c in claim_conditions):
            continue
        pool = state.labels().get(NODEPOOL_LABEL) or ""
        nodes[pool] = nodes.get(pool, 0) + 1
        ready = next((c for c in ((state.node or {}).get("status") or {}).get("conditions") or ()
                      if isinstance(c, dict) and c.get("type") == "Ready"), None)
        if ready is None or ready.get("status") != "True" or state.marked_for_deletion():
            disrupting[pool] = disrupting.get(pool, 0) + 1
    return nodes, disrupting


def pool_budgets(ctx: Context, reason: str) -> list[PoolBudget]:
    nodes, disrupting = node_counts(ctx)
    out = []
    for np in ctx.inputs.node_pools:
        if not np.is_managed():
            continue
        allowed = bud.allowed_by_reason(np, ctx.now, nodes.get(np.name, 0), reason)
        out.append(PoolBudget(np.name, nodes.get(np.name, 0), disrupting.get(np.name, 0), allowed,
                              max(allowed - disrupting.get(np.name, 0), 0)))
    return out


def build_disruption_budget_mapping(ctx: Context, reason: str) -> dict[str, int]:
    """BuildDisruptionBudgetMapping, with the NodePool's DisruptionBlocked event when its budgets
    allow none for a NodePool with nodes."""
    out = {}
    for b in pool_budgets(ctx, reason):
        out[b.node_pool] = b.remaining
        if b.nodes != 0 and b.allowed == 0:
            ctx.recorder.publish(ev.node_pool_blocked_for_reason(ctx.node_pools[b.node_pool], reason))
    return out


def simulation_options(ctx: Context) -> Options:
    s = ctx.inputs.settings
    return Options(strict_reserved_offerings=False, ignore_preferences=s.preference_policy == "Ignore",
                   min_values_best_effort=s.min_values_policy == "BestEffort",
                   reserved_capacity=s.feature_gates.reserved_capacity)


def new_scheduler(ctx: Context, pods: list[PodInfo], state_nodes: Sequence[Any], options: Options,
                  recorder: ev.Recorder) -> Scheduler:
    """Provisioner.NewScheduler: the ready dynamic NodePools by weight, their instance types, the
    topology and volume requirements of the pods whose volume topology resolves (the others are
    left out of both, and Solve still places them), the DaemonSets' pods."""
    cloud = ctx.cloud
    pools = [np.obj for np in ctx.inputs.node_pools
             if _is_managed_pool(np.obj) and np.spec.replicas is None and cloud.node_pool_ready(np.obj)
             and not (np.obj.get("metadata") or {}).get("deletionTimestamp")]
    if not pools:
        raise SimulationError(f"creating scheduler, {NODE_POOLS_NOT_FOUND}")
    order_by_weight(pools)
    instance_types: dict[str, list[Any]] = {}
    for np in pools:
        its, err = cloud.get_instance_types(np)
        if err is None and its:
            instance_types[name_of(np)] = its
    topology_of = VolumeTopology(ctx.cluster.volume_index)
    volume_reqs: dict[str, list[Any]] = {}
    schedulable = []
    for pod in pods:
        reqs, err = topology_of.get_requirements(pod)
        if err is not None:
            continue
        if reqs:
            volume_reqs[pod.uid] = reqs
        schedulable.append(pod)
    topology, err = new_topology(ctx.cluster, state_nodes, pools, instance_types, schedulable,
                                 ctx.inputs.settings.preference_policy)
    if err is not None:
        raise SimulationError(str(WrappedError("creating scheduler", WrappedError("tracking topology counts", err))))
    scheduler = Scheduler(pools, state_nodes, topology, instance_types, daemonset_pods(ctx.cluster, ctx.inputs.daemonsets),
                          volume_reqs, options, cloud.satisfies_min_values, cloud.limits, ctx.cluster.volume_index,
                          getattr(cloud, "type_index", None), ctx.node_bases, ctx.placeholders)
    for e in scheduler.events:          # NoCompatibleInstanceTypes, published by NewScheduler
        recorder.publish(ev.Event(e.object, e.type, e.reason, e.message, (e.object,)))
    return scheduler


def deleting_pods(ctx: Context, recorder: ev.Recorder) -> list[PodInfo]:
    """StateNodes.Deleting().CurrentlyReschedulablePods."""
    out = []
    for state in ctx.deleting():
        out.extend(p for p in ctx.pods_on(state) if ctx.pdbs.is_currently_reschedulable(p, ctx.now, recorder))
    return out


@dataclass
class Simulation:
    """SimulateScheduling's answer: the scheduler's Results (new NodeClaims, existing nodes with the
    pods placed there, pod errors by uid) and the pods it scheduled."""

    results: Results
    pods: list[PodInfo]

    def non_pending_errors(self) -> dict[str, BaseException]:
        by_uid = {p.uid: p for p in self.pods}
        return {uid: err for uid, err in self.results.pod_errors.items()
                if uid in by_uid and not_provisionable_reason(by_uid[uid]) is not None}

    def all_non_pending_pods_scheduled(self) -> bool:
        return not self.non_pending_errors()

    def non_pending_errors_text(self) -> str:
        """NonPendingPodSchedulingErrors, its parts sorted (Go lists them in map order)."""
        errs = self.non_pending_errors()
        if not errs:
            return "No Pod Scheduling Errors"
        by_uid = {p.uid: p for p in self.pods}
        parts = sorted(f"{by_uid[uid].key} => {err} " for uid, err in errs.items())
        text = "not all pods would schedule, " + "".join(parts[:5])
        if len(parts) >= 5:     # (Go writes it once the fifth is written: " and 0 other(s)" too)
            text += f" and {len(parts) - 5} other(s)"
        return text


class UninitializedNodeError(GoError):
    pass


def simulate_scheduling(ctx: Context, candidates: Sequence[Candidate], consolidation: bool = False) -> Simulation:
    """SimulateScheduling: raises CandidateDeleting or SimulationError. `consolidation`:
    IsConsolidationSimulation (consolidateAfter on destination nodes, where the release has it)."""
    names = {c.name() for c in candidates}
    deleting = ctx.deleting()
    if any(n.name() in names for n in deleting):
        raise CandidateDeleting()
    gone = {id(n) for n in deleting}
    state_nodes = [n for n, name in ctx.named_nodes() if id(n) not in gone and name not in names]
    pods = list(ctx.pending)
    for c in candidates:
        pods.extend(p for p in c.reschedulable_pods if ctx.pdbs.is_currently_reschedulable(p, ctx.now, ctx.recorder))
    from_deleting = deleting_pods(ctx, ctx.recorder)
    pods.extend(from_deleting)
    publish_ignored(ctx, ctx.recorder)
    scheduler = new_scheduler(ctx, pods, state_nodes, simulation_options(ctx), ctx.recorder)
    if consolidation and ctx.rules.destination_consolidate_after:
        close_consolidate_after(ctx, scheduler, pods, from_deleting)
    results = scheduler.solve(pods)
    truncate_instance_types(results, scheduler.type_index, scheduler.options.min_values_best_effort)
    deleting_keys = {p.key for p in from_deleting}
    for existing in results.existing_nodes:
        if existing.initialized():
            continue
        info = []
        if existing.state.node_claim is not None:
            info.append(f"nodeclaim/{name_of(existing.state.node_claim)}")
        if existing.state.node is not None:
            info.append(f"node/{name_of(existing.state.node)}")
        for pod in existing.pods:
            if pod.key not in deleting_keys:
                results.pod_errors[pod.uid] = UninitializedNodeError(
                    f"would schedule against uninitialized {', '.join(info)}")
    return Simulation(results, pods)


def close_consolidate_after(ctx: Context, scheduler: Scheduler, pods: list[PodInfo], from_deleting: list[PodInfo]
                            ) -> None:
    """calculateExistingNodeClaims with enforceConsolidateAfter (v1.14): the existing nodes under
    their NodePool's consolidateAfter take only pending pods and the deleting nodes' pods. The
    NodePool is one the scheduler was built with (a ready, dynamic one)."""
    pools = {np.name: np for np in ctx.inputs.node_pools if np.name in scheduler.remaining_resources}
    closed = {i for i, node in enumerate(scheduler.existing_nodes)
              if under_consolidate_after(pools.get(node.state.labels().get(NODEPOOL_LABEL) or ""),
                                         node.state.node_claim, ctx.now)}
    if closed:
        exempt = {p.uid for p in pods if p.phase == "Pending"} | {p.uid for p in ctx.pending}
        scheduler.close_nodes(closed, exempt | {p.uid for p in from_deleting})


def nominate(ctx: Context, options: Options) -> tuple[list[str], str]:
    """Step 2 of the pass: one Provisioner.Schedule over the pending pods (and the deleting nodes'
    pods); Results.Record nominates the existing nodes it places pods on. Returns the nominated
    nodes' names and the schedule error, if any."""
    publish_ignored(ctx, ctx.recorder)
    pods = list(ctx.pending) + deleting_pods(ctx, ctx.recorder)
    if not pods:
        return [], ""
    try:
        scheduler = new_scheduler(ctx, pods, ctx.cluster.active(), options, ctx.recorder)
    except SimulationError as err:
        if NODE_POOLS_NOT_FOUND in str(err):
            return [], ""
        return [], str(err)
    results = scheduler.solve(pods)
    truncate_instance_types(results, scheduler.type_index, options.min_values_best_effort)
    placed = [existing for existing in results.existing_nodes if existing.pods]
    ctx.cluster = ctx.cluster.with_nominated(existing.state for existing in placed)
    return sorted(existing.name() for existing in placed), ""

