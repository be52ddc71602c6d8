"""An instance type's offerings for an EC2NodeClass (`pkg/providers/instancetype/offering`,
createOfferings): one per zone and capacity type, priced, available or not."""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from kexplain.apimachinery.labels import LABEL_TOPOLOGY_ZONE
from kexplain.apimachinery.selectors import DOES_NOT_EXIST, IN
from kexplain.karpenter.apis import labels as L
from kexplain.karpenter.apis.ec2nodeclass import CAPACITY_RESERVATION_STATE_EXPIRING
from kexplain.karpenter.aws.pricing import Pricing
from kexplain.karpenter.aws.unavailableofferings import UnavailableOfferings
from kexplain.karpenter.cloudprovider.types import RESERVATION_ID_LABEL, InstanceType, Offering, Offerings
from kexplain.karpenter.scheduling.requirement import new_requirement
from kexplain.karpenter.scheduling.requirements import new_requirements
from kexplain.karpenter.utils.objects import field_of

RESERVED_PRICE_DIVISOR = 10_000_000.0   # a reservation is "free" but keeps the on-demand order


def create_offerings(it: InstanceType, zone_info: Sequence[Any], compatible: bool, all_zones: Iterable[str],
                     pricing: Pricing, unavailable: UnavailableOfferings, capacity_reservations: Sequence[Any] = (),
                     reserved_capacity: bool = True, reservation_counts: Mapping[str, int] | None = None) -> Offerings:
    """createOfferings for one type (zones in sorted order: Go walks a set); `reservation_counts`:
    the capacity-reservation provider's free counts by id (GetAvailableInstanceCount: 0 if absent)."""
    out = Offerings()
    it_zones = set(it.requirements.get(LABEL_TOPOLOGY_ZONE).values())
    by_zone = {}
    for z in zone_info:
        by_zone.setdefault(field_of(z, "zone"), z)     # lo.Find: the first ZoneInfo of the zone
    capacity_types = it.requirements.get(L.CAPACITY_TYPE_LABEL_KEY).values()
    for zone in sorted(all_zones):
        info = by_zone.get(zone)
        for capacity_type in capacity_types:
            if capacity_type == L.CAPACITY_TYPE_RESERVED:
                continue
            is_unavailable = unavailable.is_unavailable(it.name, zone, capacity_type)
            if capacity_type == L.CAPACITY_TYPE_ON_DEMAND:
                price = pricing.on_demand_price(it.name)
            elif capacity_type == L.CAPACITY_TYPE_SPOT:
                price = pricing.spot_price(it.name, zone)
            else:
                raise ValueError(f"invalid capacity type {capacity_type!r} in requirements for instance type {it.name!r}")
            offering = Offering(
                requirements=new_requirements(
                    new_requirement(L.CAPACITY_TYPE_LABEL_KEY, IN, capacity_type),
                    new_requirement(LABEL_TOPOLOGY_ZONE, IN, zone),
                    new_requirement(RESERVATION_ID_LABEL, DOES_NOT_EXIST),
                    new_requirement(L.LABEL_CAPACITY_RESERVATION_TYPE, DOES_NOT_EXIST),
                    new_requirement(L.LABEL_CAPACITY_RESERVATION_INTERRUPTIBLE, DOES_NOT_EXIST),
                ),
                price=price if price is not None else 0.0,
                available=compatible and not is_unavailable and price is not None and zone in it_zones,
            )
            if info is not None:
                offering.requirements.add(new_requirement(L.LABEL_TOPOLOGY_ZONE_ID, IN, field_of(info, "zone_id") or ""))
            out.append(offering)
    if reserved_capacity:
        for reservation in capacity_reservations:
            if field_of(reservation, "instance_type") != it.name:
                continue
            od = pricing.on_demand_price(it.name)
            zone = field_of(reservation, "availability_zone") or ""
            info = by_zone.get(zone)
            capacity = (reservation_counts or {}).get(field_of(reservation, "id") or "", 0)
            offering = Offering(
                requirements=new_requirements(
                    new_requirement(L.CAPACITY_TYPE_LABEL_KEY, IN, L.CAPACITY_TYPE_RESERVED),
                    new_requirement(LABEL_TOPOLOGY_ZONE, IN, zone),
                    new_requirement(RESERVATION_ID_LABEL, IN, field_of(reservation, "id") or ""),
                    new_requirement(L.LABEL_CAPACITY_RESERVATION_TYPE, IN, str(field_of(reservation, "reservation_type") or "")),
                    new_requirement(L.LABEL_CAPACITY_RESERVATION_INTERRUPTIBLE, IN,
                                    "true" if field_of(reservation, "interruptible") else "false"),
                ),
                price=od / RESERVED_PRICE_DIVISOR if od is not None else 0.0,
                available=(compatible and capacity != 0 and zone in it_zones
                           and field_of(reservation, "state") != CAPACITY_RESERVATION_STATE_EXPIRING),
                reservation_capacity=capacity,
            )
            if info is not None:
                offering.requirements.add(new_requirement(L.LABEL_TOPOLOGY_ZONE_ID, IN, field_of(info, "zone_id") or ""))
            out.append(offering)
    return out
