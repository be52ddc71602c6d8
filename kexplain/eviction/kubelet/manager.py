"""The kubelet's eviction manager (`eviction_manager.go`): one housekeeping pass (`synchronize`)
over a stats Summary, from the state the previous pass left (thresholds first met, conditions last
seen, the thresholds met and the observations it acted on). A pass: the thresholds met (the
previous ones kept until their minimum reclaim is met), the node conditions within the transition
period, the thresholds past their grace period whose stats are new, the local storage limits, then
the threshold to reclaim, the node-level reclaim tried first, the ranking and at most one pod
evicted. Values in, values out: the state is returned, never changed."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Mapping, Optional, Sequence

from kexplain.eviction.kubelet import local_storage
from kexplain.eviction.kubelet import message as msg
from kexplain.eviction.kubelet import rank
from kexplain.eviction.kubelet import signals as sig
from kexplain.eviction.kubelet import thresholds as th
from kexplain.eviction.kubelet.config import EvictionConfig

IMMEDIATE_GRACE_PERIOD_SECONDS = 1
THRESHOLD_MET_EVENT = "EvictionThresholdMet"
ATTEMPTING_TO_RECLAIM = "Attempting to reclaim {}"
DISRUPTION_TARGET, TERMINATION_BY_KUBELET = "DisruptionTarget", "TerminationByKubelet"
RECLAIM_CONTAINERS, RECLAIM_IMAGES = "containers", "images"

LOG_RECLAIM = "Eviction manager: attempting to reclaim"
LOG_MUST_EVICT = "Eviction manager: must evict pod(s) to reclaim"
LOG_REDUCED = "Eviction manager: able to reduce resource pressure without evicting pods."
LOG_RANKED = "Eviction manager: pods ranked for eviction"
LOG_CRITICAL = "Eviction manager: cannot evict a critical pod"
LOG_EVICTED = "Eviction manager: pod is evicted successfully"
LOG_NO_PODS = "Eviction manager: eviction thresholds have been met, but no pods are active to evict"
LOG_NONE_EVICTED = "Eviction manager: unable to evict any pods from the node"


@dataclass(frozen=True)
class Filesystems:
    """What cAdvisor tells the kubelet: a dedicated image filesystem, and a split one (images
    apart, the containers' writable layers on the node's)."""

    image_fs: bool = False
    split: bool = False

    @classmethod
    def named(cls, name: str) -> "Filesystems":
        return {"shared": cls(), "imagefs": cls(True, False), "split": cls(True, True)}[name]


@dataclass(frozen=True)
class State:
    """What a pass leaves the next (the managerImpl's fields)."""

    thresholds: tuple[th.Threshold, ...]            # m.config.Thresholds
    updated: bool = False                           # UpdateContainerFsThresholds has run
    thresholds_met: tuple[th.Threshold, ...] = ()
    first_observed: Mapping[th.Threshold, datetime] = field(default_factory=dict)
    conditions_last: Mapping[str, datetime] = field(default_factory=dict)
    node_conditions: tuple[str, ...] = ()
    last_observations: Mapping[str, sig.Observation] = field(default_factory=dict)


@dataclass(frozen=True)
class Met:
    """A threshold met, grace ignored: its quantity for the observed capacity, since when."""

    threshold: th.Threshold
    quantity: str
    first_observed_at: datetime
    grace_period_met: bool


@dataclass(frozen=True)
class Eviction:
    """A pod the kubelet evicts: the grace period, the status message and the event's annotations;
    `condition`: a DisruptionTarget condition is written (pressure evictions, not local storage)."""

    pod: str
    grace_period_seconds: int
    message: str
    annotations: Mapping[str, str]
    condition: bool


@dataclass(frozen=True)
class Event:
    object: str
    reason: str
    message: str
    annotations: Mapping[str, str] = field(default_factory=dict)
    type: str = "Warning"


@dataclass(frozen=True)
class Choice:
    """One threshold the kubelet may act on when several memory thresholds are met past grace:
    thresholdsMetGracePeriod ranges over a map and byEvictionPriority puts every memory threshold
    before the others (the last one the map gave ends first), so any of them is acted on; the
    eviction it makes (None: no pod evicted)."""

    threshold: th.Threshold
    quantity: str
    eviction: Optional[Eviction]


@dataclass(frozen=True)
class Pass:
    """One synchronize: what it observed, decided and did."""

    at: datetime
    observations: Mapping[str, sig.Observation]
    met: tuple[Met, ...] = ()
    node_conditions: tuple[str, ...] = ()
    acting: tuple[th.Threshold, ...] = ()             # grace met, stats updated, by eviction priority
    stale: tuple[th.Threshold, ...] = ()              # grace met, but the sample is not newer than the last pass's
    conditions_last: Mapping[str, datetime] = field(default_factory=dict)   # when each condition was last seen
    reclaim: Optional[th.Threshold] = None
    reclaim_resource: str = ""
    node_level_reclaim: tuple[str, ...] = ()
    node_level_resolved: bool = False
    ranking: tuple[rank.Ranked, ...] = ()
    skipped_critical: tuple[str, ...] = ()
    evicted: tuple[Eviction, ...] = ()
    events: tuple[Event, ...] = ()
    log: tuple[str, ...] = ()
    choices: tuple[Choice, ...] = ()      # several memory thresholds to act on: each (`reclaim` first)


@dataclass(frozen=True)
class Inputs:
    """What one pass reads: the clock, the Summary, the active pods in the pod manager's order."""

    now: datetime
    summary: Mapping
    pods: Sequence[Mapping]
    node: str
    filesystems: Filesystems
    pod_level_message: bool = True


def initial_state(config: EvictionConfig) -> State:
    return State(tuple(config.thresholds))


def node_reclaim_functions(signal: str, fs: Filesystems) -> tuple[str, ...]:
    """buildSignalToNodeReclaimFuncs: the garbage collections tried for a disk signal."""
    if signal not in th.SIGNALS or th.SIGNALS[signal][0] != th.DISK_PRESSURE:
        return ()
    node = signal in (th.NODEFS_AVAILABLE, th.NODEFS_INODES_FREE)
    image = signal in (th.IMAGEFS_AVAILABLE, th.IMAGEFS_INODES_FREE)
    if fs.image_fs and not fs.split:
        return () if node else (RECLAIM_CONTAINERS, RECLAIM_IMAGES)
    if fs.image_fs and fs.split:
        return (RECLAIM_IMAGES,) if image else (RECLAIM_CONTAINERS,)
    return RECLAIM_CONTAINERS, RECLAIM_IMAGES


class _Recorder:
    """The pass's evictPod and recorder: events, evictions, critical pods refused, log."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.evicted: list[Eviction] = []
        self.skipped: list[str] = []
        self.log: list[str] = []

    def evict(self, c: rank.Candidate, grace: int, message: str, annotations: Mapping[str, str],
              condition: bool) -> bool:
        if rank.is_critical(c.pod):
            self.log.append(LOG_CRITICAL)
            self.skipped.append(c.name)
            return False
        self.events.append(Event(c.name, msg.REASON, message, dict(annotations)))
        self.evicted.append(Eviction(c.name, grace, message, dict(annotations), condition))
        self.log.append(LOG_EVICTED)
        return True

    def local(self, c: rank.Candidate, message: str) -> bool:
        return self.evict(c, IMMEDIATE_GRACE_PERIOD_SECONDS, message, {}, False)

    def result(self, base: Pass, **more) -> Pass:
        return replace(base, skipped_critical=tuple(self.skipped), evicted=tuple(self.evicted),
                       events=tuple(self.events), log=tuple(self.log), **more)


def _met(thresholds: Sequence[th.Threshold], first: Mapping[th.Threshold, datetime],
         observations: Mapping[str, sig.Observation], now: datetime) -> tuple[Met, ...]:
    out = []
    for t in sorted(thresholds, key=th.sort_key):
        seen = observations[t.signal]
        out.append(Met(t, str(t.value.quantity_for(seen.capacity)), first[t], th.grace_met(t, first[t], now)))
    return tuple(out)


def observe(state: State, config: EvictionConfig, inputs: Inputs,
            observations: Mapping[str, sig.Observation]) -> tuple[State, Pass, list[th.Threshold]]:
    """The bookkeeping half of synchronize: thresholds met, conditions, grace periods; the state
    it leaves and the thresholds to act on (grace met, stats updated)."""
    thresholds = list(state.thresholds)
    configured = thresholds
    if not state.updated:
        configured = th.update_container_fs_thresholds(thresholds, inputs.filesystems.image_fs,
                                                       inputs.filesystems.split)
    now = inputs.now
    met = th.met(thresholds, observations, False)
    if state.thresholds_met:
        met = th.merge(met, th.met(state.thresholds_met, observations, True))
    first = th.first_observed_at(met, state.first_observed, now)
    last_seen = th.conditions_last_observed_at(th.node_conditions(met), state.conditions_last, now)
    conditions = tuple(th.conditions_observed_since(last_seen, config.transition_ns, now))
    graced = th.met_grace_period(first, now)
    new_state = State(tuple(configured), True, tuple(graced), first, last_seen, conditions, observations)
    acting = th.updated_stats(graced, observations, state.last_observations)
    stale = tuple(t for t in graced if t not in acting)
    return new_state, Pass(now, observations, _met(met, first, observations, now), conditions, stale=stale,
                           conditions_last=last_seen), acting


def conditions_of(config: EvictionConfig, summary: Mapping, node: str, fs: Filesystems,
                  now: datetime) -> tuple[str, ...]:
    """The node conditions a first pass over `summary` reports (every threshold met, grace
    ignored): what the eviction manager's admit handler reads once the kubelet saw this Summary."""
    state, _, _ = observe(initial_state(config), config, Inputs(now, summary, (), node, fs),
                          sig.observations(summary))
    return state.node_conditions


def synchronize(state: State, config: EvictionConfig, inputs: Inputs) -> tuple[State, Pass]:
    """One housekeeping pass; the state it leaves and what it did."""
    observations = sig.observations(inputs.summary)
    if not state.thresholds and not config.local_storage_isolation:
        return state, Pass(inputs.now, observations)
    new_state, observed, acting = observe(state, config, inputs, observations)
    stats = sig.pod_stats(inputs.summary)
    candidates = [rank.Candidate(p, stats.get(str((p.get("metadata") or {}).get("uid") or ""))) for p in inputs.pods]
    recorder = _Recorder()
    if config.local_storage_isolation and local_storage.local_storage_evictions(
            candidates, recorder.local, inputs.filesystems.image_fs):
        return new_state, recorder.result(observed)
    if not acting:
        return new_state, recorder.result(observed)
    return new_state, _reclaim(new_state, config, inputs, candidates, observed, acting, recorder)


def _reclaim(state: State, config: EvictionConfig, inputs: Inputs, candidates: list[rank.Candidate],
             observed: Pass, acting: list[th.Threshold], recorder: _Recorder) -> Pass:
    """The acting half: the threshold to reclaim, node-level reclaim, ranking, one eviction."""
    ordered = th.by_eviction_priority(acting)
    found = th.reclaimable(ordered)
    base = replace(observed, acting=tuple(ordered))
    if found is None:
        return recorder.result(base)
    threshold, resource = found
    recorder.log.append(LOG_RECLAIM)
    recorder.events.append(Event(inputs.node, THRESHOLD_MET_EVENT, ATTEMPTING_TO_RECLAIM.format(resource)))
    gc = node_reclaim_functions(threshold.signal, inputs.filesystems)
    base = replace(base, reclaim=threshold, reclaim_resource=resource, node_level_reclaim=gc)
    # the garbage collections free nothing here: the same observations are judged again
    if gc and not th.met(state.thresholds, observed.observations, True):
        recorder.log.append(LOG_REDUCED)
        return recorder.result(base, node_level_resolved=True)
    recorder.log.append(LOG_MUST_EVICT)
    comparators = rank.rank_function(threshold.signal, inputs.filesystems.image_fs, inputs.filesystems.split)
    if comparators is None:
        return recorder.result(base)
    if not candidates:
        recorder.log.append(LOG_NO_PODS)
        return recorder.result(base)
    ranking = rank.rank(candidates, comparators)
    recorder.log.append(LOG_RANKED)
    for ranked in ranking:
        c = ranked.candidate
        text, annotations = msg.eviction_message(resource, c.pod, c.stats, ordered, observed.observations,
                                                 inputs.pod_level_message)
        if recorder.evict(c, _grace_period(threshold, c.pod, config), text, annotations, True):
            break
    else:
        recorder.log.append(LOG_NONE_EVICTED)
    choices = _choices(threshold, ordered, config, inputs, candidates, observed.observations)
    return recorder.result(base, ranking=tuple(ranking), choices=choices)


MEMORY_SIGNALS = (th.MEMORY_AVAILABLE, th.ALLOCATABLE_MEMORY_AVAILABLE)


def _choices(chosen: th.Threshold, ordered: Sequence[th.Threshold], config: EvictionConfig, inputs: Inputs,
             candidates: list[rank.Candidate], observations: Mapping[str, sig.Observation]) -> tuple[Choice, ...]:
    """Every memory threshold the kubelet may act on, `chosen` (the one `reclaim` follows) first,
    with the eviction each makes (its grace period and message's threshold quantity); () when
    only one could be."""
    memory = [t for t in ordered if t.signal in MEMORY_SIGNALS]
    if chosen.signal not in MEMORY_SIGNALS or len(memory) < 2:
        return ()
    out = []
    for t in [chosen, *(m for m in memory if m is not chosen)]:
        order = [t, *(x for x in ordered if x is not t)]
        comparators = rank.rank_function(t.signal, inputs.filesystems.image_fs, inputs.filesystems.split)
        ranking = rank.rank(candidates, comparators) if comparators is not None else ()
        first = next((r.candidate for r in ranking if not rank.is_critical(r.candidate.pod)), None)
        eviction = None
        if first is not None:
            text, annotations = msg.eviction_message(t.resource, first.pod, first.stats, order, observations,
                                                     inputs.pod_level_message)
            eviction = Eviction(first.name, _grace_period(t, first.pod, config), text, dict(annotations), True)
        out.append(Choice(t, str(t.value.quantity_for(observations[t.signal].capacity)), eviction))
    return tuple(out)


def _grace_period(threshold: th.Threshold, pod: Mapping, config: EvictionConfig) -> int:
    """1 s for a hard threshold; for a soft one, the pod's own grace period capped at
    evictionMaxPodGracePeriod."""
    if threshold.hard:
        return IMMEDIATE_GRACE_PERIOD_SECONDS
    own = (pod.get("spec") or {}).get("terminationGracePeriodSeconds")
    if isinstance(own, int) and not isinstance(own, bool):
        return min(config.max_pod_grace_seconds, own)
    return config.max_pod_grace_seconds
