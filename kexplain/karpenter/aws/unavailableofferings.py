"""The provider's insufficient-capacity cache (`pkg/cache/unavailableofferings.go`), filled from
`params.unavailableOfferings`; nothing expires within a pass."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable


@dataclass(frozen=True)
class UnavailableOfferings:
    """Offerings, whole capacity types, and subnets marked unavailable."""

    offerings: frozenset[tuple[str, str, str]] = frozenset()
    capacity_types: frozenset[str] = frozenset()
    subnets: frozenset[str] = field(default=frozenset())

    def is_unavailable(self, instance_type: str, zone: str, subnet_ids: Iterable[str], capacity_type: str) -> bool:
        """IsUnavailable: the offering, or its capacity type, or every one of its zone's subnets
        (when it has any) is in the cache."""
        if (capacity_type, instance_type, zone) in self.offerings or capacity_type in self.capacity_types:
            return True
        subnet_ids = list(subnet_ids)
        return bool(subnet_ids) and all(s in self.subnets for s in subnet_ids)


def parse_unavailable_offering(entry: str) -> tuple[str, str, str] | None:
    """`instanceType:zone:capacityType` as (instanceType, zone, capacityType); None when malformed."""
    parts = entry.split(":") if isinstance(entry, str) else []
    if len(parts) != 3 or not all(parts):
        return None
    return parts[0], parts[1], parts[2]


def from_entries(entries: Iterable[tuple[str, str, str]]) -> UnavailableOfferings:
    """MarkUnavailable for each (instanceType, zone, capacityType)."""
    return UnavailableOfferings(offerings=frozenset((ct, it, zone) for it, zone, ct in entries))
