"""The pod's ResourceClaims, resolved as the scheduler resolves them (foreachPodResourceClaim).

Each `spec.resourceClaims` entry names a claim directly or through a template, whose claim the
resourceclaim controller records in `status.resourceClaimStatuses`; a template's claim must be
controlled by the pod. The first entry that cannot be resolved stops the lookup with the
scheduler's message (1.36 words the owner check anew: `Pod`, and a namespace check of its own).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion
from kexplain.model.dra import ResourceClaim

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.pod import PodInfo

# resourceclaim.IsForPod: "Pod" capitalised and the namespace checked on its own (no gate).
OWNER_TEXT_SINCE = "1.36"


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


def owner_problem(pod: "PodInfo", claim: ResourceClaim, new_text: bool) -> str | None:
    """resourceclaim.IsForPod: why a template's claim is not the pod's (None: it is);
    `new_text`: 1.36's wording."""
    ours = f"{pod.namespace}/{pod.name}"
    if new_text:
        if claim.namespace != pod.namespace:
            return f"ResourceClaim {claim.key} is not in the same namespace as Pod {ours}"
        if claim.controller_uid != str(pod.metadata.get("uid") or ""):
            return f"ResourceClaim {claim.key} was not created for Pod {ours} (Pod is not owner)"
        return None
    if claim.namespace != pod.namespace or claim.controller_uid != str(pod.metadata.get("uid") or ""):
        return f"ResourceClaim {claim.key} was not created for pod {ours} (pod is not owner)"
    return None


def pod_claims(pod: "PodInfo", known: Mapping[str, ResourceClaim],
               kube: KubeVersion = DEFAULT_VERSION) -> list[ResourceClaim]:
    """The pod's claims in spec order; ClaimLookupError for the first that cannot be used, in
    the words of `kube`'s minor."""
    new_text = kube.since(OWNER_TEXT_SINCE)
    out = []
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
        problem = owner_problem(pod, claim, new_text) if must_own else None
        if problem:
            raise ClaimLookupError(problem)
        out.append(claim)
    return out
