"""The facts behind DynamicResources' verdict on a node."""
from __future__ import annotations

from kexplain.features import KubeVersion
from kexplain.model.dra import ResourceClaim
from kexplain.model.nodeinfo import Node
from kexplain.plugins.dra.explain import explain_node
from kexplain.plugins.dra.inventory import Inventory
from kexplain.plugins.dra.state import DraState
from kexplain.plugins.dra.variant import allocator_rules
from tests.plugins.dra.builders import (GPU, allocation, claim, dev, device_class, exact, first, req, slice_obj)

N1 = Node.from_obj({"metadata": {"name": "n1"}})
BIG = device_class("big", f"device.driver == '{GPU}'",
                   "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0")
DEVICES = [dev("gpu-0", numa=0, cap={"memory": "80Gi"}), dev("gpu-1", numa=1, cap={"memory": "80Gi"}),
           dev("gpu-2", numa=1, cap={"memory": "16Gi"}), dev("gpu-3", numa=0, cap={"memory": "80Gi"})]
HOLDER = claim("holder", req("gpu", cls="big"), allocation=allocation(("gpu", GPU, "n1", "gpu-3"), node="n1"))


def facts(pod_claims, slices=(slice_obj("s", DEVICES, node="n1"),), classes=(BIG,), others=(HOLDER,)):
    inv = Inventory.build(list(classes), list(slices), [*pod_claims, *others])
    parsed = tuple(ResourceClaim.from_obj(c) for c in pod_claims)
    return explain_node(DraState(inv, parsed, tuple(None for _ in parsed)), N1)


def by_device(request_facts):
    return {d["device"].rsplit("/", 1)[1]: d for d in request_facts["devices"]}


def test_why_each_device_is_or_is_not_a_candidate():
    got = facts([claim("c", req("gpus", cls="big", count=2), constraints=[{"matchAttribute": f"{GPU}/numa"}])])
    assert got["verdict"] == {"code": "UnschedulableAndUnresolvable", "reason": "cannot allocate all claims"}
    assert got["pools"] == [{"pool": "gpu.example.com/n1", "slices": 1, "devices": 4}]
    (c,) = got["claims"]
    assert c["allocated"] is False and c["wouldAllocate"] is None
    devices = by_device(c["requests"][0])
    assert devices["gpu-0"]["reason"] == "free" and devices["gpu-1"]["reason"] == "free"
    assert devices["gpu-3"] == {"device": "gpu.example.com/n1/gpu-3", "reason": "inUse", "by": ["default/holder"]}
    sel = devices["gpu-2"]["selector"]
    assert devices["gpu-2"]["reason"] == "selectorFalse"
    assert (sel["owner"], sel["index"]) == ("class big", 1)
    assert {"expression": "device.capacity['gpu.example.com'].memory", "value": "16Gi"} in sel["values"]
    assert c["requests"][0]["free"] == 2
    # The two free devices differ in numaNode: that is why the constraint fails.
    (con,) = c["constraints"]
    assert con["values"] == [{"value": "int:0", "devices": ["gpu.example.com/n1/gpu-0"]},
                             {"value": "int:1", "devices": ["gpu.example.com/n1/gpu-1"]}]
    assert got["deviceClasses"] == [{"deviceClass": "big", "total": 3, "inUse": 1, "free": 2}]


def test_the_chosen_subrequest_and_the_devices_it_would_get():
    subs = first("gpu", ("two", exact("big", count=3)), ("one", exact("big")))
    got = facts([claim("c", subs)])
    assert got["verdict"] == {"code": "Success"}
    (c,) = got["claims"]
    assert c["requests"][0]["chosen"] == "one"
    assert [s["request"] for s in c["requests"][0]["subrequests"]] == ["gpu/two", "gpu/one"]
    assert c["wouldAllocate"] == [{"request": "gpu/one", "device": "gpu.example.com/n1/gpu-0"}]


def test_incomplete_pools_and_allocated_claims():
    done = claim("done", req("gpu", cls="big"), allocation=allocation(("gpu", GPU, "n9", "x"), node="n9"))
    got = facts([done, claim("c", req("gpu", cls="big"))], slices=(slice_obj("s", DEVICES, node="n1", count=2),))
    assert got["pools"] == [{"pool": "gpu.example.com/n1", "slices": 1, "devices": 4, "incomplete": True}]
    allocated, pending = got["claims"]
    assert allocated == {"claim": "default/done", "allocated": True, "availableOnNode": True,
                         "devices": ["gpu.example.com/n9/x"], "reservedFor": 0}
    assert {d["reason"] for d in pending["requests"][0]["devices"]} == {"poolIncomplete"}
    assert got["deviceClasses"] == [{"deviceClass": "big", "total": 0, "inUse": 0, "free": 0, "inUnusablePools": 3}]


def test_selector_errors_are_reported_per_device():
    cls = device_class("picky", "device.attributes['gpu.example.com'].model == 'H100'")
    got = facts([claim("c", req("gpu", cls="picky"))], classes=(cls,), others=())
    assert got["verdict"]["code"] == "Error"
    dev0 = got["claims"][0]["requests"][0]["devices"][0]
    assert dev0 == {"device": "gpu.example.com/n1/gpu-0", "reason": "selectorError",
                    "error": "class picky: selector #0: CEL runtime error: no such key: model"}


def test_136_says_which_devices_are_tainted_or_full_and_leaves_out_other_nodes_devices():
    devices = [{**dev("tainted", index=0), "nodeName": "n1", "taints": [{"key": "bad", "effect": "NoExecute"}]},
               {**dev("full", index=1), "nodeName": "n1", "allowMultipleAllocations": True,
                "capacity": {"memory": {"value": "1Gi"}}},
               {**dev("elsewhere", index=2), "nodeName": "n2"}]
    s = slice_obj("s", devices, pool="p", perDeviceNodeSelection=True)
    r = req("gpu")
    r["exactly"]["capacity"] = {"requests": {"memory": "2Gi"}}
    inv = Inventory.build([device_class(GPU)], [s], [claim("c", r)])
    parsed = (ResourceClaim.from_obj(claim("c", r)),)
    got = explain_node(DraState(inv, parsed, (None,), allocator_rules(KubeVersion("1.36"))), N1)
    devices = by_device(got["claims"][0]["requests"][0])
    assert set(devices) == {"tainted", "full"}
    assert devices["tainted"]["reason"] == "tainted" and devices["tainted"]["taint"] == "bad:NoExecute"
    assert devices["full"]["reason"] == "capacity"
