"""DynamicResources per Kubernetes minor: the plugin switched off (1.33's default), 1.33 switched
on, the gates PreFilter reads, 1.36's Score and owner text, binding conditions of allocated
claims, and the notes on what kexplain does not reproduce; with the real texts."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from kexplain.features import KubeVersion
from kexplain.framework.cycle_state import CycleState
from kexplain.framework.interface import NodeToStatus
from kexplain.model.snapshot import Snapshot
from kexplain.plugins.dynamic_resources import DynamicResources
from tests.plugins.dra.builders import GPU, allocation, claim, dev, device_class, exact, first, req, slice_obj
from tests.support.selection_helpers import node_info, pod, status_tuple

OK = ("Success", ())
SKIP = ("Skip", ())
UU = "UnschedulableAndUnresolvable"
NODES = [node_info("n1"), node_info("n2")]
GPU_CLASS = device_class(GPU, f"device.driver == '{GPU}'")
N1_GPUS = slice_obj("n1-gpus", [dev("gpu-0", index=0), dev("gpu-1", index=1)], node="n1")


def cluster(minor, *claims, gates=None, slices=(N1_GPUS,), classes=(GPU_CLASS,), args=None):
    snap = Snapshot(NODES, {}, {"DeviceClass": list(classes), "ResourceSlice": list(slices),
                                "ResourceClaim": list(claims)})
    kube = KubeVersion(minor).with_feature_gates(gates)
    return DynamicResources(args or {}, SimpleNamespace(snapshot=snap, profile_name="default-scheduler", kube=kube))


def claim_pod(*names):
    return pod(spec={"resourceClaims": [{"name": n, "resourceClaimName": n} for n in names]})


def filters(pl, p):
    state = CycleState()
    _, pre = pl.pre_filter(state, p, NODES)
    return state, pre, {ni.name: status_tuple(pl.filter(state, p, ni)) for ni in NODES}


def test_switched_off_in_133_it_does_nothing():
    pl = cluster("1.33", claim("c", req("gpu")))
    p, state = claim_pod("c"), CycleState()
    assert status_tuple(pl.pre_enqueue(claim_pod("missing"))) == OK
    _, pre = pl.pre_filter(state, p, NODES)
    assert status_tuple(pre) == SKIP
    assert status_tuple(pl.filter(state, p, NODES[0])) == OK
    assert status_tuple(pl.post_filter(state, p, NodeToStatus())[1]) == ("Unschedulable", ("plugin disabled",))


def test_switched_on_in_133():
    pl = cluster("1.33", claim("c", req("gpu", count=2)), gates="DynamicResourceAllocation=true")
    _, pre, got = filters(pl, claim_pod("c"))
    assert status_tuple(pre) == OK
    assert got == {"n1": OK, "n2": (UU, ("cannot allocate all claims",))}
    # A pod without claims: a bare Unschedulable (1.34 on: "no new claims to deallocate").
    state = CycleState()
    pl.pre_filter(state, pod(), NODES)
    assert status_tuple(pl.post_filter(state, pod(), NodeToStatus())[1]) == ("Unschedulable", ())
    on_134 = cluster("1.34")
    on_134.pre_filter(state, pod(), NODES)
    assert status_tuple(on_134.post_filter(state, pod(), NodeToStatus())[1]) == \
        ("Unschedulable", ("no new claims to deallocate",))


def test_133_has_no_prioritized_lists_nor_admin_access():
    subs = claim("c", first("gpu", ("a", exact(GPU))))
    pl = cluster("1.33", subs, gates="DynamicResourceAllocation=true")
    _, pre = pl.pre_filter(CycleState(), claim_pod("c"), NODES)
    assert status_tuple(pre) == (UU, ("resource claim default/c, request gpu: has subrequests, but the "
                                      "DRAPrioritizedList feature is disabled",))
    pl = cluster("1.33", claim("c", req("gpu", admin=True)), gates="DynamicResourceAllocation=true")
    _, _, got = filters(pl, claim_pod("c"))
    assert got["n1"] == ("Error", ("claim default/c, request gpu: admin access is requested, but the feature is "
                                   "disabled",))


def test_incomplete_pools_per_minor():
    half = slice_obj("n1-gpus", [dev("gpu-0", index=0)], node="n1", count=2)
    for minor, want in (("1.34", OK), ("1.35", (UU, ("cannot allocate all claims",)))):
        _, _, got = filters(cluster(minor, claim("c", req("gpu")), slices=(half,)), claim_pod("c"))
        assert got["n1"] == want, minor


def test_136_scores_a_pod_with_an_allocated_claim():
    n2 = slice_obj("n2-gpus", [dev("gpu-0", index=0)], node="n2")
    done = claim("done", first("gpu", ("a", exact(GPU)), ("b", exact(GPU))),
                 allocation=allocation(("gpu/b", GPU, "other", "x")))
    pl = cluster("1.36", done, claim("c", req("gpu")), slices=(N1_GPUS, n2))
    state, _, _ = filters(pl, claim_pod("done", "c"))
    assert pl.score(state, claim_pod("done", "c"), NODES[0]) == 7


def test_136_owner_text():
    pl = cluster("1.36", claim("p-gpu", req("gpu"), owner="not-the-pod"))
    p = pod(spec={"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "t"}]},
            status={"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "p-gpu"}]})
    assert status_tuple(pl.pre_enqueue(p)) == \
        (UU, ("ResourceClaim default/p-gpu was not created for Pod default/p (Pod is not owner)",))


def bound(conditions=None, failure=None, stamp="2020-01-01T00:00:00Z"):
    """An allocated claim whose device waits for binding condition `ready`."""
    a = allocation(("gpu", GPU, "n1", "gpu-0"), node="n1")
    a["devices"]["results"][0].update(bindingConditions=["ready"], bindingFailureConditions=["failed"])
    if stamp:
        a["allocationTimestamp"] = stamp
    obj = claim("c", req("gpu"), allocation=a)
    entry = {"driver": GPU, "pool": "n1", "device": "gpu-0", "conditions": []}
    for name, status in ((("ready", conditions),) if conditions else ()) + ((("failed", failure),) if failure else ()):
        entry["conditions"].append({"type": name, "status": status})
    obj["status"]["devices"] = [entry]
    return obj


@pytest.mark.parametrize("obj,n1", [
    (bound("True"), OK),                                             # ready
    (bound("False", stamp=None), OK),                                # waiting, no stamp: no timeout
    (bound("False"), (UU, ("resourceclaim not available on the node",))),    # waited past 600 s
    (bound(failure="True", stamp=None), (UU, ("resourceclaim not available on the node",))),   # failed
])
def test_136_allocated_claims_wait_for_their_binding_conditions(obj, n1):
    _, _, got = filters(cluster("1.36", obj), claim_pod("c"))
    assert got["n1"] == n1
    # With the gates off (1.35) the conditions are not read.
    assert filters(cluster("1.35", obj), claim_pod("c"))[2]["n1"] == OK


def test_binding_timeout_comes_from_the_args():
    far = bound("False", stamp="2999-01-01T00:00:00Z")
    assert filters(cluster("1.36", far), claim_pod("c"))[2]["n1"] == OK
    assert filters(cluster("1.36", bound("False"), args={"bindingTimeout": "1000000h"}), claim_pod("c"))[2]["n1"] == OK


def test_136_stamps_the_allocations_it_writes():
    pl = cluster("1.36", claim("c", req("gpu")))
    state, _, _ = filters(pl, claim_pod("c"))
    (binding,) = pl.bindings(state, claim_pod("c"), NODES[0])
    assert binding.allocation is not None and binding.allocation_timestamp.endswith("Z")
    pl = cluster("1.35", claim("c", req("gpu")))
    state, _, _ = filters(pl, claim_pod("c"))
    assert pl.bindings(state, claim_pod("c"), NODES[0])[0].allocation_timestamp is None


# -- notes ----------------------------------------------------------------------------------------

def test_notes_on_extended_resources_backed_by_dra():
    cls = {**GPU_CLASS, "spec": {**GPU_CLASS["spec"], "extendedResourceName": "example.com/gpu"}}
    p = pod(spec={"containers": [{"name": "c", "resources": {"requests": {"example.com/gpu": "1"}}}]})
    state = CycleState()
    pl = cluster("1.36", classes=(cls,))
    pl.pre_filter(state, p, NODES)
    (note,) = pl.notes(state, p)
    assert "the pod requests example.com/gpu (DeviceClass gpu.example.com)" in note
    assert "kexplain does not reproduce this" in note
    assert cluster("1.35", classes=(cls,)).notes(state, p) == []       # DRAExtendedResource off


def test_note_on_the_random_pool_an_error_names():
    fabric = [slice_obj(f"f{i}", [dev(f"f-{i}", index=i)], pool="fabric", driver="fpga.example.com", count=3,
                        all_nodes=True) for i in range(2)]
    half = slice_obj("n1-gpus", [dev("gpu-0", index=0)], node="n1", count=2)
    obj = claim("c", req("gpus", mode="All"))
    for minor in ("1.34", "1.36"):
        pl = cluster(minor, obj, slices=(half, *fabric))
        state, _, got = filters(pl, claim_pod("c"))
        assert got["n1"][0] == "Error"
        notes = pl.notes(state, claim_pod("c"))
        if minor == "1.34":     # random order: one of two pools
            assert notes == ["On node n1 the scheduler names one of the pools gpu.example.com/n1, "
                             "fpga.example.com/fabric at random (it lists pools in random order); kexplain names "
                             "gpu.example.com/n1, the first by its slices."]
        else:                   # sorted: fpga.example.com/fabric comes first, as kexplain names it
            assert notes == [] and "fpga.example.com/fabric" in got["n1"][1][0]


def test_note_on_selectors_reading_allow_multiple_allocations():
    selector = ("device.allowMultipleAllocations == true",)
    pl = cluster("1.36", claim("c", req("gpu", selectors=selector)))
    state, _, _ = filters(pl, claim_pod("c"))
    (note,) = pl.notes(state, claim_pod("c"))
    assert note.startswith("Kubernetes 1.36 gives device selectors device.allowMultipleAllocations")
    pl = cluster("1.35", claim("c", req("gpu", selectors=selector)))
    state, _, _ = filters(pl, claim_pod("c"))
    assert pl.notes(state, claim_pod("c")) == []      # consumable capacity off: the scheduler fails too
