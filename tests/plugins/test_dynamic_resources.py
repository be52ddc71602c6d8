"""DynamicResources: its v1.35.4 bookkeeping for pods without claims, claim lookups, and every
verdict and message for pods with claims."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from kexplain.errors import FrameworkError
from kexplain.features import KubeVersion
from kexplain.framework.cycle_state import CycleState
from kexplain.framework.interface import NodeToStatus, PreFilterExtensions, ScoreExtensions
from kexplain.framework.status import Code, Status
from kexplain.model.snapshot import Snapshot
from kexplain.plugins.dynamic_resources import DynamicResources
from tests.plugins.dra.builders import GPU, allocation, claim, dev, device_class, exact, first, req, slice_obj
from tests.support.selection_helpers import handle, node_info, pod, score_all, status_tuple

OK = ("Success", ())
SKIP = ("Skip", ())
INFOS = [node_info("n1"), node_info("n2")]


def plugin():
    return DynamicResources({}, handle(INFOS))


def test_extension_points():
    assert DynamicResources.extension_points == {"preEnqueue", "preFilter", "filter", "postFilter", "score",
                                                 "reserve", "preBind"}
    assert issubclass(DynamicResources, ScoreExtensions)
    assert not issubclass(DynamicResources, PreFilterExtensions)


def test_pod_without_claims():
    pl, p, state = plugin(), pod(), CycleState()
    assert status_tuple(pl.pre_enqueue(p)) == OK
    result, status = pl.pre_filter(state, p, INFOS)
    assert result is None and status_tuple(status) == SKIP
    assert status_tuple(pl.filter(state, p, INFOS[0])) == OK
    assert score_all(pl, state, p, INFOS) == ({"n1": 0, "n2": 0}, {"n1": 0, "n2": 0})
    r, status = pl.post_filter(state, p, NodeToStatus())
    assert r is None
    assert status_tuple(status) == ("Unschedulable", ("no new claims to deallocate",))


def test_post_filter_without_pre_filter_state():
    r, status = plugin().post_filter(CycleState(), pod(), NodeToStatus())
    assert r is None
    assert status_tuple(status) == ("Error", ("not found",))


UU = "UnschedulableAndUnresolvable"


@pytest.mark.parametrize("claims,status,want", [
    ([{"name": "gpu", "resourceClaimName": "my-claim"}], {},
     (UU, ('could not find ResourceClaim "default/my-claim"',))),
    ([{"name": "gpu", "resourceClaimTemplateName": "tmpl"}], {},
     (UU, ('pod "default/p": ResourceClaim not created yet',))),
    ([{"name": "gpu"}], {},
     (UU, ('pod "default/p", spec.resourceClaim "gpu": none of the supported fields are set',))),
    # A template whose claim was deliberately not generated: nothing to do.
    ([{"name": "gpu", "resourceClaimTemplateName": "tmpl"}], {"resourceClaimStatuses": [{"name": "gpu"}]}, OK),
    ([{"name": "gpu", "resourceClaimTemplateName": "tmpl"}],
     {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "p-gpu-x"}]},
     (UU, ('could not find ResourceClaim "default/p-gpu-x"',))),
])
def test_claim_lookup(claims, status, want):
    pl = plugin()
    p = pod(spec={"resourceClaims": claims}, status=status)
    assert status_tuple(pl.pre_enqueue(p)) == want
    _, pre = pl.pre_filter(CycleState(), p, INFOS)
    assert status_tuple(pre) == (SKIP if want == OK else want)


# -- pods with claims ---------------------------------------------------------------------------------

NODES = [node_info("n1"), node_info("n2")]
GPU_CLASS = device_class(GPU, f"device.driver == '{GPU}'")
V1_35 = KubeVersion("1.35")
N1_GPUS = slice_obj("n1-gpus", [dev("gpu-0", index=0), dev("gpu-1", index=1)], node="n1")


def cluster(*claims, slices=(N1_GPUS,), classes=(GPU_CLASS,), kube=V1_35):
    """The plugin over a cluster of these objects, as `kube`'s scheduler runs it (1.35's, which
    this module is about, unless a test names another)."""
    snap = Snapshot(NODES, {}, {"DeviceClass": list(classes), "ResourceSlice": list(slices),
                                "ResourceClaim": list(claims)})
    return DynamicResources({}, SimpleNamespace(snapshot=snap, profile_name="default-scheduler", kube=kube))


def claim_pod(*names):
    return pod(spec={"resourceClaims": [{"name": n, "resourceClaimName": n} for n in names]})


def run_filter(pl, p, state=None):
    state = state or CycleState()
    _, pre = pl.pre_filter(state, p, NODES)
    assert status_tuple(pre) == OK
    return state, {ni.name: status_tuple(pl.filter(state, p, ni)) for ni in NODES}


CANNOT = (UU, ("cannot allocate all claims",))


def test_filter_allocates_per_node():
    pl = cluster(claim("c", req("gpu", count=2)))
    _, got = run_filter(pl, claim_pod("c"))
    assert got == {"n1": OK, "n2": CANNOT}


def test_devices_of_other_claims_are_in_use():
    taken = claim("other", req("gpu"), allocation=allocation(("gpu", GPU, "n1", "gpu-0"), node="n1"))
    pl = cluster(claim("c", req("gpu", count=2)), taken)
    assert run_filter(pl, claim_pod("c"))[1]["n1"] == CANNOT
    # ... unless that claim holds them with admin access
    admin = claim("other", req("gpu"), allocation=allocation(("gpu", GPU, "n1", "gpu-0"), node="n1", admin=True))
    assert run_filter(cluster(claim("c", req("gpu", count=2)), admin), claim_pod("c"))[1]["n1"] == OK


@pytest.mark.parametrize("request_obj,want", [
    (req("gpu", cls="missing"), (UU, ("request gpu: device class missing does not exist",))),
    (first("gpu", ("a", exact(GPU)), ("b", exact("missing"))),
     (UU, ("request gpu/b: device class missing does not exist",))),
    ({"name": "gpu"}, (UU, ("resource claim default/c, request gpu: unknown request type",))),
    (req("gpu", cls=""), ("Error", ("request gpu: unsupported request type",))),
])
def test_pre_filter_checks_requests(request_obj, want):
    pl, state = cluster(claim("c", request_obj)), CycleState()
    _, status = pl.pre_filter(state, claim_pod("c"), NODES)
    assert status_tuple(status) == want
    # PreFilter stopped before recording the claims.
    assert status_tuple(pl.post_filter(state, claim_pod("c"), NodeToStatus())[1]) == \
        ("Unschedulable", ("no new claims to deallocate",))


def test_allocated_claim_only_fits_its_node():
    c = claim("c", req("gpu"), allocation=allocation(("gpu", GPU, "n1", "gpu-0"), node="n1"))
    pl = cluster(c)
    _, got = run_filter(pl, claim_pod("c"))
    assert got == {"n1": OK, "n2": (UU, ("resourceclaim not available on the node",))}


def test_allocator_failure_comes_before_unavailable_claims():
    done = claim("done", req("gpu"), allocation=allocation(("gpu", GPU, "n1", "gpu-0"), node="n1"))
    pl = cluster(done, claim("c", req("gpu", count=3)))
    assert run_filter(pl, claim_pod("done", "c"))[1] == {"n1": CANNOT, "n2": CANNOT}


def test_allocator_errors_are_errors():
    cls = device_class(GPU, "device.attributes['gpu.example.com'].model == 'x'")
    pl = cluster(claim("c", req("gpu")), classes=(cls,))
    _, got = run_filter(pl, claim_pod("c"))
    assert got["n1"] == ("Error", ("class gpu.example.com: selector #0: CEL runtime error: no such key: model",))
    assert got["n2"] == CANNOT   # no slices on n2: no selector runs


def test_invalid_pools():
    dup = slice_obj("n1-b", [dev("gpu-0")], node="n1", count=2)
    pl = cluster(claim("c", req("gpu", count=3)), slices=(slice_obj("n1-a", [dev("gpu-0")], node="n1", count=2), dup))
    assert run_filter(pl, claim_pod("c"))[1]["n1"] == (UU, ("invalid resource pools were encountered",))


def not_available(*names):
    return NodeToStatus({n: Status.new(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "resourceclaim not available on the node")
                         .with_plugin("DynamicResources") for n in names})


@pytest.mark.parametrize("reserved,want", [
    ([], "deallocation of ResourceClaim completed"),
    (["uid-p"], "deallocation of ResourceClaim completed"),
    (["someone"], "still not schedulable"),
    (["uid-p", "someone"], "still not schedulable"),
])
def test_post_filter_deallocates_an_unavailable_claim(reserved, want):
    c = claim("c", req("gpu"), allocation=allocation(("gpu", GPU, "n1", "gpu-0"), node="n1"), reserved_for=reserved)
    pl = cluster(c)
    state, _ = run_filter(pl, claim_pod("c"))
    _, status = pl.post_filter(state, claim_pod("c"), not_available("n2"))
    assert status_tuple(status) == ("Unschedulable", (want,))


def test_post_filter_without_unavailable_claims():
    pl = cluster(claim("c", req("gpu", count=3)))
    state, _ = run_filter(pl, claim_pod("c"))
    _, status = pl.post_filter(state, claim_pod("c"), NodeToStatus())
    assert status_tuple(status) == ("Unschedulable", ("still not schedulable",))


def test_score_prefers_earlier_subrequests():
    n2 = slice_obj("n2-gpus", [dev("gpu-0", index=0)], node="n2")
    pl = cluster(claim("c", first("gpu", ("two", exact(GPU, count=2)), ("one", exact(GPU)))), slices=(N1_GPUS, n2))
    state, got = run_filter(pl, claim_pod("c"))
    assert got == {"n1": OK, "n2": OK}
    assert score_all(pl, state, claim_pod("c"), NODES) == ({"n1": 8, "n2": 7}, {"n1": 100, "n2": 87})


def test_score_with_allocated_and_unallocated_claims():
    n2 = slice_obj("n2-gpus", [dev("gpu-0", index=0)], node="n2")
    done = claim("done", req("gpu"), allocation=allocation(("gpu", GPU, "other", "x")))
    # 1.35 counts the claim allocated before the cycle among this cycle's allocations and fails
    pl = cluster(done, claim("c", req("gpu")), slices=(N1_GPUS, n2))
    state, _ = run_filter(pl, claim_pod("done", "c"))
    with pytest.raises(FrameworkError, match='^running Score plugins: plugin "DynamicResources" failed with: '
                                             'number of allocations 1 is smaller than number of claims$'):
        pl.score(state, claim_pod("done", "c"), NODES[0])
    # 1.36 reads that claim's allocation from its status: no subrequest is allocated, score 0
    pl = cluster(done, claim("c", req("gpu")), slices=(N1_GPUS, n2), kube=KubeVersion("1.36"))
    state, _ = run_filter(pl, claim_pod("done", "c"))
    assert pl.score(state, claim_pod("done", "c"), NODES[0]) == 0


@pytest.mark.parametrize(("minor", "words"), [("1.35", "pod default/p (pod is not owner)"),
                                             ("1.36", "Pod default/p (Pod is not owner)")])
def test_pre_enqueue_owner_check(minor, words):
    pl = cluster(claim("p-gpu", req("gpu"), owner="not-the-pod"), kube=KubeVersion(minor))
    p = pod(spec={"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "t"}]},
            status={"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "p-gpu"}]})
    assert status_tuple(pl.pre_enqueue(p)) == (UU, (f"ResourceClaim default/p-gpu was not created for {words}",))


def test_explain_is_none_without_claims():
    pl, state = plugin(), CycleState()
    pl.pre_filter(state, pod(), INFOS)
    assert pl.explain(state, pod(), INFOS[0]) is None
