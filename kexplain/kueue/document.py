"""The result document of a pass (../shared/kueue/README.md, "The document"): data only, words
as values; renderers read it and nothing else. `explanation` and `suggestions` are added by
`explain.py` and kexplain.suggest."""
from __future__ import annotations

from datetime import timezone
from typing import Any

from kexplain.apimachinery.quantity import canonical
from kexplain.kueue.apis.constants import POD_GROUP_NAME_LABEL, QUEUE_NAME_LABEL
from kexplain.kueue.apis.topology import domains_view, v1beta2
from kexplain.kueue.apis.workload import Admission, PodSetAssignment
from kexplain.kueue.controller.admissionchecks.multikueue import NOT_SEEN, unseen
from kexplain.kueue.objects import is_kueue, meta_of, of_kinds
from kexplain.kueue.run import Pass
from kexplain.kueue.workload.stored import stored_status
from kexplain.kueue.workload.ordering import priority
from kexplain.kueue.workload.workload import Workload, has_quota_reservation, is_evicted


def _admission(admission: Admission, by_prefix: bool = False) -> dict[str, Any]:
    return {"clusterQueue": admission.cluster_queue,
            "podSetAssignments": [
                {"name": psa.name, "flavors": dict(psa.flavors),
                 "resourceUsage": {res: canonical(q) for res, q in psa.resource_usage.items()},
                 **({"count": psa.count} if psa.count is not None else {}), **_topology(psa, by_prefix)}
                for psa in admission.pod_set_assignments]}


def stored_beside(done: Pass) -> dict[str, dict[str, Any]]:
    """Each given Workload's stored admission check states and topology domains (`stored_status`), by
    NAMESPACE/NAME: shown beside those the pass computes."""
    out: dict[str, dict[str, Any]] = {}
    for obj, _ in of_kinds([*done.inputs.submitted, *done.inputs.cluster], frozenset({"Workload"})):
        if not is_kueue(obj):
            continue
        status = stored_status(obj)
        kept = {k: status[k] for k in ("admissionChecks", "topologyDomains") if k in status}
        if kept:
            meta = meta_of(obj)
            out[f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}"] = kept
    return out


def _topology(psa: PodSetAssignment, by_prefix: bool) -> dict[str, Any]:
    """A pod set's topology assignment as Kueue stores it (an input's as given), its domains, and
    its delayed topology request's state."""
    out: dict[str, Any] = {}
    if psa.topology_assignment is not None:
        out["topologyAssignment"] = dict(psa.stored_topology) if psa.stored_topology is not None \
            else v1beta2(psa.topology_assignment, by_prefix)
        out["topologyDomains"] = domains_view(psa.topology_assignment)
    if psa.delayed_topology_request:
        out["delayedTopologyRequest"] = psa.delayed_topology_request
    return out


def _workload(wl: Workload, done: Pass) -> dict[str, Any]:
    out: dict[str, Any] = {"namespace": wl.meta.namespace, "name": wl.meta.name, "queueName": wl.spec.queue_name,
                           "inputAdmitted": wl.admitted_in_input, "quotaReserved": has_quota_reservation(wl),
                           "evicted": is_evicted(wl), "preempted": wl.is_true("Preempted")}
    if has_quota_reservation(wl) and wl.admission is not None:
        out.update(_admission(wl.admission, done.settings.version.tas_hostname_prefix_encoding))
    out["conditions"] = [{"type": c.type, "status": c.status, "reason": c.reason, "message": c.message}
                         for c in sorted(wl.conditions, key=lambda c: c.type)]
    if wl.admission_checks:
        controllers = {name: ac.controller_name for name, ac in done.inputs.admission_checks.items()}
        out["admissionChecks"] = [{"name": c.name, "state": c.state, **({"message": c.message} if c.message else {}),
                                   **({"controller": controllers[c.name]} if controllers.get(c.name) else {}),
                                   **({"note": NOT_SEEN} if unseen(controllers.get(c.name, ""), c.state)
                                      and has_quota_reservation(wl) else {})}
                                  for c in wl.admission_checks]
    if wl.requeue_state is not None:        # (waitForPodsReady's requeue; Kueue's time adds a jitter)
        at = wl.requeue_state.requeue_at
        out["requeueState"] = {"count": wl.requeue_state.count,
                               **({"requeueAt": at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")} if at else {})}
    if not wl.spec.active:
        out["active"] = False
    asked = done.provisioning.by_workload().get(wl.key)
    if asked:
        out["provisioningRequests"] = asked
    decided = done.decided_by.get(wl.key)
    if decided and not has_quota_reservation(wl):
        out["decidedBy"] = decided
    if wl.meta.owner_kind and not wl.meta.owner_not_controller:      # (the controller owner only)
        out["owner"] = f"{wl.meta.owner_kind}/{wl.meta.owner_name}"
    out["priority"] = priority(wl) if wl.spec.priority is not None else None
    if wl.spec.priority_class is not None:
        out["priorityClass"] = str(wl.spec.priority_class)
    if out["priority"] is None:
        del out["priority"]
    return out


def document(done: Pass) -> dict[str, Any]:
    jobs = []
    for outcome in done.outcomes:
        meta = outcome.job.meta
        item: dict[str, Any] = {"kind": outcome.job.kind, "namespace": meta.namespace, "name": meta.name}
        queue = meta.labels.get(QUEUE_NAME_LABEL)
        if queue:
            item["queueName"] = queue
        if outcome.job.kind == "Pod" and meta.labels.get(POD_GROUP_NAME_LABEL):    # one job with its group's pods
            item["podGroup"] = meta.labels[POD_GROUP_NAME_LABEL]
        if outcome.workload is not None:
            item["workload"] = outcome.workload.meta.name
        if outcome.error:
            item["error"] = outcome.error
        jobs.append(item)
    workloads = [_workload(wl, done) for _, wl in sorted(done.workloads.items())]
    stored = stored_beside(done)
    for item in workloads if stored else ():
        if (found := stored.get(f"{item['namespace']}/{item['name']}")) is not None:
            item["stored"] = found
    events = sorted({(e.object, e.type, e.reason, e.message) for e in done.events})
    pending = {name: [i.key for i in cq.pending()] for name, cq in sorted(done.queues.cluster_queues.items())
               if len(cq.heap)}
    inadmissible = {name: sorted(cq.inadmissible) for name, cq in sorted(done.queues.cluster_queues.items())
                    if cq.inadmissible}
    doc: dict[str, Any] = {"kueueVersion": done.settings.version.label, "cycles": len(done.scheduler.cycles),
                           "jobs": jobs, "workloads": workloads,
                           "events": [dict(zip(("object", "type", "reason", "message"), e)) for e in events]}
    if pending:
        doc["pendingLeft"] = pending
    if inadmissible:
        doc["inadmissibleLeft"] = inadmissible
    if done.inputs.ignored:
        doc["ignoredObjects"] = list(done.inputs.ignored)
    if (note := done.inputs.config.note()) is not None:     # Kueue's Configuration: what is not modelled
        doc["configurationNote"] = note
    return doc
