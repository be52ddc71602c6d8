"""Cluster-wide core/memory limits and --max-nodes-total, on hand-built nodes (CA's resourcequotas
and the scale-up orchestrator's caps)."""
from __future__ import annotations

from typing import Any

import pytest

from kexplain.autoscaler.resourcelimits import (GIB, MAX_NODES_TOTAL_ERROR, NodeCountCap, QuotaTracker, ResourceLimits,
                                                atomic_scale_up_exceeds, cap_new_node_count, max_nodes_total_reached,
                                                node_resources, parse_min_max)
from kexplain.autoscaler.status import max_nodes_total_message
from kexplain.errors import InputError, Source


def node(name: str, cpu: str, memory: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels or {}},
            "status": {"capacity": {"cpu": cpu, "memory": memory},
                       "allocatable": {"cpu": "1", "memory": "1Gi"}}}


def test_node_counts_capacity_rounded_up_to_whole_cores():
    assert node_resources(node("n", "3920m", "15Gi")) == {"cpu": 4, "memory": 15 * GIB, "nodes": 1}
    assert node_resources({"status": {"capacity": {"cpu": "-1"}}}) == {"cpu": 0, "memory": 0, "nodes": 1}


def test_flags_parse_as_ca_parses_them():
    limits = ResourceLimits.from_flags("2:40", "0:64")
    assert (limits.min_cores, limits.max_cores, limits.max_memory) == (2, 40, 64 * GIB)
    assert ResourceLimits.from_flags() == ResourceLimits()
    assert parse_min_max("+1:2") == (1, 2)


@pytest.mark.parametrize("flag, message", [
    ("64", "wrong nodes configuration: 64"),
    ("0:6x", 'failed to set max size: 6x, expected integer, err: strconv.ParseInt: parsing "6x": invalid syntax'),
    (" 1:2", 'failed to set min size:  1, expected integer, err: strconv.ParseInt: parsing " 1": invalid syntax'),
    ("1:2:3", 'failed to set max size: 2:3, expected integer, err: strconv.ParseInt: parsing "2:3": invalid syntax'),
    ("-1:2", "min size must be greater or equal to  0"),
    ("5:2", "max size must be greater or equal to min size"),
])
def test_bad_flags_are_refused_in_cas_words(flag, message):
    with pytest.raises(ValueError) as err:
        parse_min_max(flag)
    assert str(err.value) == message
    with pytest.raises(InputError) as err:
        ResourceLimits.from_flags(memory_total=flag, source=Source("params.yaml"))
    assert str(err.value) == f"params.yaml: memory-total: Failed to parse flags: {message}"


def cluster() -> tuple[list[dict[str, Any]], dict[str, str]]:
    nodes = [node("a1", "4", "16Gi"), node("a2", "8", "32Gi"),     # a2 differs: CA counts a1's figure twice
             node("b1", "2", "8Gi"), node("lone", "3", "4Gi"),
             node("vk", "100", "100Gi", {"type": "virtual-kubelet"})]
    return nodes, {"a1": "a", "a2": "a", "b1": "b"}


def test_usage_adds_nodes_per_group_figure_and_skips_virtual_kubelet():
    nodes, group_of = cluster()
    tracker = QuotaTracker(ResourceLimits(max_cores=20, max_memory=64 * GIB), nodes, group_of)
    # a: 2 x (4, 16Gi); b: (2, 8Gi); lone: (3, 4Gi); vk left out
    assert tracker.usage == {"cpu": 13, "memory": 44 * GIB, "nodes": 4}
    assert tracker.limits_left == {"cpu": 7, "memory": 20 * GIB}


def test_check_caps_by_the_tightest_resource_and_names_what_is_exceeded():
    nodes, group_of = cluster()
    tracker = QuotaTracker(ResourceLimits(max_cores=20, max_memory=64 * GIB), nodes, group_of)
    # a member's figure is used, not the template's (8 cores would allow none)
    ok = tracker.check("a", node("template", "8", "32Gi"), 1)
    assert ok.allowed_delta == 1 and not ok.is_exceeded
    three = tracker.check("a", node("template", "8", "32Gi"), 3)
    assert three.allowed_delta == 1              # cpu 7 // 4 = 1, memory 20Gi // 16Gi = 1
    assert three.reasons == ['exceeded quota: "cluster-wide", resources: cpu, memory']
    # a group without members: its template counts
    new = tracker.check("c", node("template", "2", "2Gi"), 5)
    assert new.allowed_delta == 3 and new.reasons == ['exceeded quota: "cluster-wide", resources: cpu']
    with pytest.raises(ValueError):
        tracker.check("c", node("template", "2", "2Gi"), -1)


def test_a_group_with_nothing_left_is_skipped_for_one_node():
    nodes, group_of = cluster()
    tracker = QuotaTracker(ResourceLimits(max_cores=12), nodes, group_of)     # usage 13 > 12: 0 left
    check = tracker.check("b", {}, 1)
    assert check.allowed_delta == 0 and check.reasons == ['exceeded quota: "cluster-wide", resources: cpu']


def test_consume_takes_off_what_a_balanced_group_got():
    nodes, group_of = cluster()
    tracker = QuotaTracker(ResourceLimits(max_cores=20), nodes, group_of)     # 7 cores left
    assert tracker.consume("b", {}, 2).allowed_delta == 2                      # 4 cores taken
    assert tracker.limits_left["cpu"] == 3
    capped = tracker.consume("a", {}, 2)                                      # 3 // 4 = 0: nothing taken
    assert capped.allowed_delta == 0 and tracker.limits_left["cpu"] == 3
    assert tracker.check("c", node("t", "1", "1Gi"), 5).allowed_delta == 3


def test_max_nodes_total():
    assert not max_nodes_total_reached(0, 100)
    assert max_nodes_total_reached(5, 5) and not max_nodes_total_reached(5, 4)
    assert max_nodes_total_message(5) == "Max total nodes in cluster reached: 5"
    assert cap_new_node_count(3, 4, 0) == NodeCountCap(3)
    assert cap_new_node_count(3, 4, 7) == NodeCountCap(3)
    assert cap_new_node_count(3, 5, 7) == NodeCountCap(2, True)
    assert cap_new_node_count(3, 7, 7) == NodeCountCap(0, True, MAX_NODES_TOTAL_ERROR)
    assert MAX_NODES_TOTAL_ERROR == "max node total count already reached"
    assert atomic_scale_up_exceeds(5, 3, 7) and not atomic_scale_up_exceeds(5, 2, 7)
    assert not atomic_scale_up_exceeds(5, 30, 0)
