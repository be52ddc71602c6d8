"""One CA loop (StaticAutoscaler.RunOnce), in CA's order: cleanup, listing, health, the pod list
processors, the scale-up orchestrator, scale-down, then ScaleUpToNodeGroupMinSize; its result is
the status CA's processors see last (`LoopResult.reported`), its pods' events those recorded for
every status they see (`LoopResult.processed_statuses`), and a loop that stops early says why
(`LoopResult.not_listed`). The steps: docs/internals/autoscaler.md."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from typing import Any

from kexplain.autoscaler.gpu import pod_requests_gpu
from kexplain.autoscaler.inputs import LoopInputs
from kexplain.autoscaler.orchestrator import (Context, Event, NoScaleUpInfo, ScaleUpStatus, scale_up,
                                              scale_up_to_node_group_min_size, status_object)
from kexplain.autoscaler.podlistprocessor import Processed, process
from kexplain.autoscaler.tpu import clear_tpu_requests
from kexplain.autoscaler.resourcelimits import QuotaTracker, max_nodes_total_reached
from kexplain.autoscaler.simulator import ClusterSim, SimMemo, scheduler_framework
from kexplain.autoscaler.status import (CLUSTER_UNHEALTHY, CLUSTER_UNHEALTHY_MESSAGE, ERROR, IN_COOLDOWN,
                                        LIMITED_BY_MAX_NODES_TOTAL, MAX_NODES_TOTAL_REACHED, MAX_TOTAL_NODES, NO_NODES_MESSAGE,
                                        NO_STATUS, NOT_NEEDED, NOT_TRIED, NOT_TRIGGERED, NOT_TRIGGERED_PREFIX, SUCCESSFUL,
                                        TRIGGERED, TRIGGERED_PREFIX, event_object, max_nodes_total_message)
from kexplain.autoscaler.taints import CLEANUP, cleanup_events
from kexplain.autoscaler.templates import Template, template_node_infos
from kexplain.model.nodeinfo import NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.autoscaler.scaledown.loop import loop_scale_down
from kexplain.autoscaler.expander.factory import build

PRIORITY_CONFIGMAP_NAME = "cluster-autoscaler-priority-expander"     # in --namespace
NEW_POD_BUFFER = timedelta(seconds=2)     # unschedulablePodTimeBuffer
NEW_GPU_POD_BUFFER = timedelta(seconds=30)     # unschedulablePodWithGpuTimeBuffer
MAX_NODE_STARTUP_TIME = timedelta(minutes=15)   # clusterstate.MaxNodeStartupTime
SUSPENDED = "Suspended"                   # the node condition of a suspended node


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
    final_status: ScaleUpStatus | None = None   # ScaleUpToNodeGroupMinSize's, which replaces `status`
    ended_early: bool = False       # the loop returned before CA's status processors ran
    not_listed: str = ""            # why the loop stopped before it listed the unschedulable pods ("": it did not)
    # the loop's pending pods as its pod list processors hold them: ClearTPURequests' copies in place of
    # the pods it cleared, whose ids the rest of the result keys (None: the loop listed none)
    pending: list[PodInfo] | None = None

    @property
    def result(self) -> str:
        """The loop's ScaleUpStatus result as CA's status processors last saw it."""
        if self.ended_early:
            return NO_STATUS
        return self.reported.result

    @property
    def reported(self) -> ScaleUpStatus:
        """The status CA's status processors saw last, which the loop's answers are: ScaleUpToNodeGroupMinSize's
        with --enforce-node-group-min-size (RunOnce hands both, that one last)."""
        return self.final_status or self.status

    @property
    def processed_statuses(self) -> tuple[ScaleUpStatus, ...]:
        """The statuses CA's ScaleUpStatusProcessor sees, in order, each recording its events on pods: RunOnce
        hands it the scale-up's when the scale-up ran, then ScaleUpToNodeGroupMinSize's; the loop's own only
        when neither ran (its deferred call). So a pod keeps the scale-up's TriggeredScaleUp under
        --enforce-node-group-min-size, and a status the min-size's stands in for unprocessed records none."""
        seen = ((self.status,) if self.scale_up_called else ()) + \
            ((self.final_status,) if self.final_status is not None else ())
        return seen or (self.status,)


def is_listed_unschedulable(pod: PodInfo, bypassed: frozenset[str] = frozenset()) -> bool:
    """Whether CA's lister counts the pending pod as unschedulable (ArrangePodsBySchedulability):
    PodScheduled=False/Unschedulable (or, under a bypassed scheduler, no reason), no nominated node,
    not deleted or ended; a pod given without the condition has the one the scheduler would write."""
    if pod.status.get("nominatedNodeName") or pod.deletion_timestamp is not None \
            or pod.status.get("phase") in ("Succeeded", "Failed"):
        return False
    for cond in pod.status.get("conditions") or ():
        if isinstance(cond, dict) and cond.get("type") == "PodScheduled":
            if cond.get("status") == "False" and cond.get("reason") == "Unschedulable":
                return True
            return (pod.spec.get("schedulerName") or "default-scheduler") in bypassed \
                and cond.get("status") == "False" and not cond.get("reason")
    return not pod.spec.get("schedulingGates")


def unhealthy_words(loop: LoopInputs, states: dict[str, str]) -> str:
    """Why IsClusterHealthy says no, in words: how many nodes are unready, against the flags."""
    unready = sum(1 for s in states.values() if s == "Unready")
    settings = loop.settings
    return (f"the cluster is unhealthy: {unready} of {len(loop.nodes)} nodes are unready, more than "
            f"--ok-total-unready-count ({settings.flag('ok-total-unready-count')}) and "
            f"--max-total-unready-percentage ({settings.flag('max-total-unready-percentage'):g}%) allow")


def _too_many_unready(unready: int, total: int, settings) -> bool:
    return unready > settings.flag("ok-total-unready-count") and \
        unready > settings.flag("max-total-unready-percentage") / 100.0 * total


def _suspended(node: dict) -> bool:
    return next((c.get("status") == "True" for c in (node.get("status") or {}).get("conditions") or ()
                 if isinstance(c, dict) and c.get("type") == SUSPENDED), False)


def readiness_states(loop: LoopInputs) -> dict[str, str]:
    """The cluster state registry's readiness of each node: `Suspended` (condition Suspended=True), `Ready`,
    `NotStarted` (unready, created less than --max-node-startup-time ago) or `Unready`. As in CA, a node of no
    group takes the startup time of the last group node before it (15 minutes before any)."""
    startup = MAX_NODE_STARTUP_TIME
    flag = timedelta(seconds=loop.settings.flag("max-node-startup-time"))
    out = {}
    for facts in loop.nodes:
        if facts.group is not None:
            startup = flag
        if _suspended(loop.snapshot.get(facts.name).node.obj):
            out[facts.name] = SUSPENDED
        elif facts.ready:
            out[facts.name] = "Ready"
        elif facts.created + startup > loop.now:
            out[facts.name] = "NotStarted"
        else:
            out[facts.name] = "Unready"
    return out


def cluster_healthy(loop: LoopInputs, states: dict[str, str] | None = None) -> bool:
    """The cluster state registry's IsClusterHealthy: not too many unready nodes (those not
    started yet and suspended ones do not count as unready)."""
    states = states if states is not None else readiness_states(loop)
    unready = sum(1 for s in states.values() if s == "Unready")
    return not _too_many_unready(unready, len(loop.nodes), loop.settings)


def unhealthy_groups(loop: LoopInputs, targets: dict[str, int], states: dict[str, str] | None = None
                     ) -> frozenset[str]:
    """The groups IsNodeGroupHealthy calls unhealthy (the scale-up skips them as not ready): one without
    instances whose target size is not 0, or one with fewer ready (or suspended) instances than its target
    size by too many (--ok-total-unready-count, --max-total-unready-percentage of its instances)."""
    states = states if states is not None else readiness_states(loop)
    out = set()
    for g in loop.groups:
        names = loop.group_members[g.name]
        target = targets[g.name]
        if not names:
            if target != 0:
                out.add(g.name)
            continue
        ready = sum(1 for n in names if states[n] in ("Ready", SUSPENDED))
        if _too_many_unready(max(target - ready, 0), len(names), loop.settings):
            out.add(g.name)
    return frozenset(out)


def framework(loop: LoopInputs, snapshot):
    """The loop's scheduler framework over `snapshot` (`scheduler_framework`)."""
    return scheduler_framework(loop.scheduler_config, snapshot)


def sim_memo(loop: LoopInputs) -> SimMemo:
    """The `SimMemo` of `loop`'s scheduler configuration, kept with `loop` (and the copies a
    change makes of it: `LoopInputs.memo`)."""
    config = loop.scheduler_config
    found = loop.memo.get(id(config))
    if found is None or found[0] is not config:
        found = loop.memo[id(config)] = (config, SimMemo())
    return found[1]


def _with_allowed_schedulers(loop: LoopInputs) -> LoopInputs:
    """--allowed-scheduler-names: CA lists only the pods of those schedulers, bound ones too
    (FilterOutPodsByScheduler), so the others are neither pending nor in its snapshot."""
    allowed = frozenset(loop.settings.flag("allowed-scheduler-names"))
    if not allowed:
        return loop

    def kept(pod: PodInfo) -> bool:
        return (pod.spec.get("schedulerName") or "default-scheduler") in allowed

    infos = []
    for found in loop.snapshot.node_infos:
        info = NodeInfo(found.node)
        pods = [p for p in found.pods if kept(p)]
        if pods:
            info.add_pods(pods)
        infos.append(info)
    pending = [p for p in loop.pending if kept(p)]
    created = [t for p, t in zip(loop.pending, loop.pending_created) if kept(p)]
    return replace(loop, snapshot=loop.snapshot.with_node_infos(infos),
                   pending=pending, pending_created=created)


def _missing_csi_node(loop: LoopInputs) -> str | None:
    """With --enable-csi-node-aware-scheduling, the first node without a CSINode, whose
    absence ends CA's loop (SetClusterState); None when every node has one."""
    if not loop.settings.flag("enable-csi-node-aware-scheduling"):
        return None
    have = {(c.get("metadata") or {}).get("name") for c in loop.snapshot.of_kind("CSINode")}
    return next((n.name for n in loop.nodes if n.name not in have), None)


def _unix(at: datetime) -> float:
    at = at if at.tzinfo is not None else at.replace(tzinfo=timezone.utc)
    return at.timestamp()


def run_once(loop: LoopInputs) -> LoopResult:
    settings = loop.settings
    recorder = status_object(settings)
    targets = {g.name: g.target_size if g.target_size is not None else len(loop.group_members[g.name])
               for g in loop.groups}
    before = dict(targets)
    # cleanUpIfRequired: CA's own taints left by an earlier run (events on the nodes)
    in_groups = [n.name for n in loop.nodes if n.group is not None]
    cluster_events = [Event(event_object("Node", "", name), "Normal", CLEANUP, message) for name, message in
                      cleanup_events([ni.node.obj for ni in loop.snapshot.node_infos], in_groups, settings,
                                     _unix(loop.now))]
    ready = sum(1 for n in loop.nodes if n.ready and not loop.snapshot.get(n.name).node.unschedulable)

    def ended(why: str, error: str = "") -> LoopResult:
        """RunOnce returned before its status processors ran and before its pod list
        processors saw any pod: no pod is listed as unschedulable."""
        return LoopResult({}, [], Processed([]), ScaleUpStatus(NOT_TRIED), False, before, targets,
                          cluster_events=cluster_events, loop_error=error, ended_early=True, not_listed=why)

    if not settings.flag("scale-up-from-zero") and (not loop.nodes or not ready):   # EmptyClusterProcessor
        if not loop.nodes and recorder is not None:     # (no ready nodes: no event in CA's first ten minutes)
            cluster_events.append(Event(recorder, "Warning", CLUSTER_UNHEALTHY, NO_NODES_MESSAGE))
        return ended("the cluster has no ready node and --scale-up-from-zero is false: CA's loop stops before it "
                     "lists any pod")
    given = loop.pending        # (the document's pods: those of other schedulers too)
    loop = _with_allowed_schedulers(loop)
    bypassed = frozenset(settings.flag("bypassed-scheduler-names"))
    listed = [p for p in loop.pending if is_listed_unschedulable(p, bypassed)]
    missing = _missing_csi_node(loop)
    if missing is not None:
        error = f"failed to initialize ClusterSnapshot: couldn't obtain csi node: csi nodes {missing} not found"
        return ended(f"CA's loop ends with an error before it lists the unschedulable pods: {error}", error)
    templates = template_node_infos(loop)
    sim = ClusterSim(loop.snapshot, framework(loop, loop.snapshot), sim_memo(loop))
    created = dict(zip(map(id, loop.pending), loop.pending_created))
    states = readiness_states(loop)
    if not cluster_healthy(loop, states):     # RunOnce returns before its pod list processors see any pod
        if recorder is not None:
            cluster_events.append(Event(recorder, "Warning", CLUSTER_UNHEALTHY, CLUSTER_UNHEALTHY_MESSAGE))
        why = f"{unhealthy_words(loop, states)}: CA's loop stops before it lists the unschedulable pods"
        return LoopResult(templates, [], Processed([]), ScaleUpStatus(NOT_TRIED), False, before,
                          targets, cluster_events=cluster_events, not_listed=why)
    listed, pending = _tpu_cleared(listed, given, created)
    processed = process(listed, [created[id(p)] for p in listed], sim, settings, loop.now)
    to_help = processed.pods
    processed_snapshot = sim.snapshot
    max_total = settings.max_nodes_total
    called = False
    unhealthy = unhealthy_groups(loop, targets, states)

    def context() -> Context:       # a new quota tracker over the snapshot's nodes, as each scale-up makes
        return Context(settings, loop.groups, targets, templates, sim, _expander(loop), _quota_tracker(loop, sim),
                       unhealthy=unhealthy, status_object=recorder)

    if not to_help:
        status = ScaleUpStatus(NOT_NEEDED)
    elif max_nodes_total_reached(max_total, ready):
        status = ScaleUpStatus(LIMITED_BY_MAX_NODES_TOTAL,
                               remain_unschedulable=[NoScaleUpInfo(p, {}, {}) for p in to_help])
        if recorder is not None:
            cluster_events.append(Event(recorder, "Warning", MAX_NODES_TOTAL_REACHED,
                                        max_nodes_total_message(max_total)))
    elif not bypassed and _all_new([created[id(p)] for p in to_help], [p for p in to_help], loop.now):
        status = ScaleUpStatus(IN_COOLDOWN)
    else:
        called = True
        status = scale_up(context(), to_help, len(sim.snapshot.node_infos))
        cluster_events.extend(status.events)
    result = LoopResult(templates, listed, processed, status, called, before, targets, cluster_events=cluster_events,
                        snapshot=processed_snapshot, pending=pending)
    if settings.mode == "scaledown":        # RunOnce's scale-down part: kexplain.autoscaler.scaledown
        result.scale_down = loop_scale_down(loop, sim, status.result, targets)
    if settings.flag("enforce-node-group-min-size"):
        result.final_status = scale_up_to_node_group_min_size(context())
        cluster_events.extend(result.final_status.events)
    result.pod_events = recorded_pod_events(result)
    return result


def _tpu_cleared(listed: list[PodInfo], pending: list[PodInfo], created: dict[int, datetime]
                 ) -> tuple[list[PodInfo], list[PodInfo]]:
    """ClearTPURequests over the listed pods: them with each cleared copy in its pod's place, and the
    loop's pending pods likewise (`created` given the copies' times)."""
    cleared = clear_tpu_requests(listed)
    copies = {id(old): new for old, new in zip(listed, cleared) if new is not old}
    for old, new in zip(listed, cleared):
        created[id(new)] = created[id(old)]
    return cleared, [copies.get(id(p), p) for p in pending]


def _all_new(created: list[datetime], pods: list[PodInfo], now: datetime) -> bool:
    """allPodsAreNew: the oldest pod younger than 2 seconds, or the oldest pod asking for a GPU
    younger than 30."""
    if min(created) + NEW_POD_BUFFER > now:
        return True
    gpu = [t for t, p in zip(created, pods) if pod_requests_gpu(p)]
    return bool(gpu) and min(gpu) + NEW_GPU_POD_BUFFER > now


def scale_up_context(loop: LoopInputs, sim: ClusterSim, templates: dict[str, Template]) -> Context:
    """The orchestrator's context for a scale-up over `sim` outside `run_once` (a ProvisioningRequest's,
    `autoscaler.provisioningrequest`): the groups at their target sizes, as `run_once` builds it."""
    targets = {g.name: g.target_size if g.target_size is not None else len(loop.group_members[g.name])
               for g in loop.groups}
    return Context(loop.settings, loop.groups, targets, templates, sim, _expander(loop), _quota_tracker(loop, sim),
                   unhealthy=unhealthy_groups(loop, targets, readiness_states(loop)),
                   status_object=status_object(loop.settings))


def _quota_tracker(loop: LoopInputs, sim: ClusterSim):
    """The cluster-wide core, memory and GPU quota over the nodes the scale-up sees."""
    group_of = {n.name: n.group for n in loop.nodes if n.group is not None}
    templates = {g.name: g.template for g in loop.groups if g.template is not None}
    return QuotaTracker(loop.settings.resource_limits(), [ni.node.obj for ni in sim.snapshot.node_infos], group_of,
                        templates, provider=loop.provider.provider)


def _expander(loop: LoopInputs):
    """The --expander chain; the priority expander reads its ConfigMap in --namespace."""
    key = (loop.settings.flag("namespace"), PRIORITY_CONFIGMAP_NAME)
    configmap = next((c for c in loop.config_maps
                      if ((c.get("metadata") or {}).get("namespace") or "default",
                          (c.get("metadata") or {}).get("name")) == key), None)
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


def recorded_pod_events(result: LoopResult) -> dict[int, list[Event]]:
    """The events the loop records on pods (by id), in emission order: those of every status CA's
    status processor sees (`LoopResult.processed_statuses`), after those of its pod list processors."""
    events: dict[int, list[Event]] = {key: list(found) for key, found in result.processed.events.items()}
    for status in result.processed_statuses:
        for key, found in pod_events(status).items():
            events.setdefault(key, []).extend(found)
    return events


def pod_events(status: ScaleUpStatus) -> dict[int, list[Event]]:
    """The events EventingScaleUpStatusProcessor records on pods (by id) for `status` (one the
    loop's processors see, or the status of another draw of an expander tie: `ScaleUpStatus.picks`)."""
    events: dict[int, list[Event]] = {}
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
    return events

