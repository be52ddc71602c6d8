"""The provider's insufficient-capacity cache (`pkg/cache/unavailableofferings.go`), filled from
`params.unavailableOfferings`; nothing expires within a pass."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class UnavailableOfferings:
    """Offerings marked unavailable (Go's cache also marks whole capacity types and subnets, which
    only a launch's errors do: none in a pass)."""

    offerings: frozenset[tuple[str, str, str]] = frozenset()

    def is_unavailable(self, instance_type: str, zone: str, capacity_type: str) -> bool:
        """IsUnavailable: the offering is in the cache."""
        return (capacity_type, instance_type, zone) in self.offerings


def from_entries(entries: Iterable[tuple[str, str, str]]) -> UnavailableOfferings:
    """MarkUnavailable for each (instanceType, zone, capacityType)."""
    return UnavailableOfferings(offerings=frozenset((ct, it, zone) for it, zone, ct in entries))
