"""What differs between the Kubernetes minors in eviction, as data: one delimited block per family
(the kubelet's eviction manager, kubectl drain with the Eviction API, the taint eviction controller),
each read where its rule lives. A feature gate's difference is the gate's (`kexplain.features`)."""
from __future__ import annotations

# --- taints: the taint eviction controller and DefaultTolerationSeconds ----------------------------
# minor -> the Kubernetes release whose controller kexplain reproduces (../shared/eviction's sources).
# The controller's rules are the same in all four; Lt/Gt tolerations follow the
# TaintTolerationComparisonOperators gate, the condition's observedGeneration PodObservedGenerationTracking.
TAINT_EVICTION_RELEASES: dict[str, str] = {"1.33": "v1.33.13", "1.34": "v1.34.9", "1.35": "v1.35.6",
                                           "1.36": "v1.36.3"}
# --- end taints ------------------------------------------------------------------------------------
