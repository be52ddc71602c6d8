"""Resolving the pod's claims: every message of foreachPodResourceClaim."""
from __future__ import annotations

import pytest

from kexplain.features import KubeVersion
from kexplain.plugins.dra.claims import ClaimLookupError, owner_problem, pod_claims
from tests.plugins.dra.builders import claim, claims, req
from tests.support.selection_helpers import pod

TEMPLATE = [{"name": "gpu", "resourceClaimTemplateName": "t"}]
GENERATED = {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "p-gpu"}]}


def known(*objs):
    return {c.key: c for c in claims(*objs)}


def test_named_and_generated_claims_in_spec_order():
    p = pod(spec={"resourceClaims": [{"name": "a", "resourceClaimName": "shared"}, *TEMPLATE]}, status=GENERATED)
    got = pod_claims(p, known(claim("p-gpu", req("gpu"), owner="uid-p"), claim("shared", req("gpu"))))
    assert [c.name for c in got] == ["shared", "p-gpu"]


NOT_OWNER = {"1.35": "ResourceClaim default/p-gpu was not created for pod default/p (pod is not owner)",
             "1.36": "ResourceClaim default/p-gpu was not created for Pod default/p (Pod is not owner)"}


@pytest.mark.parametrize("minor", ["1.35", "1.36", None])     # None: the default version, 1.36
@pytest.mark.parametrize("claim_obj,want", [
    (claim("p-gpu", req("gpu"), owner="someone-else"), NOT_OWNER),
    (claim("p-gpu", req("gpu")), NOT_OWNER),
    (claim("p-gpu", req("gpu"), owner="uid-p", deleting=True), 'resourceclaim "p-gpu" is being deleted'),
    (claim("other", req("gpu")), 'could not find ResourceClaim "default/p-gpu"'),
])
def test_lookup_errors(claim_obj, want, minor):
    p = pod(spec={"resourceClaims": TEMPLATE}, status=GENERATED)
    with pytest.raises(ClaimLookupError) as err:
        pod_claims(p, known(claim_obj), KubeVersion(minor)) if minor else pod_claims(p, known(claim_obj))
    assert str(err.value) == (want[minor or "1.36"] if isinstance(want, dict) else want)


def test_a_named_claim_needs_no_owner():
    p = pod(spec={"resourceClaims": [{"name": "a", "resourceClaimName": "shared"}]})
    assert [c.name for c in pod_claims(p, known(claim("shared", req("gpu"), owner="x")))] == ["shared"]


def test_136_words_the_owner_check_anew():
    p = pod(spec={"resourceClaims": TEMPLATE}, status=GENERATED)
    with pytest.raises(ClaimLookupError) as err:
        pod_claims(p, known(claim("p-gpu", req("gpu"), owner="someone-else")), KubeVersion("1.36"))
    assert str(err.value) == "ResourceClaim default/p-gpu was not created for Pod default/p (Pod is not owner)"


def test_136_checks_the_namespace_on_its_own():
    p = pod(spec={"resourceClaims": TEMPLATE}, status=GENERATED)
    elsewhere = claims(claim("p-gpu", req("gpu"), namespace="other", owner="uid-p"))[0]
    assert owner_problem(p, elsewhere, new_text=True) == \
        "ResourceClaim other/p-gpu is not in the same namespace as Pod default/p"
    assert owner_problem(p, elsewhere, new_text=False) == \
        "ResourceClaim other/p-gpu was not created for pod default/p (pod is not owner)"
