"""What differs between the Kubernetes minors in eviction, as data: each family's block, keyed by
minor (feature gates stay in `kexplain.features`)."""
from __future__ import annotations

# -- pressure: the kubelet's eviction manager (pkg/kubelet/eviction) ------------------------------
# The kubelet release whose code answers for each minor (the cases' expected-v1.XX.json).
KUBELET_RELEASES = {"1.33": "v1.33.13", "1.34": "v1.34.9", "1.35": "v1.35.6", "1.36": "v1.36.3"}
# The pod-level line of the eviction message ("Pod NAME was using ...") exists from this minor,
# behind the PodLevelResources gate (helpers.go evictionMessage).
POD_LEVEL_MESSAGE_SINCE = "1.34"
# -- end of pressure ---------------------------------------------------------------------------------
