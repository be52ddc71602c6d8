"""The structured allocator on hand-built pools: what it allocates, when it finds no solution,
and every error text, as v1.35.4's allocator (pinned in `run`; what other minors do differently
is in test_versions.py)."""
from __future__ import annotations

import random

import pytest

from kexplain.features import KubeVersion
from kexplain.model.nodeinfo import Node
from kexplain.plugins.dra import allocator as A
from kexplain.plugins.dra.allocator import AllocatorError, NodeFailure, allocate
from kexplain.plugins.dra.pools import gather_pools
from kexplain.plugins.dra.selectors import Selectors
from kexplain.plugins.dra.variant import allocator_rules
from tests.plugins.dra.builders import (GPU, claim, claims, classes, dev, device_class, exact, first, req, slice_obj,
                                        slices)

N1 = Node.from_obj({"metadata": {"name": "n1"}})
GPU_CLASS = device_class(GPU, f"device.driver == '{GPU}'")
RULES = allocator_rules(KubeVersion("1.35"))


def gpus(n: int, **attrs) -> list[dict]:
    return [dev(f"gpu-{i}", index=i, **attrs) for i in range(n)]


def run(claim_objs, slice_objs, class_objs=(GPU_CLASS,), in_use=()):
    pools = gather_pools(slices(*slice_objs), N1, rules=RULES)
    return allocate(claims(*claim_objs), classes(*class_objs), pools, set(in_use), Selectors(), RULES)


def picked(result):
    return [[(d.request, d.device) for d in c.devices] for c in result]


def test_exact_count():
    got = run([claim("c", req("gpu", count=2))], [slice_obj("s", gpus(3), node="n1")])
    assert picked(got) == [[("gpu", "gpu-0"), ("gpu", "gpu-1")]]
    assert got[0].node_selector == {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}


def test_count_defaults_to_one():
    got = run([claim("c", {"name": "gpu", "exactly": {"deviceClassName": GPU}})], [slice_obj("s", gpus(2), node="n1")])
    assert picked(got) == [[("gpu", "gpu-0")]]


def test_not_enough_devices():
    assert run([claim("c", req("gpu", count=3))], [slice_obj("s", gpus(2), node="n1")]) is None


def test_no_slices_for_the_node():
    assert run([claim("c", req("gpu"))], [slice_obj("s", gpus(2), node="n2")]) is None


def test_devices_in_use_are_skipped():
    got = run([claim("c", req("gpu"))], [slice_obj("s", gpus(2), node="n1")], in_use=[(GPU, "n1", "gpu-0")])
    assert picked(got) == [[("gpu", "gpu-1")]]


def test_claims_do_not_share_devices():
    got = run([claim("a", req("gpu")), claim("b", req("gpu"))], [slice_obj("s", gpus(2), node="n1")])
    assert picked(got) == [[("gpu", "gpu-0")], [("gpu", "gpu-1")]]
    assert run([claim("a", req("gpu")), claim("b", req("gpu", count=2))], [slice_obj("s", gpus(2), node="n1")]) is None


def test_class_then_request_selectors():
    cls = device_class("big", f"device.driver == '{GPU}'", "device.attributes['gpu.example.com'].index >= 1")
    got = run([claim("c", req("gpu", cls="big", selectors=("device.attributes['gpu.example.com'].index != 1",)))],
              [slice_obj("s", gpus(3), node="n1")], class_objs=(cls,))
    assert picked(got) == [[("gpu", "gpu-2")]]


def test_incomplete_pools_are_not_used_for_exact_count():
    assert run([claim("c", req("gpu"))], [slice_obj("s", gpus(2), node="n1", count=2)]) is None


def test_invalid_pool_without_solution_fails_the_node():
    with pytest.raises(NodeFailure, match="^invalid resource pools were encountered$"):
        run([claim("c", req("gpu"))], [slice_obj("s1", gpus(1), node="n1", count=2),
                                        slice_obj("s2", gpus(1), node="n1", count=2)])


def test_invalid_pool_does_not_matter_when_another_pool_serves():
    got = run([claim("c", req("gpu"))], [slice_obj("s1", gpus(1), node="n1", count=2),
                                          slice_obj("s2", gpus(1), node="n1", count=2),
                                          slice_obj("s3", gpus(1), pool="other", all_nodes=True)])
    assert picked(got) == [[("gpu", "gpu-0")]]
    assert got[0].node_selector is None   # an allNodes slice's device pins nothing


# -- All ------------------------------------------------------------------------------------------

def test_all_mode_takes_every_matching_device():
    got = run([claim("c", req("gpus", mode="All"))], [slice_obj("s", gpus(3), node="n1")])
    assert picked(got) == [[("gpus", "gpu-0"), ("gpus", "gpu-1"), ("gpus", "gpu-2")]]


def test_all_mode_without_devices_has_no_solution():
    assert run([claim("c", req("gpus", mode="All"))], []) is None


def test_all_mode_with_a_device_in_use_has_no_solution():
    assert run([claim("c", req("gpus", mode="All"))], [slice_obj("s", gpus(2), node="n1")],
               in_use=[(GPU, "n1", "gpu-1")]) is None


def test_all_mode_over_an_incomplete_pool_is_an_error():
    with pytest.raises(AllocatorError) as err:
        run([claim("c", req("gpus", mode="All"))], [slice_obj("s", gpus(2), node="n1", count=2)])
    assert str(err.value) == ("claim default/c, request gpus: asks for all devices, but resource pool "
                              "gpu.example.com/n1 is currently being updated")


def test_all_mode_over_an_invalid_pool_is_an_error():
    with pytest.raises(AllocatorError) as err:
        run([claim("c", req("gpus", mode="All"))], [slice_obj("s1", gpus(1), node="n1", count=2),
                                                     slice_obj("s2", gpus(1), node="n1", count=2)])
    assert str(err.value) == ("claim default/c, request gpus: asks for all devices, but resource pool "
                              "gpu.example.com/n1 is currently invalid")


def test_all_mode_constraint_violation_is_an_error():
    devices = [dev("gpu-0", numa=0), dev("gpu-1", numa=1)]
    with pytest.raises(AllocatorError) as err:
        run([claim("c", req("gpus", mode="All"), constraints=[{"matchAttribute": f"{GPU}/numa"}])],
            [slice_obj("s", devices, node="n1")])
    assert str(err.value) == ("claim default/c, request gpus: cannot add device gpu.example.com/n1/gpu-1 because "
                              "a claim constraint would not be satisfied")


# -- constraints ---------------------------------------------------------------------------------

def test_match_attribute_finds_a_matching_set():
    devices = [dev("gpu-0", numa=0), dev("gpu-1", numa=1), dev("gpu-2", numa=1)]
    got = run([claim("c", req("gpus", count=2), constraints=[{"matchAttribute": f"{GPU}/numa"}])],
              [slice_obj("s", devices, node="n1")])
    assert picked(got) == [[("gpus", "gpu-1"), ("gpus", "gpu-2")]]


def test_match_attribute_unsatisfiable():
    devices = [dev("gpu-0", numa=0), dev("gpu-1", numa=1), dev("gpu-2")]
    assert run([claim("c", req("gpus", count=2), constraints=[{"matchAttribute": f"{GPU}/numa"}])],
               [slice_obj("s", devices, node="n1")]) is None


def test_match_attribute_compares_typed_values():
    devices = [dev("gpu-0", numa=1), dev("gpu-1", numa="1")]   # int 1 and string "1" differ
    assert run([claim("c", req("gpus", count=2), constraints=[{"matchAttribute": f"{GPU}/numa"}])],
               [slice_obj("s", devices, node="n1")]) is None


def test_match_attribute_only_for_named_requests():
    devices = [dev("gpu-0", numa=0), dev("gpu-1", numa=1), dev("gpu-2", numa=0)]
    got = run([claim("c", req("a"), req("b"), req("free"),
                     constraints=[{"requests": ["a", "b"], "matchAttribute": f"{GPU}/numa"}])],
              [slice_obj("s", devices, node="n1")])
    assert picked(got) == [[("a", "gpu-0"), ("b", "gpu-2"), ("free", "gpu-1")]]


def test_match_attribute_accepts_the_bare_name_in_the_drivers_domain():
    devices = [{"name": "g0", "attributes": {"numa": {"int": 0}}},
               {"name": "g1", "attributes": {f"{GPU}/numa": {"int": 0}}}]
    got = run([claim("c", req("gpus", count=2), constraints=[{"matchAttribute": f"{GPU}/numa"}])],
              [slice_obj("s", devices, node="n1")])
    assert picked(got) == [[("gpus", "g0"), ("gpus", "g1")]]


def test_empty_constraint_is_an_error():
    with pytest.raises(AllocatorError, match=r"^claim default/c, constraint #0: empty constraint "
                                             r"\(unsupported constraint type\?\)$"):
        run([claim("c", req("gpu"), constraints=[{"requests": ["gpu"]}])], [slice_obj("s", gpus(1), node="n1")])


# -- firstAvailable ---------------------------------------------------------------------------------

def test_first_available_takes_the_first_subrequest_that_fits():
    two = ("big", exact(GPU, count=2))
    one = ("small", exact(GPU, count=1))
    got = run([claim("c", first("gpu", two, one))], [slice_obj("s", gpus(1), node="n1")])
    assert picked(got) == [[("gpu/small", "gpu-0")]]
    got = run([claim("c", first("gpu", two, one))], [slice_obj("s", gpus(2), node="n1")])
    assert picked(got) == [[("gpu/big", "gpu-0"), ("gpu/big", "gpu-1")]]


def test_first_available_backtracks_across_requests():
    # The first subrequest of `a` leaves nothing for `b`: the allocator goes back to `a`.
    got = run([claim("c", first("a", ("two", exact(GPU, count=2)), ("one", exact(GPU))), req("b"))],
              [slice_obj("s", gpus(2), node="n1")])
    assert picked(got) == [[("a/one", "gpu-0"), ("b", "gpu-1")]]


def test_subrequest_over_the_results_budget_tries_the_next():
    got = run([claim("c", req("base", count=20), first("more", ("many", exact(GPU, count=13)),
                                                        ("few", exact(GPU, count=12))))],
              [slice_obj("s", gpus(40), node="n1")])
    assert [len(c.devices) for c in got] == [32]
    assert {d.request for d in got[0].devices} == {"base", "more/few"}


# -- admin access -------------------------------------------------------------------------------------

def test_admin_access_may_use_devices_in_use():
    got = run([claim("c", req("gpu", admin=True, count=2))], [slice_obj("s", gpus(2), node="n1")],
              in_use=[(GPU, "n1", "gpu-0"), (GPU, "n1", "gpu-1")])
    assert picked(got) == [[("gpu", "gpu-0"), ("gpu", "gpu-1")]]
    assert all(d.admin_access for d in got[0].devices)


def test_admin_access_does_not_take_a_device_twice_in_one_claim():
    assert run([claim("c", req("gpu", admin=True, count=3))], [slice_obj("s", gpus(2), node="n1")]) is None


def test_admin_access_shares_with_other_claims_of_the_pod():
    got = run([claim("a", req("gpu")), claim("b", req("gpu", admin=True))], [slice_obj("s", gpus(1), node="n1")])
    assert picked(got) == [[("gpu", "gpu-0")], [("gpu", "gpu-0")]]


# -- devices the default gates exclude ---------------------------------------------------------------

def test_partitionable_and_binding_condition_devices_are_never_allocated():
    devices = [{**dev("gpu-0"), "consumesCounters": [{"counterSet": "x", "counters": {}}]},
               {**dev("gpu-1"), "bindingConditions": ["ready"]}]
    assert run([claim("c", req("gpu"))], [slice_obj("s", devices, node="n1")]) is None


# -- errors -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("claim_obj,class_objs,want", [
    (claim("c", req("gpu", count=33)), (GPU_CLASS,),
     "claim default/c: number of requested devices 33 exceeds the claim limit of 32"),
    (claim("c", req("gpu", mode="Some")), (GPU_CLASS,),
     "claim default/c, request gpu: unsupported count mode Some"),
    (claim("c", {"name": "gpu", "exactly": {"deviceClassName": GPU, "selectors": [{}]}}), (GPU_CLASS,),
     "claim default/c, request gpu, selector #0: CEL expression empty (unsupported selector type?)"),
    (claim("c", req("gpu", cls="")), (GPU_CLASS,),
     "claim default/c, request gpu: missing device class name (unsupported request type?)"),
    (claim("c", req("gpu", cls="gone")), (GPU_CLASS,),
     'claim default/c, request gpu: could not retrieve device class gone: deviceclass.resource.k8s.io "gone" '
     "not found"),
    (claim("c", req("gpu")), (device_class(GPU, "device.attributes['gpu.example.com'].model == 'x'"),),
     "class gpu.example.com: selector #0: CEL runtime error: no such key: model"),
    (claim("c", req("gpu", selectors=("device.attributes['gpu.example.com'].model == 'x'",))), (GPU_CLASS,),
     "claim default/c: selector #0: CEL runtime error: no such key: model"),
    (claim("c", req("gpu")), (device_class(GPU, "device.driver =="),),
     "class gpu.example.com: selector #0: CEL compile error: compilation failed: ERROR: <input>:1:17: "
     "Syntax error: mismatched input '<EOF>' expecting"),
])
def test_errors(claim_obj, class_objs, want):
    with pytest.raises(AllocatorError) as err:
        run([claim_obj], [slice_obj("s", gpus(1), node="n1")], class_objs=class_objs)
    assert str(err.value).startswith(want)


def test_a_selector_error_after_a_solution_is_never_reached():
    devices = [dev("gpu-0", model="x"), dev("gpu-1")]   # gpu-1 has no model: a runtime error
    got = run([claim("c", req("gpu", selectors=("device.attributes['gpu.example.com'].model == 'x'",)))],
              [slice_obj("s", devices, node="n1")])
    assert picked(got) == [[("gpu", "gpu-0")]]


# -- the remembered failures change nothing but time ---------------------------------------------------

class _Forgetful(set):
    def __contains__(self, item) -> bool:
        return False


@pytest.mark.parametrize("seed", range(40))
def test_memo_matches_the_plain_search(seed, monkeypatch):
    rnd = random.Random(seed)
    devices = [dev(f"gpu-{i}", numa=rnd.randint(0, 2), model=rnd.choice(["a", "b"])) for i in range(rnd.randint(1, 7))]
    objs = []
    for k in range(rnd.randint(1, 3)):
        reqs = []
        for j in range(rnd.randint(1, 2)):
            if rnd.random() < 0.3:
                model_a = ("device.attributes['gpu.example.com'].model == 'a'",)
                reqs.append(first(f"r{j}", ("x", exact(GPU, count=rnd.randint(1, 3), selectors=model_a)),
                                  ("y", exact(GPU, count=1))))
            else:
                reqs.append(req(f"r{j}", count=rnd.randint(1, 3), admin=rnd.random() < 0.1 or None))
        cons = [{"matchAttribute": f"{GPU}/numa"}] if rnd.random() < 0.5 else None
        objs.append(claim(f"c{k}", *reqs, constraints=cons))
    s = [slice_obj("s", devices, node="n1")]
    with_memo = run(objs, s)
    monkeypatch.setattr(A._Search, "__init__", _patched_init(A._Search.__init__))
    without = run(objs, s)
    assert (picked(with_memo) if with_memo else None) == (picked(without) if without else None)


def _patched_init(orig):
    def init(self, *args, **kwargs):
        orig(self, *args, **kwargs)
        self.failed = _Forgetful()
    return init


# -- v1.35.4's quirks with All subrequests -----------------------------------------------------------

IDX0 = "device.attributes['gpu.example.com'].index == 0"
IDX1 = "device.attributes['gpu.example.com'].index == 1"


def test_all_subrequest_after_an_all_subrequest_gets_its_devices():
    # `b` is prepared with `a`'s cached selection (gpu-0, in use), so neither fits.
    subs = first("gpus", ("a", exact(GPU, mode="All", selectors=(IDX0,))),
                 ("b", exact(GPU, mode="All", selectors=(IDX1,))))
    assert run([claim("c", subs)], [slice_obj("s", gpus(2), node="n1")], in_use=[(GPU, "n1", "gpu-0")]) is None
    # After an ExactCount subrequest nothing was cached: `b` gets its own device.
    subs = first("gpus", ("a", exact(GPU, selectors=(IDX0,))), ("b", exact(GPU, mode="All", selectors=(IDX1,))))
    got = run([claim("c", subs)], [slice_obj("s", gpus(2), node="n1")], in_use=[(GPU, "n1", "gpu-0")])
    assert picked(got) == [[("gpus/b", "gpu-1")]]


def test_all_subrequest_continues_with_the_first_subrequests_data():
    # `b` takes gpu-0, then the search goes on as subrequest `a` (5 devices): no solution.
    subs = first("gpus", ("a", exact(GPU, count=5)), ("b", exact(GPU, mode="All")))
    assert run([claim("c", subs)], [slice_obj("s", gpus(2), node="n1")]) is None
    # With `a` asking for one device, `b`'s first device completes the request.
    subs = first("gpus", ("a", exact(GPU, count=1, selectors=(IDX1,))),
                 ("b", exact(GPU, mode="All", selectors=(IDX0,))))
    got = run([claim("c", subs)], [slice_obj("s", gpus(2), node="n1")], in_use=[(GPU, "n1", "gpu-1")])
    assert picked(got) == [[("gpus/b", "gpu-0")]]
