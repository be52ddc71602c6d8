"""What the instance types of one NodePool leave a pod, for the explanation (`explain.py`): the
types left at each step, the closest ones and their shortfall after overhead, the offerings, the limits."""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping, Sequence

from kexplain.apimachinery.quantity import BINARY_SI, Quantity, canonical, sub
from kexplain.karpenter.apis import labels as L
from kexplain.karpenter.apis.ec2nodeclass import CAPACITY_RESERVATION_STATE_EXPIRING
from kexplain.karpenter.provisioning.scheduling.scheduler import filter_by_remaining_resources
from kexplain.karpenter.provisioning.scheduling.typeindex import TypeIndex
from kexplain.karpenter.scheduling.requirements import Requirements, new_requirements
from kexplain.karpenter.utils import resources
from kexplain.karpenter.utils.resources import ResourceList
from kexplain.karpenter.aws.instancetype.compatibility import is_compatible_with_node_class

MAX_CLOSEST = 3        # types closest to fitting shown per NodePool
MAX_NAMES = 5          # names listed per group (unavailable offerings, types over the limits)
MAX_VALUES = 12        # label values listed for a requirement that leaves no type
NANOS = 10**9          # billionths in one (`resources.to_nanos`)

# Why an offering is unavailable (the conditions of the provider's createOfferings).
NOT_SOLD = "notSold"                      # the type is not sold in the zone (describe-instance-type-offerings)
NO_SUBNET = "noSubnet"                    # the EC2NodeClass has no subnet in the zone
INSUFFICIENT_CAPACITY = "insufficientCapacity"   # in the provider's insufficient-capacity cache
NO_PRICE = "noPrice"                      # the pricing provider has no price for it
INCOMPATIBLE_NODE_CLASS = "incompatibleWithNodeClass"   # the EC2NodeClass cannot launch the type
NO_FREE_RESERVED = "reservationFull"      # the capacity reservation's AvailableInstanceCount is 0
UNCOUNTED_RESERVATION = "reservationNotCounted"   # not in describe-capacity-reservations.json: counted 0
EXPIRING_RESERVATION = "reservationExpiring"      # the reservation's state is expiring
UNKNOWN = "unknown"


def _q(q: Quantity | None) -> str:
    return canonical(q) if q is not None else "0"


class TypeCheck:
    """One instance type as filterInstanceTypesByRequirements checks it against a NodeClaim."""

    __slots__ = ("it", "compatible", "offering", "fits", "within_limits", "allocatable")

    def __init__(self, it: Any, compatible: bool, offering: bool, fits: bool, within_limits: bool,
                 allocatable: resources.Nanos) -> None:
        self.it = it
        self.allocatable = allocatable          # (in billionths: the TypeIndex's)
        self.compatible = compatible
        self.offering = compatible and offering
        self.fits = compatible and fits
        self.within_limits = within_limits


def check_types(instance_types: Sequence[Any], requirements: Requirements, total: ResourceList,
                remaining: resources.Nanos | None, index: TypeIndex) -> list[TypeCheck]:
    """Each type checked; `remaining`: the NodePool's room under its limits, the scheduler's
    integer view (None: no limits); `index`: the pass's TypeIndex."""
    within = {id(it) for it in filter_by_remaining_resources(instance_types, remaining)} if remaining else None
    total_nanos = resources.to_nanos(total)
    fits = resources.fits_nanos
    return [TypeCheck(it, compatible, offering, compatible and fits(total_nanos, allocatable),
                      within is None or id(it) in within, allocatable)
            for it, compatible, offering, allocatable in index.compatibility(requirements, instance_types)]


def instance_types_verdict(offered: int, checks: Sequence[TypeCheck], narrowing: Sequence[tuple[Any, list[str]]],
                           pod_requests: ResourceList, daemon_requests: ResourceList, world: Any,
                           limited: bool) -> dict[str, Any]:
    """The counts, the requirements that take types away, the resources and the closest types."""
    total = resources.merge(daemon_requests, pod_requests)
    compatible = [c for c in checks if c.compatible]
    with_offering = [c for c in compatible if c.offering]
    fitting = [c for c in with_offering if c.fits]
    out: dict[str, Any] = {"offered": offered, "nodePool": len(checks), "requirements": len(compatible),
                           "offering": len(with_offering), "resources": len(fitting)}
    if limited:
        out["limits"] = sum(1 for c in fitting if c.within_limits)
    excluded = excluded_by(checks, narrowing)
    if excluded:
        out["excludedBy"] = excluded
    pool = with_offering or compatible
    if not pool:
        return out
    wanted = sorted(resources.to_nanos(total).items())
    lacks = {id(c): _shortfall(c.allocatable, wanted) for c in pool}      # what each type lacks, worked out once
    out["requests"] = [{"resource": name, "pod": _q(pod_requests.get(name)),
                        "daemonSets": _q(daemon_requests.get(name)), "need": _q(q),
                        "enough": sum(1 for c in pool if name not in lacks[id(c)]), "of": len(pool)}
                       for name, q in sorted(total.items())]
    if not fitting:
        # A resource no type has any of is said once; the closest types are ranked by the rest.
        missing = [name for name in sorted(total) if all(c.allocatable.get(name, 0) <= 0
                                                          for c in pool)]
        if missing:
            out["missing"] = missing
        rest = {id(c): {name: v for name, v in lacks[id(c)].items() if name not in missing} for c in pool}
        otherwise = [c.it.name for c in pool if not rest[id(c)]]
        if missing and otherwise:
            if len(otherwise) < len(pool):
                out["enoughOtherwise"] = {"count": len(otherwise), "names": otherwise[:MAX_NAMES]}
        else:
            wanted = {name: q for name, q in total.items() if name not in missing}
            out["closest"] = [closest_entry(c.it, wanted, pod_requests, daemon_requests, world)
                              for c in closest(pool, wanted, rest)]
    return out


def excluded_by(checks: Sequence[TypeCheck], narrowing: Sequence[tuple[Any, list[str]]]) -> list[dict[str, Any]]:
    """Each requirement of the pod (volumes', topology's) that, tried alone, leaves fewer of the
    NodePool's types: how many it leaves, and the types' values for its key."""
    out = []
    for req, fields in narrowing:
        alone = new_requirements(req)
        left = sum(1 for c in checks if c.it.requirements.intersects(alone) is None)
        if left >= len(checks):
            continue
        have = sorted({v for c in checks for v in c.it.requirements.get(req.key).values()})
        out.append({"requirement": str(req), "key": req.key, "left": left, "fields": list(fields),
                    "typesHave": have[:MAX_VALUES], "typesHaveCount": len(have)})
    out.sort(key=lambda e: (e["left"], e["key"]))
    return out


def _shortfall(have: resources.Nanos, wanted: Sequence[tuple[str, int]]) -> dict[str, Fraction]:
    """What a type's allocatable (`have`) lacks of each resource `wanted` (in billionths, by name
    order: quantities are exact in them)."""
    out = {}
    for name, v in wanted:
        room = have.get(name, 0)
        if v > room:
            out[name] = Fraction(v - room, NANOS)
    return out


def closest(checks: Sequence[TypeCheck], total: ResourceList, lacks: Mapping[int, Mapping[str, Fraction]]
            ) -> list[TypeCheck]:
    """The types that fall short by the least (`lacks`: by id of the check): fewest resources
    short, then the smallest share of the need missing, then by name."""
    def rank(c: TypeCheck) -> tuple[int, float, str]:
        short = lacks[id(c)]
        share = sum(min(1.0, float(s / total[name].value)) for name, s in short.items())
        return len(short), share, c.it.name
    return sorted((c for c in checks if lacks[id(c)]), key=rank)[:MAX_CLOSEST]


def closest_entry(it: Any, total: ResourceList, pod_requests: ResourceList, daemon_requests: ResourceList,
                  world: Any) -> dict[str, Any]:
    """A type and, per resource it lacks, its allocatable and what the pod and the DaemonSets need."""
    alloc = it.allocatable()
    overhead = it.overhead
    short = []
    for name in _shortfall(resources.nanos_of(alloc), sorted(resources.to_nanos(total).items())):
        entry: dict[str, Any] = {"resource": name, "allocatable": _q(alloc.get(name)),
                                 "capacity": _q(it.capacity.get(name))}
        if name == resources.MEMORY and it.capacity.get(name) is not None:
            hardware = _hardware_memory(world, it.name)
            if hardware is not None:
                entry["hardware"] = canonical(hardware)
                entry["vmOverhead"] = canonical(sub(hardware, it.capacity[name]))
        for key, rl in (("kubeReserved", overhead.kube_reserved), ("systemReserved", overhead.system_reserved),
                        ("evictionThreshold", overhead.eviction_threshold)):
            if rl.get(name) is not None:
                entry[key] = canonical(rl[name])
        entry["pod"] = _q(pod_requests.get(name))
        entry["daemonSets"] = _q(daemon_requests.get(name))
        entry["need"] = _q(total.get(name))
        entry["short"] = canonical(sub(total[name], alloc[name])) if name in alloc else _q(total.get(name))
        short.append(entry)
    return {"name": it.name, "short": short}


def _hardware_memory(world: Any, name: str) -> Quantity | None:
    """The type's memory as EC2 describes it (`MemoryInfo.SizeInMiB`), before the provider takes
    off the VM overhead (and Graviton's 64 MiB)."""
    info = (getattr(world, "instance_types", None) or {}).get(name)
    if info is None:
        return None
    return Quantity(Fraction(info.memory_size_in_mib * 1024 * 1024), BINARY_SI)


# -- offerings -----------------------------------------------------------------------------------
def offerings_verdict(checks: Sequence[TypeCheck], requirements: Requirements, node_class: Any, provider: Any,
                      index: TypeIndex) -> dict[str, Any]:
    """The zones and capacity types the pod could launch in (of the types that fit, else meet the
    requirements, else all: `of`), and the unavailable offerings grouped by zone and reasons."""
    basis, chosen = "fit", [c for c in checks if c.compatible and c.fits]
    if not chosen:
        basis, chosen = "requirements", [c for c in checks if c.compatible]
    if not chosen:
        basis, chosen = "nodePool", list(checks)
    zones: set[str] = set()
    capacity_types: set[str] = set()
    excluded_zones: set[str] = set()
    excluded_types: set[str] = set()
    groups: dict[tuple[str, tuple[str, ...]], dict[str, set[str]]] = {}
    question = index.question(requirements)
    kinds: dict[int, tuple[str, str]] = {}       # zone and capacity type of each kind of offering

    def kind(oid: int) -> tuple[str, str]:
        found = kinds.get(oid)
        if found is None:
            reqs = index.offering_requirements(oid)
            found = kinds[oid] = (reqs.get(L.LABEL_TOPOLOGY_ZONE).any(), reqs.get(L.CAPACITY_TYPE_LABEL_KEY).any())
        return found

    # Each kind of offering (requirements id) asked once: of the sets the chosen types have
    # (most have the same), those allowed and available give the zones and capacity types,
    # those not allowed what the requirements exclude; an unavailable allowed one, its reasons.
    available_sets: set[int] = set()
    every_sets: set[int] = set()
    for c in chosen:
        available, every = index.offering_set_ids(c.it)
        available_sets.add(available)
        every_sets.add(every)
    for oid in set().union(*map(index.oid_set, available_sets)):
        if question.offering_allowed(oid):
            zone, ct = kind(oid)
            zones.add(zone)
            capacity_types.add(ct)
    for oid in set().union(*map(index.oid_set, every_sets)):
        if not question.offering_allowed(oid):
            zone, ct = kind(oid)
            if not requirements.get(L.LABEL_TOPOLOGY_ZONE).has(zone):
                excluded_zones.add(zone)
            if not requirements.get(L.CAPACITY_TYPE_LABEL_KEY).has(ct):
                excluded_types.add(ct)
    for c in chosen:
        for o, oid in index.unavailable(c.it):
            if not question.offering_allowed(oid):
                continue
            zone, ct = kind(oid)
            reasons = tuple(offering_unavailable_reasons(c.it, o, node_class, provider))
            group = groups.setdefault((zone, reasons), {})
            group.setdefault(ct, set()).add(c.it.name)
    out: dict[str, Any] = {"of": basis, "instanceTypes": len(chosen), "zones": sorted(zones),
                           "capacityTypes": sorted(capacity_types)}
    if excluded_zones - zones:
        out["zonesExcluded"] = sorted(excluded_zones - zones)
    if excluded_types - capacity_types:
        out["capacityTypesExcluded"] = sorted(excluded_types - capacity_types)
    unavailable = []
    for (zone, reasons), by_type in sorted(groups.items()):
        names = sorted(set().union(*by_type.values()))
        unavailable.append({"zone": zone, "capacityTypes": sorted(by_type), "reasons": list(reasons),
                            "instanceTypes": len(names), "names": names[:MAX_NAMES]})
    if unavailable:
        out["unavailable"] = unavailable
    return out


def offering_unavailable_reasons(it: Any, offering: Any, node_class: Any, provider: Any) -> list[str]:
    """Why the provider made this offering unavailable, from the answers createOfferings combines."""
    world = provider.world
    zone, ct = offering.zone(), offering.capacity_type()
    reasons = []
    if zone not in (world.offerings.get(it.name) or ()):
        reasons.append(NOT_SOLD)
    info = next((z for z in (node_class.zone_info() if node_class is not None else ()) if z.zone == zone), None)
    if info is None:
        reasons.append(NO_SUBNET)
    if ct == L.CAPACITY_TYPE_RESERVED:
        reasons.extend(_reservation_reasons(offering, node_class, world))
    else:
        if provider.unavailable.is_unavailable(it.name, zone, ct):
            reasons.append(INSUFFICIENT_CAPACITY)
        price = (world.pricing.on_demand_price(it.name) if ct == L.CAPACITY_TYPE_ON_DEMAND
                 else world.pricing.spot_price(it.name, zone))
        if price is None:
            reasons.append(NO_PRICE)
    described = world.instance_types.get(it.name)
    if described is not None and node_class is not None and not is_compatible_with_node_class(described, node_class):
        reasons.append(INCOMPATIBLE_NODE_CLASS)
    return reasons or [UNKNOWN]


def _reservation_reasons(offering: Any, node_class: Any, world: Any) -> list[str]:
    """A reserved offering's own conditions: its free count (0, or not in the AWS data) and its state."""
    rid = offering.reservation_id()
    reasons = []
    if offering.reservation_capacity == 0:
        reasons.append(NO_FREE_RESERVED if rid in world.reservation_counts else UNCOUNTED_RESERVATION)
    reservation = next((r for r in (node_class.capacity_reservations() if node_class is not None else ())
                        if r.id == rid), None)
    if reservation is not None and reservation.state == CAPACITY_RESERVATION_STATE_EXPIRING:
        reasons.append(EXPIRING_RESERVATION)
    return reasons


# -- limits ----------------------------------------------------------------------------------------
def limits_verdict(limits: Mapping[str, Quantity] | None, remaining: resources.Nanos | None,
                   checks: Sequence[TypeCheck]) -> dict[str, Any] | None:
    """The NodePool's limits when they stop the pod (nodes exhausted, or types that would exceed
    them); `remaining`: the scheduler's integer view, printed in the limits' formats."""
    if not limits or remaining is None:
        return None
    exhausted = remaining.get(resources.NODE, 1) <= 0
    over = [c.it for c in checks if c.compatible and c.offering and c.fits and not c.within_limits]
    if not exhausted and not over:
        return None
    left = resources.from_nanos(remaining, limits)
    rows = []
    for name in sorted(limits):
        used = sub(limits[name], left[name]) if name in left else None
        rows.append({"resource": name, "limit": canonical(limits[name]), "used": _q(used),
                     "remaining": _q(left.get(name))})
    out: dict[str, Any] = {"exhausted": exhausted, "resources": rows}
    if over:
        out["exceeding"] = len(over)
        out["names"] = [it.name for it in over[:MAX_NAMES]]
        smallest = min(over, key=lambda it: (len(_over_limits(it, remaining)),
                                             sum(v for _, v in _over_limits(it, remaining)), it.name))
        out["smallest"] = {"name": smallest.name,
                           "over": [{"resource": name, "capacity": _q(smallest.capacity.get(name)),
                                     "remaining": _q(left.get(name))}
                                    for name, _ in _over_limits(smallest, remaining)]}
    return out


def _over_limits(it: Any, remaining: resources.Nanos) -> list[tuple[str, int]]:
    """The resources whose capacity exceeds what is left, by how much (billionths), by name."""
    capacity = resources.nanos_of(it.capacity)
    return [(name, capacity.get(name, 0) - v) for name, v in sorted(remaining.items())
            if capacity.get(name, 0) > v]
