"""Reserved-capacity bookkeeping for one pass (provisioning/scheduling/reservationmanager.go)."""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from kexplain.karpenter.apis.labels import CAPACITY_TYPE_LABEL_KEY

RESERVED = "reserved"


class ReservationManager:
    """Reservations by hostname, remaining capacity by reservation id."""

    def __init__(self, instance_types: Mapping[str, Sequence[Any]]) -> None:
        self.reservations: dict[str, set[str]] = {}
        self.capacity: dict[str, int] = {}
        seen: set[int] = set()              # NodePools of one EC2NodeClass share their types: each read once
        for its in instance_types.values():
            for it in its:
                if id(it) in seen:
                    continue
                seen.add(id(it))
                for o in it.offerings:
                    ct = dict.get(o.requirements, CAPACITY_TYPE_LABEL_KEY)    # (an In of others: not reserved)
                    if ct is not None and not ct.complement and RESERVED not in ct.value_set and ct.gte is None \
                            and ct.lte is None or o.capacity_type() != RESERVED:
                        continue
                    rid = o.reservation_id()
                    if rid not in self.capacity or self.capacity[rid] > o.reservation_capacity:
                        self.capacity[rid] = o.reservation_capacity

    def can_reserve(self, hostname: str, offering: Any) -> bool:
        rid = offering.reservation_id()
        if rid in self.reservations.get(hostname, ()):
            return True
        if rid not in self.capacity:
            raise KeyError(f"attempted to reserve non-existent offering with reservation id {rid!r}")
        return self.capacity[rid] != 0

    def reserve(self, hostname: str, *offerings: Any) -> None:
        for o in offerings:
            rid = o.reservation_id()
            held = self.reservations.get(hostname)
            if held is not None and rid in held:
                continue
            self.capacity[rid] = self.capacity.get(rid, 0) - 1
            self.reservations.setdefault(hostname, set()).add(rid)

    def release(self, hostname: str, *offerings: Iterable[Any]) -> None:
        for o in offerings:
            rid = o.reservation_id()
            held = self.reservations.get(hostname)
            if held is not None and rid in held:
                held.discard(rid)
                self.capacity[rid] = self.capacity.get(rid, 0) + 1
