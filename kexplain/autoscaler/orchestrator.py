"""CA's scale-up orchestrator (core/scaleup/orchestrator): from unschedulable pods to a plan, a
`ScaleUpStatus` as CA's (filterValidScaleUpNodeGroups, SchedulablePodGroups, estimate, expander,
limits, balancing); on an expander tie the first option followed, `picks` the rest.
`scale_up_to_node_group_min_size`: RunOnce's other scale-up (docs/internals/autoscaler.md)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Mapping, Sequence

from kexplain.autoscaler.equivalence import PodGroup, build_pod_groups
from kexplain.autoscaler.estimator import estimate, estimator_limits, group_limit
from kexplain.autoscaler.expander import Option
from kexplain.autoscaler.nodegroups import NodeGroup
from kexplain.autoscaler.nodegroupset import (DifferenceRatios, ScaleUpInfo, balance_scale_up, comparator,
                                              find_similar_node_groups)
from kexplain.autoscaler.resourcelimits import atomic_scale_up_exceeds, cap_new_node_count
from kexplain.autoscaler.simulator import ClusterSim
from kexplain.autoscaler.status import (ALL_OR_NOTHING, ATOMIC_LIMIT, BACKOFF, ERROR, EXECUTION_FAILED, MAX_LIMIT_REACHED, MAX_NODES_TOTAL_REACHED,
                                        NO_OPTIONS, NOT_NEEDED, NOT_READY, NOT_TRIED, OPTIONS_FILTERED_OUT, SCALED_UP_GROUP,
                                        STATUS_CONFIGMAP, SUCCESSFUL, event_object, max_nodes_total_message)
from kexplain.autoscaler.templates import Template
from kexplain.model.pod import PodInfo

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.autoscaler.expander.chain import Chain
    from kexplain.autoscaler.resourcelimits import QuotaTracker
    from kexplain.autoscaler.params import Settings


def status_object(settings: "Settings") -> str | None:
    """The object CA's LogEventRecorder records on: its status ConfigMap (--namespace,
    --status-config-map-name), or None with --write-status-configmap=false (no such events)."""
    if not settings.flag("write-status-configmap"):
        return None
    return event_object("ConfigMap", settings.flag("namespace"), settings.flag("status-config-map-name"))


@dataclass(frozen=True)
class Event:
    """An event CA records: on `object` (`KIND NS/NAME`; a pod's events name the pod)."""

    object: str
    type: str
    reason: str
    message: str


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
    random_among: tuple[Option, ...] = ()    # the options CA draws `best` from at random (a tie), else ()
    events: list[Event] = field(default_factory=list)        # cluster events, in order
    picks: list["ScaleUpStatus"] = field(default_factory=list)   # a tie: the status had CA drawn each other option
    partial: list[Option] = field(default_factory=list)     # all-or-nothing: options left out, taking only some pods


@dataclass
class Context:
    """What the orchestrator reads: settings, groups, sizes, templates, the snapshot, the expander."""

    settings: "Settings"
    groups: Sequence[NodeGroup]
    target_sizes: dict[str, int]
    templates: Mapping[str, Template]
    sim: ClusterSim
    expander: "Chain"
    limits: "QuotaTracker"
    compare: object = None          # the similarity comparator, made on first use
    unhealthy: frozenset[str] = frozenset()     # groups the cluster state registry calls unhealthy
    status_object: str | None = STATUS_CONFIGMAP    # where CA's log recorder records (None: nowhere)

    def record(self, st: "ScaleUpStatus", type_: str, reason: str, message: str) -> None:
        """An event of CA's log recorder (on its status ConfigMap), when it records any."""
        if self.status_object is not None:
            st.events.append(Event(self.status_object, type_, reason, message))


def comparator_of(settings: "Settings"):
    """The similarity test CA's builder picks from the balancing flags."""
    ratios = DifferenceRatios(settings.flag("max-allocatable-difference-ratio"),
                              settings.flag("max-free-difference-ratio"), settings.flag("memory-difference-ratio"))
    return comparator(settings.flag("balancing-label"), settings.flag("balancing-ignore-label"), ratios)


def similar_node_groups(ctx: Context, group: NodeGroup, schedulable: Mapping[str, list[PodGroup]]) -> list[NodeGroup]:
    """ComputeSimilarNodeGroups: with --balance-similar-node-groups, the groups similar to
    `group` (nodegroupset) that can take every pod group `group` can (the same exemplars)."""
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
        if not_safe_to_scale(ctx, other) is not None:
            continue            # not safe to scale
        theirs = schedulable.get(other.name)
        if theirs is not None and {id(eg) for eg in pod_groups} <= {id(eg) for eg in theirs}:
            out.append(other)
    return out


def scale_up(ctx: Context, pods: Sequence[PodInfo], node_count: int, all_or_nothing: bool = False) -> ScaleUpStatus:
    """CA's ScaleUp for the unschedulable `pods` (`node_count`: the cluster's nodes); `all_or_nothing`
    (a best-effort atomic ProvisioningRequest's): an option must take every pod, and a plan capped
    below its estimate is given up (abortAllOrNothing)."""
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
    # the BinpackingLimiter (TimeLimiter): a budget of --max-binpacking-time, asked after each group; a
    # positive one never runs out here, one of 0 or less is spent once the first group is binpacked
    spent = ctx.settings.flag("max-binpacking-time") <= 0
    for g in valid:
        option = _expansion_option(ctx, g, schedulable, node_count, all_or_nothing)
        if option.pods and option.node_count > 0 and all_or_nothing and len(option.pods) < len(pods):
            st.partial.append(option)
        elif option.pods and option.node_count > 0:
            options.append(option)
        if spent:
            break
    st.options = sorted(options, key=lambda o: o.node_group.name)
    if not options:
        return _no_options(ctx, st)
    node_infos = {name: t.node_info for name, t in ctx.templates.items()}
    choice = ctx.expander.choose(options, node_infos)
    for e in choice.events:
        st.events.append(Event(e.object, e.type, e.reason, e.message))
    best = choice.option
    st.best = best
    st.random_among = choice.random_among
    if best is None or best.node_count <= 0:
        _mark_all_unschedulable(groups, OPTIONS_FILTERED_OUT)
        return _no_options(ctx, st)
    if choice.is_random:        # CA draws at random: what each other draw would give
        st.picks = _other_draws(ctx, st, groups, schedulable, node_count)
    return _scale_up_with(ctx, st, best, groups, schedulable, node_count, all_or_nothing)


def _other_draws(ctx: Context, st: ScaleUpStatus, groups: list[PodGroup], schedulable: Mapping[str, list[PodGroup]],
                 node_count: int) -> list[ScaleUpStatus]:
    """The rest of the scale-up had CA's random draw taken each other tied option, in order, each from
    the state the draw finds (its own copies of sizes and quota), `ctx` and `groups` left as they were."""
    saved = [(eg.schedulable, list(eg.schedulable_groups), dict(eg.scheduling_errors)) for eg in groups]
    out = []
    for option in st.random_among:
        if option is st.best:
            continue
        drawn = ScaleUpStatus(NOT_TRIED, pod_groups=groups, considered=list(st.considered), verdicts=st.verdicts,
                              skipped=st.skipped, options=st.options, best=option, random_among=st.random_among,
                              events=list(st.events))
        own = replace(ctx, target_sizes=dict(ctx.target_sizes), limits=ctx.limits.copy())
        out.append(_scale_up_with(own, drawn, option, groups, schedulable, node_count))
        for eg, (fits, names, errors) in zip(groups, saved):
            eg.schedulable, eg.schedulable_groups, eg.scheduling_errors = fits, list(names), dict(errors)
    return out


def _scale_up_with(ctx: Context, st: ScaleUpStatus, best: Option, groups: list[PodGroup],
                   schedulable: Mapping[str, list[PodGroup]], node_count: int,
                   all_or_nothing: bool = False) -> ScaleUpStatus:
    """The scale-up once the expander chose `best`: its node count capped (--max-nodes-total,
    the resource limits), balanced over similar groups, executed; the pods it leaves."""
    settings = ctx.settings
    cap = cap_new_node_count(best.node_count, node_count, settings.max_nodes_total)
    new_nodes = cap.count
    if cap.capped:
        ctx.record(st, "Warning", MAX_NODES_TOTAL_REACHED, max_nodes_total_message(settings.max_nodes_total))
    if cap.error:
        _mark_all_unschedulable(groups, EXECUTION_FAILED)
        return _error(ctx, st, cap.error, best, groups)
    template = ctx.templates[best.node_group.name]
    new_nodes = ctx.limits.check(best.node_group.name, template.node_info.node.obj, new_nodes).allowed_delta
    if all_or_nothing and new_nodes < best.node_count:
        return _abort_all_or_nothing(ctx, st, groups)
    limits = ctx.limits.copy() if all_or_nothing else None
    infos = _balance(ctx, best.node_group, new_nodes, schedulable)
    if all_or_nothing and sum(i.new_size - i.current_size for i in infos) < new_nodes:
        ctx.limits = limits         # (nothing executed: the quota the balancing took is given back)
        return _abort_all_or_nothing(ctx, st, groups)
    st.scale_up_infos = infos
    _execute(ctx, st, infos)
    st.result = SUCCESSFUL
    st.remain_unschedulable = _remaining(ctx, groups, st.skipped)
    st.triggered = list(best.pods)
    st.await_evaluation = [p for eg in groups if eg.schedulable and best.node_group.name in eg.scheduling_errors
                           for p in eg.pods]
    return st


def not_safe_to_scale(ctx: Context, g: NodeGroup) -> tuple[str, ...] | None:
    """IsNodeGroupReadyToScaleUp (NodeGroupScaleUpSafety): unhealthy, not ready; else in backoff when CA's
    status says so (known only with the group's template: without one CA reads no backoff status)."""
    if g.name in ctx.unhealthy:
        return (NOT_READY,)
    if g.backoff is not None and g.name in ctx.templates:
        return (BACKOFF,)
    return None


def _skip_reason(ctx: Context, g: NodeGroup, node_count: int) -> tuple[str, ...] | None:
    unsafe = not_safe_to_scale(ctx, g)
    if unsafe is not None:
        return unsafe
    target = ctx.target_sizes[g.name]
    if target >= g.max_size:
        return (MAX_LIMIT_REACHED,)
    count = 1
    if g.options.zero_or_max_node_scaling:
        count = g.max_size - target
        if atomic_scale_up_exceeds(node_count, count, ctx.settings.max_nodes_total):
            return (ATOMIC_LIMIT,)
    template = ctx.templates.get(g.name)
    if template is None:
        return (NOT_READY,)
    check = ctx.limits.check(g.name, template.node_info.node.obj, count)
    return tuple(check.reasons) if check.is_exceeded else None


def _schedulable_pod_groups(ctx: Context, groups: list[PodGroup], g: NodeGroup, st: ScaleUpStatus) -> list[PodGroup]:
    """SchedulablePodGroups: each group's first pod on `g`'s template, added to the snapshot."""
    template = ctx.templates[g.name].node_info
    sim = ctx.sim
    sim.fork()
    out = []
    try:
        sim.add_node(template, ctx.templates[g.name].csi_node)
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
                      node_count: int, all_or_nothing: bool = False) -> Option:
    pod_groups = schedulable.get(g.name) or []
    if not pod_groups:
        return Option(g, 0, ())
    similar = tuple(similar_node_groups(ctx, g, schedulable))
    room = group_limit(g.max_size, ctx.target_sizes[g.name]) + sum(
        group_limit(s.max_size, ctx.target_sizes[s.name]) for s in similar)
    limiter = estimator_limits(ctx.settings.flag("max-nodes-per-scaleup"), room, ctx.settings.max_nodes_total,
                               node_count, ctx.settings.flag("max-nodegroup-binpacking-duration"))
    template = ctx.templates[g.name]
    result = estimate(ctx.sim, [eg.pods for eg in pod_groups], template.node_info, limiter, template.csi_node)
    count, placed = result.node_count, tuple(result.pods)
    if g.options.zero_or_max_node_scaling and all_or_nothing and count > g.max_size:
        return Option(g, 0, (), similar)        # capping would leave pods out
    if g.options.zero_or_max_node_scaling and count > 0:
        count = g.max_size
    return Option(g, count, placed, similar)


def _balance(ctx: Context, group: NodeGroup, new_nodes: int, schedulable) -> list[ScaleUpInfo]:
    """balanceScaleUps: the new nodes spread over `group` and its similar groups within quota
    (nodegroupset.balance_scale_up), then capped by the quota left (capScaleUpsByQuota)."""
    targets = [group]
    for other in similar_node_groups(ctx, group, schedulable):
        template = ctx.templates.get(other.name)
        if template is not None and not ctx.limits.check(other.name, template.node_info.node.obj, 1).is_exceeded:
            targets.append(other)
    infos = balance_scale_up(targets, ctx.target_sizes, new_nodes)
    out = []
    for info in infos:          # capScaleUpsByQuota
        template = ctx.templates[info.group.name].node_info.node.obj
        delta = info.new_size - info.current_size
        allowed = ctx.limits.check(info.group.name, template, delta).allowed_delta
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


def _remaining(ctx: Context, groups: list[PodGroup], skipped: Mapping[str, tuple[str, ...]]) -> list[NoScaleUpInfo]:
    """GetRemainingPods: the pods no valid group takes, with why; with
    --scaleup-simulation-for-skipped-node-groups-enabled a skipped group that rejects them gives its
    predicate's reasons instead of its skip reason."""
    left = [eg for eg in groups if not eg.schedulable]
    if not ctx.settings.flag("scaleup-simulation-for-skipped-node-groups-enabled"):
        return [NoScaleUpInfo(p, dict(eg.scheduling_errors), dict(skipped)) for eg in left for p in eg.pods]
    for g in ctx.groups:
        if g.name in skipped and g.name in ctx.templates:
            _schedulable_pod_groups(ctx, left, g, ScaleUpStatus(NOT_TRIED))
    return [NoScaleUpInfo(p, dict(eg.scheduling_errors),
                          {name: r for name, r in skipped.items() if name not in eg.scheduling_errors})
            for eg in left for p in eg.pods]


def _execute(ctx: Context, st: ScaleUpStatus, infos: Sequence[ScaleUpInfo]) -> None:
    """ExecuteScaleUps, one group after the other: the provider's target sizes set, with CA's
    two ScaledUpGroup events per group."""
    for info in infos:
        ctx.record(st, "Normal", SCALED_UP_GROUP, f"Scale-up: setting group {info.group.name} size to "
                   f"{info.new_size} instead of {info.current_size} (max: {info.max_size})")
        ctx.target_sizes[info.group.name] = info.new_size
        ctx.record(st, "Normal", SCALED_UP_GROUP, f"Scale-up: group {info.group.name} size set to "
                   f"{info.new_size} instead of {info.current_size} (max: {info.max_size})")


def scale_up_to_node_group_min_size(ctx: Context) -> ScaleUpStatus:
    """ScaleUpToNodeGroupMinSize: each group below its minimum, safe to scale and with a template, grown to
    it as far as the resource limits (nothing charged) and --max-nodes-total allow (CA capping by the
    group's own target size where the other scale-up counts the cluster's nodes)."""
    st = ScaleUpStatus(NOT_NEEDED)
    infos: list[ScaleUpInfo] = []
    for g in ctx.groups:
        target = ctx.target_sizes[g.name]
        template = ctx.templates.get(g.name)
        if target >= g.min_size or not_safe_to_scale(ctx, g) is not None or template is None:
            continue
        node = template.node_info.node.obj
        if ctx.limits.check(g.name, node, 1).is_exceeded:
            continue
        count = ctx.limits.check(g.name, node, g.min_size - target).allowed_delta
        cap = cap_new_node_count(count, target, ctx.settings.max_nodes_total)
        if cap.capped:
            ctx.record(st, "Warning", MAX_NODES_TOTAL_REACHED, max_nodes_total_message(ctx.settings.max_nodes_total))
        if cap.error:
            continue
        infos.append(ScaleUpInfo(g, target, target + cap.count, g.max_size))
    if infos:
        _execute(ctx, st, infos)
        st.result, st.scale_up_infos, st.considered = SUCCESSFUL, infos, list(ctx.groups)
    return st


def _abort_all_or_nothing(ctx: Context, st: ScaleUpStatus, groups: list[PodGroup]) -> ScaleUpStatus:
    """abortAllOrNothing: no plan takes every pod, so none is schedulable (AllOrNothingReason)."""
    _mark_all_unschedulable(groups, ALL_OR_NOTHING)
    return _no_options(ctx, st)


def _no_options(ctx: Context, st: ScaleUpStatus) -> ScaleUpStatus:
    st.result = NO_OPTIONS
    st.remain_unschedulable = _remaining(ctx, st.pod_groups, st.skipped)
    return st


def _error(ctx: Context, st: ScaleUpStatus, message: str, best: Option, groups: list[PodGroup]) -> ScaleUpStatus:
    st.result = ERROR
    st.error = message
    st.triggered = list(best.pods)
    st.remain_unschedulable = _remaining(ctx, groups, st.skipped)
    st.considered = []
    return st
