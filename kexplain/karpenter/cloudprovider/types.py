"""Instance types and offerings as Karpenter's core sees every cloud provider's
(`pkg/cloudprovider/types.go` of sigs.k8s.io/karpenter v1.13.0)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from kexplain.apimachinery.gosort import go_sort
from kexplain.apimachinery.quantity import Quantity, sub
from kexplain.apimachinery.strconv import format_float
from kexplain.apimachinery.labels import LABEL_TOPOLOGY_ZONE
from kexplain.karpenter.apis.labels import CAPACITY_TYPE_LABEL_KEY, LABEL_CAPACITY_RESERVATION_ID
from kexplain.karpenter.errors import KarpenterError, WrappedError
from kexplain.karpenter.scheduling.requirements import ALLOW_UNDEFINED_WELL_KNOWN_LABELS, Requirements
from kexplain.karpenter.utils.resources import ResourceList, merge, subtract

MEMORY = "memory"
HUGEPAGES_PREFIX = "hugepages-"
MAX_FLOAT64 = 1.7976931348623157e308   # math.MaxFloat64: the price of a type without a usable offering

# ReservationIDLabel: set by the provider at init; the AWS provider's is its capacity-reservation-id label.
RESERVATION_ID_LABEL = LABEL_CAPACITY_RESERVATION_ID

MIN_VALUES_POLICY_STRICT = "Strict"
MIN_VALUES_POLICY_BEST_EFFORT = "BestEffort"


# -- overhead and instance types ------------------------------------------------------------------
@dataclass(frozen=True)
class InstanceTypeOverhead:
    """What kubelet and the OS keep off a node: kube-reserved, system-reserved, the eviction threshold."""

    kube_reserved: ResourceList = field(default_factory=dict)
    system_reserved: ResourceList = field(default_factory=dict)
    eviction_threshold: ResourceList = field(default_factory=dict)

    def total(self) -> ResourceList:
        """Total: the three merged (summed per resource)."""
        return merge(self.kube_reserved, self.system_reserved, self.eviction_threshold)


@dataclass
class Offering:
    """Where an instance type can be launched: requirements with at least the capacity type and
    the zone, a price, whether it is available now, and for a reservation its free capacity."""

    requirements: Requirements
    price: float
    available: bool
    reservation_capacity: int = 0

    def capacity_type(self) -> str:
        return self.requirements.get(CAPACITY_TYPE_LABEL_KEY).any()

    def zone(self) -> str:
        return self.requirements.get(LABEL_TOPOLOGY_ZONE).any()

    def reservation_id(self) -> str:
        return self.requirements.get(RESERVATION_ID_LABEL).any()


class Offerings(list):
    """Offerings (a list of `Offering`) and the filters the scheduler uses on them."""

    def available(self) -> "Offerings":
        """Available: the offerings that can be launched now, in order."""
        return Offerings(o for o in self if o.available)


@dataclass(eq=False)
class InstanceType:
    """A potential node; `allocatable()` is computed once, as Go's sync.Once does."""

    name: str
    requirements: Requirements
    offerings: Offerings
    capacity: ResourceList
    overhead: InstanceTypeOverhead = field(default_factory=InstanceTypeOverhead)
    _allocatable: ResourceList | None = field(default=None, repr=False)

    def allocatable(self) -> ResourceList:
        """Allocatable: capacity less kube-reserved, system-reserved and the eviction threshold;
        hugepages in the capacity are taken off memory too (never below zero)."""
        if self._allocatable is None:
            allocatable = subtract(self.capacity, self.overhead.total())
            for name, q in self.capacity.items():
                if name.startswith(HUGEPAGES_PREFIX):
                    current = sub(allocatable.get(MEMORY) or Quantity(q.value * 0, q.fmt), q)
                    if current.value < 0:
                        current = Quantity(current.value * 0, current.fmt)
                    allocatable[MEMORY] = current
            self._allocatable = allocatable
        return self._allocatable

    def cheapest_price(self, reqs: Requirements) -> float:
        """The price OrderByPrice sorts by: the cheapest available compatible offering's, else MaxFloat64."""
        price = MAX_FLOAT64
        for o in self.offerings:
            if o.available and o.price < price and reqs.is_compatible(o.requirements,
                                                                      ALLOW_UNDEFINED_WELL_KNOWN_LABELS):
                price = o.price
        return price


class MinValuesError(KarpenterError):
    """`minValues requirement is not met for label(s)` with the failing keys (serrors.Wrap)."""

    def __init__(self, keys: Iterable[str]) -> None:
        super().__init__()
        self.keys = sorted(keys)   # Go prints lo.Keys of a map: an arbitrary order; sorted here

    def __str__(self) -> str:
        return f"minValues requirement is not met for label(s) (label(s)=[{' '.join(self.keys)}])"


class InstanceTypes(list):
    """InstanceTypes (a list of `InstanceType`) and the scheduler's helpers."""

    def order_by_price(self, reqs: Requirements) -> "InstanceTypes":
        """OrderByPrice: sorted in place by each type's cheapest available compatible offering,
        with Go's sort.Slice (not stable: equal prices end where Go's pdqsort leaves them)."""
        prices = {id(it): it.cheapest_price(reqs) for it in self}
        go_sort(self, lambda a, b: prices[id(a)] < prices[id(b)])
        return self

    def satisfies_min_values(self, requirements: Requirements) -> tuple[int, dict[str, int] | None,
                                                                         MinValuesError | None]:
        """SatisfiesMinValues: (the number of leading types needed to meet every minValues,
        the keys still short with their value counts, the error) in this list's order."""
        if not requirements.has_min_values():
            return 0, None, None
        with_min = [r for r in requirements.values() if r.min_values is not None]
        values_for_key: dict[str, set[str]] = {}
        incompatible: dict[str, int] = {}
        for i, it in enumerate(self):
            for req in with_min:
                values_for_key.setdefault(req.key, set()).update(it.requirements.get(req.key).values())
            for key, values in values_for_key.items():
                if len(values) < (requirements.get(key).min_values or 0):
                    incompatible[key] = len(values)
                else:
                    incompatible.pop(key, None)
            if not incompatible:
                return i + 1, None, None
        if incompatible:
            return len(self), incompatible, MinValuesError(incompatible)
        return len(self), None, None

    def truncate(self, requirements: Requirements, max_items: int,
                 min_values_policy: str = MIN_VALUES_POLICY_STRICT,
                 ordered: list[InstanceType] | None = None) -> tuple["InstanceTypes", WrappedError | None]:
        """Truncate: the cheapest `max_items` types (sorted in place); under Strict minValues, the whole
        list and an error when the cut one no longer meets them. `ordered`: sorted by price already."""
        ordered = ordered if ordered is not None else self.order_by_price(requirements)
        truncated = InstanceTypes(ordered[:max(max_items, 0)])
        if requirements.has_min_values() and min_values_policy != MIN_VALUES_POLICY_BEST_EFFORT:
            _, _, err = truncated.satisfies_min_values(requirements)
            if err is not None:
                return InstanceTypes(ordered), WrappedError("validating minValues", err)
        return truncated, None


def format_price(price: float) -> str:
    """A price as Karpenter's document prints it: strconv.FormatFloat(p, 'f', -1, 64)."""
    return format_float(price, "f")
