"""Similar node groups and the balanced scale-up, on hand-built templates (CA's processors/nodegroupset)."""
from __future__ import annotations

from typing import Any

import pytest

from kexplain.autoscaler.nodegroups import NodeGroup
from kexplain.autoscaler.nodegroupset import (BASIC_IGNORED_LABELS, DifferenceRatios, ScaleUpInfo, balance_scale_up,
                                              comparator, find_similar_node_groups)
from kexplain.model.nodeinfo import Node, NodeInfo
from tests.support.resources_helpers import pod

CAP = {"cpu": "4", "memory": "16Gi", "pods": "58", "ephemeral-storage": "20Gi"}
ALLOC = {"cpu": "3920m", "memory": "15000Mi", "pods": "58", "ephemeral-storage": "18Gi"}
LABELS = {"node.kubernetes.io/instance-type": "m5.xlarge", "kubernetes.io/arch": "amd64"}


def template(name: str, labels: dict[str, str] | None = None, capacity: dict[str, Any] | None = None,
             allocatable: dict[str, Any] | None = None, *pods) -> NodeInfo:
    ni = NodeInfo(Node.from_obj({"apiVersion": "v1", "kind": "Node",
                                 "metadata": {"name": name, "labels": {**LABELS, **(labels or {})}},
                                 "status": {"capacity": capacity or CAP, "allocatable": allocatable or ALLOC}}))
    ni.add_pods(pods)
    return ni


def group(name: str, max_size: int = 10) -> NodeGroup:
    return NodeGroup(name, 0, max_size, None, {"eks.amazonaws.com/nodegroup": name})


GENERIC = comparator()


def test_zone_and_hostname_are_ignored_but_other_labels_count():
    a = template("a", {"topology.kubernetes.io/zone": "us-east-1a", "kubernetes.io/hostname": "a"})
    b = template("b", {"topology.kubernetes.io/zone": "us-east-1b", "kubernetes.io/hostname": "b"})
    assert GENERIC.similar(a, b)
    c = template("c", {"eks.amazonaws.com/nodegroup": "c"})
    d = template("d", {"eks.amazonaws.com/nodegroup": "d"})
    assert GENERIC.difference(c, d) == "labels do not match"
    assert comparator(balancing_ignore_labels=["eks.amazonaws.com/nodegroup"]).similar(c, d)
    # a label on one side only is a difference too
    assert GENERIC.difference(a, c) == "labels do not match"
    assert "kops.k8s.io/instancegroup" in BASIC_IGNORED_LABELS


def test_memory_capacity_within_one_and_a_half_percent():
    base = template("a")
    near = template("b", capacity={**CAP, "memory": "16200Mi"})       # 1.1% less than 16384Mi
    far = template("c", capacity={**CAP, "memory": "16000Mi"})        # 2.3% less
    assert GENERIC.similar(base, near)
    assert GENERIC.difference(base, far) == "memory not within tolerance"
    assert comparator(ratios=DifferenceRatios(max_capacity_memory=0.03)).similar(base, far)


def test_other_capacity_must_match_exactly_and_exist_on_both():
    assert GENERIC.difference(template("a"), template("b", capacity={**CAP, "cpu": "4001m"})) == \
        'capacity resource "cpu" does not match'
    gpu = template("g", capacity={**CAP, "nvidia.com/gpu": "1"}, allocatable={**ALLOC, "nvidia.com/gpu": "1"})
    assert GENERIC.difference(template("a"), gpu) == 'missing capacity "nvidia.com/gpu"'


def test_allocatable_within_five_percent():
    assert GENERIC.similar(template("a"), template("b", allocatable={**ALLOC, "cpu": "3800m"}))      # 3.1%
    assert GENERIC.difference(template("a"), template("b", allocatable={**ALLOC, "cpu": "3700m"})) == \
        "allocatable resources not within tolerance"                                                # 5.6%
    no_storage = {k: v for k, v in ALLOC.items() if k != "ephemeral-storage"}
    assert GENERIC.difference(template("a"), template("b", allocatable=no_storage)) == \
        "allocatable resources not within tolerance"


def test_free_room_counts_the_templates_pods():
    ds = pod({"cpu": "100m", "memory": "100Mi"})
    heavy = pod({"cpu": "400m", "memory": "100Mi"})
    # 3920m - 100m = 3820m against 3920m - 400m = 3520m: 7.9% apart
    assert GENERIC.similar(template("a", None, None, None, ds), template("b", None, None, None, ds))
    assert GENERIC.difference(template("a", None, None, None, ds), template("b", None, None, None, heavy)) == \
        "free resources not within tolerance"
    # a scalar resource requested on one template only: CA's free map has it once
    gpu_pod = pod({"cpu": "100m", "memory": "100Mi", "example.com/dongle": "0"})
    assert GENERIC.difference(template("a", None, None, None, ds), template("b", None, None, None, gpu_pod)) == \
        "free resources not within tolerance"


def test_balancing_labels_replace_every_other_check():
    a = template("a", {"pool": "x"}, capacity={**CAP, "cpu": "8"})
    b = template("b", {"pool": "x"})
    c = template("c", {"pool": "y"})
    cmp = comparator(balancing_labels=["pool"], balancing_ignore_labels=["ignored"])
    assert cmp.similar(a, b)
    assert not cmp.similar(a, c)
    assert not cmp.similar(a, template("d"))


def test_find_similar_node_groups_in_provider_order_without_self_or_templateless():
    groups = [group("c"), group("a"), group("b"), group("none"), group("other")]
    infos = {"a": template("a"), "b": template("b"), "c": template("c"),
             "other": template("o", {"node.kubernetes.io/instance-type": "m5.2xlarge"})}
    assert [g.name for g in find_similar_node_groups(groups[1], groups, infos, GENERIC)] == ["c", "b"]
    assert find_similar_node_groups(groups[3], groups, infos, GENERIC) == []


def sizes(**kw: int) -> dict[str, int]:
    return kw


def test_balance_fills_the_smallest_group_first_then_evenly():
    a, b, c = group("a", 8), group("b", 7), group("c", 10)
    infos = balance_scale_up([b, a, c], sizes(a=1, b=2, c=4), 8)
    # sorted by size: a (1), b (2), c (4). a 1->2 evens it with b (1 node); a and b 2->3 and
    # 3->4 (4 nodes) even them with c; the last 3 go to a, b and c: 5 each.
    assert [(i.group.name, i.current_size, i.new_size) for i in infos] == [("a", 1, 5), ("b", 2, 5), ("c", 4, 5)]
    infos = balance_scale_up([b, a, c], sizes(a=1, b=2, c=4), 3)
    assert [(i.group.name, i.new_size) for i in infos] == [("a", 3), ("b", 3)]


def test_balance_respects_max_sizes_and_caps_the_total():
    a, b, full = group("a", 2), group("b", 6), group("full", 3)
    infos = balance_scale_up([a, b, full], sizes(a=1, b=1, full=3), 20)
    assert [(i.group.name, i.current_size, i.new_size, i.max_size) for i in infos] == [("a", 1, 2, 2), ("b", 1, 6, 6)]
    assert str(infos[0]) == "{a 1->2 (max: 2)}"


def test_balance_swaps_a_full_group_out_as_ca_does():
    # a reaches max first; CA swaps it with the slot at the start and reads that slot again
    a, b, c = group("a", 2), group("b", 9), group("c", 9)
    infos = balance_scale_up([a, b, c], sizes(a=1, b=1, c=1), 6)
    assert sorted((i.group.name, i.new_size) for i in infos) == [("a", 2), ("b", 4), ("c", 3)]
    # y fills up while x waits behind it: the swap puts y first and x in y's slot, and CA moves
    # on from x (3) to z (2), not back to x
    x, y, z = group("x", 9), group("y", 2), group("z", 9)
    infos = balance_scale_up([x, y, z], sizes(x=1, y=1, z=1), 5)
    assert [(i.group.name, i.new_size) for i in infos] == [("y", 2), ("x", 3), ("z", 3)]
    assert balance_scale_up([a], sizes(a=2), 3) == []
    with pytest.raises(ValueError, match="Can't balance scale up between 0 groups"):
        balance_scale_up([], {}, 1)


def test_balance_ties_keep_gos_sort_order():
    gs = [group(f"g{i:02}", 5) for i in range(14)]
    cur = {g.name: (0 if i % 2 else 1) for i, g in enumerate(gs)}
    infos = balance_scale_up(gs, cur, 7)
    assert len(infos) == 7 and all(i.current_size == 0 and i.new_size == 1 for i in infos)
    assert isinstance(infos[0], ScaleUpInfo)
