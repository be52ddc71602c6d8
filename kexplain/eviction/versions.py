"""What differs between the Kubernetes minors in eviction, as data: each family's block keyed by
minor (the minors kexplain follows, `kexplain.features.SUPPORTED`), read where its rule lives;
feature gates stay in `kexplain.features`."""
from __future__ import annotations

from dataclasses import dataclass

# minor -> the Kubernetes release whose components kexplain reproduces in eviction (the kubelet,
# kubectl and the API server, the controllers: ../shared/eviction's sources), one for every family
RELEASES: dict[str, str] = {"1.33": "v1.33.13", "1.34": "v1.34.9", "1.35": "v1.35.6", "1.36": "v1.36.3"}

# ---- drain: kubectl drain (k8s.io/kubectl/pkg/drain) and the Eviction API ----------------------


@dataclass(frozen=True)
class DrainRules:
    """One minor's kubectl drain and Eviction subresource, where they differ."""

    release: str                # the release whose code the drain family follows for this minor
    # filters.go's unmanagedFatal: v0.33-v0.35 began it with "cannot delete", which errors() adds
    # again ("cannot delete cannot delete Pods that declare no controller ..."); v0.36 says it once
    unmanaged_fatal: str
    # checkAndDecrement's cause when a budget allows no disruption: before 1.35 always "needs D
    # healthy pods and has C currently"; from 1.35 (kubernetes#133097) that only when currentHealthy
    # <= desiredHealthy, else "does not allow evicting pods currently" (with the condition's words)
    budget_cause_by_condition: bool


_UNMANAGED = "Pods that declare no controller (use --force to override)"

DRAIN: dict[str, DrainRules] = {
    "1.33": DrainRules(RELEASES["1.33"], "cannot delete " + _UNMANAGED, False),
    "1.34": DrainRules(RELEASES["1.34"], "cannot delete " + _UNMANAGED, False),
    "1.35": DrainRules(RELEASES["1.35"], "cannot delete " + _UNMANAGED, True),
    "1.36": DrainRules(RELEASES["1.36"], _UNMANAGED, True),
}


def drain_rules(minor: str) -> DrainRules:
    """The drain rules of `minor` (a minor kexplain follows)."""
    return DRAIN[minor]

# ---- end of drain -------------------------------------------------------------------------------


# -- pressure: the kubelet's eviction manager (pkg/kubelet/eviction) ------------------------------
# The kubelet release whose code answers for each minor (the cases' expected-v1.XX.json).
KUBELET_RELEASES = RELEASES
# The pod-level line of the eviction message ("Pod NAME was using ...") exists from this minor,
# behind the PodLevelResources gate (helpers.go evictionMessage).
POD_LEVEL_MESSAGE_SINCE = "1.34"
# -- end of pressure ---------------------------------------------------------------------------------


# --- taints: the taint eviction controller and DefaultTolerationSeconds ----------------------------
# The controller's rules are the same in all four minors; Lt/Gt tolerations follow the
# TaintTolerationComparisonOperators gate, the condition's observedGeneration PodObservedGenerationTracking.
TAINT_EVICTION_RELEASES = RELEASES
# --- end taints ------------------------------------------------------------------------------------
