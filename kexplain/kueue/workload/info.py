"""workload.Info: a Workload with its total requests per pod set (from its pod templates while
pending, from its admission once it holds quota), the ClusterQueue it is queued in or admitted
by, and the flavor search it left off at (`AssignmentState`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from kexplain.kueue import resources
from kexplain.kueue.resources import FlavorResource, Requests
from kexplain.kueue.workload.requests import NO_OPTIONS, InfoOptions
from kexplain.kueue.workload.resources import adjusted_spec
from kexplain.model.resources import pod_requests
from kexplain.kueue.workload.workload import Workload


@dataclass
class PodSetResources:
    """One pod set's total requests (per pod times `count`) and, once admitted, each resource's flavor."""

    name: str
    requests: Requests
    count: int
    flavors: dict[str, str] = field(default_factory=dict)

    def single_pod_requests(self) -> Requests:
        return resources.divided(self.requests, self.count)

    def scaled_to(self, count: int) -> "PodSetResources":
        """ScaledTo: the same pod set with `count` pods."""
        out = PodSetResources(self.name, dict(self.requests), self.count, dict(self.flavors))
        if self.count != 0 and self.count != count:
            out.requests = resources.scaled(resources.divided(out.requests, out.count), count)
            out.count = count
        return out


@dataclass
class AssignmentState:
    """AssignmentClusterQueueState: per pod set, the index of the last flavor tried for each
    resource (-1: the search reached the last flavor), and the ClusterQueue's generation then."""

    last_tried_flavor_idx: list[dict[str, int]] = field(default_factory=list)
    cluster_queue_generation: int = 0

    def pending_flavors(self) -> bool:
        return any(idx != -1 for per in self.last_tried_flavor_idx for idx in per.values())

    def next_flavor_to_try(self, pod_set: int, resource: str) -> int:
        if pod_set >= len(self.last_tried_flavor_idx):
            return 0
        idx = self.last_tried_flavor_idx[pod_set].get(resource)
        return 0 if idx is None else idx + 1


@dataclass
class Info:
    obj: Workload
    total_requests: list[PodSetResources]
    cluster_queue: str = ""
    last_assignment: AssignmentState | None = None
    scheduling_hash: str = ""

    @property
    def key(self) -> str:
        return self.obj.key

    def flavor_resources(self) -> frozenset[FlavorResource]:
        """The (flavor, resource) pairs it holds quota of (worked out once: a Workload holding
        quota keeps its admission through the pass)."""
        cached = self.__dict__.get("_flavor_resources")
        if cached is None:
            cached = self.__dict__["_flavor_resources"] = frozenset(
                FlavorResource(flavor, res) for ps in self.total_requests for res, flavor in ps.flavors.items())
        return cached

    def usage(self) -> dict[FlavorResource, int]:
        """FlavorResourceUsage: the quota it holds per (flavor, resource)."""
        total: dict[FlavorResource, int] = {}
        for ps in self.total_requests:
            for res, q in ps.requests.items():
                fr = FlavorResource(ps.flavors.get(res, ""), res)
                total[fr] = total.get(fr, 0) + q
        return total

    def can_be_partially_admitted(self) -> bool:
        return any(ps.count > (ps.min_count if ps.min_count is not None else ps.count)
                   for ps in self.obj.spec.pod_sets)


def counts_after_reclaim(wl: Workload) -> dict[str, int]:
    """podSetsCountsAfterReclaim (ReclaimablePods, on by default): each pod set's count less its
    reclaimable pods, never below 0."""
    counts = {ps.name: ps.count for ps in wl.spec.pod_sets}
    for name, reclaimable in wl.reclaimable_pods:
        if name in counts:
            counts[name] -= min(reclaimable, counts[name])
    return counts


def _from_pod_sets(wl: Workload, options: InfoOptions) -> list[PodSetResources]:
    out = []
    counts = counts_after_reclaim(wl)
    for ps in wl.spec.pod_sets:
        per_pod = resources.requests_of(options.effective(pod_requests({"spec": adjusted_spec(ps.spec)})))
        for name, q in ((options.dra or {}).get(ps.name) or {}).items():
            per_pod[name] = per_pod.get(name, 0) + resources.resource_value(name, q)
        out.append(PodSetResources(ps.name, resources.scaled(per_pod, counts[ps.name]), counts[ps.name]))
    return out


def _from_admission(wl: Workload) -> list[PodSetResources]:
    """totalRequestsFromAdmission: the assignments' usage, scaled down to the pods left when some are
    reclaimable (a count above the admission's is a partial admission's, kept)."""
    assert wl.admission is not None
    counts = {ps.name: ps.count for ps in wl.spec.pod_sets}
    current = counts_after_reclaim(wl)
    out = []
    for psa in wl.admission.pod_set_assignments:
        usage: Mapping = psa.resource_usage
        requests = {k: resources.resource_value(k, q.value) for k, q in usage.items()}
        count = psa.count if psa.count is not None else counts.get(psa.name, 0)
        left = current.get(psa.name, 0)
        if left < count:
            requests, count = resources.scaled(resources.divided(requests, count), left), left
        out.append(PodSetResources(psa.name, requests, count, dict(psa.flavors)))
    return out


def new_info(wl: Workload, options: InfoOptions = NO_OPTIONS) -> Info:
    """NewInfo: from the admission when there is one, else from the pod sets (their requests as the
    Configuration's `resources` leave them: `options`)."""
    if wl.admission is not None:
        return Info(wl, _from_admission(wl), wl.admission.cluster_queue)
    return Info(wl, _from_pod_sets(wl, options))
