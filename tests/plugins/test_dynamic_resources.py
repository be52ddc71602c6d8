"""DynamicResources for pods without claims (its v1.35.4 bookkeeping) and claim lookups."""
from __future__ import annotations

import pytest

from kexplain.framework.cycle_state import CycleState
from kexplain.framework.interface import NodeToStatus, PreFilterExtensions, ScoreExtensions
from kexplain.plugins.dynamic_resources import DynamicResources
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
