"""Partitionable devices' counters during one allocation (checkAvailableCounters).

A pool's counter sets, less what its allocated devices consume (on any node), are what is
available; the devices picked so far in this attempt consume more. A device fits while no
counter of the pool is consumed beyond what is available. As the allocator keys both by pool
name alone, two drivers' pools of one name share them; that is kept.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Collection, Hashable

from kexplain.model.dra import Device, DeviceID
from kexplain.plugins.dra.features import consumption
from kexplain.plugins.dra.pools import Pool

Sets = dict[str, dict[str, Fraction]]


class Counters:
    def __init__(self, allocated: Collection[DeviceID]) -> None:
        self.allocated = allocated
        self.available: dict[str, Sets] = {}
        self.consumed: dict[str, Sets] = {}

    def _available(self, pool: Pool) -> Sets:
        got = self.available.get(pool.name)
        if got is None:
            got = {name: dict(counters) for name, counters in pool.counter_sets.items()}
            for s in (*pool.slices, *pool.other_slices):
                for d in s.devices:
                    if (s.driver, s.pool, d.name) not in self.allocated:
                        continue
                    for set_name, counters in consumption(d):
                        have = got.get(set_name, {})
                        for counter, amount in counters.items():
                            if counter in have:
                                have[counter] -= amount
            self.available[pool.name] = got
        return got

    def reserve(self, pool: Pool, device: Device) -> bool:
        """Consume the device's counters; False (nothing consumed) when some counter of the
        pool would go beyond what is available."""
        available = self._available(pool)
        consumed = self.consumed.setdefault(pool.name, {})
        for set_name, counters in consumption(device):
            into = consumed.setdefault(set_name, {})
            for counter, amount in counters.items():
                into[counter] = into.get(counter, Fraction(0)) + amount
        for set_name, counters in available.items():
            used = consumed.get(set_name, {})
            for counter, amount in counters.items():
                if amount < used.get(counter, 0):
                    self.release(pool, device)
                    return False
        return True

    def release(self, pool: Pool, device: Device) -> None:
        consumed = self.consumed.get(pool.name, {})
        for set_name, counters in consumption(device):
            into = consumed.setdefault(set_name, {})
            for counter, amount in counters.items():
                into[counter] = into.get(counter, Fraction(0)) - amount

    def state(self) -> Hashable:
        return tuple(sorted((pool, name, counter, amount) for pool, sets in self.consumed.items()
                            for name, counters in sets.items() for counter, amount in counters.items() if amount))
