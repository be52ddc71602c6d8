"""The EC2 world the AWS provider sees: instance types, the zones each is sold in, subnets,
prices, capacity reservations' free counts, and the provider's generated VPC-limits and
bandwidth tables."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Mapping

from kexplain.errors import InputError, Source
from kexplain.karpenter.aws.ec2 import (AWSDataError, InstanceTypeInfo, Node, Subnet, is_discovered,
                                        read_capacity_reservations, read_instance_type_offerings,
                                        read_instance_types, read_subnets)
from kexplain.karpenter.aws import catalog
from kexplain.karpenter.aws.pricing import Pricing
from kexplain.karpenter.aws.tables import VPCLimits, read_bandwidth, read_vpc_limits
from kexplain.load import json_parse

DESCRIBE_INSTANCE_TYPES = "describe-instance-types.json"
DESCRIBE_INSTANCE_TYPE_OFFERINGS = "describe-instance-type-offerings.json"
DESCRIBE_SUBNETS = "describe-subnets.json"
DESCRIBE_CAPACITY_RESERVATIONS = "describe-capacity-reservations.json"
WORLD = "world.json"
PRICING = "pricing.json"
VPC_LIMITS = "vpc-limits.json"
NETWORK_BANDWIDTH = "network-bandwidth.json"
MAX_FILE_BYTES = 512 * 1024 * 1024   # far beyond any real region's data; a bigger file is refused, not read


@dataclass(frozen=True)
class World:
    """Everything the instance-type provider computes from; `instance_types` in the data's order."""

    region: str
    instance_types: Mapping[str, InstanceTypeInfo]
    offerings: Mapping[str, frozenset[str]]
    subnets: tuple[Subnet, ...]
    pricing: Pricing
    vpc_limits: Mapping[str, VPCLimits]
    bandwidth: Mapping[str, int]
    source: str = ""
    taken: str = ""          # the date the data was taken (the shipped catalog's), "" for user data
    all_zones: frozenset[str] = field(default=frozenset())
    # The capacity-reservation provider's availability cache (GetAvailableInstanceCount): free
    # instances by reservation id; a reservation not in it has none (Go's cache miss: 0).
    reservation_counts: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.all_zones:
            object.__setattr__(self, "all_zones", frozenset(z for zones in self.offerings.values() for z in zones))

    def keep_instance_types(self, names: Iterable[str]) -> "World":
        """The world with only these types (params.instanceTypes): their facts and offerings."""
        keep = set(names)
        return replace(self, instance_types={n: i for n, i in self.instance_types.items() if n in keep},
                       offerings={n: z for n, z in self.offerings.items() if n in keep}, all_zones=frozenset())

    def zones(self) -> list[str]:
        """Every zone with a subnet, in subnet order (each once)."""
        return list(dict.fromkeys(s.zone for s in self.subnets))


def _read_json(path: Path) -> Any:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise InputError(f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB", Source(str(path)))
        text = path.read_bytes()
    except OSError as err:
        raise InputError(f"cannot read the AWS data file: {err.strerror or err}", Source(str(path))) from None
    try:
        return json_parse.loads(text)
    except ValueError as err:
        raise InputError(f"not valid JSON: {err}", Source(str(path))) from None


def _read(path: Path, reader: Any) -> Any:
    doc = _read_json(path)
    try:
        return reader(doc)
    except AWSDataError as err:
        raise InputError(err.message, Source(str(path)), field=err.field or "(the document)") from None


def read_region(doc: Any) -> str:
    region = Node(doc, "").obj(required=True).member("region").string(required=True)
    if not region:
        raise AWSDataError("region", "empty")
    return region


def _price_map(n: Node) -> dict[str, float]:
    out = {}
    for key, value in (n.obj(required=True).value or {}).items():
        price = Node(value, f"{n.path}.{key}").number(required=True)
        if price < 0:
            raise AWSDataError(f"{n.path}.{key}", f"a price cannot be negative ({value!r})")
        out[key] = price
    return out


def read_pricing(doc: Any) -> Pricing:
    """`pricing.json`: `{"currency", "onDemand": {TYPE: price}, "spot": {TYPE: {ZONE: price}}, "source"}`."""
    root = Node(doc, "").obj(required=True)
    currency = root.member("currency").string() or "USD"
    on_demand = _price_map(root.member("onDemand"))
    spot_node = root.member("spot").obj(required=True)
    spot = {key: _price_map(spot_node.member(key)) for key in spot_node.value}
    return Pricing(on_demand=on_demand, spot=spot, currency=currency, source=root.member("source").string() or "")


def region_from_zones(subnets: Iterable[Subnet]) -> str | None:
    """The region the subnets' zones are in (`us-west-2a` -> `us-west-2`), when they agree."""
    regions = {s.zone.rstrip("abcdefghijklmnopqrstuvwxyz") for s in subnets
               if s.zone[-1:].isalpha() and s.zone[-2:-1].isdigit()}
    return regions.pop() if len(regions) == 1 else None


def load_world(directory: str | Path) -> World:
    """Read `--aws-data DIR` into a World; one InputError naming the file and member otherwise."""
    root = Path(directory)
    if not root.is_dir():
        raise InputError("--aws-data must name a directory holding the AWS data files", Source(str(root)))
    infos = _read(root / DESCRIBE_INSTANCE_TYPES, read_instance_types)
    offerings = _read(root / DESCRIBE_INSTANCE_TYPE_OFFERINGS, read_instance_type_offerings)
    subnets = _read(root / DESCRIBE_SUBNETS, read_subnets)
    counts = (_read(root / DESCRIBE_CAPACITY_RESERVATIONS, read_capacity_reservations)
              if (root / DESCRIBE_CAPACITY_RESERVATIONS).exists() else {})
    if (root / WORLD).exists():
        region = _read(root / WORLD, read_region)
    else:
        region = region_from_zones(subnets)
        if region is None:
            raise InputError(f"missing: {WORLD} ({{\"region\": \"us-west-2\"}}) is needed when the subnets' zones "
                             "do not name one region", Source(str(root / WORLD)))
    shipped = None
    if (root / PRICING).exists():
        pricing = _read(root / PRICING, read_pricing)
    else:
        shipped = catalog.load_catalog()
        pricing = shipped.pricing(region)
    if (root / VPC_LIMITS).exists():
        vpc_limits = _read(root / VPC_LIMITS, read_vpc_limits)
    else:
        shipped = shipped or catalog.load_catalog()
        vpc_limits = shipped.vpc_limits
    if (root / NETWORK_BANDWIDTH).exists():
        bandwidth = _read(root / NETWORK_BANDWIDTH, read_bandwidth)
    else:
        shipped = shipped or catalog.load_catalog()
        bandwidth = shipped.bandwidth
    return World(
        region=region,
        instance_types={i.instance_type: i for i in infos if is_discovered(i)},
        offerings={name: frozenset(zones) for name, zones in offerings.items()},
        subnets=tuple(subnets),
        pricing=pricing,
        vpc_limits=vpc_limits,
        bandwidth=bandwidth,
        source=f"AWS data {root}",
        reservation_counts=counts,
    )


def catalog_world(region: str = "us-east-1", subnets: Iterable[Subnet] | None = None) -> World:
    """A world from the shipped catalog for a region: every type sold in every zone of `subnets`
    (default: zones a, b, c, each zone's ID its name), spot priced as on-demand."""
    shipped = catalog.load_catalog()
    subnets = tuple(subnets) if subnets is not None else tuple(
        Subnet(id=f"subnet-{region}{letter}", zone=f"{region}{letter}", zone_id=f"{region}{letter}") for letter in "abc")
    zones = frozenset(s.zone for s in subnets)
    return World(
        region=region,
        instance_types={i.instance_type: i for i in shipped.instance_types},
        offerings={i.instance_type: zones for i in shipped.instance_types},
        subnets=subnets,
        pricing=shipped.pricing(region),
        vpc_limits=shipped.vpc_limits,
        bandwidth=shipped.bandwidth,
        source=shipped.description(),
        taken=shipped.taken,
    )
