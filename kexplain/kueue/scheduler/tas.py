"""The scheduler's topology steps (scheduler.go): an assignment's TAS usage (ComputeTASNetUsage) and
whether it still fits the snapshot after other entries of the cycle took theirs (Fits), the
placement of a preempting Workload on the nodes its targets free (or on empty nodes, to reserve
them: updateAssignmentForTAS), and that reservation."""
from __future__ import annotations

from typing import Iterator

from kexplain.kueue.cache.snapshot import ClusterQueueSnapshot, Snapshot
from kexplain.kueue.cache.tas_snapshot import count_in
from kexplain.kueue.resources import PODS, Requests, pod_spec_requests
from kexplain.kueue.scheduler.flavorassigner import tas_flavorassigner as tas
from kexplain.kueue.scheduler.flavorassigner.flavorassigner import Assignment
from kexplain.kueue.scheduler.flavorassigner.modes import PREEMPT_MODE
from kexplain.kueue.workload.info import Info


def net_usage(cq: ClusterQueueSnapshot, info: Info, assignment: Assignment
              ) -> Iterator[tuple[str, str, int, Requests]]:
    """ComputeTASNetUsage: (flavor, domain id, pods, one pod's requests) of each placed domain whose
    pod set held no topology before."""
    admission = info.obj.admission
    for i, psa in enumerate(assignment.pod_sets):
        if psa.topology_assignment is None or i >= len(info.obj.spec.pod_sets):
            continue
        if admission is not None and i < len(admission.pod_set_assignments) \
                and admission.pod_set_assignments[i].topology_assignment is not None:
            continue
        flavor, _ = tas.only_tas_flavor({r: fa.name for r, fa in psa.flavors.items()}, cq)
        if flavor is None:
            continue
        single = pod_spec_requests(info.obj.spec.pod_sets[i].spec)
        for d in psa.topology_assignment.domains:
            yield flavor, ",".join(d.values), d.count, single


def tas_fits(cq: ClusterQueueSnapshot, info: Info, assignment: Assignment) -> bool:
    """TASFlavorSnapshot.Fits over the assignment's domains: each leaf still takes its pods."""
    for flavor, domain_id, count, single in net_usage(cq, info, assignment):
        snap = cq.tas_flavors[flavor]
        leaf = snap.leaves.get(domain_id)
        if leaf is None or count_in({k: v for k, v in single.items() if k != PODS}, snap.remaining(leaf))[0] < count:
            return False
    return True


def tas_reserve(cq: ClusterQueueSnapshot, info: Info, assignment: Assignment, sign: int = 1) -> None:
    """The TAS part of AddUsage for an assignment not admitted (a preemption issued, or capacity
    kept for a preemption without candidates)."""
    for flavor, domain_id, count, single in net_usage(cq, info, assignment):
        usage = {k: v * count for k, v in single.items() if k != PODS}
        usage[PODS] = count
        cq.tas_flavors[flavor].update_tas_usage(domain_id, usage, sign)


def place_for_preemption(snapshot: Snapshot, cq: ClusterQueueSnapshot, info: Info, assignment: Assignment,
                         targets: list[Info], prioritized: bool = False) -> None:
    """updateAssignmentForTAS: a preempting assignment placed on what its targets free, or, without
    targets, on empty nodes (what it reserves); `prioritized`: v0.19's rules for a group's leader."""
    pod_sets = info.obj.spec.pod_sets
    if assignment.representative_mode() != PREEMPT_MODE or not (
            any(tas.explicit(ps) for ps in pod_sets) or cq.tas_only):
        return
    requests, _ = tas.topology_requests(info, cq, assignment.pod_sets)
    if targets:
        restore = snapshot.simulate_removal(targets)
        placements = tas.find_assignments(cq, requests, prioritized=prioritized)
        restore()
    else:
        placements = tas.find_assignments(cq, requests, simulate_empty=True, prioritized=prioritized)
    for i, placement in placements.items():
        assignment.pod_sets[i].topology_assignment = placement.assignment
