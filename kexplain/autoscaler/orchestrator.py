"""CA's scale-up orchestrator (core/scaleup/orchestrator): from unschedulable pods to a plan.

`scale_up` builds the equivalence groups, skips the groups that cannot grow (filterValid-
ScaleUpNodeGroups: not ready, at max size, an atomic scale-up over --max-nodes-total, over the
cluster's core/memory limits), checks each group's first pod against every valid group's
template (SchedulablePodGroups: the scheduler's PreFilter and Filter on the template added to
the snapshot), estimates each group's option with the binpacking estimator, lets the expander
choose, caps the count (--max-nodes-total, the resource limits), balances it over similar
groups, and executes it on the provider. The outcome is a `ScaleUpStatus` as CA's.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping, Sequence

from kexplain.autoscaler.equivalence import PodGroup, build_pod_groups
from kexplain.autoscaler.estimator import estimate, estimator_limits, group_limit
from kexplain.autoscaler.expander import Option
from kexplain.autoscaler.nodegroups import NodeGroup
from kexplain.autoscaler.simulator import ClusterSim, Failure
from kexplain.autoscaler.templates import Template
from kexplain.model.pod import PodInfo

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.autoscaler.expander.chain import Chain
    from kexplain.autoscaler.params import Settings

STATUS_CONFIGMAP = "ConfigMap kube-system/cluster-autoscaler-status"
# skip reasons (skippedreasons.go)
BACKOFF = "in backoff after failed scale-up"
MAX_LIMIT_REACHED = "max node group size reached"
NOT_READY = "not ready for scale-up"
ATOMIC_OVER_TOTAL = "atomic scale-up exceeds cluster node count limit"
# reasons ScaleUp adds after the simulation (rejectedreasons.go)
ALL_OR_NOTHING = "not all pods would fit and scale-up is using all-or-nothing strategy"
OPTIONS_FILTERED_OUT = "expansion options filtered out and no longer considered"
EXECUTION_FAILED = "scale-up execution failed"
MAX_TOTAL_REACHED_ERROR = "max node total count already reached"

SUCCESSFUL = "ScaleUpSuccessful"
ERROR = "ScaleUpError"
NO_OPTIONS = "ScaleUpNoOptionsAvailable"
NOT_NEEDED = "ScaleUpNotNeeded"
LIMITED_BY_MAX_NODES_TOTAL = "ScaleUpLimitedByMaxNodesTotal"
NOT_TRIED = "ScaleUpNotTried"


@dataclass(frozen=True)
class Event:
    """An event CA records: on `object` (`KIND NS/NAME`; a pod's events name the pod)."""

    object: str
    type: str
    reason: str
    message: str


@dataclass(frozen=True)
class ScaleUpInfo:
    group: NodeGroup
    current_size: int
    new_size: int
    max_size: int

    def __str__(self) -> str:
        return f"{{{self.group.name} {self.current_size}->{self.new_size} (max: {self.max_size})}}"


@dataclass
class NoScaleUpInfo:
    """A pod that remains unschedulable, and why (status.NoScaleUpInfo)."""

    pod: PodInfo
    rejected: Mapping[str, tuple[str, ...]]
    skipped: Mapping[str, tuple[str, ...]]


@dataclass
class ScaleUpStatus:
    """CA's status.ScaleUpStatus, plus what the document shows of the computation."""

    result: str
    error: str = ""
    scale_up_infos: list[ScaleUpInfo] = field(default_factory=list)
    remain_unschedulable: list[NoScaleUpInfo] = field(default_factory=list)
    triggered: list[PodInfo] = field(default_factory=list)
    await_evaluation: list[PodInfo] = field(default_factory=list)
    considered: list[NodeGroup] = field(default_factory=list)
    # the computation, for the document
    pod_groups: list[PodGroup] = field(default_factory=list)
    verdicts: dict[int, dict[str, tuple[str, str, tuple[str, ...]]]] = field(default_factory=dict)  # id(eg)
    skipped: dict[str, tuple[str, ...]] = field(default_factory=dict)
    options: list[Option] = field(default_factory=list)
    best: Option | None = None
    events: list[Event] = field(default_factory=list)        # cluster events, in order


@dataclass
class Context:
    """What the orchestrator reads: settings, groups, sizes, templates, the snapshot, the expander."""

    settings: "Settings"
    groups: Sequence[NodeGroup]
    target_sizes: dict[str, int]
    templates: Mapping[str, Template]
    sim: ClusterSim
    expander: "Chain"
    limits: "ResourceLimits"
    compare: object = None          # the similarity comparator, made on first use


class ResourceLimits:
    """The cluster-wide core/memory quota (--cores-total, --memory-total): what is used by the
    cluster's nodes and what a group's nodes add (each group's nodes counted as its first
    node seen, as CA's node resource cache does)."""

    QUOTA = "cluster-wide"

    def __init__(self, settings: "Settings", nodes: Sequence[tuple["object", str | None]]) -> None:
        self.max = {"cpu": settings.cores_total[1], "memory": settings.memory_total[1]}
        self._per_group: dict[str, dict[str, int]] = {}
        used = {"cpu": 0, "memory": 0}
        for node, group in nodes:
            res = self.node_resources(node, group)
            used["cpu"] += res["cpu"]
            used["memory"] += res["memory"]
        self.left = {k: self.max[k] - used[k] for k in self.max}

    def node_resources(self, node_obj, group: str | None) -> dict[str, int]:
        if group is not None and group in self._per_group:
            return self._per_group[group]
        from kexplain.apimachinery.quantity import parse_quantity
        capacity = ((node_obj.get("status") or {}).get("capacity") or {})
        out = {}
        for name in ("cpu", "memory"):
            raw = capacity.get(name)
            value = -(-parse_quantity(raw) // 1) if raw is not None else 0
            out[name] = max(int(value), 0)
        if group is not None:
            self._per_group[group] = out
        return out

    def check(self, group: str, node_obj, count: int) -> tuple[int, list[str]]:
        """(the nodes allowed of `count`, the resources exceeded)."""
        delta = self.node_resources(node_obj, group)
        allowed = count
        exceeded = []
        for name in ("cpu", "memory"):
            per_node = delta[name]
            if per_node <= 0:
                continue
            left = self.left[name]
            if left < per_node * count:
                allowed = min(allowed, left // per_node)
                exceeded.append(name)
        return allowed, exceeded

    def consume(self, group: str, node_obj, count: int) -> None:
        delta = self.node_resources(node_obj, group)
        for name in ("cpu", "memory"):
            self.left[name] = max(self.left[name] - delta[name] * count, 0)

    def skip_reason(self, group: str, node_obj, count: int) -> tuple[str, ...] | None:
        _, exceeded = self.check(group, node_obj, count)
        if not exceeded:
            return None
        return (f'exceeded quota: "{self.QUOTA}", resources: {", ".join(exceeded)}',)


def comparator_of(settings: "Settings"):
    """The similarity test CA's builder picks from the balancing flags."""
    from kexplain.autoscaler.nodegroupset import DifferenceRatios, comparator
    ratios = DifferenceRatios(settings.flag("max-allocatable-difference-ratio"),
                              settings.flag("max-free-difference-ratio"), settings.flag("memory-difference-ratio"))
    return comparator(settings.flag("balancing-label"), settings.flag("balancing-ignore-label"), ratios)


def similar_node_groups(ctx: Context, group: NodeGroup, schedulable: Mapping[str, list[PodGroup]]) -> list[NodeGroup]:
    """ComputeSimilarNodeGroups: with --balance-similar-node-groups, the groups similar to
    `group` (nodegroupset) that can take every pod group `group` can (the same exemplars)."""
    from kexplain.autoscaler.nodegroupset import find_similar_node_groups
    if not ctx.settings.balance_similar_node_groups or group.options.zero_or_max_node_scaling:
        return []
    pod_groups = schedulable.get(group.name)
    if not pod_groups:
        return []
    node_infos = {name: t.node_info for name, t in ctx.templates.items()}
    if ctx.compare is None:
        ctx.compare = comparator_of(ctx.settings)
    out = []
    for other in find_similar_node_groups(group, ctx.groups, node_infos, ctx.compare):
        theirs = schedulable.get(other.name)
        if theirs is not None and {id(eg) for eg in pod_groups} <= {id(eg) for eg in theirs}:
            out.append(other)
    return out


def scale_up(ctx: Context, pods: Sequence[PodInfo], node_count: int) -> ScaleUpStatus:
    """CA's ScaleUp for the unschedulable `pods` (`node_count`: the cluster's nodes)."""
    settings = ctx.settings
    groups = build_pod_groups(pods)
    st = ScaleUpStatus(NOT_TRIED, pod_groups=groups, considered=list(ctx.groups))
    valid: list[NodeGroup] = []
    for g in ctx.groups:
        reason = _skip_reason(ctx, g, node_count)
        if reason is not None:
            st.skipped[g.name] = reason
        else:
            valid.append(g)
    # SchedulablePodGroups: each group's first pod on each valid group's template
    schedulable: dict[str, list[PodGroup]] = {}
    for g in valid:
        schedulable[g.name] = _schedulable_pod_groups(ctx, groups, g, st)
    options: list[Option] = []
    for g in valid:
        option = _expansion_option(ctx, g, schedulable, node_count)
        if option.pods and option.node_count > 0:
            options.append(option)
    st.options = sorted(options, key=lambda o: o.node_group.name)
    if not options:
        return _no_options(st)
    node_infos = {name: t.node_info for name, t in ctx.templates.items()}
    choice = ctx.expander.choose(options, node_infos)
    for e in choice.events:
        st.events.append(Event(e.object, e.type, e.reason, e.message))
    best = choice.option
    st.best = best
    if best is None or best.node_count <= 0:
        _mark_all_unschedulable(groups, OPTIONS_FILTERED_OUT)
        return _no_options(st)
    new_nodes = best.node_count
    max_total = settings.max_nodes_total
    if max_total > 0 and new_nodes + node_count > max_total:
        new_nodes = max_total - node_count
        st.events.append(Event(STATUS_CONFIGMAP, "Warning", "MaxNodesTotalReached",
                               f"Max total nodes in cluster reached: {max_total}"))
        if new_nodes < 1:
            _mark_all_unschedulable(groups, EXECUTION_FAILED)
            return _error(st, MAX_TOTAL_REACHED_ERROR, best, groups)
    template = ctx.templates[best.node_group.name]
    allowed, _ = ctx.limits.check(best.node_group.name, template.node_info.node.obj, new_nodes)
    new_nodes = allowed
    infos = _balance(ctx, best.node_group, new_nodes, schedulable)
    st.scale_up_infos = infos
    for info in infos:
        st.events.append(Event(STATUS_CONFIGMAP, "Normal", "ScaledUpGroup",
                               f"Scale-up: setting group {info.group.name} size to {info.new_size} instead of "
                               f"{info.current_size} (max: {info.max_size})"))
        ctx.target_sizes[info.group.name] = info.new_size
        st.events.append(Event(STATUS_CONFIGMAP, "Normal", "ScaledUpGroup",
                               f"Scale-up: group {info.group.name} size set to {info.new_size} instead of "
                               f"{info.current_size} (max: {info.max_size})"))
    st.result = SUCCESSFUL
    st.remain_unschedulable = _remaining(groups, st.skipped)
    st.triggered = list(best.pods)
    st.await_evaluation = [p for eg in groups if eg.schedulable and best.node_group.name in eg.scheduling_errors
                           for p in eg.pods]
    return st


def _skip_reason(ctx: Context, g: NodeGroup, node_count: int) -> tuple[str, ...] | None:
    target = ctx.target_sizes[g.name]
    if target >= g.max_size:
        return (MAX_LIMIT_REACHED,)
    count = 1
    if g.options.zero_or_max_node_scaling:
        count = g.max_size - target
        max_total = ctx.settings.max_nodes_total
        if max_total != 0 and node_count + count > max_total:
            return (ATOMIC_OVER_TOTAL,)
    template = ctx.templates.get(g.name)
    if template is None:
        return (NOT_READY,)
    return ctx.limits.skip_reason(g.name, template.node_info.node.obj, count)


def _schedulable_pod_groups(ctx: Context, groups: list[PodGroup], g: NodeGroup, st: ScaleUpStatus) -> list[PodGroup]:
    template = ctx.templates[g.name].node_info
    sim = ctx.sim
    sim.fork()
    out = []
    try:
        sim.add_node(template)
        for eg in groups:
            failed = sim.check(eg.pods[0], template.name)
            verdicts = st.verdicts.setdefault(id(eg), {})
            if failed is None:
                out.append(eg)
                eg.schedulable = True
                eg.schedulable_groups.append(g.name)
                verdicts[g.name] = ("fits", "", ())
            else:
                eg.scheduling_errors[g.name] = failed.reasons
                verdicts[g.name] = ("rejected", failed.plugin, failed.reasons)
    finally:
        sim.revert()
    return out


def _expansion_option(ctx: Context, g: NodeGroup, schedulable: Mapping[str, list[PodGroup]],
                      node_count: int) -> Option:
    pod_groups = schedulable.get(g.name) or []
    if not pod_groups:
        return Option(g, 0, ())
    similar = tuple(similar_node_groups(ctx, g, schedulable))
    room = group_limit(g.max_size, ctx.target_sizes[g.name]) + sum(
        group_limit(s.max_size, ctx.target_sizes[s.name]) for s in similar)
    limiter = estimator_limits(ctx.settings.flag("max-nodes-per-scaleup"), room, ctx.settings.max_nodes_total,
                               node_count)
    result = estimate(ctx.sim, [eg.pods for eg in pod_groups], ctx.templates[g.name].node_info, limiter)
    count, placed = result.node_count, tuple(result.pods)
    if g.options.zero_or_max_node_scaling and count > 0:
        count = g.max_size
    return Option(g, count, placed, similar)


def _balance(ctx: Context, group: NodeGroup, new_nodes: int, schedulable) -> list[ScaleUpInfo]:
    """balanceScaleUps: the new nodes spread over `group` and its similar groups within quota
    (nodegroupset.balance_scale_up), then capped by the quota left (capScaleUpsByQuota)."""
    from kexplain.autoscaler.nodegroupset import balance_scale_up
    targets = [group]
    for other in similar_node_groups(ctx, group, schedulable):
        template = ctx.templates.get(other.name)
        if template is not None and ctx.limits.skip_reason(other.name, template.node_info.node.obj, 1) is None:
            targets.append(other)
    infos = [ScaleUpInfo(i.group, i.current_size, i.new_size, i.max_size)
             for i in balance_scale_up(targets, ctx.target_sizes, new_nodes)]
    out = []
    for info in infos:          # capScaleUpsByQuota
        template = ctx.templates[info.group.name].node_info.node.obj
        delta = info.new_size - info.current_size
        allowed, _ = ctx.limits.check(info.group.name, template, delta)
        if allowed < delta:
            info = ScaleUpInfo(info.group, info.current_size, info.current_size + allowed, info.max_size)
        if allowed > 0:
            ctx.limits.consume(info.group.name, template, allowed)
        if info.new_size != info.current_size:
            out.append(info)
    return out


def _mark_all_unschedulable(groups: list[PodGroup], reason: str) -> None:
    for eg in groups:
        if eg.schedulable:
            for name in eg.schedulable_groups:
                eg.scheduling_errors[name] = (reason,)
            eg.schedulable = False


def _remaining(groups: list[PodGroup], skipped: Mapping[str, tuple[str, ...]]) -> list[NoScaleUpInfo]:
    return [NoScaleUpInfo(p, dict(eg.scheduling_errors), dict(skipped))
            for eg in groups if not eg.schedulable for p in eg.pods]


def _no_options(st: ScaleUpStatus) -> ScaleUpStatus:
    st.result = NO_OPTIONS
    st.remain_unschedulable = _remaining(st.pod_groups, st.skipped)
    return st


def _error(st: ScaleUpStatus, message: str, best: Option, groups: list[PodGroup]) -> ScaleUpStatus:
    st.result = ERROR
    st.error = message
    st.triggered = list(best.pods)
    st.remain_unschedulable = _remaining(groups, st.skipped)
    st.considered = []
    return st
