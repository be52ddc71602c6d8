"""kexplain.model.dra: objects as written, absent fields read as their API defaults."""
from __future__ import annotations

from kexplain.model.dra import ResourceClaim, ResourceSlice
from tests.plugins.dra.builders import GPU, allocation, claim, dev, slice_obj


def test_request_defaults():
    c = ResourceClaim.from_obj(claim("c", {"name": "a", "exactly": {"deviceClassName": GPU}},
                                     {"name": "b", "firstAvailable": [{"name": "x", "deviceClassName": GPU,
                                                                       "adminAccess": True}]},
                                     {"name": "all", "exactly": {"deviceClassName": GPU, "allocationMode": "All"}}))
    a, b, everything = c.requests
    assert (a.exactly.allocation_mode, a.exactly.count, a.exactly.admin_access) == ("ExactCount", 1, None)
    assert b.exactly is None and b.first_available[0].count == 1
    assert b.first_available[0].admin_access is None     # not a subrequest field
    assert everything.exactly.allocation_mode == "All"
    assert c.key == "default/c" and c.allocation is None


def test_claim_status_and_owner():
    c = ResourceClaim.from_obj(claim("c", owner="pod-uid", reserved_for=["u1"],
                                     allocation=allocation(("r", GPU, "p", "d"), node="n1", admin=True)))
    assert c.controller_uid == "pod-uid" and c.reserved_for == ("u1",)
    assert c.allocation.results[0].id == (GPU, "p", "d") and c.allocation.results[0].admin_access
    assert c.allocation.node_selector is not None


def test_slice_and_device_attributes():
    s = ResourceSlice.from_obj(slice_obj("s", [dev("g", numa=1, model="A100")], node="n1", generation=3, count=2))
    assert (s.driver, s.pool, s.generation, s.resource_slice_count, s.node_name) == (GPU, "n1", 3, 2, "n1")
    d = s.devices[0]
    assert d.attribute(f"{GPU}/numa") == ("int", 1)          # bare name in the driver's domain
    assert d.attribute("other.example.com/numa") is None
    assert d.attribute("numa") == ("int", 1)
