"""Which structured allocator a kube-scheduler minor runs (structured/allocator.go `NewAllocator`:
the first of stable, incubating, experimental supporting the enabled features), and the rules
that differ between minors: data resolved once per plugin (`allocator_rules`). A feature is named
as Go's `Features.Set()` names it; a change without a gate is a `..._SINCE` constant below."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, TypeVar

from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion

ADMIN_ACCESS = "DRAAdminAccess"
PRIORITIZED_LIST = "DRAPrioritizedList"
PARTITIONABLE_DEVICES = "DRAPartitionableDevices"
DEVICE_TAINTS = "DRADeviceTaints"
CONSUMABLE_CAPACITY = "DRAConsumableCapacity"
DEVICE_BINDING = "DRADeviceBindingConditions"                 # 1.34: a feature of its own
DEVICE_STATUS = "DRAResourceClaimDeviceStatus"                # 1.34: a feature of its own
BINDING_AND_STATUS = "DRADeviceBindingConditions+DRAResourceClaimDeviceStatus"   # 1.35 on
LIST_TYPE_ATTRIBUTES = "DRAListTypeAttributes"

# Incomplete pools are judged with every slice of the cluster (a newer generation anywhere makes
# a pool obsolete), never allocated from, and an invalid pool only fails its node
# ("invalid resource pools were encountered") instead of ending the cycle: every 1.35 allocator.
CLUSTER_WIDE_POOLS_SINCE = "1.35"
# The cache of device-selector verdicts is keyed with the right subrequest while subrequests are
# prepared, and All mode keeps the subrequest index (kubernetes#137347): every 1.36 allocator.
SUBREQUEST_KEY_FIX_SINCE = "1.36"
# A request's next device is looked for after its previous one (combinations, not permutations,
# kubernetes#136641): the same first solution, but a shared device is not taken twice by one request.
COMBINATIONS_SINCE = "1.36"
# Counters reserved for a device then refused (a taint, a constraint, capacity) are given back.
COUNTER_ROLLBACK_FIX_SINCE = "1.36"
# A capacity request in a subrequest is named as a subrequest (1.34 says "request <parent>").
CAPACITY_SUBREQUEST_TEXT_SINCE = "1.35"
# A request with admin access may not take a device twice within its own claim (1.33: it may).
ADMIN_SAME_CLAIM_SINCE = "1.34"

T = TypeVar("T")


@dataclass(frozen=True)
class Variant:
    """One allocator of a minor: its name, the features it supports, and how its code differs
    from its siblings' where that shows."""

    name: str
    supports: frozenset[str]
    sorted_pools: bool = False        # pools by driver then name (binding-condition pools last), slices by name
    taints_by_effect: bool = False    # only NoSchedule/NoExecute taints block (taintPreventsAllocation)
    skips_counter_slices: bool = True  # slices with sharedCounters are left out while partitionable devices are off


def _variants(*rows: Variant) -> tuple[Variant, ...]:
    return rows


_BASE = frozenset({ADMIN_ACCESS, PRIORITIZED_LIST, PARTITIONABLE_DEVICES, DEVICE_TAINTS})

# minor from which a row applies -> allocator feature -> the gates that must all be on
FEATURES: list[tuple[str, dict[str, tuple[str, ...]]]] = [
    ("1.33", {ADMIN_ACCESS: (ADMIN_ACCESS,), PRIORITIZED_LIST: (PRIORITIZED_LIST,),
              PARTITIONABLE_DEVICES: (PARTITIONABLE_DEVICES,), DEVICE_TAINTS: (DEVICE_TAINTS,)}),
    ("1.34", {ADMIN_ACCESS: (ADMIN_ACCESS,), PRIORITIZED_LIST: (PRIORITIZED_LIST,),
              PARTITIONABLE_DEVICES: (PARTITIONABLE_DEVICES,), DEVICE_TAINTS: (DEVICE_TAINTS,),
              DEVICE_BINDING: (DEVICE_BINDING,), DEVICE_STATUS: (DEVICE_STATUS,),
              CONSUMABLE_CAPACITY: (CONSUMABLE_CAPACITY,)}),
    ("1.35", {ADMIN_ACCESS: (ADMIN_ACCESS,), PRIORITIZED_LIST: (PRIORITIZED_LIST,),
              PARTITIONABLE_DEVICES: (PARTITIONABLE_DEVICES,), DEVICE_TAINTS: (DEVICE_TAINTS,),
              BINDING_AND_STATUS: (DEVICE_BINDING, DEVICE_STATUS), CONSUMABLE_CAPACITY: (CONSUMABLE_CAPACITY,)}),
]

# minor from which a row applies -> its allocators, most stable first (availableAllocators)
VARIANTS: list[tuple[str, tuple[Variant, ...]]] = [
    # One allocator, with every feature of its minor.
    ("1.33", _variants(Variant("structured", _BASE))),
    ("1.34", _variants(
        Variant("stable", frozenset(), skips_counter_slices=False),
        Variant("incubating", _BASE, skips_counter_slices=False),
        Variant("experimental", _BASE | {DEVICE_BINDING, DEVICE_STATUS, CONSUMABLE_CAPACITY},
                skips_counter_slices=False))),
    ("1.35", _variants(
        Variant("stable", frozenset(), skips_counter_slices=False),
        Variant("incubating", _BASE, taints_by_effect=True),
        Variant("experimental", _BASE | {BINDING_AND_STATUS, CONSUMABLE_CAPACITY}, taints_by_effect=True))),
    ("1.36", _variants(
        Variant("stable", _BASE, taints_by_effect=True),
        Variant("incubating", _BASE | {BINDING_AND_STATUS, CONSUMABLE_CAPACITY}, sorted_pools=True,
                taints_by_effect=True),
        Variant("experimental", _BASE | {BINDING_AND_STATUS, CONSUMABLE_CAPACITY, LIST_TYPE_ATTRIBUTES},
                sorted_pools=True, taints_by_effect=True))),
]


class NoAllocator(Exception):
    """No allocator supports the enabled features (Go's internal error; unreachable with the
    gates each minor has)."""


def _row(kube: KubeVersion, table: Sequence[tuple[str, T]]) -> T:
    """The newest row of `table` that applies to `kube`'s minor."""
    return [value for since, value in table if kube.since(since)][-1]


@dataclass(frozen=True)
class AllocatorRules:
    """What the allocator of one version and set of gates does, resolved once."""

    variant: Variant
    features: frozenset[str]
    cluster_wide_pools: bool = True
    subrequest_key_fix: bool = False
    combinations: bool = False
    counter_rollback_fix: bool = False
    capacity_subrequest_text: bool = True
    admin_same_claim: bool = True

    def has(self, feature: str) -> bool:
        return feature in self.features

    @property
    def binding_conditions(self) -> bool:
        """Devices with binding conditions may be allocated (both gates on, in 1.34 as two features)."""
        return self.has(BINDING_AND_STATUS) or (self.has(DEVICE_BINDING) and self.has(DEVICE_STATUS))

    @property
    def knows_capacity(self) -> bool:
        """The allocator reads consumable capacity (and refuses capacity requests with the feature off)."""
        return CONSUMABLE_CAPACITY in self.variant.supports

    @property
    def knows_binding_conditions(self) -> bool:
        """The allocator orders pools whose devices have binding conditions last."""
        return bool(self.variant.supports & {BINDING_AND_STATUS, DEVICE_BINDING})


def allocator_features(kube: KubeVersion) -> frozenset[str]:
    """The plugin's structured.Features for `kube`'s gates."""
    return frozenset(name for name, gates in _row(kube, FEATURES).items() if all(kube.enabled(g) for g in gates))


def allocator_rules(kube: KubeVersion) -> AllocatorRules:
    """The allocator NewAllocator picks for `kube` (the first that supports every enabled
    feature) with the minor's rules; NoAllocator when none does."""
    features = allocator_features(kube)
    for variant in _row(kube, VARIANTS):
        if features <= variant.supports:
            return AllocatorRules(variant, features, cluster_wide_pools=kube.since(CLUSTER_WIDE_POOLS_SINCE),
                                  subrequest_key_fix=kube.since(SUBREQUEST_KEY_FIX_SINCE),
                                  combinations=kube.since(COMBINATIONS_SINCE),
                                  counter_rollback_fix=kube.since(COUNTER_ROLLBACK_FIX_SINCE),
                                  capacity_subrequest_text=kube.since(CAPACITY_SUBREQUEST_TEXT_SINCE),
                                  admin_same_claim=kube.since(ADMIN_SAME_CLAIM_SINCE))
    raise NoAllocator(f"internal error: no allocator available for feature set {sorted(features)}")


DEFAULT_RULES = allocator_rules(DEFAULT_VERSION)
"""The default version's (`kexplain.features.DEFAULT`, default gates): what callers that name no version get."""
