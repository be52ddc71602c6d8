"""What PreBind writes into a claim: the allocation (results, configuration, node selector), the
finalizer, the reservation; and the plugin's `bindings` read from its own per-node verdict."""
from __future__ import annotations

import copy

from kexplain.framework.cycle_state import CycleState
from kexplain.model.dra import ResourceClaim
from kexplain.plugins.dra.allocator import AllocatedDevice, ClaimAllocation
from kexplain.plugins.dra.binding import FINALIZER, ClaimBinding, allocation_config, bound_claim, reserved_for_pod
from kexplain.plugins.dynamic_resources import STATE_KEY, DynamicResources
from kexplain.plugins.dra.inventory import Inventory
from kexplain.plugins.dra.state import DraState
from kexplain.model.nodeinfo import Node
from tests.plugins.dra.builders import GPU, claim, dev, device_class, first, req, slice_obj

POD = {"metadata": {"name": "train-0", "namespace": "default", "uid": "pod-uid"}}
OPAQUE = {"opaque": {"driver": GPU, "parameters": {"mode": "x"}}}


def alloc(*devices: tuple[str, str], selector: dict | None = None, admin: bool = False) -> ClaimAllocation:
    return ClaimAllocation("default/c", tuple(AllocatedDevice(r, GPU, "node-a", d, admin) for r, d in devices),
                           selector)


def with_config(cls: dict, *configs: dict) -> dict:
    cls["spec"]["config"] = list(configs)
    return cls


def test_bound_claim_writes_allocation_finalizer_and_reservation():
    raw = claim("c", req("gpus", count=2))
    before = copy.deepcopy(raw)
    selector = {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In",
                                                        "values": ["node-a"]}]}]}
    out = bound_claim(raw, ClaimBinding(ResourceClaim.from_obj(raw), alloc(("gpus", "gpu-0"), ("gpus", "gpu-1"),
                                                                             selector=selector)), POD, {})
    assert raw == before                      # the snapshot's object is never edited
    assert out["metadata"]["finalizers"] == [FINALIZER]
    assert out["status"] == {
        "allocation": {"devices": {"results": [
            {"request": "gpus", "driver": GPU, "pool": "node-a", "device": "gpu-0"},
            {"request": "gpus", "driver": GPU, "pool": "node-a", "device": "gpu-1"}]}, "nodeSelector": selector},
        "reservedFor": [{"resource": "pods", "name": "train-0", "uid": "pod-uid"}]}


def test_allocated_claim_only_gains_the_reservation():
    raw = claim("shared", req("gpus"), allocation={"devices": {"results": []}}, reserved_for=["other"])
    out = bound_claim(raw, ClaimBinding(ResourceClaim.from_obj(raw)), POD, {})
    assert "finalizers" not in out["metadata"] and out["status"]["allocation"] == {"devices": {"results": []}}
    assert [r["uid"] for r in out["status"]["reservedFor"]] == ["other", "pod-uid"]


def test_admin_access_is_recorded_and_finalizer_not_doubled():
    raw = claim("c", req("gpus", admin=True))
    raw["metadata"]["finalizers"] = [FINALIZER]
    out = bound_claim(raw, ClaimBinding(ResourceClaim.from_obj(raw), alloc(("gpus", "gpu-0"), admin=True)), POD, {})
    assert out["metadata"]["finalizers"] == [FINALIZER]
    assert out["status"]["allocation"]["devices"]["results"][0]["adminAccess"] is True
    assert "nodeSelector" not in out["status"]["allocation"]


def test_class_config_once_per_class_with_every_request_that_used_it():
    spec = claim("c", req("a", "cls"), req("b", "cls"), req("c", "other"))["spec"]
    classes = {"cls": with_config(device_class("cls"), OPAQUE), "other": device_class("other")}
    got = allocation_config(spec, alloc(("a", "d0"), ("b", "d1"), ("c", "d2")), classes)
    assert got == [{"source": "FromClass", "requests": ["a", "b"], **OPAQUE}]


def test_subrequest_class_and_claim_config_repeated_per_request_named():
    spec = claim("c", first("p", ("small", {"deviceClassName": "cls"}), ("big", {"deviceClassName": "big"})),
                 req("q", "cls"))["spec"]
    spec["devices"]["config"] = [{"requests": ["p/big", "q"], **OPAQUE}, OPAQUE]
    classes = {"cls": with_config(device_class("cls"), OPAQUE), "big": with_config(device_class("big"), OPAQUE)}
    got = allocation_config(spec, alloc(("p/big", "d0"), ("q", "d1")), classes)
    assert got == [
        {"source": "FromClass", "requests": ["p/big"], **OPAQUE},        # the chosen subrequest's class
        {"source": "FromClass", "requests": ["q"], **OPAQUE},
        {"source": "FromClaim", "requests": ["p/big", "q"], **OPAQUE},  # once for p (its chosen subrequest) ...
        {"source": "FromClaim", "requests": ["p/big", "q"], **OPAQUE},  # ... and once for q, as the allocator does
        {"source": "FromClaim", **OPAQUE},                               # no requests: all, once
    ]


def test_claims_reserved_for_the_pod_are_not_written_again():
    mine = ResourceClaim.from_obj(claim("mine", req("g"), allocation={"devices": {"results": []}},
                                        reserved_for=["pod-uid"]))
    other = ResourceClaim.from_obj(claim("other", req("g")))
    assert reserved_for_pod(mine, "pod-uid") and not reserved_for_pod(other, "pod-uid")


def _state(claims_: list[dict], devices: int) -> tuple[CycleState, Node]:
    inv = Inventory.build([device_class(GPU, f"device.driver == '{GPU}'")],
                          [slice_obj("s", [dev(f"gpu-{i}") for i in range(devices)], node="node-a")], claims_)
    state = CycleState()
    parsed = tuple(map(ResourceClaim.from_obj, claims_))
    state.write(STATE_KEY, DraState(inv, parsed, tuple(None for _ in parsed)))
    node = Node.from_obj({"metadata": {"name": "node-a"}})
    return state, node


class _Info:
    def __init__(self, node: Node) -> None:
        self.node = node


class _Pod:
    metadata = POD["metadata"]


def test_plugin_bindings_are_its_filter_allocation():
    state, node = _state([claim("c", req("gpus", count=2))], 3)
    plugin = DynamicResources.__new__(DynamicResources)
    [binding] = plugin.bindings(state, _Pod(), _Info(node))
    outcome = state.get(STATE_KEY).outcome(node)
    assert binding.allocation is outcome.allocations[0]          # the very object Filter computed
    assert [d.device for d in binding.allocation.devices] == ["gpu-0", "gpu-1"]


def test_plugin_bindings_none_where_filter_rejects():
    state, node = _state([claim("c", req("gpus", count=4))], 3)
    plugin = DynamicResources.__new__(DynamicResources)
    assert plugin.bindings(state, _Pod(), _Info(node)) is None
