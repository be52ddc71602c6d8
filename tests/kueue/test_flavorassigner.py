"""Flavor assignment (scheduler/flavorassigner): flavors in order, skipped for taints and node
affinity, checked against quota, the fungibility rules deciding when to stop, and Kueue's
texts for each outcome."""
from __future__ import annotations

import pytest

from kexplain.kueue.cache.cache import Cache
from kexplain.kueue.scheduler.flavorassigner.flavorassigner import FlavorAssigner, flavor_selector
from kexplain.kueue.scheduler.flavorassigner.modes import (FIT, NO_FIT, PM_FIT, PM_NO_CANDIDATES, PM_PREEMPT,
                                                           PREEMPT_MODE, GranularMode, is_preferred,
                                                           should_try_next_flavor)
from kexplain.kueue.apis.clusterqueue import FlavorFungibility
from kexplain.kueue.resources import iteration_order
from kexplain.kueue.scheduler.preemption.common import NO_CANDIDATES
from kexplain.kueue.versions import VERSIONS
from kexplain.kueue.workload.info import AssignmentState, new_info
from kexplain.kueue.workload.workload import Workload
from kexplain.model.nodeinfo import Node
from tests.kueue.builders import cache_of, cluster_queue, flavor, local_queue, read, workload

TWO = [flavor("on-demand", {"capacity": "on-demand"}),
       flavor("spot", {"capacity": "spot"}, [{"key": "spot", "value": "true", "effect": "NoSchedule"}])]


def _assign(docs: list[str], wl_yaml: str, version: str = "0.17") -> tuple[int, str, dict[str, str]]:
    inputs = read(*docs, local_queue("q", "cq"), submitted=(wl_yaml,))
    snap = cache_of(inputs).snapshot()
    info = new_info(Workload.of(inputs.workloads[0]))
    info.cluster_queue = "cq"
    assignment = FlavorAssigner(info, snap.cluster_queue("cq"), snap.flavors,
                                lambda *_: (NO_CANDIDATES, 0, []), VERSIONS[version]).assign()
    flavors = {r: fa.name for ps in assignment.pod_sets for r, fa in ps.flavors.items()}
    return assignment.representative_mode(), assignment.message(), flavors


@pytest.mark.parametrize(("docs", "spec", "requests", "mode", "message", "flavors"), [
    # fits the first flavor
    (TWO + [cluster_queue("cq", {"on-demand": {"cpu": "8"}, "spot": {"cpu": "8"}})], {}, {"cpu": "4"}, FIT, "",
     {"cpu": "on-demand"}),
    # the first is short, the second tainted: both reasons, sorted
    (TWO + [cluster_queue("cq", {"on-demand": {"cpu": "2"}, "spot": {"cpu": "8"}})], {}, {"cpu": "4"}, NO_FIT,
     "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor on-demand, previously considered "
     "podsets requests (0) + current podset request (4) > maximum capacity (2), untolerated taint "
     "{spot true NoSchedule <nil>} in flavor spot", {}),
    # tolerated: the second flavor
    (TWO + [cluster_queue("cq", {"on-demand": {"cpu": "2"}, "spot": {"cpu": "8"}})],
     {"tolerations": [{"key": "spot", "operator": "Exists"}]}, {"cpu": "4"}, FIT, "", {"cpu": "spot"}),
    # node selection picks a flavor by its labels; another label key is ignored
    (TWO + [cluster_queue("cq", {"on-demand": {"cpu": "8"}, "spot": {"cpu": "8"}})],
     {"nodeSelector": {"capacity": "spot", "zone": "a"}, "tolerations": [{"operator": "Exists"}]}, {"cpu": "4"},
     FIT, "", {"cpu": "spot"}),
    (TWO + [cluster_queue("cq", {"on-demand": {"cpu": "8"}, "spot": {"cpu": "8"}})],
     {"nodeSelector": {"capacity": "reserved"}}, {"cpu": "4"}, NO_FIT,
     "couldn't assign flavors to pod set main: flavor on-demand doesn't match node affinity, untolerated taint "
     "{spot true NoSchedule <nil>} in flavor spot", {}),          # the taint is checked first
    # under the nominal quota but used: preemption would be needed
    ([flavor("default"), cluster_queue("cq", {"default": {"cpu": "4"}}),
      workload("old", "q", {"cpu": "3"}, admitted_in="cq")], {}, {"cpu": "2"}, PREEMPT_MODE,
     "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 1 more needed",
     {"cpu": "default"}),
    # a resource no group covers
    ([flavor("default"), cluster_queue("cq", {"default": {"cpu": "4"}})], {}, {"cpu": "1", "ephemeral-storage": "1Gi"},
     NO_FIT, "couldn't assign flavors to pod set main: resource ephemeral-storage unavailable in ClusterQueue", {}),
    # memory's text in its binary units
    ([flavor("default"), cluster_queue("cq", {"default": {"cpu": "4", "memory": "4Gi"}}),
      workload("old", "q", {"cpu": "1", "memory": "3Gi"}, admitted_in="cq")], {}, {"cpu": "1", "memory": "2Gi"},
     PREEMPT_MODE, "couldn't assign flavors to pod set main: insufficient unused quota for memory in flavor default, "
                   "1Gi more needed", {"cpu": "default", "memory": "default"}),
])
def test_assignment(docs, spec, requests, mode, message, flavors) -> None:
    got = _assign(docs, workload("w", "q", requests, spec=spec))
    assert got == (mode, message, flavors)


def test_the_search_resumes_where_the_last_attempt_left_off() -> None:
    docs = [flavor("a"), flavor("b"), cluster_queue("cq", {"a": {"cpu": "8"}, "b": {"cpu": "8"}})]
    inputs = read(*docs, local_queue("q", "cq"), submitted=(workload("w", "q", {"cpu": "1"}),))
    snap = Cache.build(inputs.flavors, inputs.cluster_queues, inputs.cohorts).snapshot()
    info = new_info(Workload.of(inputs.workloads[0]))
    info.cluster_queue = "cq"
    info.last_assignment = AssignmentState([{"cpu": 0}], snap.cluster_queue("cq").generation)
    assignment = FlavorAssigner(info, snap.cluster_queue("cq"), snap.flavors, lambda *_: (NO_CANDIDATES, 0, []),
                                VERSIONS["0.17"]).assign()
    assert assignment.pod_sets[0].flavors["cpu"].name == "b"
    assert assignment.last_state.last_tried_flavor_idx == [{"cpu": -1}]      # the last flavor: start over next time


FUNGIBLE = FlavorFungibility()


@pytest.mark.parametrize(("a", "b", "fungibility", "lowest", "preferred"), [
    (GranularMode(PM_FIT, 1), GranularMode(PM_PREEMPT, 0), FUNGIBLE, False, True),            # borrowing over preemption
    (GranularMode(PM_FIT, 1), GranularMode(PM_PREEMPT, 0),
     FlavorFungibility("TryNextFlavor", "TryNextFlavor", "PreemptionOverBorrowing"), False, False),
    (GranularMode(PM_NO_CANDIDATES, 0), GranularMode(PM_PREEMPT, 1),
     FlavorFungibility("TryNextFlavor", "TryNextFlavor", "PreemptionOverBorrowing"), False, True),
    # v0.19: no candidates ranks below any viable mode, whatever the preference
    (GranularMode(PM_NO_CANDIDATES, 0), GranularMode(PM_PREEMPT, 1),
     FlavorFungibility("TryNextFlavor", "TryNextFlavor", "PreemptionOverBorrowing"), True, False),
])
def test_is_preferred(a, b, fungibility, lowest, preferred) -> None:
    assert is_preferred(a, b, fungibility, lowest) is preferred


@pytest.mark.parametrize(("mode", "fungibility", "rule"), [
    (GranularMode(PM_FIT, 0), FUNGIBLE, ""),
    (GranularMode(PM_FIT, 1), FUNGIBLE, ""),                                   # whenCanBorrow MayStopSearch
    (GranularMode(PM_FIT, 1), FlavorFungibility("TryNextFlavor"), "whenCanBorrow=TryNextFlavor"),
    (GranularMode(PM_PREEMPT, 0), FUNGIBLE, "whenCanPreempt=TryNextFlavor"),
    (GranularMode(PM_PREEMPT, 0), FlavorFungibility(when_can_preempt="MayStopSearch"), ""),
    (GranularMode(PM_NO_CANDIDATES, 0), FlavorFungibility(when_can_preempt="MayStopSearch"), "noPreemptionCandidates"),
])
def test_should_try_next_flavor(mode, fungibility, rule) -> None:
    assert should_try_next_flavor(mode, fungibility) == rule


@pytest.mark.parametrize(("spec", "labels", "matches"), [
    ({}, {"capacity": "spot"}, True),
    ({"nodeSelector": {"capacity": "spot"}}, {"capacity": "spot"}, True),
    ({"nodeSelector": {"capacity": "spot"}}, {"capacity": "on-demand"}, False),
    ({"nodeSelector": {"zone": "a"}}, {"capacity": "spot"}, True),                 # a key the flavor lacks: ignored
    ({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "capacity", "operator": "In", "values": ["spot"]}]}]}}}},
     {"capacity": "on-demand"}, False),
    # a term with no key of the flavor matches any flavor: the affinity is dropped
    ({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "capacity", "operator": "In", "values": ["spot"]}]},
        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}}}},
     {"capacity": "on-demand"}, True),
])
def test_flavor_selector(spec, labels, matches) -> None:
    node = Node.from_obj({"metadata": {"labels": labels}})
    assert flavor_selector(spec, frozenset(labels)).matches(node) is matches


def test_requests_are_ranged_over_in_v0_19s_order() -> None:
    assert iteration_order(["cpu", "memory", "nvidia.com/gpu", "pods", "ephemeral-storage"]) == \
        ["ephemeral-storage", "memory", "nvidia.com/gpu", "pods", "cpu"]


@pytest.mark.parametrize(("requests", "short"), [({"cpu": "4", "memory": "16Gi"}, "cpu"),
                                                 ({"memory": "16Gi", "cpu": "4"}, "memory")])
def test_v0_17_stops_at_the_first_short_resource_as_written(requests, short) -> None:
    """v0.17 ranges over a Go map and stops at the first resource short: most often the first the
    pod's requests name (admission-checks-0153's Kueue said cpu); v0.19 names every one, sorted."""
    docs = [flavor("default"), cluster_queue("cq", {"default": {"cpu": "1", "memory": "1Gi"}})]
    _, message, _ = _assign(docs, workload("w", "q", requests))
    assert message.startswith(f"couldn't assign flavors to pod set main: insufficient quota for {short} in flavor")
    assert message.count("insufficient quota") == 1
    _, message, _ = _assign(docs, workload("w", "q", requests), version="0.19")
    assert message.count("insufficient quota") == 2 and message.index("for cpu") < message.index("for memory")
    assert iteration_order(list(requests), hashed=False) == list(requests)
