"""gather_pools: which slices a node sees, their generation, completeness and validity."""
from __future__ import annotations

import pytest

from kexplain.features import KubeVersion
from kexplain.model.nodeinfo import Node
from kexplain.plugins.dra.pools import PoolError, gather_pools
from kexplain.plugins.dra.variant import allocator_rules
from tests.plugins.dra.builders import dev, slice_obj, slices

N1 = Node.from_obj({"metadata": {"name": "n1", "labels": {"zone": "a"}}})


def summary(pools):
    return [(p.id, len(p.slices), p.incomplete, p.invalid_reason) for p in pools]


def test_node_name_all_nodes_and_selector():
    sel = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}
    other = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]}]}
    got = gather_pools(slices(
        slice_obj("s1", [dev("a")], node="n1"),
        slice_obj("s2", [dev("a")], node="n2"),
        slice_obj("s3", [dev("a")], pool="shared", all_nodes=True),
        slice_obj("s4", [dev("a")], pool="zone-a", selector=sel),
        slice_obj("s5", [dev("a")], pool="zone-b", selector=other),
        slice_obj("s6", [dev("a")], pool="nowhere"),   # targets no node at all
    ), N1)
    assert summary(got) == [("gpu.example.com/n1", 1, False, ""), ("gpu.example.com/shared", 1, False, ""),
                            ("gpu.example.com/zone-a", 1, False, "")]


def test_partitionable_slices_are_skipped_before_136():
    """1.35's allocator, where DRAPartitionableDevices is off (1.36's: test_versions.py)."""
    got = gather_pools(slices(
        slice_obj("s1", [dev("a")], node="n1", sharedCounters=[{"name": "c", "counters": {}}]),
        slice_obj("s2", [dev("a")], pool="p", perDeviceNodeSelection=True),
    ), N1, rules=allocator_rules(KubeVersion("1.35")))
    assert got == []


def test_highest_generation_wins():
    got = gather_pools(slices(
        slice_obj("old", [dev("a"), dev("b")], node="n1", generation=1),
        slice_obj("new", [dev("c")], node="n1", generation=2),
        slice_obj("older", [dev("d")], node="n1", generation=0),
    ), N1)
    assert summary(got) == [("gpu.example.com/n1", 1, False, "")]
    assert [d.name for d in got[0].slices[0].devices] == ["c"]


def test_incomplete_pool():
    got = gather_pools(slices(slice_obj("s1", [dev("a")], node="n1", count=2)), N1)
    assert summary(got) == [("gpu.example.com/n1", 1, True, "")]
    assert not got[0].usable


def test_slices_for_other_nodes_complete_a_pool():
    # Two slices of one pool at one generation, one per node: complete for both nodes.
    got = gather_pools(slices(
        slice_obj("s1", [dev("a")], node="n1", pool="p", count=2),
        slice_obj("s2", [dev("b")], node="n2", pool="p", count=2),
    ), N1)
    assert summary(got) == [("gpu.example.com/p", 1, False, "")]


def test_newer_generation_elsewhere_makes_the_pool_obsolete():
    got = gather_pools(slices(
        slice_obj("s1", [dev("a")], node="n1", pool="p", count=2, generation=1),
        slice_obj("s2", [dev("b")], node="n2", pool="p", count=1, generation=2),
    ), N1)
    assert got == []


def test_duplicate_device_names_make_the_pool_invalid():
    got = gather_pools(slices(
        slice_obj("s1", [dev("a")], node="n1", count=2),
        slice_obj("s2", [dev("a")], node="n1", count=2),
    ), N1)
    assert summary(got) == [("gpu.example.com/n1", 2, False, "duplicate device name a")]
    assert got[0].invalid and not got[0].usable


@pytest.mark.parametrize(("minor", "want"), [
    ("1.35", ["nic.example.com/n1", "gpu.example.com/n1"]),     # the order of each pool's first slice
    ("1.36", ["gpu.example.com/n1", "nic.example.com/n1"]),     # sorted by driver, then pool name
    (None, ["gpu.example.com/n1", "nic.example.com/n1"]),       # the default version's: 1.36
])
def test_pool_order(minor, want):
    objs = slices(slice_obj("x", [dev("a")], driver="nic.example.com", node="n1"),
                  slice_obj("y", [dev("a")], node="n1"))
    got = gather_pools(objs, N1, rules=allocator_rules(KubeVersion(minor))) if minor else gather_pools(objs, N1)
    assert [p.id for p in got] == want


def test_unparsable_slice_selector():
    bad = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "Bogus", "values": ["a"]}]}]}
    with pytest.raises(PoolError, match="failed to perform node selection for slice s1"):
        gather_pools(slices(slice_obj("s1", [dev("a")], pool="p", selector=bad)), N1)
