"""The pricing provider's answers (`pkg/providers/pricing/pricing.go`): `OnDemandPrice(type)` and
`SpotPrice(type, zone)`, USD per hour."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

FALLBACK_REGION = "us-east-1"   # Reset(): the always available list


@dataclass(frozen=True)
class Pricing:
    """On-demand prices by type; spot prices by type and zone, or, when `spot` is None, the
    provider's initial state (spot = the on-demand price in every zone)."""

    on_demand: Mapping[str, float]
    spot: Mapping[str, Mapping[str, float]] | None = None
    currency: str = "USD"
    source: str = ""
    extra: Mapping[str, str] = field(default_factory=dict)

    def on_demand_price(self, instance_type: str) -> float | None:
        """OnDemandPrice: None where Go returns ok=false."""
        return self.on_demand.get(instance_type)

    def spot_price(self, instance_type: str, zone: str) -> float | None:
        """SpotPrice: the zone's price, or before a spot update the type's default (on-demand)."""
        if self.spot is None:
            return self.on_demand.get(instance_type)
        return self.spot.get(instance_type, {}).get(zone)


def static_pricing(prices_by_region: Mapping[str, Mapping[str, float]], region: str, source: str = "") -> Pricing:
    """NewDefaultProvider + Reset: the region's static on-demand list, else us-east-1's, and spot
    prices equal to them until a spot price update."""
    prices = prices_by_region.get(region)
    if prices is None:
        prices = prices_by_region.get(FALLBACK_REGION, {})
    return Pricing(on_demand=prices, spot=None, source=source)
