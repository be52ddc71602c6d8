"""FlavorAssigner (flavorassigner.go): per pod set and resource group, the flavors in order, each
skipped or checked against quota (`fits_resource_quota`), fungibility deciding when to stop."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from kexplain.kueue.apis.resourceflavor import ResourceFlavor
from kexplain.kueue.cache.snapshot import ClusterQueueSnapshot
from kexplain.kueue.resources import PODS, FlavorResource, iteration_order, resource_quantity_text
from kexplain.kueue.versions import KueueVersion
from kexplain.kueue.scheduler.flavorassigner import attempts as att
from kexplain.kueue.scheduler.flavorassigner import tas_flavorassigner as tas
from kexplain.kueue.scheduler.flavorassigner.modes import (BEST, FIT, NO_FIT, PM_FIT, PM_NO_FIT, PREEMPT_MODE, WORST,
                                                           GranularMode, assignment_mode, from_possibility,
                                                           is_preferred, should_try_next_flavor)
from kexplain.kueue.scheduler.preemption import classical
from kexplain.kueue.workload.info import AssignmentState, Info, PodSetResources
from kexplain.model.nodeinfo import Node
from kexplain.model.nodeselector import NodeSelector, ParsedTerm, RequiredNodeAffinity
from kexplain.model.taints import NO_EXECUTE, NO_SCHEDULE, tolerations_tolerate

# The oracle: (ClusterQueue, workload, (flavor, resource), quantity) -> (possibility, borrow, targets)
Oracle = Callable[[ClusterQueueSnapshot, Info, FlavorResource, int], tuple[int, int, list[Any]]]

# Kueue's texts
UNAVAILABLE = "resource {} unavailable in ClusterQueue"
FLAVOR_NOT_FOUND = "flavor {} not found"
UNTOLERATED = "untolerated taint {} in flavor {}"
NO_AFFINITY_MATCH = "flavor {} doesn't match node affinity"
OVER_CAPACITY = ("insufficient quota for {} in flavor {}, previously considered podsets requests ({}) + "
                 "current podset request ({}) > maximum capacity ({})")
INSUFFICIENT = "insufficient unused quota for {} in flavor {}, {} more needed"
# why the search went on past a flavor that does not fit with the FlavorFungibility gate off
GATE_OFF_RULE = "featureGates.FlavorFungibility=false"


@dataclass
class Status:
    reasons: list[str] = field(default_factory=list)
    err: str = ""

    def is_fit(self) -> bool:
        return not self.err and not self.reasons

    def is_error(self) -> bool:
        return bool(self.err)

    def message(self) -> str:
        return self.err or ", ".join(sorted(self.reasons))


@dataclass
class FlavorAssignment:
    name: str
    mode: int
    borrow: int = 0
    tried_flavor_idx: int = 0


@dataclass(frozen=True)
class Lender:
    """A ClusterQueue of the cohort tree with quota of the (flavor, resource) unused, and how
    much of it the cohort may lend on (above what its lendingLimit keeps); or a cohort's own."""

    name: str
    kind: str               # ClusterQueue | Cohort
    unused: int
    lendable: int


def lenders_of(cq: ClusterQueueSnapshot, fr: FlavorResource) -> tuple[Lender, ...]:
    """Who could lend `fr` to `cq`: every other ClusterQueue of its cohort tree with quota of it
    unused, and every cohort with quota of its own, at the time of the check."""
    if cq.parent is None:
        return ()
    root = cq.parent.root()
    out = []
    for other in root.subtree_cluster_queues():
        if other is cq:
            continue
        node = other.resource_node
        quota = node.quotas.get(fr)
        if quota is None:
            continue
        used = node.usage.get(fr, 0)
        keep = node.local_quota(fr)
        unused = max(0, quota.nominal - used)
        lendable = max(0, (node.subtree_quota.get(fr, 0) - keep) - max(0, used - keep))
        if unused or lendable:
            out.append(Lender(other.name, "ClusterQueue", unused, min(unused, lendable)))
    for cohort in _cohorts(root):
        quota = cohort.resource_node.quotas.get(fr)
        if quota is not None and quota.nominal:
            out.append(Lender(cohort.name, "Cohort", quota.nominal, quota.nominal))
    return tuple(out)


def _cohorts(root):
    yield root
    for child in root.child_cohorts:
        yield from _cohorts(child)


@dataclass(frozen=True)
class QuotaCheck:
    """One resource's request against one flavor's quota: the numbers behind its mode."""

    resource: str
    flavor: str
    assumed: int            # what earlier pod sets of the Workload take of it
    request: int
    available: int          # unused now, borrowing included
    capacity: int           # the most it could ever have (PotentialAvailable)
    nominal: int
    used: int               # the ClusterQueue's usage of it
    borrowing_limit: int | None
    lending_limit: int | None
    mode: int               # preemptionMode
    borrow: int             # the borrowing level (0: within its nominal quota)
    targets: tuple[str, ...] = ()       # what preemption would evict for it
    lenders: tuple[Lender, ...] = ()    # short of quota: who in the cohort has it unused


@dataclass(frozen=True)
class FlavorTrial:
    """One flavor tried for one resource group of a pod set: skipped (`skip`) or checked against
    quota (`quotas`), its mode, and the fungibility rule that stopped the search."""

    pod_set: str
    resource: str
    flavor: str
    skip: str = ""                      # "" | "taint" | "affinity" | "missing" | "uncovered" | "topology"
    reason: str = ""                    # a skip's own words (topology)
    taint: Mapping[str, Any] | None = None
    selector_keys: tuple[str, ...] = ()
    quotas: tuple[QuotaCheck, ...] = ()
    mode: int = PM_NO_FIT
    borrow: int = 0
    next_rule: str = ""                 # why the search went on ("" : it stopped here)


@dataclass
class PodSetAssignment:
    name: str
    flavors: dict[str, FlavorAssignment]
    requests: dict[str, int]
    count: int
    status: Status = field(default_factory=Status)
    attempts: list[att.Attempt] = field(default_factory=list)
    trials: list[FlavorTrial] = field(default_factory=list)
    topology_assignment: Any = None         # apis.topology.TopologyAssignment, once placed
    placement: Any = None                   # the TAS placement tried (cache.tas_snapshot.Placement)
    delayed_topology_request: str | None = None     # "Pending": placed after its admission checks

    def representative_mode(self) -> int:
        if self.status.is_fit():
            return FIT
        if self.status.is_error() or not self.flavors:
            return NO_FIT
        return min(f.mode for f in self.flavors.values())


@dataclass
class Assignment:
    pod_sets: list[PodSetAssignment] = field(default_factory=list)
    borrowing: int = 0
    last_state: AssignmentState = field(default_factory=AssignmentState)
    usage: dict[FlavorResource, int] = field(default_factory=dict)

    def representative_mode(self) -> int:
        if not self.pod_sets:
            return NO_FIT
        return min(ps.representative_mode() for ps in self.pod_sets)

    def message(self) -> str:
        """Assignment.Message: `couldn't assign flavors to pod set NAME: REASONS`, `; `-joined."""
        parts = []
        for ps in self.pod_sets:
            if ps.status.is_fit():
                continue
            if ps.status.is_error():
                return f"failed to assign flavors to pod set {ps.name}: {ps.status.err}"
            parts.append(f"couldn't assign flavors to pod set {ps.name}: {ps.status.message()}")
        return "; ".join(parts)

    def append(self, requests: Mapping[str, int], psa: PodSetAssignment) -> None:
        flavor_idx = {}
        self.pod_sets.append(psa)
        for res, fa in psa.flavors.items():
            self.borrowing = max(self.borrowing, fa.borrow)
            fr = FlavorResource(fa.name, res)
            self.usage[fr] = self.usage.get(fr, 0) + requests.get(res, 0)
            flavor_idx[res] = fa.tried_flavor_idx
        self.last_state.last_tried_flavor_idx.append(flavor_idx)

    def total_requests_for(self, info: Info) -> dict[FlavorResource, int]:
        """TotalRequestsFor: the Workload's requests at the assigned counts, per assigned flavor."""
        usage: dict[FlavorResource, int] = {}
        for i, ps in enumerate(info.total_requests):
            if i >= len(self.pod_sets):
                break
            scaled = ps.scaled_to(self.pod_sets[i].count)
            for res, q in scaled.requests.items():
                fa = self.pod_sets[i].flavors.get(res)
                if q == 0 or fa is None:
                    continue
                fr = FlavorResource(fa.name, res)
                usage[fr] = usage.get(fr, 0) + q
        return usage

    def needing_preemption(self) -> frozenset[FlavorResource]:
        """flavorResourcesNeedPreemption."""
        return frozenset(FlavorResource(fa.name, res) for ps in self.pod_sets for res, fa in ps.flavors.items()
                         if fa.mode == PREEMPT_MODE)


def _taint_text(taint: Mapping[str, Any]) -> str:
    """A corev1.Taint printed with %s: `{key value effect <nil>}`."""
    added = taint.get("timeAdded")
    return f"{{{taint.get('key') or ''} {taint.get('value') or ''} {taint.get('effect') or ''} " \
           f"{'<nil>' if not added else added}}}"


def untolerated_taint(flavor: ResourceFlavor, tolerations: list[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """FindMatchingUntoleratedTaint over the flavor's NoSchedule and NoExecute taints, with the
    pod's and the flavor's tolerations (comparison operators enabled, as Kueue calls it)."""
    for taint in flavor.node_taints:
        if taint.get("effect") not in (NO_SCHEDULE, NO_EXECUTE):
            continue
        if not tolerations_tolerate(tolerations, taint, enable_comparison_operators=True):
            return taint
    return None


def flavor_selector(spec: Mapping[str, Any], keys: frozenset[str]) -> RequiredNodeAffinity:
    """flavorSelector: the pod's nodeSelector and required node affinity reduced to the label keys
    the flavor has; a term left empty matches any flavor, so the affinity is dropped."""
    node_selector = {str(k): str(v) for k, v in (spec.get("nodeSelector") or {}).items() if k in keys}
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution")
    affinity = None
    if required is not None:
        terms = []
        for term in required.get("nodeSelectorTerms") or ():
            kept = [e for e in (term.get("matchExpressions") or ()) if e.get("key") in keys]
            if not kept:
                terms = []
                break
            terms.append(ParsedTerm.parse({"matchExpressions": kept}))
        if terms:
            affinity = NodeSelector(terms)
    return RequiredNodeAffinity(node_selector or None, affinity)


class FlavorAssigner:
    def __init__(self, info: Info, cq: ClusterQueueSnapshot, flavors: Mapping[str, ResourceFlavor],
                 oracle: Oracle, version: KueueVersion, fair_sharing: bool = False, fungibility: bool = True) -> None:
        self.version = version
        # the FlavorFungibility gate: off, every search starts at the first flavor, only a fitting
        # flavor stops it, and the best mode across flavors wins (the ClusterQueue's
        # whenCanBorrow/whenCanPreempt ignored; its preference still ranks a flavor's own resources)
        self.fungibility = fungibility
        self.fair_sharing = fair_sharing
        self.info = info
        self.cq = cq
        self.flavors = flavors
        self.oracle = oracle
        self._nodes: dict[str, Node] = {}

    def assign(self, counts: list[int] | None = None) -> Assignment:
        """Assign: a stale last assignment (the ClusterQueue's quota changed since) is dropped."""
        last = self.info.last_assignment
        if last is not None and self.cq.generation > last.cluster_queue_generation:
            self.info.last_assignment = None
        return self._assign(counts)

    def _assign(self, counts: list[int] | None) -> Assignment:
        if counts is None and not self.version.pods_request_copied:
            requests = self.info.total_requests       # v0.17: `pods` lands in the Workload's own totals
        elif counts is None:
            requests = [PodSetResources(ps.name, dict(ps.requests), ps.count, dict(ps.flavors))
                        for ps in self.info.total_requests]
        else:
            requests = [ps.scaled_to(counts[i]) for i, ps in enumerate(self.info.total_requests)]
        assignment = Assignment(last_state=AssignmentState([], self.cq.generation))
        covers_pods = self.cq.rg_by_resource(PODS) is not None
        groups: dict[str, list[tuple[int, PodSetResources, PodSetAssignment]]] = {}
        for i, ps in enumerate(requests):
            if covers_pods:
                ps.requests[PODS] = ps.count
            groups.setdefault(self._group_key(i), []).append(
                (i, ps, PodSetAssignment(ps.name, {}, dict(ps.requests), ps.count)))
        for members in groups.values():         # (a pod set group's pod sets get the same flavors)
            self._assign_group(members, assignment)
            if any(psa.status.is_error() or (ps.requests and not psa.flavors) for _, ps, psa in members):
                return assignment
        if assignment.representative_mode() != NO_FIT and any(tas.requested(ps, self.cq)
                                                               for ps in self.info.obj.spec.pod_sets):
            self._assign_topology(assignment)
        return assignment

    def _group_key(self, i: int) -> str:
        """assignFlavors' group key: the pod set's group name, else its index."""
        pod_sets = self.info.obj.spec.pod_sets
        req = pod_sets[i].topology_request if i < len(pod_sets) else None
        return req.pod_set_group if req is not None and req.pod_set_group is not None else str(i)

    def _assign_topology(self, assignment: Assignment) -> None:
        """The end of assignFlavors: place the pod sets asking for a topology; not fitting, the
        pod set preempts (its flavors' mode), or fits nowhere even on empty nodes (NoFit)."""
        requests, errors = tas.topology_requests(self.info, self.cq, assignment.pod_sets)
        for i, err in errors.items():
            assignment.pod_sets[i].status.err = err
        if assignment.representative_mode() == FIT:
            placements = tas.find_assignments(self.cq, requests, prioritized=self.version.tas_leader_prioritized)
            for i, placement in placements.items():
                assignment.pod_sets[i].placement = placement
            failed = tas.failure(placements)
            if failed is not None:
                psa = assignment.pod_sets[failed[0]]
                psa.status.reasons.append(failed[1])
                for fa in psa.flavors.values():
                    fa.mode = PREEMPT_MODE
            else:
                for i, placement in placements.items():
                    assignment.pod_sets[i].topology_assignment = placement.assignment
        if assignment.representative_mode() == PREEMPT_MODE:
            failed = tas.failure(tas.find_assignments(self.cq, requests, simulate_empty=True,
                                                      prioritized=self.version.tas_leader_prioritized))
            for r in requests:
                if failed is None or r.index == failed[0]:
                    for fa in assignment.pod_sets[r.index].flavors.values():
                        fa.mode = PREEMPT_MODE if failed is None else NO_FIT

    def _assign_group(self, members: list[tuple[int, PodSetResources, PodSetAssignment]],
                      assignment: Assignment) -> None:
        requests: dict[str, int] = {}
        for _, ps, _psa in members:
            for res, q in ps.requests.items():
                requests[res] = requests.get(res, 0) + q
        ids = [i for i, _, _ in members]
        considered: dict[str, att.Attempt] = {}
        trials: list[FlavorTrial] = []
        group_flavors: dict[str, FlavorAssignment] | None = {}
        group_status = Status()
        for res in iteration_order(requests, self.version.requests_in_hash_order):
            quantity = requests[res]
            if quantity == 0 and self.cq.rg_by_resource(res) is None:
                continue
            if group_flavors is not None and res in group_flavors:
                continue
            flavors, status, tried = self._find_flavor(ids, members[0][1].name, requests, res, assignment.usage,
                                                       trials)
            att.merge_for_resource(considered, tried, res, self.cq)
            if (status is not None and status.is_error()) or (not flavors and requests):
                group_flavors = None
                group_status = status or Status()
                break
            group_flavors.update(flavors)
            if status is not None:
                group_status.reasons.extend(status.reasons)
        final = att.finalize(considered)
        for _, ps, psa in members:
            psa.flavors = {r: fa for r, fa in (group_flavors or {}).items() if r in ps.requests}
            psa.status = Status(list(group_status.reasons), group_status.err)   # (each its own, as Go's copy)
            psa.attempts = final
            psa.trials = trials
            assignment.append(ps.requests, psa)

    def _find_flavor(self, ids: list[int], pod_set: str, requests: dict[str, int], res: str,
                     assumed: dict[FlavorResource, int], trials: list[FlavorTrial]
                     ) -> tuple[dict[str, FlavorAssignment], Status | None, list[att.Attempt]]:
        """findFlavorForPodSets: the flavor of the resource group of `res` for every resource of
        that group, the reasons the flavors tried fell short, and the attempts."""
        group = self.cq.rg_by_resource(res)
        if group is None:
            trials.append(FlavorTrial(pod_set, res, "", skip="uncovered"))
            return {}, Status([UNAVAILABLE.format(res)]), []
        status = Status()
        covered = {r: requests[r] for r in iteration_order(requests, self.version.requests_in_hash_order)
                   if r in group.covered}
        tried: list[att.Attempt] = []
        best: dict[str, FlavorAssignment] = {}
        best_mode = WORST
        attempted = -1
        last = self.info.last_assignment
        start = last.next_flavor_to_try(ids[0], res) if last is not None and self.fungibility else 0
        for idx in range(start, len(group.flavors)):
            attempted = idx
            name = group.flavors[idx]
            skipped = self._check_flavor(name, ids, pod_set, res)
            if skipped is not None:
                flavor_status, trial = skipped
                status.reasons.extend(flavor_status.reasons)
                tried.append(att.no_fit_attempt(name, flavor_status.reasons))
                trials.append(trial)
                if flavor_status.err:
                    status.err = flavor_status.err
                    return {}, status, tried
                continue
            assignments, representative, max_borrow, reasons, checks = self._flavor_mode(name, covered, assumed,
                                                                                        status)
            tried.append(att.representative_attempt(name, representative.preemption, max_borrow, reasons))
            rule, keep = self._next_flavor_rule(representative, best_mode)
            trials.append(FlavorTrial(pod_set, res, name, quotas=tuple(checks), mode=representative.preemption,
                                      borrow=max_borrow, next_rule=rule))
            if keep:
                best, best_mode = assignments, representative
            if not rule:
                break
        if self.fungibility:
            for fa in best.values():
                fa.tried_flavor_idx = -1 if attempted == len(group.flavors) - 1 else attempted
        if best_mode.preemption == PM_FIT:
            return best, None, tried
        return best, status, tried

    def _flavor_mode(self, name: str, covered: dict[str, int], assumed: dict[FlavorResource, int], status: Status
                     ) -> tuple[dict[str, FlavorAssignment], GranularMode, int, list[str], list[QuotaCheck]]:
        """One flavor's resources against its quota: their assignments, the representative (worst)
        mode, the highest borrowing level, the quota's reasons (added to `status` too), the checks."""
        assignments: dict[str, FlavorAssignment] = {}
        representative = BEST
        max_borrow = 0
        reasons: list[str] = []
        checks: list[QuotaCheck] = []
        for r_name, val in covered.items():
            fr = FlavorResource(name, r_name)
            pm, borrow, s, check = self.fits_resource_quota(fr, assumed.get(fr, 0), val)
            checks.append(check)
            if s is not None:
                reasons.extend(s.reasons)
                status.reasons.extend(s.reasons)
            max_borrow = max(max_borrow, borrow)
            mode = GranularMode(pm, borrow)
            if is_preferred(representative, mode, self.cq.flavor_fungibility, self.version.no_candidates_rank_lowest):
                representative = mode
            if representative.preemption == PM_NO_FIT:
                if self.version.every_short_resource:    # (v0.19: the closure returns, the loop goes on)
                    continue
                break
            assignments[r_name] = FlavorAssignment(name, assignment_mode(pm), borrow)
        return assignments, representative, max_borrow, reasons, checks

    def _next_flavor_rule(self, mode: GranularMode, best: GranularMode) -> tuple[str, bool]:
        """Whether the search goes on after a flavor of `mode` (the rule saying so, "" to stop) and
        whether the flavor becomes the best yet. The gate on: shouldTryNextFlavor, else the
        flavor kept, or kept while preferred; off: kept when its preemption mode beats the best
        one's, and only a fitting flavor stops the search."""
        fungibility = self.cq.flavor_fungibility
        if not self.fungibility:
            return ("" if mode.preemption == PM_FIT else GATE_OFF_RULE), mode.preemption > best.preemption
        rule = should_try_next_flavor(mode, fungibility)
        return rule, not rule or is_preferred(mode, best, fungibility, self.version.no_candidates_rank_lowest)

    def _node(self, flavor: ResourceFlavor) -> Node:
        node = self._nodes.get(flavor.name)
        if node is None:
            node = self._nodes[flavor.name] = Node.from_obj({"metadata": {"labels": dict(flavor.node_labels)}})
        return node

    def _check_flavor(self, name: str, ids: list[int], pod_set: str, res: str
                      ) -> tuple[Status, FlavorTrial] | None:
        """checkFlavorForPodSets: None when the pod sets may use the flavor, else why not."""
        flavor = self.flavors.get(name)
        if flavor is None:
            return Status([FLAVOR_NOT_FOUND.format(name)]), FlavorTrial(pod_set, res, name, skip="missing")
        keys = frozenset(flavor.node_labels)
        group = self.cq.rg_by_resource(res)
        for i in ids:
            mismatch = tas.flavor_mismatch(self.cq, self.info.obj.spec.pod_sets[i], flavor,
                                           frozenset(group.covered) if group is not None else frozenset())
            if mismatch is not None:
                return Status([mismatch]), FlavorTrial(pod_set, res, name, skip="topology", reason=mismatch)
            spec = self.info.obj.spec.pod_sets[i].spec
            tolerations = [*(spec.get("tolerations") or ()), *flavor.tolerations]
            taint = untolerated_taint(flavor, tolerations)
            if taint is not None:
                return (Status([UNTOLERATED.format(_taint_text(taint), name)]),
                        FlavorTrial(pod_set, res, name, skip="taint", taint=taint))
            if not flavor_selector(spec, keys).matches(self._node(flavor)):
                return (Status([NO_AFFINITY_MATCH.format(name)]),
                        FlavorTrial(pod_set, res, name, skip="affinity", selector_keys=tuple(sorted(keys))))
        return None

    def fits_resource_quota(self, fr: FlavorResource, assumed: int, request: int
                            ) -> tuple[int, int, Status | None, QuotaCheck]:
        """fitsResourceQuota: fit, preemption's mode (within nominal quota, or reclaiming), or no fit
        (over the maximum capacity too)."""
        cq = self.cq
        available = cq.available(fr)
        capacity = cq.potential_available(fr)
        quota = cq.quota_for(fr)
        val = assumed + request
        used = cq.resource_node.usage.get(fr, 0)

        def check(pm: int, borrow: int, targets: tuple[str, ...] = ()) -> QuotaCheck:
            lenders = lenders_of(cq, fr) if val > available else ()
            return QuotaCheck(fr.resource, fr.flavor, assumed, request, available, capacity, quota.nominal, used,
                              quota.borrowing_limit, quota.lending_limit, pm, borrow, targets, lenders)

        if val > capacity:
            text = OVER_CAPACITY.format(fr.resource, fr.flavor, resource_quantity_text(fr.resource, assumed),
                                        resource_quantity_text(fr.resource, request),
                                        resource_quantity_text(fr.resource, capacity))
            return PM_NO_FIT, 0, Status([text]), check(PM_NO_FIT, 0)
        borrow, may_reclaim = classical.height_of_lowest_subtree_that_fits(cq, fr, val)
        if val <= available:
            return PM_FIT, borrow, None, check(PM_FIT, borrow)
        status = Status([INSUFFICIENT.format(fr.resource, fr.flavor,
                                             resource_quantity_text(fr.resource, val - available))])
        # canPreemptWhileBorrowing: borrowWithinCohort, or fair sharing with reclaimWithinCohort
        borrow_within = cq.preemption.borrow_within_cohort != "Never" or (
            self.fair_sharing and cq.preemption.reclaim_within_cohort != "Never")
        if val <= quota.nominal or may_reclaim or borrow_within:
            possibility, borrow_after, targets = self.oracle(cq, self.info, fr, val)
            pm = from_possibility(possibility)
            return pm, borrow_after, status, check(pm, borrow_after, tuple(t.info.key for t in targets))
        return PM_NO_FIT, borrow, status, check(PM_NO_FIT, borrow)
