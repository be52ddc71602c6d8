"""Why a Workload is pending, as data (the document's `explanation`): the deciding step, its place
in its queue, each flavor tried with the quota numbers behind it, and what preemption would do."""
from __future__ import annotations

import functools
from typing import Any

from kexplain.kueue.apis.constants import NEVER, QUOTA_RESERVED, STRICT_FIFO
from kexplain.kueue.apis.topology import domains_view
from kexplain.kueue.cache.snapshot import ClusterQueueSnapshot, Snapshot
from kexplain.kueue.cache.tas_snapshot import Placement
from kexplain.kueue.document import document
from kexplain.kueue.queue.afs import shares_view
from kexplain.kueue.resources import FlavorResource, resource_quantity_text
from kexplain.kueue.run import WORKLOAD_CONTROLLER, Pass
from kexplain.kueue.scheduler.flavorassigner.flavorassigner import Assignment, FlavorAssigner, FlavorTrial, QuotaCheck
from kexplain.kueue.scheduler.flavorassigner.modes import MODE_NAMES, PM_NAMES, assignment_mode
from kexplain.kueue.cache import fair_sharing as fs
from kexplain.kueue.scheduler.preemption import classical, preemption
from kexplain.kueue.scheduler.preemption.common import satisfies_policy
from kexplain.kueue.scheduler.scheduler import Entry
from kexplain.kueue.workload.info import Info
from kexplain.kueue.workload.ordering import priority
from kexplain.kueue.workload.workload import Workload, backoff_expired, has_quota_reservation, is_evicted

# The verdicts
ADMITTED, PENDING, PENDING_PREEMPTION, INADMISSIBLE, NOT_TRIED, NOT_QUEUED = (
    "Admitted", "Pending", "PendingPreemption", "Inadmissible", "NotTried", "NotQueued")
WAITING_FOR_PODS_READY = "WaitingForPodsReady"     # it fits; blockAdmission holds the scheduler
BACKOFF = "Backoff"             # its requeue backoff not over: the queue keeps it aside


def explained_pass(done: Pass) -> dict[str, Any]:
    doc = document(done)
    doc["explanation"] = explanation(done)
    return doc


def _q(resource: str, amount: int | None) -> str | None:
    return None if amount is None else resource_quantity_text(resource, amount)


def last_entries(done: Pass) -> dict[str, Entry]:
    """Each Workload's last evaluation by the scheduler."""
    out: dict[str, Entry] = {}
    for cycle in done.scheduler.cycles:
        for entry in [*cycle.entries, *cycle.inadmissible]:
            out[entry.info.key] = entry
    return out


def explanation(done: Pass) -> dict[str, Any]:
    entries = last_entries(done)
    snapshot = done.cache.snapshot()
    out = []
    for key, wl in sorted(done.workloads.items()):
        if has_quota_reservation(wl) or not wl.spec.active:
            continue
        out.append(workload_explanation(done, wl, entries.get(key), snapshot))
    return {"workloads": out}


def _verdict(done: Pass, wl: Workload, entry: Entry | None) -> str:
    if done.decided_by.get(wl.key) == WORKLOAD_CONTROLLER:
        return INADMISSIBLE
    if entry is None:
        if wl.key in done.queue_errors:
            return NOT_QUEUED
        return NOT_TRIED if backoff_expired(wl, done.settings.now) else BACKOFF
    if entry.preempted:
        return PENDING_PREEMPTION
    if done.scheduler.blocked == wl.key:
        return WAITING_FOR_PODS_READY
    return PENDING


def workload_explanation(done: Pass, wl: Workload, entry: Entry | None, snapshot: Snapshot) -> dict[str, Any]:
    cq_name, _ = done.queues.cluster_queue_for(wl.meta.namespace, wl.spec.queue_name)
    item: dict[str, Any] = {"workload": wl.key, "queueName": wl.spec.queue_name, "verdict": _verdict(done, wl, entry),
                            "priority": priority(wl)}
    if cq_name:
        item["clusterQueue"] = cq_name
    cond = wl.find(QUOTA_RESERVED)
    if cond is not None:
        item["message"] = cond.message
    if wl.key in done.queue_errors:
        item["queueError"] = done.queue_errors[wl.key]
    queue = queue_position(done, wl)
    if queue:
        item["queue"] = queue
    if item["verdict"] == NOT_TRIED and queue:
        never = never_admitted(done, wl, queue["clusterQueue"], snapshot)
        if never:
            item["neverAdmitted"] = never
    if entry is not None:
        item["cycle"] = done.cycle_of(entry)
        if entry.assignment is not None:
            item["podSets"] = pod_sets(entry.assignment, entry.info)
            if entry.full_assignment is not None:
                item["partialAdmission"] = {"counts": {ps.name: ps.count for ps in entry.assignment.pod_sets},
                                            "fullCounts": {ps.name: ps.count for ps in entry.full_assignment.pod_sets}}
            if entry.targets:
                item["preemptionTargets"] = [{"workload": t.info.key, "clusterQueue": t.info.cluster_queue,
                                              "reason": t.reason} for t in entry.targets]
            short = _short_resources(entry.assignment)
            cq = snapshot.cluster_queue(entry.info.cluster_queue)
            if short and cq is not None:
                item["preemption"] = preemption_candidates(entry.info, cq, snapshot, short,
                                                           {t.info.key for t in entry.targets},
                                                           done.inputs.config.pods_ready_eviction)
                fair = fair_sharing_view(done, entry, cq, snapshot)
                if fair is not None:
                    _fair_verdicts(item["preemption"], fair)
    return item


def queue_position(done: Pass, wl: Workload) -> dict[str, Any] | None:
    """Where the Workload waits: its place in queue order, those ahead, whether set aside as
    inadmissible, and under StrictFIFO the head it waits behind."""
    lq = done.queues.local_queues.get(f"{wl.meta.namespace}/{wl.spec.queue_name}")
    if lq is None:
        return None
    cq = done.queues.cluster_queues.get(lq.cluster_queue)
    if cq is None:
        return None
    everyone = [*cq.heap.items(), *cq.inadmissible.values()]
    info = next((i for i in everyone if i.key == wl.key), None)
    if info is None:
        return None
    ordered = sorted(everyone, key=functools.cmp_to_key(cq.compare))
    ahead = [i.key for i in ordered if cq.compare(i, info) < 0]
    out: dict[str, Any] = {"clusterQueue": cq.name, "strategy": cq.strategy, "position": len(ahead) + 1,
                           "of": len(ordered), "ahead": ahead, "setAside": wl.key in cq.inadmissible}
    if cq.strategy == STRICT_FIFO and len(cq.heap):
        head = cq.pending()[0]
        if head.key != wl.key:
            out["blockedBy"] = head.key
    if done.queues.cluster_queues[cq.name] and not done.cache.active(cq.name):
        out["clusterQueueInactive"] = True
        if inactive := _inactive_checks(done, cq.name):
            out["inactiveChecks"] = inactive
    if done.queues.afs is not None and cq.afs_ordering:     # UsageBasedAdmissionFairSharing: usage went first
        out["admissionFairSharing"] = {"localQueue": lq.key,
                                       "localQueues": shares_view(done.queues.afs, cq.local_queue_keys)}
    return out


def _inactive_checks(done: Pass, cq_name: str) -> list[dict[str, str]]:
    """The ClusterQueue's checks that are not Active, with their Active condition's reason and message
    (a MultiKueue check's as its controller sets it)."""
    cached = done.cache.cluster_queues.get(cq_name)
    checks = done.inputs.admission_checks
    return [{"name": name, "reason": checks[name].inactive_reason, "message": checks[name].inactive_message}
            for name in (cached.inactive_checks if cached is not None else ()) if name in checks]


def never_admitted(done: Pass, wl: Workload, cq_name: str, snapshot: Snapshot) -> dict[str, Any] | None:
    """For a Workload the scheduler never took: its flavor assignment as the ClusterQueue stands
    now (Kueue's flavor assigner, as if it were the head), when some pod set can have no flavor
    whatever the usage: each flavor skipped (a taint, the node labels, missing) or asking more
    than the flavor's maximum capacity. None when it could be admitted once its turn comes."""
    cq = snapshot.cluster_queue(cq_name)
    queued = done.queues.cluster_queues.get(cq_name)
    found = next((i for i in [*queued.heap.items(), *queued.inadmissible.values()] if i.key == wl.key), None) \
        if queued is not None else None
    if cq is None or found is None:
        return None
    info = Info(found.obj, found.total_requests, cq_name)
    assignment = FlavorAssigner(info, cq, snapshot.flavors, done.scheduler.oracle(snapshot),
                                done.scheduler.version).assign()
    for ps in pod_sets(assignment, info):
        trials = ps["trials"]
        if trials and all(t.get("skipped") or any(q.get("overCapacity") for q in t.get("quotas") or ())
                          for t in trials):
            return {"podSet": ps["name"], "trials": trials}
    return None


def pod_sets(assignment: Assignment, info: Info) -> list[dict[str, Any]]:
    out = []
    for i, psa in enumerate(assignment.pod_sets):
        per_pod = info.total_requests[i].single_pod_requests() if i < len(info.total_requests) else {}
        item: dict[str, Any] = {
            "name": psa.name, "count": psa.count,
            "requests": {r: resource_quantity_text(r, v) for r, v in per_pod.items()},
            "mode": MODE_NAMES[psa.representative_mode()],
            "flavors": {r: fa.name for r, fa in psa.flavors.items()},
            "trials": [trial(t) for t in psa.trials],
        }
        if not psa.status.is_fit():
            item["message"] = psa.status.message()
        if psa.placement is not None:
            item["topology"] = topology_item(psa.placement)
        out.append(item)
    return out


def topology_item(placement: Placement) -> dict[str, Any]:
    """A pod set's TAS placement: the assignment, or Kueue's reason with the domains closest per
    level, the Nodes left out and the largest count one domain takes (verified)."""
    if placement.assignment is not None:
        return {"placed": True, "assignment": domains_view(placement.assignment)}
    out: dict[str, Any] = {"placed": False, "reason": placement.reason}
    stats = placement.exclusions
    if stats.total:
        out["nodes"] = stats.total
    if stats.any():
        out["excluded"] = {**({"nodeSelector": stats.node_selector} if stats.node_selector else {}),
                           **({"affinity": stats.affinity} if stats.affinity else {}),
                           **({"taints": dict(stats.taints)} if stats.taints else {}),
                           **({"resources": dict(stats.resources)} if stats.resources else {})}
    if placement.closest:
        out["closest"] = list(placement.closest)
    if placement.largest_fit is not None:
        out["largestFit"] = placement.largest_fit
    return out


def trial(t: FlavorTrial) -> dict[str, Any]:
    out: dict[str, Any] = {"resource": t.resource, "flavor": t.flavor}
    if t.skip:
        out["skipped"] = t.skip
        if t.taint is not None:
            out["taint"] = {k: t.taint.get(k) for k in ("key", "value", "effect") if t.taint.get(k)}
        if t.selector_keys:
            out["flavorLabelKeys"] = list(t.selector_keys)
        return out
    out["mode"] = MODE_NAMES[assignment_mode(t.mode)]
    out["preemptionMode"] = PM_NAMES[t.mode]
    if t.borrow:
        out["borrowingLevel"] = t.borrow
    out["searchWentOn"] = t.next_rule or None
    out["quotas"] = [quota(q) for q in t.quotas]
    return {k: v for k, v in out.items() if v is not None}


def quota(q: QuotaCheck) -> dict[str, Any]:
    r = q.resource
    want = q.assumed + q.request
    out: dict[str, Any] = {"resource": r, "flavor": q.flavor, "request": _q(r, q.request),
                           "previousPodSets": _q(r, q.assumed), "nominal": _q(r, q.nominal), "used": _q(r, q.used),
                           "available": _q(r, q.available), "maxCapacity": _q(r, q.capacity),
                           "preemptionMode": PM_NAMES[q.mode]}
    if q.borrowing_limit is not None:
        out["borrowingLimit"] = _q(r, q.borrowing_limit)
    if q.lending_limit is not None:
        out["lendingLimit"] = _q(r, q.lending_limit)
    if want > q.capacity:
        out["overCapacity"] = _q(r, want - q.capacity)
    elif want > q.available:
        out["short"] = _q(r, want - q.available)
    if q.borrow:
        out["borrowingLevel"] = q.borrow
    if q.lenders:
        out["lenders"] = [{"kind": lender.kind, "name": lender.name, "unused": _q(r, lender.unused),
                           "lendable": _q(r, lender.lendable)} for lender in q.lenders]
    if q.targets:
        out["preemptionTargets"] = list(q.targets)
    return out


def _short_resources(assignment: Assignment) -> frozenset[FlavorResource]:
    """The (flavor, resource) pairs the last evaluation found short."""
    out = set()
    for psa in assignment.pod_sets:
        for t in psa.trials:
            for q in t.quotas:
                if q.assumed + q.request > q.available:
                    out.add(FlavorResource(q.flavor, q.resource))
    return frozenset(out)


# Admitted Workloads listed per preemption verdict (every target is); the rest are counted.
CANDIDATES_SHOWN = 10
# Why an admitted Workload is or is not a preemption candidate
TARGET, CANDIDATE = "target", "candidate"
POLICY_NEVER, NOT_LOWER, NOT_LOWER_OR_NEWER_EQUAL = "policy-never", "not-lower-priority", "not-lower-or-newer-equal"
RECLAIM_NEVER, LENDER_WITHIN_NOMINAL, RESOURCE_NOT_USED, EVICTED = (
    "reclaim-never", "queue-within-nominal", "resource-not-used", "being-evicted")


def preemption_candidates(info: Info, cq: ClusterQueueSnapshot, snapshot: Snapshot, frs: frozenset[FlavorResource],
                          targets: set[str], pods_ready_eviction: bool = True) -> dict[str, Any]:
    """Every admitted Workload of the ClusterQueue and its cohort tree, whether preemption could
    take it for the resources short and why (codes), and the policies that decide it (the
    Ordering's requeuing timestamp: `pods_ready_eviction`)."""
    policy = cq.preemption
    candidates = []
    left_out: dict[str, int] = {}
    shown: dict[str, int] = {}
    queues = [cq] if cq.parent is None else cq.parent.root().subtree_cluster_queues()
    for other in sorted(queues, key=lambda q: (q is not cq, q.name)):
        for admitted in sorted(other.workloads.values(), key=lambda i: i.key):
            item = _candidate(info, cq, other, admitted, frs, targets, pods_ready_eviction)
            verdict = item["verdict"]
            if verdict != TARGET and shown.get(verdict, 0) >= CANDIDATES_SHOWN:
                left_out[verdict] = left_out.get(verdict, 0) + 1
                continue
            shown[verdict] = shown.get(verdict, 0) + 1
            candidates.append(item)
    return {"withinClusterQueue": policy.within_cluster_queue, "reclaimWithinCohort": policy.reclaim_within_cohort,
            "borrowWithinCohort": policy.borrow_within_cohort,
            **({"maxPriorityThreshold": policy.max_priority_threshold}
               if policy.max_priority_threshold is not None else {}),
            "resources": [{"flavor": fr.flavor, "resource": fr.resource} for fr in sorted(frs)],
            "candidates": candidates, **({"leftOut": left_out} if left_out else {})}


def _candidate(info: Info, cq: ClusterQueueSnapshot, other: ClusterQueueSnapshot, admitted: Info,
               frs: frozenset[FlavorResource], targets: set[str], pods_ready_eviction: bool = True) -> dict[str, Any]:
    item: dict[str, Any] = {"workload": admitted.key, "clusterQueue": other.name, "priority": priority(admitted.obj)}
    own = other is cq
    policy = cq.preemption.within_cluster_queue if own else cq.preemption.reclaim_within_cohort
    if admitted.key in targets:
        item["verdict"] = TARGET
    elif is_evicted(admitted.obj):
        item["verdict"] = EVICTED
    elif not classical.uses_resources(admitted, frs):
        item["verdict"] = RESOURCE_NOT_USED
    elif policy == NEVER:
        item["verdict"] = POLICY_NEVER if own else RECLAIM_NEVER
    elif not satisfies_policy(info.obj, admitted.obj, policy, pods_ready_eviction):
        item["verdict"] = NOT_LOWER_OR_NEWER_EQUAL if policy == "LowerOrNewerEqualPriority" else NOT_LOWER
    elif not own and not any(other.borrowing(fr) for fr in frs):
        item["verdict"] = LENDER_WITHIN_NOMINAL
    else:
        item["verdict"] = CANDIDATE
    return item




# -- fair sharing: the strategies' refusals ------------------------------------------------------
FAIR_SHARING_REFUSED = "fair-sharing-refused"


def drs_view(drs: fs.DRS) -> dict[str, Any]:
    """A dominant resource share as Kueue serializes it (PreciseWeightedShareSerialized: Go's
    shortest decimal, `+Inf` for a zero weight that borrows), with its weight and resource."""
    share = drs.weighted_share()
    text = "+Inf" if share == float("inf") else _go_float(share)
    out: dict[str, Any] = {"share": text, "weight": _go_float(drs.fair_weight)}
    if drs.dominant_resource:
        out["dominantResource"] = drs.dominant_resource
    return out


def _go_float(value: float) -> str:
    """strconv.FormatFloat(v, 'f', -1, 64): the shortest decimal, never an exponent."""
    text = repr(float(value))
    if "e" in text or "E" in text:
        text = format(value, "f").rstrip("0").rstrip(".")
    return text[:-2] if text.endswith(".0") else text


def fair_sharing_view(done: Pass, entry: Entry, cq: ClusterQueueSnapshot, snapshot: Snapshot) -> dict[str, Any] | None:
    """With fair sharing on, in a cohort: the strategies, each ClusterQueue's share (the
    pending Workload's queue also with it admitted), and each candidate the strategies weighed
    when the oracle simulated preemption for the pairs found short (as the flavor assigner asks)."""
    fair = done.scheduler.fair_sharing
    if fair is None or cq.parent is None or entry.assignment is None:
        return None
    decisions: dict[tuple[str, str], preemption.FairDecision] = {}
    asked: dict[FlavorResource, int] = {}
    for psa in entry.assignment.pod_sets:
        for t in psa.trials:
            for q in t.quotas:
                if q.assumed + q.request > q.available:
                    asked.setdefault(FlavorResource(q.flavor, q.resource), q.assumed + q.request)
    for fr, amount in asked.items():
        _, trace = preemption.fair_trace(entry.info, {fr: amount}, snapshot, done.settings.now, fair,
                                         done.inputs.config.pods_ready_eviction)
        for d in trace:
            decisions.setdefault((d.info.key, d.strategy), d)
    queues = []
    for other in sorted(cq.parent.root().subtree_cluster_queues(), key=lambda q: (q is not cq, q.name)):
        view: dict[str, Any] = {"name": other.name, "before": drs_view(fs.dominant_resource_share(other))}
        if other is cq:
            view["after"] = drs_view(fs.dominant_resource_share(other, asked))
            view["pending"] = True
        queues.append(view)
    return {"strategies": list(fair.preemption_strategies), "clusterQueues": queues,
            "decisions": [_decision(d) for d in decisions.values()]}


def _decision(d: "preemption.FairDecision") -> dict[str, Any]:
    return {"workload": d.info.key, "clusterQueue": d.info.cluster_queue, "strategy": d.strategy,
            "allowed": d.allowed, "preemptorNode": d.preemptor_node, "targetNode": d.target_node,
            "preemptorAfter": drs_view(d.preemptor_after), "targetBefore": drs_view(d.target_before),
            "targetAfter": drs_view(d.target_after)}


def _fair_verdicts(section: dict[str, Any], fair: dict[str, Any]) -> None:
    """The preemption section with fair sharing's word: a candidate every strategy refused is
    `fair-sharing-refused`, with the decisions that refused it."""
    section["fairSharing"] = fair
    by_workload: dict[str, list[dict[str, Any]]] = {}
    for d in fair["decisions"]:
        by_workload.setdefault(d["workload"], []).append(d)
    for c in section["candidates"]:
        weighed = by_workload.get(c["workload"])
        if c["verdict"] == CANDIDATE and weighed and not any(d["allowed"] for d in weighed):
            c["verdict"] = FAIR_SHARING_REFUSED
            c["refusedBy"] = [d["strategy"] for d in weighed]
