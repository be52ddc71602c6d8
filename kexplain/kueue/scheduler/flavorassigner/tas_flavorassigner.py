"""The flavor assigner's topology part (tas_flavorassigner.go and the end of assignFlavors): whether a
pod set and a flavor agree on TAS, the topology requests of an assignment's pod sets, and their
placement on each TAS flavor's snapshot (pod sets of one flavor in order, each on what the earlier
ones left)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from kexplain.kueue.apis.resourceflavor import ResourceFlavor
from kexplain.kueue.apis.workload import PodSet
from kexplain.kueue.cache.snapshot import ClusterQueueSnapshot
from kexplain.kueue.cache import tas_report
from kexplain.kueue.cache.tas_cache import domain_usage
from kexplain.kueue.cache.tas_snapshot import Placement, PodSetRequest
from kexplain.kueue.resources import Requests, pod_spec_requests
from kexplain.kueue.workload.info import Info

NO_TAS_CACHE = "workload requires Topology, but there is no TAS cache information"
NO_TAS_FLAVOR = "no TAS flavor assigned"
DELAYED_PENDING = "Pending"         # DelayedTopologyRequestStatePending


def explicit(ps: PodSet) -> bool:
    return ps.topology_request is not None and ps.topology_request.explicit()


def implied(ps: PodSet, cq: ClusterQueueSnapshot) -> bool:
    """isTASImplied: no explicit request, and every flavor of the ClusterQueue is a TAS flavor."""
    return not explicit(ps) and cq.tas_only


def requested(ps: PodSet, cq: ClusterQueueSnapshot) -> bool:
    return explicit(ps) or implied(ps, cq)


def flavor_mismatch(cq: ClusterQueueSnapshot, ps: PodSet, flavor: ResourceFlavor, covered: frozenset[str]
                    ) -> str | None:
    """checkPodSetAndFlavorMatchForTAS: why the flavor cannot serve the pod set's topology request
    (or a pod set without one), None when it can."""
    if requested(ps, cq):
        if implied(ps, cq):
            return None
        if flavor.topology_name is None:
            if not set(pod_spec_requests(ps.spec)) & covered:
                return None
            return f'Flavor "{flavor.name}" does not support TopologyAwareScheduling'
        snap = cq.tas_flavors.get(flavor.name)
        if snap is None:
            return f'Flavor "{flavor.name}" information missing in TAS cache'
        if not snap.has_level(ps.topology_request):
            return f'Flavor "{flavor.name}" does not contain the requested level'
        return None
    if flavor.topology_name is not None:
        return f'Flavor "{flavor.name}" supports only TopologyAwareScheduling'
    return None


@dataclass(frozen=True)
class Request:
    """One pod set's TAS request on one flavor, with its index among the Workload's pod sets."""

    index: int
    flavor: str
    pod_set: PodSetRequest


def only_tas_flavor(flavors: Mapping[str, str], cq: ClusterQueueSnapshot) -> tuple[str | None, str]:
    """onlyTASFlavor: the one TAS flavor among a pod set's flavors, or the error."""
    names = sorted({f for f in flavors.values() if f in cq.tas_flavors})
    if not names:
        return None, NO_TAS_FLAVOR
    if len(names) > 1:
        return None, f"more than one TAS flavor assigned: {', '.join(names)}"
    return names[0], ""


def topology_requests(info: Info, cq: ClusterQueueSnapshot, pod_sets: list[Any]
                      ) -> tuple[list[Request], dict[int, str]]:
    """WorkloadsTopologyRequests: each requesting pod set's request (pod sets with no flavors, an
    error or no pods skipped), and per pod set index the error that stops one."""
    out, errors = [], {}
    for i, ps in enumerate(info.obj.spec.pod_sets):
        if i >= len(pod_sets) or not requested(ps, cq):
            continue
        psa = pod_sets[i]
        if psa.status.is_error() or psa.count == 0:
            continue
        if not cq.tas_flavors:
            errors[i] = NO_TAS_CACHE
            continue
        flavor, err = only_tas_flavor({r: fa.name for r, fa in psa.flavors.items()}, cq)
        if flavor is None:
            errors[i] = err
            continue
        if cq.multikueue or (info.obj.admission is None and flavor in cq.prov_req_flavors):
            psa.delayed_topology_request = DELAYED_PENDING      # placed once its checks provisioned
            continue
        single = pod_spec_requests(ps.spec)
        out.append(Request(i, flavor, PodSetRequest(ps.name, psa.count, single, ps.spec, ps.topology_request,
                                                    implied(ps, cq))))
    return out, errors


def find_assignments(cq: ClusterQueueSnapshot, requests: list[Request], simulate_empty: bool = False,
                     prioritized: bool = False) -> dict[int, Placement]:
    """FindTopologyAssignmentsForWorkload: by flavor (sorted), each pod set, or pod set group (its
    leader and workers together), in order on what the earlier ones took; the first failure ends
    the search. `prioritized`: v0.19's rules for a group's leader."""
    out: dict[int, Placement] = {}
    for flavor in sorted({r.flavor for r in requests}):
        snap = cq.tas_flavors[flavor]
        assumed: dict[str, Requests] = {}
        for group in grouped([r for r in requests if r.flavor == flavor]):
            leader, workers = leader_and_workers(group)
            placement = snap.find(workers.pod_set, assumed, simulate_empty,
                                  None if leader is None else leader.pod_set, prioritized)
            if placement.reason:
                if not simulate_empty:
                    placement = tas_report.explained(snap, workers.pod_set, placement, assumed,
                                                     leader=None if leader is None else leader.pod_set)
                out.update({r.index: placement for r in group})
                return out
            placed = [(workers, placement)]
            if leader is not None:
                placed.append((leader, replace(placement, assignment=placement.leader, leader=None)))
            for r, p in placed:
                out[r.index] = p
                assert p.assignment is not None
                for domain_id, usage in domain_usage(p.assignment, r.pod_set.single_pod):
                    into = assumed.setdefault(domain_id, {})
                    for k, v in usage.items():
                        into[k] = into.get(k, 0) + v
    return out


def grouped(requests: list[Request]) -> list[list[Request]]:
    """The requests by pod set group (a pod set without one its own, keyed by its place), the
    groups in the order of their first pod set."""
    groups: dict[str, list[Request]] = {}
    for idx, r in enumerate(requests):
        req = r.pod_set.request
        key = req.pod_set_group if req is not None and req.pod_set_group is not None else str(idx)
        groups.setdefault(key, []).append(r)
    return list(groups.values())


def leader_and_workers(group: list[Request]) -> tuple[Request | None, Request]:
    """findLeaderAndWorkers: the second pod set leads, unless it has more pods than the first."""
    if len(group) == 1:
        return None, group[0]
    if group[1].pod_set.count > group[0].pod_set.count:
        return group[0], group[1]
    return group[1], group[0]


def failure(placements: Mapping[int, Placement]) -> tuple[int, str] | None:
    for index, p in placements.items():
        if p.reason:
            return index, p.reason
    return None
