"""One pass of Kueue over the inputs, as the README's oracle runs it: Workloads made, cycles until
a state comes round again, the workload controller's checks once; `run_pass` returns the state."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Callable

from kexplain.kueue.apis.constants import EVENT_NORMAL, REASON_CREATED_WORKLOAD
from kexplain.kueue.cache.cache import Cache
from kexplain.kueue.controller.admissionchecks import provisioning_pass
from kexplain.kueue.cache.tas_cache import TASCache
from kexplain.kueue.config import WaitForPodsReady
from kexplain.kueue.config_afs import ADMISSION_FAIR_SHARING
from kexplain.kueue.controller.core import pods_ready, workload_controller
from kexplain.kueue.controller.jobframework.reconciler import JobOutcome, Management, reconcile
from kexplain.kueue.controller.jobs import podgroup
from kexplain.kueue.inputs import KueueInputs
from kexplain.kueue.queue.manager import Manager
from kexplain.kueue.scheduler.scheduler import Scheduler
from kexplain.kueue.versions import KueueVersion
from kexplain.kueue.workload.hashing import scheduling_hash
from kexplain.kueue.workload.info import new_info
from kexplain.kueue.feature_gates import DYNAMIC_RESOURCE_ALLOCATION, FLAVOR_FUNGIBILITY
from kexplain.kueue.workload.dra import reconcile_dra, uses_claims
from kexplain.kueue.workload.requests import InfoOptions
from kexplain.kueue.workload.retention import deleted
from kexplain.kueue.workload.workload import Workload, has_active_quota_reservation, has_quota_reservation

# A bound on the cycles of one pass (the pass ends sooner, at the first state met again): each cycle
# admits, sets aside or retries a head; far more
# cycles than Workloads means a loop kexplain should not follow.
CYCLES_PER_WORKLOAD = 4
# A bound on Reconcile's runs for one Workload with admission checks (each run changes one step).
RECONCILES_PER_WORKLOAD = 8
SCHEDULER = "scheduler"
WORKLOAD_CONTROLLER = "workload-controller-rule"


@dataclass(frozen=True)
class Settings:
    version: KueueVersion
    now: datetime
    capacity: provisioning_pass.Capacity | None = None      # who answers ProvisioningRequests (CA), if anyone


@dataclass(frozen=True)
class Event:
    object: str             # NAMESPACE/NAME
    type: str
    reason: str
    message: str


@dataclass
class Pass:
    """The state a pass leaves: outcomes, Workloads, cache, queues, scheduler, events, and the step
    that decided each pending Workload."""

    settings: Settings
    inputs: KueueInputs
    outcomes: list[JobOutcome]
    workloads: dict[str, Workload]
    cache: Cache
    queues: Manager
    scheduler: Scheduler
    events: list[Event] = field(default_factory=list)
    decided_by: dict[str, str] = field(default_factory=dict)
    queue_errors: dict[str, str] = field(default_factory=dict)
    _by_key: tuple[int, dict[str, list[tuple[int, Any]]]] | None = field(default=None, repr=False, compare=False)
    provisioning: provisioning_pass.Result = field(default_factory=provisioning_pass.Result)
    _groups: dict[tuple[str, str], list[str]] | None = field(default=None, repr=False, compare=False)

    def group_pods(self, namespace: str, name: str) -> list[str]:
        """The names of the pods of pod group `name` the pass met, sorted (indexed once)."""
        if self._groups is None:
            self._groups = {}
            for outcome in self.outcomes:
                group = podgroup.group_name(outcome.job)
                if group:
                    self._groups.setdefault((outcome.job.meta.namespace, group), []).append(outcome.job.meta.name)
            for pods in self._groups.values():
                pods.sort()
        return self._groups.get((namespace, name), [])

    def cycle_of(self, entry: Any) -> int:
        """The first cycle whose entries (or inadmissible heads) hold one equal to `entry` (0: none)."""
        cycles = self.scheduler.cycles
        if self._by_key is None or self._by_key[0] != len(cycles):
            index: dict[str, list[tuple[int, Any]]] = {}
            for cycle in cycles:
                for e in [*cycle.entries, *cycle.inadmissible]:
                    index.setdefault(e.info.key, []).append((cycle.number, e))
            self._by_key = (len(cycles), index)
        for number, e in self._by_key[1].get(entry.info.key, ()):
            if e is entry or e == entry:
                return number
        return 0


def run_pass(inputs: KueueInputs, settings: Settings) -> Pass:
    now = settings.now
    events: list[Event] = []

    def record(obj: str, etype: str, reason: str, message: str) -> None:
        events.append(Event(obj, etype, reason, message))

    given = {wl.meta.key: wl for wl in inputs.workloads}
    by_owner = {wl.meta.owner_uid: wl for wl in inputs.workloads if wl.meta.owner_uid}
    outcomes: list[JobOutcome] = [JobOutcome(job) for job in inputs.jobs]
    workloads: dict[str, Workload] = {}
    version = settings.version
    management = Management(inputs.config, inputs.namespace_labels)
    for members, job in podgroup.units(inputs.jobs, version.max_pod_group_roles):    # (a pod group: one job)
        outcome = reconcile(job, by_owner, now, inputs.priority_classes, inputs.workload_priority_classes, management)
        if outcome.created and outcome.workload is not None and outcome.workload.meta.key in given:
            outcome = podgroup.adopted(job, given[outcome.workload.meta.key], version.validate_group_owner)
        for i, own in zip(members, podgroup.member_outcomes(job, outcome)):
            outcomes[i] = own
            for event in own.events:
                record(own.job.meta.key, *event)
        if outcome.created and outcome.workload is not None:
            workloads[outcome.workload.meta.key] = Workload.of(outcome.workload)
            record(job.meta.key, EVENT_NORMAL, REASON_CREATED_WORKLOAD, f"Created Workload: {outcome.workload.meta.key}")
    for obj in inputs.workloads:
        if obj.meta.created is None:
            obj = replace(obj, meta=replace(obj.meta, created=now))
        workloads.setdefault(obj.meta.key, Workload.of(obj))

    for key, wl in sorted(workloads.items()):       # objectRetentionPolicies: what Kueue has deleted by now
        if (event := deleted(wl, inputs.config.retention, now)) is not None:
            del workloads[key]
            record(*event)
    _requeues_and_timeouts(workloads, inputs.config.wait_for_pods_ready, settings, record)
    tas = TASCache.build(inputs.topologies, inputs.flavors, inputs.nodes, inputs.bound_pods)
    cache = Cache.build(inputs.flavors, inputs.cluster_queues, inputs.cohorts, inputs.admission_checks, tas)
    afs = inputs.config.admission_fair_sharing if inputs.config.enabled(ADMISSION_FAIR_SHARING) else None
    queues = Manager.build(settings.version, inputs.cluster_queues, inputs.local_queues, now, afs,
                           inputs.config.pods_ready_eviction)
    for wl in workloads.values():
        if has_active_quota_reservation(wl):
            cache.add_workload(new_info(wl))
    queue_errors, held = _queue_pending(workloads, inputs, settings, queues)

    ready = inputs.config.wait_for_pods_ready
    scheduler = Scheduler(cache, queues, inputs.namespace_labels, settings.version, now, record,
                          inputs.config.fair_sharing, block_admission=ready is not None and ready.block_admission,
                          flavor_fungibility=inputs.config.enabled(FLAVOR_FUNGIBILITY),
                          pods_ready_eviction=inputs.config.pods_ready_eviction)
    done = Pass(settings, inputs, outcomes, workloads, cache, queues, scheduler, events, queue_errors=queue_errors)
    done.decided_by.update(dict.fromkeys(held, WORKLOAD_CONTROLLER))
    limit = CYCLES_PER_WORKLOAD * len(workloads) + 2
    pending = [(k, wl) for k, wl in workloads.items() if not wl.admitted_in_input]   # (fixed over the cycles)
    seen = {_digest(done, pending)}
    while len(scheduler.cycles) < limit:
        if not scheduler.schedule():
            break
        after = _digest(done, pending)
        if after in seen:       # a state met before: the cycles from here repeat it (a head's flavors in turn)
            break
        seen.add(after)
    for entry_cycle in scheduler.cycles:
        for entry in [*entry_cycle.entries, *entry_cycle.inadmissible]:
            done.decided_by[entry.info.key] = SCHEDULER
    _reconcile_checks(done)
    _provisioning(done)
    for wl in workloads.values():
        if has_quota_reservation(wl) or not wl.spec.active:
            continue
        found = workload_controller.inadmissible(wl, {lq.key: lq for lq in inputs.local_queues},
                                                 queues.cluster_queue_for, cache.active)
        if found is not None:
            workload_controller.reconcile(wl, found, now)
            done.decided_by[wl.key] = WORKLOAD_CONTROLLER
    return done


def _queue_pending(workloads: dict[str, Workload], inputs: KueueInputs, settings: Settings,
                   queues: Manager) -> tuple[dict[str, str], list[str]]:
    """Each Workload without quota into its queue, its requests as the Configuration's `resources`
    leave them (with DynamicResourceAllocation, its claims' devices too: one Kueue cannot count stays
    inadmissible, not queued); what a queue refused, by Workload, and the Workloads held so."""
    version = settings.version
    options = InfoOptions(inputs.config.resources, version.transformations_summed)
    dra = inputs.config.enabled(DYNAMIC_RESOURCE_ALLOCATION)
    queue_errors, held = {}, []
    for wl in workloads.values():
        if has_quota_reservation(wl):
            continue
        own = options
        if dra and uses_claims(wl.spec.pod_sets):       # the workload controller's DRA step
            counted = reconcile_dra(wl, inputs.claim_templates, dict(inputs.config.resources.device_classes),
                                    settings.now)
            if counted is None:
                held.append(wl.key)
                continue
            own = replace(options, dra=counted)
        info = new_info(wl, own)
        if version.equivalence_hashing:
            info.scheduling_hash = scheduling_hash(info)
        problem = queues.add_workload(info)
        if problem:
            queue_errors[wl.key] = problem
    return queue_errors, held


def _requeues_and_timeouts(workloads: dict[str, Workload], ready: WaitForPodsReady | None, settings: Settings,
                         record: Callable[[str, str, str, str], None]) -> None:
    """The workload controller at the pass's clock, before the scheduler runs: a Workload whose requeue
    backoff is over is requeued; with waitForPodsReady, one admitted past its PodsReady timeout is evicted
    (or deactivated)."""
    ctx = workload_controller.CheckContext(None, settings.now, settings.version, record)
    for _, wl in sorted(workloads.items()):
        pods_ready.requeue_after_backoff(wl, settings.now)
        if ready is not None:
            pods_ready.reconcile_timeout(wl, ready, ctx)


def _reconcile_checks(done: Pass) -> None:
    """The workload controller after the scheduler on every Workload of a ClusterQueue with
    admission checks and every one carrying check states, each until Reconcile changes nothing."""
    by_name = {cq.name: cq for cq in done.inputs.cluster_queues}
    for key, wl in sorted(done.workloads.items()):
        name, found = done.queues.cluster_queue_for(wl.meta.namespace, wl.spec.queue_name)
        cq = by_name.get(name) if found else None
        if not wl.admission_checks and (cq is None or not cq.admission_checks):
            continue
        ctx = workload_controller.CheckContext(cq, done.settings.now, done.settings.version,
                                               lambda *event: done.events.append(Event(*event)))
        for _ in range(RECONCILES_PER_WORKLOAD):
            if not workload_controller.reconcile_checks(wl, ctx):
                break
            done.decided_by[key] = WORKLOAD_CONTROLLER


def _provisioning(done: Pass) -> None:
    """The ProvisioningRequest controller after the workload controller, then the workload
    controller again on what it changed (a check Ready admits, Retry evicts, Rejected deactivates)."""
    inputs = provisioning_pass.Inputs(done.inputs.admission_checks, done.inputs.provisioning_request_configs,
                                      done.inputs.flavors)
    done.provisioning = provisioning_pass.reconcile(done.workloads, inputs, done.settings.capacity)
    if done.provisioning.changed:
        _reconcile_checks(done)


def _fingerprint(done: Pass, pending: list[tuple[str, Workload]]) -> tuple:
    """What a cycle may change: pending Workloads' status, the preemptions issued, the queues."""
    statuses = (tuple((k, tuple(wl.conditions), wl.admission) for k, wl in pending), done.scheduler.evictions)
    queues = tuple((name, tuple(sorted(i.key for i in cq.heap.items())), tuple(sorted(cq.inadmissible)),
                    tuple((i.key, repr(i.last_assignment)) for i in cq.heap.items()))
                   for name, cq in sorted(done.queues.cluster_queues.items()))
    return statuses, queues


def _digest(done: Pass, pending: list[tuple[str, Workload]]) -> int:
    """The fingerprint kept small: its text's hash (conditions and admissions hold dicts)."""
    return hash(repr(_fingerprint(done, pending)))
