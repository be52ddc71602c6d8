"""The per-snapshot index of DRA objects."""
from __future__ import annotations

from kexplain.plugins.dra.inventory import Inventory
from tests.plugins.dra.builders import GPU, allocation, claim, dev, device_class, req, slice_obj


def test_devices_in_use_leave_out_admin_access():
    inv = Inventory.build([device_class(GPU)], [], [
        claim("a", req("gpu"), allocation=allocation(("gpu", GPU, "n1", "gpu-0"))),
        claim("b", req("gpu"), allocation=allocation(("gpu", GPU, "n1", "gpu-1"), admin=True)),
        claim("c", req("gpu")),
    ])
    assert dict(inv.holders) == {(GPU, "n1", "gpu-0"): ("default/a",)}
    assert (GPU, "n1", "gpu-0") in inv.in_use and (GPU, "n1", "gpu-1") not in inv.in_use
    assert set(inv.claims) == {"default/a", "default/b", "default/c"}


def test_slices_for_a_node_keep_the_cluster_order():
    objs = [slice_obj("shared", [dev("a")], pool="p", all_nodes=True), slice_obj("n2", [dev("a")], node="n2"),
            slice_obj("n1", [dev("a")], node="n1"), slice_obj("zone", [dev("a")], pool="z", selector={})]
    inv = Inventory.build([], objs, [])
    assert [s.name for s in inv.slices_for("n1")] == ["shared", "n1", "zone"]
    assert [s.name for s in inv.slices_for("n3")] == ["shared", "zone"]
