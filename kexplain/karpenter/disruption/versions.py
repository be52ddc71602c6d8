"""Karpenter's disruption rules that differ between releases, as data (one row per release)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DisruptionRules:
    version: str
    methods: tuple[str, ...]                  # NewMethods' order
    multi_node_max_candidates: int            # MultiNodeConsolidation: the batch it searches
    spot_to_spot_min_types: int               # MinInstanceTypesForSpotToSpotConsolidation
    max_instance_types: int                   # scheduling.MaxInstanceTypes (TruncateInstanceTypes)
    balanced_policy: bool                     # consolidationPolicy: Balanced (v1.14)
    destination_consolidate_after: bool       # consolidateAfter on destination nodes (v1.14)


V1_13_0 = DisruptionRules("v1.13.0", ("Emptiness", "StaticDrift", "Drift", "MultiNodeConsolidation",
                                      "SingleNodeConsolidation"), 100, 15, 60, False, False)
RELEASES = {r.version: r for r in (V1_13_0,)}
DEFAULT = V1_13_0
