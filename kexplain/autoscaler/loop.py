"""One CA loop (StaticAutoscaler.RunOnce), its scale-up part: what the scale-up orchestrator is
handed and what CA's status processor makes of its status.

The template node infos first, then the pending pods CA lists as unschedulable (not those with
scheduling gates or a nominated node), the pod list processors over them, and then: no pod left
(ScaleUpNotNeeded), as many ready nodes as --max-nodes-total (ScaleUpLimitedByMaxNodesTotal),
or the orchestrator's ScaleUp. The EventingScaleUpStatusProcessor's events follow.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from kexplain.autoscaler.inputs import LoopInputs
from kexplain.autoscaler.orchestrator import Context, Event, NoScaleUpInfo, ScaleUpStatus, scale_up
from kexplain.autoscaler.podlistprocessor import Processed, process
from kexplain.autoscaler.resourcelimits import max_nodes_total_reached
from kexplain.autoscaler.status import (CLUSTER_UNHEALTHY, CLUSTER_UNHEALTHY_MESSAGE, ERROR, IN_COOLDOWN,
                                        LIMITED_BY_MAX_NODES_TOTAL, MAX_NODES_TOTAL_REACHED, MAX_TOTAL_NODES,
                                        NOT_NEEDED, NOT_TRIED, NOT_TRIGGERED, NOT_TRIGGERED_PREFIX, STATUS_CONFIGMAP,
                                        SUCCESSFUL, TRIGGERED, TRIGGERED_PREFIX, max_nodes_total_message)
from kexplain.autoscaler.simulator import ClusterSim
from kexplain.autoscaler.templates import Template, template_node_infos
from kexplain.model.pod import PodInfo

PRIORITY_CONFIGMAP = ("kube-system", "cluster-autoscaler-priority-expander")
NEW_POD_BUFFER = timedelta(seconds=2)     # unschedulablePodTimeBuffer


@dataclass
class LoopResult:
    """What the loop did: templates, which pods were listed and processed, the scale-up status,
    the sizes after it, and the events on pods (by id) and on other objects."""

    templates: dict[str, Template]
    listed: list[PodInfo]
    processed: Processed
    status: ScaleUpStatus
    scale_up_called: bool
    target_sizes: dict[str, int]
    new_target_sizes: dict[str, int]
    pod_events: dict[int, list[Event]] = field(default_factory=dict)
    cluster_events: list[Event] = field(default_factory=list)
    loop_error: str = ""
    scale_down: Any = None          # scale-down mode: kexplain.autoscaler.scaledown's ScaleDownOutcome
    snapshot: Any = None    # what the scale-up started from: the cluster with the pods the processors placed


def is_listed_unschedulable(pod: PodInfo) -> bool:
    """Whether CA's lister counts the pending pod as unschedulable: the scheduler wrote
    PodScheduled=False/Unschedulable on it (not on a gated pod), it has no nominated node, is
    not being deleted and has not ended (CA's pod lister leaves out Succeeded and Failed pods)."""
    if pod.status.get("nominatedNodeName") or pod.deletion_timestamp is not None \
            or pod.status.get("phase") in ("Succeeded", "Failed"):
        return False
    for cond in pod.status.get("conditions") or ():
        if isinstance(cond, dict) and cond.get("type") == "PodScheduled":
            return cond.get("status") == "False" and cond.get("reason") == "Unschedulable"
    return not pod.spec.get("schedulingGates")


def _too_many_unready(unready: int, total: int, settings) -> bool:
    return unready > settings.flag("ok-total-unready-count") and \
        unready > settings.flag("max-total-unready-percentage") / 100.0 * total


def cluster_healthy(loop: LoopInputs) -> bool:
    """The cluster state registry's IsClusterHealthy: not too many unready nodes."""
    unready = sum(1 for n in loop.nodes if not n.ready)
    return not _too_many_unready(unready, len(loop.nodes), loop.settings)


def unhealthy_groups(loop: LoopInputs, targets: dict[str, int]) -> frozenset[str]:
    """The groups IsNodeGroupHealthy calls unhealthy (the scale-up skips them as not ready):
    one without instances whose target size is not 0, or one with fewer ready instances than
    its target size by too many (--ok-total-unready-count, --max-total-unready-percentage)."""
    facts = {n.name: n for n in loop.nodes}
    out = set()
    for g in loop.groups:
        names = loop.group_members[g.name]
        target = targets[g.name]
        if not names:
            if target != 0:
                out.add(g.name)
            continue
        ready = sum(1 for n in names if facts[n].ready)
        if _too_many_unready(max(target - ready, 0), len(names), loop.settings):
            out.add(g.name)
    return frozenset(out)


def framework(loop: LoopInputs, snapshot):
    """The scheduler framework CA embeds: the default profile's plugins."""
    from kexplain.framework.runtime import Framework
    from kexplain.plugins import plugin_class
    profile = loop.scheduler_config.profile_for("default-scheduler")
    registry = {name: plugin_class(name) for names in profile.plugins.values() for name in names}
    return Framework(profile, registry, snapshot)


def run_once(loop: LoopInputs) -> LoopResult:
    settings = loop.settings
    templates = template_node_infos(loop)
    sim = ClusterSim(loop.snapshot, framework(loop, loop.snapshot))
    created = dict(zip(map(id, loop.pending), loop.pending_created))
    listed = [p for p in loop.pending if is_listed_unschedulable(p)]
    processed = process(listed, [created[id(p)] for p in listed], sim, settings, loop.now)
    to_help = processed.pods
    processed_snapshot = sim.snapshot
    targets = {g.name: g.target_size if g.target_size is not None else len(loop.group_members[g.name])
               for g in loop.groups}
    before = dict(targets)
    cluster_events: list[Event] = []
    ready = sum(1 for n in loop.nodes if n.ready and not loop.snapshot.get(n.name).node.unschedulable)
    max_total = settings.max_nodes_total
    called = False
    unhealthy = unhealthy_groups(loop, targets)
    if not cluster_healthy(loop):
        result = LoopResult(templates, listed, Processed(list(listed)), ScaleUpStatus(NOT_TRIED), False, before,
                            targets, cluster_events=[Event(STATUS_CONFIGMAP, "Warning", CLUSTER_UNHEALTHY,
                                                           CLUSTER_UNHEALTHY_MESSAGE)])
        return result
    if not to_help:
        status = ScaleUpStatus(NOT_NEEDED)
    elif max_nodes_total_reached(max_total, ready):
        status = ScaleUpStatus(LIMITED_BY_MAX_NODES_TOTAL,
                               remain_unschedulable=[NoScaleUpInfo(p, {}, {}) for p in to_help])
        cluster_events.append(Event(STATUS_CONFIGMAP, "Warning", MAX_NODES_TOTAL_REACHED,
                                    max_nodes_total_message(max_total)))
    elif min(created[id(p)] for p in to_help) + NEW_POD_BUFFER > loop.now:
        status = ScaleUpStatus(IN_COOLDOWN)
    else:
        called = True
        ctx = Context(settings, loop.groups, targets, templates, sim, _expander(loop),
                      _quota_tracker(loop, sim),
                      unhealthy=unhealthy)
        status = scale_up(ctx, to_help, len(sim.snapshot.node_infos))
        cluster_events.extend(status.events)
    result = LoopResult(templates, listed, processed, status, called, before, targets, cluster_events=cluster_events,
                        snapshot=processed_snapshot)
    _emit_events(result)
    if settings.mode == "scaledown":        # RunOnce's scale-down part: kexplain.autoscaler.scaledown
        from kexplain.autoscaler.scaledown.loop import loop_scale_down
        result.scale_down = loop_scale_down(loop, sim, status.result, targets)
    return result


def _quota_tracker(loop: LoopInputs, sim: ClusterSim):
    """The cluster-wide core/memory quota over the nodes the scale-up sees."""
    from kexplain.autoscaler.resourcelimits import QuotaTracker, ResourceLimits
    limits = ResourceLimits.from_flags(loop.settings.flag("cores-total"), loop.settings.flag("memory-total"))
    group_of = {n.name: n.group for n in loop.nodes if n.group is not None}
    return QuotaTracker(limits, [ni.node.obj for ni in sim.snapshot.node_infos], group_of)


def _expander(loop: LoopInputs):
    from kexplain.autoscaler.expander.factory import build
    configmap = next((c for c in loop.config_maps
                      if ((c.get("metadata") or {}).get("namespace") or "default",
                          (c.get("metadata") or {}).get("name")) == PRIORITY_CONFIGMAP), None)
    return build(loop.settings.expander, configmap)


def reasons_message_parts(status: ScaleUpStatus, info: NoScaleUpInfo) -> list[str]:
    """The parts of the NotTriggerScaleUp message, sorted by the reason after the count
    (CA joins them in Go map order: the document sorts them)."""
    considered = {g.name for g in status.considered}
    counts: dict[str, int] = {}
    for by_group in (info.rejected, info.skipped):
        for group, reasons in by_group.items():
            if group not in considered:
                continue
            for reason in reasons:
                counts[reason] = counts.get(reason, 0) + 1
    return [f"{n} {reason}" for reason, n in sorted(counts.items(), key=lambda kv: kv[0].encode())]


def _emit_events(result: LoopResult) -> None:
    """EventingScaleUpStatusProcessor.Process."""
    status = result.status
    events = result.pod_events
    if status.result not in (SUCCESSFUL, ERROR):
        for info in status.remain_unschedulable:
            if status.result == LIMITED_BY_MAX_NODES_TOTAL:
                message = MAX_TOTAL_NODES
            else:
                message = ", ".join(reasons_message_parts(status, info))
            events.setdefault(id(info.pod), []).append(
                Event(info.pod.key, "Normal", NOT_TRIGGERED, f"{NOT_TRIGGERED_PREFIX}{message}"))
    if status.scale_up_infos:
        text = "[" + " ".join(str(i) for i in status.scale_up_infos) + "]"
        for pod in status.triggered:
            events.setdefault(id(pod), []).append(
                Event(pod.key, "Normal", TRIGGERED, f"{TRIGGERED_PREFIX}{text}"))

