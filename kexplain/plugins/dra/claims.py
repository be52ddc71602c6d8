"""The pod's ResourceClaims, resolved as the scheduler resolves them (foreachPodResourceClaim).

Each `spec.resourceClaims` entry names a claim directly or through a template, whose claim the
resourceclaim controller records in `status.resourceClaimStatuses`; a template's claim must be
controlled by the pod. The first entry that cannot be resolved stops the lookup with the
scheduler's message.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from kexplain.model.dra import ResourceClaim

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.pod import PodInfo


class ClaimLookupError(Exception):
    """A claim of the pod cannot be resolved (message as the scheduler words it)."""


def claim_name(pod: "PodInfo", pod_claim: Mapping[str, Any]) -> tuple[str | None, bool]:
    """resourceclaim.Name: the claim's name for one entry (None when a template's claim was
    deliberately not generated) and whether the pod must own it."""
    if pod_claim.get("resourceClaimName") is not None:
        return str(pod_claim["resourceClaimName"]), False
    if pod_claim.get("resourceClaimTemplateName") is not None:
        for st in pod.status.get("resourceClaimStatuses") or ():
            if st.get("name") == pod_claim.get("name"):
                name = st.get("resourceClaimName")
                return (None if name is None else str(name)), True
        raise ClaimLookupError(f'pod "{pod.namespace}/{pod.name}": ResourceClaim not created yet')
    raise ClaimLookupError(f'pod "{pod.namespace}/{pod.name}", spec.resourceClaim "{pod_claim.get("name", "")}": '
                           "none of the supported fields are set")


def pod_claims(pod: "PodInfo", known: Mapping[str, ResourceClaim]) -> list[ResourceClaim]:
    """The pod's claims in spec order; ClaimLookupError for the first that cannot be used."""
    out = []
    pod_uid = str(pod.metadata.get("uid") or "")
    for pod_claim in pod.spec.get("resourceClaims") or ():
        name, must_own = claim_name(pod, pod_claim)
        if name is None:
            continue
        key = f"{pod.namespace}/{name}"
        claim = known.get(key)
        if claim is None:
            raise ClaimLookupError(f'could not find ResourceClaim "{key}"')
        if claim.deleting:
            raise ClaimLookupError(f'resourceclaim "{name}" is being deleted')
        if must_own and (claim.namespace != pod.namespace or claim.controller_uid != pod_uid):
            raise ClaimLookupError(f"ResourceClaim {claim.namespace}/{claim.name} was not created for pod "
                                   f"{pod.namespace}/{pod.name} (pod is not owner)")
        out.append(claim)
    return out
