"""The DRA allocator per Kubernetes minor: which allocator each minor's gates select, and what
each minor (and allocator) does differently, on small hand-made pools, with the real texts."""
from __future__ import annotations

import pytest

from kexplain.features import KubeVersion
from kexplain.model.nodeinfo import Node
from kexplain.plugins.dra.allocator import AllocatorError, NodeFailure, allocate
from kexplain.plugins.dra.pools import gather_pools
from kexplain.plugins.dra.selectors import Selectors
from kexplain.plugins.dra.variant import allocator_rules
from tests.plugins.dra.builders import GPU, claim, claims, classes, dev, device_class, exact, first, req, slice_obj, slices

N1 = Node.from_obj({"metadata": {"name": "n1", "labels": {"zone": "a"}}})
GPU_CLASS = device_class(GPU, f"device.driver == '{GPU}'")
IDX0 = "device.attributes['gpu.example.com'].index == 0"
IDX1 = "device.attributes['gpu.example.com'].index == 1"
ZONE = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}
ZONE_B = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]}]}


def rules(minor: str, gates: str | None = None):
    return allocator_rules(KubeVersion(minor).with_feature_gates(gates))


def gpus(n: int, prefix: str = "gpu", **fields) -> list[dict]:
    return [{**dev(f"{prefix}-{i}", index=i), **fields} for i in range(n)]


def run(minor, claim_objs, slice_objs, gates=None, in_use=(), class_objs=(GPU_CLASS,), **kw):
    r = rules(minor, gates)
    parsed = slices(*slice_objs)
    pools = gather_pools(parsed, N1, rules=r)
    return allocate(claims(*claim_objs), classes(*class_objs), pools, set(in_use), Selectors(), r, node=N1, **kw)


def picked(result):
    return [[(d.request, d.device) for d in c.devices] for c in result]


# -- which allocator ------------------------------------------------------------------------------

@pytest.mark.parametrize("minor, gates, variant", [
    ("1.33", "DynamicResourceAllocation=true", "structured"),   # one allocator
    ("1.34", None, "experimental"),     # DRAResourceClaimDeviceStatus (beta, on) only experimental supports
    ("1.34", "DRAResourceClaimDeviceStatus=false", "incubating"),
    ("1.34", "DRAResourceClaimDeviceStatus=false,DRAAdminAccess=false,DRAPrioritizedList=false", "stable"),
    ("1.35", None, "incubating"),       # the two binding gates are one feature, off
    ("1.35", "DRAConsumableCapacity=true", "experimental"),
    ("1.35", "DRAAdminAccess=false,DRAPrioritizedList=false", "stable"),
    ("1.36", None, "incubating"),       # with binding conditions and consumable capacity on
    ("1.36", "DRAConsumableCapacity=false,DRADeviceBindingConditions=false", "stable"),
])
def test_the_allocator_each_minor_and_gates_select(minor, gates, variant):
    assert rules(minor, gates).variant.name == variant


def test_default_features_per_minor():
    assert rules("1.34").features == {"DRAAdminAccess", "DRAPrioritizedList", "DRAResourceClaimDeviceStatus"}
    assert rules("1.35").features == {"DRAAdminAccess", "DRAPrioritizedList"}
    assert rules("1.36").features == {"DRAAdminAccess", "DRAPrioritizedList", "DRAPartitionableDevices",
                                      "DRADeviceTaints", "DRAConsumableCapacity",
                                      "DRADeviceBindingConditions+DRAResourceClaimDeviceStatus"}


# -- pools: completeness before and from 1.35 --------------------------------------------------------

def zone_split():
    """One pool of two slices, one per zone: the node sees one."""
    return [slice_obj("za", gpus(1), pool="fabric", count=2, selector=ZONE),
            slice_obj("zb", gpus(1, "other"), pool="fabric", count=2, selector=ZONE_B)]


def test_a_pool_split_per_zone_is_incomplete_per_node_before_135():
    for minor, incomplete in (("1.34", True), ("1.35", False), ("1.36", False)):
        pools = gather_pools(slices(*zone_split()), N1, rules=rules(minor))
        assert [(p.id, p.incomplete) for p in pools] == [(f"{GPU}/fabric", incomplete)], minor


def test_incomplete_pools_are_allocated_from_before_135():
    objs = [slice_obj("s", gpus(1), node="n1", count=2)]
    assert picked(run("1.34", [claim("c", req("gpu"))], objs)) == [[("gpu", "gpu-0")]]
    assert run("1.35", [claim("c", req("gpu"))], objs) is None
    assert run("1.33", [claim("c", req("gpu"))], objs, gates="DynamicResourceAllocation=true") is not None


def test_all_mode_over_a_pool_incomplete_on_the_node_is_an_error_before_135():
    with pytest.raises(AllocatorError, match="^claim default/c, request gpus: asks for all devices, but resource pool "
                                             "gpu.example.com/fabric is currently being updated$"):
        run("1.34", [claim("c", req("gpus", mode="All"))], zone_split())
    assert picked(run("1.35", [claim("c", req("gpus", mode="All"))], zone_split())) == [[("gpus", "gpu-0")]]


def test_an_obsolete_generation_is_ignored_from_135():
    objs = [slice_obj("old", gpus(1), node="n1", pool="p", count=2, generation=1),
            slice_obj("new", gpus(1, "x"), node="n2", pool="p", count=2, generation=2)]
    assert [p.id for p in gather_pools(slices(*objs), N1, rules=rules("1.35"))] == []
    assert [(p.id, p.incomplete) for p in gather_pools(slices(*objs), N1, rules=rules("1.34"))] == [(f"{GPU}/p", True)]


def invalid_pool():
    return [slice_obj("s1", gpus(1), node="n1", count=2), slice_obj("s2", gpus(1), node="n1", count=2)]


def test_an_invalid_pool_ends_the_cycle_when_reached_before_135():
    with pytest.raises(AllocatorError, match="^pool n1 is invalid: duplicate device name gpu-0$"):
        run("1.34", [claim("c", req("gpu"))], invalid_pool())
    with pytest.raises(NodeFailure, match="^invalid resource pools were encountered$"):
        run("1.35", [claim("c", req("gpu"))], invalid_pool())


def test_an_invalid_pool_after_a_solution_is_never_reached_before_135():
    objs = [slice_obj("ok", gpus(1, "a"), node="n1", pool="first"), *invalid_pool()]
    assert picked(run("1.34", [claim("c", req("gpu"))], objs)) == [[("gpu", "a-0")]]


# -- pools: order --------------------------------------------------------------------------------

def test_pools_and_slices_are_sorted_from_136():
    objs = [slice_obj("s-b", gpus(1, "b"), node="n1", pool="zeta"),
            slice_obj("s-2", gpus(1, "y"), node="n1", pool="alpha", count=2),
            slice_obj("s-1", gpus(1, "x"), node="n1", pool="alpha", count=2),
            slice_obj("s-a", gpus(1, "a"), node="n1", pool="alpha2", driver="aaa.example.com")]
    got = gather_pools(slices(*objs), N1, rules=rules("1.36"))
    assert [p.id for p in got] == ["aaa.example.com/alpha2", f"{GPU}/alpha", f"{GPU}/zeta"]
    assert [s.name for s in got[1].slices] == ["s-1", "s-2"]
    got = gather_pools(slices(*objs), N1, rules=rules("1.35"))   # in order of appearance
    assert [p.id for p in got] == [f"{GPU}/zeta", f"{GPU}/alpha", "aaa.example.com/alpha2"]
    assert [s.name for s in got[1].slices] == ["s-2", "s-1"]


def test_pools_with_binding_conditions_come_last_and_are_used_from_136():
    bound = [{**dev("b-0", index=0), "bindingConditions": ["ready"], "bindingFailureConditions": ["failed"]}]
    objs = [slice_obj("s1", bound, node="n1", pool="a"), slice_obj("s2", gpus(1), node="n1", pool="b")]
    assert [p.name for p in gather_pools(slices(*objs), N1, rules=rules("1.36"))] == ["b", "a"]
    got = run("1.36", [claim("c", req("gpu", count=2))], objs)
    assert picked(got) == [[("gpu", "gpu-0"), ("gpu", "b-0")]]
    assert got[0].devices[1].binding_conditions == ("ready",)
    assert run("1.35", [claim("c", req("gpu", count=2))], objs) is None   # not selectable with the gates off


def test_a_device_that_binds_to_the_node_pins_the_claim_from_136():
    objs = [slice_obj("s", [{**dev("g", index=0), "bindsToNode": True, "bindingConditions": ["ready"]}],
                      pool="shared", all_nodes=True)]
    got = run("1.36", [claim("c", req("gpu"))], objs)
    assert got[0].node_selector == {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}


# -- features switched by gates -----------------------------------------------------------------------

def test_subrequests_need_the_prioritized_list_feature():
    with pytest.raises(AllocatorError, match="^claim default/c, request gpus: has subrequests, but the "
                                             "DRAPrioritizedList feature is disabled$"):
        run("1.35", [claim("c", first("gpus", ("a", exact(GPU))))], [slice_obj("s", gpus(1), node="n1")],
            gates="DRAPrioritizedList=false")


def test_admin_access_needs_its_feature():
    with pytest.raises(AllocatorError, match="^claim default/c, request gpu: admin access is requested, but the "
                                             "feature is disabled$"):
        run("1.35", [claim("c", req("gpu", admin=True))], [slice_obj("s", gpus(1), node="n1")],
            gates="DRAAdminAccess=false")


def test_capacity_requests_are_refused_by_an_allocator_that_knows_them_with_the_feature_off():
    capacity = {"name": "gpu", "exactly": {**exact(GPU), "capacity": {"requests": {"memory": "1Gi"}}}}
    sub = first("gpus", ("a", {**exact(GPU), "capacity": {"requests": {"memory": "1Gi"}}}))
    objs = [slice_obj("s", gpus(1), node="n1")]
    with pytest.raises(AllocatorError, match="^claim default/c, request gpu: has capacity requests, but the "
                                             "DRAConsumableCapacity feature is disabled$"):
        run("1.34", [claim("c", capacity)], objs)     # experimental: knows capacity
    with pytest.raises(AllocatorError, match="^claim default/c, request gpus: has capacity"):
        run("1.34", [claim("c", sub)], objs)          # 1.34 names the request
    with pytest.raises(AllocatorError, match="^claim default/c, subrequest a: has capacity"):
        run("1.36", [claim("c", sub)], objs, gates="DRAConsumableCapacity=false")
    assert run("1.35", [claim("c", capacity)], objs) is not None   # incubating ignores the field


def test_device_taints_from_136():
    tainted = [{**dev("t-0", index=0), "taints": [{"key": "broken", "effect": "NoSchedule"}]},
               {**dev("n-0", index=1), "taints": [{"key": "note", "effect": "None"}]}]
    objs = [slice_obj("s", tainted, node="n1")]
    assert picked(run("1.36", [claim("c", req("gpu"))], objs)) == [[("gpu", "n-0")]]   # None is ignored
    tolerant = req("gpu", count=2)
    tolerant["exactly"]["tolerations"] = [{"key": "broken", "operator": "Exists", "effect": "NoSchedule"}]
    got = run("1.36", [claim("c", tolerant)], objs)
    assert picked(got) == [[("gpu", "t-0"), ("gpu", "n-0")]]
    assert got[0].devices[0].tolerations == ({"key": "broken", "operator": "Exists", "effect": "NoSchedule"},)
    assert picked(run("1.35", [claim("c", req("gpu"))], objs)) == [[("gpu", "t-0")]]   # taints off


def test_before_135_every_taint_must_be_tolerated():
    objs = [slice_obj("s", [{**dev("n-0", index=0), "taints": [{"key": "note", "effect": "None"}]}], node="n1")]
    assert run("1.34", [claim("c", req("gpu"))], objs, gates="DRADeviceTaints=true") is None
    assert run("1.36", [claim("c", req("gpu"))], objs) is not None


def partitions():
    counters = slice_obj("counters", [], node="n1", pool="p", count=2,
                         sharedCounters=[{"name": "mem", "counters": {"gb": {"value": "8"}}}])
    del counters["spec"]["devices"]
    parts = [{**dev(f"part-{i}", index=i), "consumesCounters": [{"counterSet": "mem", "counters": {"gb": {"value": "6"}}}]}
             for i in range(2)]
    return [counters, slice_obj("devices", parts, node="n1", pool="p", count=2)]


def test_partitions_share_their_pools_counters_from_136():
    assert picked(run("1.36", [claim("c", req("gpu"))], partitions())) == [[("gpu", "part-0")]]
    assert run("1.36", [claim("c", req("gpu", count=2))], partitions()) is None      # 12 of 8
    held = run("1.36", [claim("c", req("gpu"))], partitions(), in_use=[(GPU, "p", "part-0")])
    assert held is None          # part-0's 6 are consumed: part-1 does not fit
    assert run("1.35", [claim("c", req("gpu"))], partitions()) is None   # partitionable devices off


def test_a_counter_set_a_device_consumes_must_exist():
    objs = partitions()
    objs[1]["spec"]["devices"][0]["consumesCounters"][0]["counterSet"] = "nope"
    pools = gather_pools(slices(*objs), N1, rules=rules("1.36"))
    assert pools[0].invalid_reason == "counter set nope not found"


def shared(value="8Gi", policy=None):
    cap = {"value": value, **({"requestPolicy": policy} if policy else {})}
    return [slice_obj("s", [{**dev("vf", index=0), "allowMultipleAllocations": True, "capacity": {"memory": cap}}],
                      node="n1")]


def wants(memory: str, name: str = "c") -> dict:
    r = req("gpu")
    r["exactly"]["capacity"] = {"requests": {"memory": memory}}
    return claim(name, r)


def test_a_device_is_shared_until_its_capacity_is_used_from_136():
    got = run("1.36", [wants("3Gi", "a"), wants("3Gi", "b")], shared())
    assert picked(got) == [[("gpu", "vf")], [("gpu", "vf")]]
    assert got[0].devices[0].consumed == {"memory": "3Gi"} and got[0].devices[0].share_id
    assert run("1.36", [wants("3Gi", "a"), wants("6Gi", "b")], shared()) is None
    # What existing shares consume counts too.
    assert run("1.36", [wants("3Gi")], shared(), shares={(GPU, "n1", "vf"): [{"memory": "6Gi"}]}) is None


def test_a_request_policy_rounds_up_and_refuses():
    policy = {"validRange": {"min": "1Gi", "max": "4Gi", "step": "1Gi"}}
    got = run("1.36", [wants("1500Mi")], shared(policy=policy))
    assert got[0].devices[0].consumed == {"memory": "2Gi"}
    assert run("1.36", [wants("5Gi")], shared(policy=policy)) is None


def test_distinct_attribute_from_136():
    objs = [slice_obj("s", [dev("a", index=0, numa=0), dev("b", index=1, numa=0), dev("c", index=2, numa=1)],
                      node="n1")]
    cons = [{"distinctAttribute": f"{GPU}/numa"}]
    got = run("1.36", [claim("c", req("x"), req("y"), constraints=cons)], objs)
    assert picked(got) == [[("x", "a"), ("y", "c")]]
    with pytest.raises(AllocatorError, match=r"^claim default/c, constraint #0: empty constraint \(unsupported "
                                             r"constraint type\?\)$"):
        run("1.35", [claim("c", req("x"), constraints=cons)], objs)


# -- the search ----------------------------------------------------------------------------------------

def test_an_all_subrequest_gets_its_own_devices_from_136():
    # Before 1.36 `b` is prepared with `a`'s cached selection (gpu-0, in use): no solution.
    subs = first("gpus", ("a", exact(GPU, mode="All", selectors=(IDX0,))),
                 ("b", exact(GPU, mode="All", selectors=(IDX1,))))
    objs = [slice_obj("s", gpus(2), node="n1")]
    assert run("1.35", [claim("c", subs)], objs, in_use=[(GPU, "n1", "gpu-0")]) is None
    got = run("1.36", [claim("c", subs)], objs, in_use=[(GPU, "n1", "gpu-0")])
    assert picked(got) == [[("gpus/b", "gpu-1")]]



def test_devices_select_their_own_nodes_from_136():
    devices = [{**dev("far", index=0), "nodeName": "n2"}, {**dev("near", index=1), "nodeName": "n1"}]
    objs = [slice_obj("s", devices, pool="p", perDeviceNodeSelection=True)]
    got = run("1.36", [claim("c", req("gpu"))], objs)
    assert picked(got) == [[("gpu", "near")]]
    assert got[0].node_selector == {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}
    assert run("1.35", [claim("c", req("gpu"))], objs) is None    # such slices are skipped
