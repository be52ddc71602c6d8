"""The FlavorFungibility gate (flavorassigner.go, workload.go's NextFlavorToTryForPodSetResource):
off, every search starts at the first flavor, only a fitting flavor stops it and the best
preemption mode across the flavors wins, the ClusterQueue's flavorFungibility policies ignored."""
from __future__ import annotations

import pytest
import yaml

from kexplain.kueue.cache.cache import Cache
from kexplain.kueue.config import parse_configuration
from kexplain.kueue.scheduler.flavorassigner.flavorassigner import GATE_OFF_RULE, FlavorAssigner
from kexplain.kueue.scheduler.preemption.common import PREEMPT
from kexplain.kueue.versions import VERSIONS
from kexplain.kueue.workload.info import AssignmentState, new_info
from kexplain.kueue.workload.workload import Workload
from tests.kueue.builders import cache_of, cluster_queue, flavor, local_queue, read, run, workload

STOP_AT_PREEMPT = {"whenCanPreempt": "MayStopSearch"}
# flavor a: 3 of 4 cpu used (2 more needs preemption); flavor b: 8 cpu free
USED_A = workload("old", "q", {"cpu": "3"}, admitted_in="cq", flavors={"cpu": "a"})


def _assign(fungibility: dict[str, str], gate: bool, last: list[dict[str, int]] | None = None):
    docs = [flavor("a"), flavor("b"), cluster_queue("cq", {"a": {"cpu": "4"}, "b": {"cpu": "8"}},
                                                   flavorFungibility=fungibility), USED_A]
    inputs = read(*docs, local_queue("q", "cq"), submitted=(workload("w", "q", {"cpu": "2"}),))
    snap = cache_of(inputs).snapshot()
    info = new_info(Workload.of(inputs.workloads[-1]))
    info.cluster_queue = "cq"
    if last is not None:
        info.last_assignment = AssignmentState(last, snap.cluster_queue("cq").generation)
    return FlavorAssigner(info, snap.cluster_queue("cq"), snap.flavors, lambda *_: (PREEMPT, 0, []),
                          VERSIONS["0.17"], fungibility=gate).assign()


@pytest.mark.parametrize(("fungibility", "gate", "chosen"), [
    ({}, True, "b"),                    # whenCanPreempt: TryNextFlavor (the default): on to b, which fits
    (STOP_AT_PREEMPT, True, "a"),       # may stop at a flavor needing preemption
    ({}, False, "b"),                   # off: the best mode across flavors, Fit over Preempt
    (STOP_AT_PREEMPT, False, "b"),      # off: the policy ignored
])
def test_the_gate_decides_the_flavor(fungibility, gate, chosen) -> None:
    assert _assign(fungibility, gate).pod_sets[0].flavors["cpu"].name == chosen


def test_off_the_search_goes_on_past_a_flavor_needing_preemption_by_the_gate() -> None:
    trials = _assign(STOP_AT_PREEMPT, False).pod_sets[0].trials
    assert [(t.flavor, t.next_rule) for t in trials] == [("a", GATE_OFF_RULE), ("b", "")]


def test_off_the_first_flavor_of_the_best_mode_is_kept() -> None:
    docs = [flavor("a"), flavor("b"), cluster_queue("cq", {"a": {"cpu": "4"}, "b": {"cpu": "4"}}), USED_A,
            workload("old-b", "q", {"cpu": "3"}, admitted_in="cq", flavors={"cpu": "b"})]
    inputs = read(*docs, local_queue("q", "cq"), submitted=(workload("w", "q", {"cpu": "2"}),))
    snap = cache_of(inputs).snapshot()
    info = new_info(Workload.of(inputs.workloads[-1]))
    info.cluster_queue = "cq"
    got = FlavorAssigner(info, snap.cluster_queue("cq"), snap.flavors, lambda *_: (PREEMPT, 0, []),
                         VERSIONS["0.17"], fungibility=False).assign()
    assert got.pod_sets[0].flavors["cpu"].name == "a" and [t.flavor for t in got.pod_sets[0].trials] == ["a", "b"]


def test_off_the_search_starts_at_the_first_flavor_and_records_no_progress() -> None:
    docs = [flavor("a"), flavor("b"), cluster_queue("cq", {"a": {"cpu": "8"}, "b": {"cpu": "8"}})]
    inputs = read(*docs, local_queue("q", "cq"), submitted=(workload("w", "q", {"cpu": "1"}),))
    snap = Cache.build(inputs.flavors, inputs.cluster_queues, inputs.cohorts).snapshot()
    for gate, chosen, recorded in ((True, "b", -1), (False, "a", 0)):
        info = new_info(Workload.of(inputs.workloads[0]))
        info.cluster_queue = "cq"
        info.last_assignment = AssignmentState([{"cpu": 0}], snap.cluster_queue("cq").generation)
        got = FlavorAssigner(info, snap.cluster_queue("cq"), snap.flavors, lambda *_: (PREEMPT, 0, []),
                             VERSIONS["0.17"], fungibility=gate).assign()
        assert (got.pod_sets[0].flavors["cpu"].name, got.last_state.last_tried_flavor_idx) == (chosen, [{"cpu": recorded}])


def _configuration(gate: bool) -> str:
    return yaml.safe_dump({"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
                           "featureGates": {"FlavorFungibility": gate}})


@pytest.mark.parametrize(("gate", "flavor_used", "preempted"), [(True, "a", True), (False, "b", False)])
def test_the_pass_passes_the_configurations_gate(gate, flavor_used, preempted) -> None:
    docs = [flavor("a"), flavor("b"), local_queue("q", "cq"), _configuration(gate),
            cluster_queue("cq", {"a": {"cpu": "4"}, "b": {"cpu": "8"}}, flavorFungibility=STOP_AT_PREEMPT,
                          preemption={"withinClusterQueue": "LowerPriority"}), USED_A]
    done = run(*docs, submitted=(workload("w", "q", {"cpu": "2"}, priority=10),))
    assert done.workloads["default/old"].is_true("Preempted") is preempted
    if not preempted:       # (on, w waits for its victim to go)
        assert done.workloads["default/w"].admission.pod_set_assignments[0].flavors == {"cpu": flavor_used}


def test_the_gate_off_is_modelled_not_said() -> None:
    off = parse_configuration(yaml.safe_load(_configuration(False)))
    assert not off.enabled("FlavorFungibility") and off.note() is None
