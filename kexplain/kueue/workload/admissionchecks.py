"""Which admission checks a Workload must pass (pkg/workload: AdmissionChecksForWorkload,
HasAllRequiredChecks) and the workload controller's sync of its check states
(syncAdmissionCheckConditions): a check applies to the flavors it is set on; before an admission
only the checks on every flavor of the ClusterQueue apply."""
from __future__ import annotations

from datetime import datetime
from typing import Mapping

from kexplain.kueue.apis.clusterqueue import ClusterQueue
from kexplain.kueue.apis.constants import CHECK_PENDING
from kexplain.kueue.apis.workload import Admission, AdmissionCheckState
from kexplain.kueue.workload.workload import Workload

Checks = Mapping[str, frozenset[str]]       # a check -> the flavors it applies to


def for_admission(checks: Checks, admission: Admission) -> set[str]:
    """admissionChecksForAdmission: the checks on a flavor the admission uses (all of them when
    it uses none)."""
    used = {flavor for psa in admission.pod_set_assignments for flavor in psa.flavors.values()}
    if not used:
        return set(checks)
    return {name for name, flavors in checks.items() if flavors & used}


def for_workload(wl: Workload, cq: ClusterQueue) -> set[str]:
    """AdmissionChecksForWorkload: with an admission, the checks of its flavors; without one, the
    checks set on every flavor of the ClusterQueue."""
    checks = cq.admission_check_flavors()
    if wl.admission is not None:
        return for_admission(checks, wl.admission)
    every = frozenset(cq.flavor_names())
    return {name for name, flavors in checks.items() if flavors >= every}


def has_all_required(wl: Workload, checks: Checks, admission: Admission) -> bool:
    """HasAllRequiredChecks: the Workload carries a state for every check its admission needs."""
    needed = for_admission(checks, admission)
    return needed <= {c.name for c in wl.admission_checks}


def synced(states: list[AdmissionCheckState], wanted: set[str], now: datetime
           ) -> tuple[list[AdmissionCheckState], bool]:
    """syncAdmissionCheckConditions: a Pending state for each wanted check the Workload lacks,
    the others dropped, sorted by name; whether anything changed."""
    if not wanted:
        return [], bool(states)
    have = {s.name for s in states}
    out = list(states) + [AdmissionCheckState(name, CHECK_PENDING, "", now) for name in sorted(wanted - have)]
    changed = len(out) != len(states)
    if len(out) > len(wanted):
        out = [s for s in out if s.name in wanted]
        changed = True
    return sorted(out, key=lambda s: s.name), changed
