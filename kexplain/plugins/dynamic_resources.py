"""DynamicResources: a pod that references ResourceClaims may only run where its devices
can be allocated. kexplain does not model claims yet: for the (usual) pod without
claims the plugin does what v1.35.4 does — nothing but its bookkeeping, which still
shows in the trace (Skip in PreFilter, raw score 0, and the "no new claims to
deallocate" PostFilter status that ends up in the event message). For a pod with
claims it reports what the scheduler would find with no ResourceClaim objects in
the cluster, and an Error where real claim allocation would be needed."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kexplain.framework.interface import (MAX_NODE_SCORE, FilterPlugin, PostFilterPlugin, PreBindPlugin,
                                          PreEnqueuePlugin, PreFilterPlugin, PreFilterResult, ReservePlugin,
                                          ScoreExtensions, ScorePlugin, SignPlugin)
from kexplain.framework import signers
from kexplain.framework.status import SKIP, SUCCESS, Code, Status, unresolvable
from kexplain.plugins import names
from kexplain.plugins.helper.normalize_score import default_normalize_score

NAME = names.DYNAMIC_RESOURCES
STATE_KEY = NAME

REASON_NO_CLAIMS_TO_DEALLOCATE = "no new claims to deallocate"
ERR_STATE_NOT_FOUND = "not found"  # CycleState.Read's error when PreFilter did not run
ERR_CLAIMS_UNSUPPORTED = "kexplain: pods with resource claims are not supported yet"


@dataclass(frozen=True)
class _State:
    """The plugin's per-cycle state; kexplain only ever has the empty claim list."""

    claims: tuple[Mapping[str, Any], ...] = ()


class ClaimLookupError(Exception):
    """A claim of the pod cannot be resolved (message as the scheduler words it)."""


def _claim_name(pod, pod_claim: Mapping[str, Any]) -> str | None:
    """The ResourceClaim's name for one spec.resourceClaims entry (resourceclaim.Name);
    None when a template's claim was deliberately not generated."""
    if pod_claim.get("resourceClaimName") is not None:
        return pod_claim["resourceClaimName"]
    if pod_claim.get("resourceClaimTemplateName") is not None:
        for st in pod.status.get("resourceClaimStatuses") or ():
            if st.get("name") == pod_claim.get("name"):
                return st.get("resourceClaimName")
        raise ClaimLookupError(f'pod "{pod.namespace}/{pod.name}": ResourceClaim not created yet')
    raise ClaimLookupError(f'pod "{pod.namespace}/{pod.name}", spec.resourceClaim "{pod_claim.get("name", "")}": '
                           "none of the supported fields are set")


def pod_resource_claims(pod, known_claims: Mapping[str, Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The pod's ResourceClaim objects (foreachPodResourceClaim without the owner check);
    raises ClaimLookupError for the first that cannot be found."""
    out = []
    for pod_claim in pod.spec.get("resourceClaims") or ():
        name = _claim_name(pod, pod_claim)
        if name is None:
            continue
        key = f"{pod.namespace}/{name}"
        claim = known_claims.get(key)
        if claim is None:
            raise ClaimLookupError(f'could not find ResourceClaim "{key}"')
        if (claim.get("metadata") or {}).get("deletionTimestamp"):
            raise ClaimLookupError(f'resourceclaim "{name}" is being deleted')
        out.append(claim)
    return out


class DynamicResources(PreEnqueuePlugin, PreFilterPlugin, FilterPlugin, PostFilterPlugin,
                       ScorePlugin, ScoreExtensions, ReservePlugin, PreBindPlugin, SignPlugin):
    name = NAME

    def sign_pod(self, pod) -> signers.Fragments | None:
        """Not signable with resource claims (whether their devices are on one node is not
        simple to tell, so the scheduler never batches such pods)."""
        return None if pod.spec.get("resourceClaims") else []

    def _known_claims(self) -> Mapping[str, Mapping[str, Any]]:
        snapshot = self.handle.snapshot

        def build() -> dict[str, Mapping[str, Any]]:
            out = {}
            for c in snapshot.of_kind("ResourceClaim"):
                meta = c.get("metadata") or {}
                out[f"{meta.get('namespace') or 'default'}/{meta.get('name', '')}"] = c
            return out
        return snapshot.cached(NAME + "/claims", build)

    def pre_enqueue(self, pod) -> Status:
        if not pod.spec.get("resourceClaims"):
            return SUCCESS
        try:
            pod_resource_claims(pod, self._known_claims())
        except ClaimLookupError as e:
            return unresolvable(str(e))
        return SUCCESS

    def pre_filter(self, state, pod, nodes) -> tuple[PreFilterResult | None, Status]:
        state.write(STATE_KEY, _State())
        if not pod.spec.get("resourceClaims"):
            return None, SKIP
        try:
            claims = pod_resource_claims(pod, self._known_claims())
        except ClaimLookupError as e:
            return None, unresolvable(str(e))
        if not claims:
            return None, SKIP
        return None, Status.error(ERR_CLAIMS_UNSUPPORTED)

    def filter(self, state, pod, node_info) -> Status:
        s = state.get(STATE_KEY)
        if s is None:
            return Status.error(ERR_STATE_NOT_FOUND)
        if not s.claims:
            return SUCCESS
        return Status.error(ERR_CLAIMS_UNSUPPORTED)

    def post_filter(self, state, pod, statuses):
        s = state.get(STATE_KEY)
        if s is None:
            return None, Status.error(ERR_STATE_NOT_FOUND)
        if not s.claims:
            return None, Status(Code.UNSCHEDULABLE, (REASON_NO_CLAIMS_TO_DEALLOCATE,))
        return None, Status.error(ERR_CLAIMS_UNSUPPORTED)

    def score(self, state, pod, node_info) -> int:
        # Without claims there is nothing allocated on any node to prefer.
        return 0

    def normalize_score(self, state, pod, scores) -> Status:
        default_normalize_score(MAX_NODE_SCORE, False, scores)
        return SUCCESS
