"""The EC2 facts the AWS provider reads, in the shapes the AWS CLI prints them
(`aws ec2 describe-instance-types`, `describe-instance-type-offerings`, `describe-subnets`,
`describe-capacity-reservations`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator


class AWSDataError(ValueError):
    """A member of an AWS data file is missing or of the wrong type: `field` is its JSON path."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value[:60]!r}"
    return "a list" if isinstance(value, list) else "an object"


@dataclass(frozen=True)
class Node:
    """A JSON value and its path, for reading members with errors that name them."""

    value: Any
    path: str

    def member(self, name: str) -> "Node":
        return Node(self.value.get(name) if isinstance(self.value, dict) else None, f"{self.path}.{name}".lstrip("."))

    def present(self) -> bool:
        return self.value is not None

    def obj(self, required: bool = False) -> "Node | None":
        if self.value is None and not required:
            return None
        if not isinstance(self.value, dict):
            raise AWSDataError(self.path, f"expected an object, got {_kind(self.value)}")
        return self

    def items(self, required: bool = False) -> Iterator["Node"]:
        if self.value is None and not required:
            return iter(())
        if not isinstance(self.value, list):
            raise AWSDataError(self.path, f"expected a list, got {_kind(self.value)}")
        return (Node(v, f"{self.path}[{i}]") for i, v in enumerate(self.value))

    def _typed(self, check: Callable[[Any], bool], what: str, required: bool) -> Any:
        if self.value is None:
            if required:
                raise AWSDataError(self.path, f"missing (expected {what})")
            return None
        if not check(self.value):
            raise AWSDataError(self.path, f"expected {what}, got {_kind(self.value)}")
        return self.value

    def integer(self, required: bool = False) -> int | None:
        return self._typed(lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer", required)

    def number(self, required: bool = False) -> float | None:
        v = self._typed(lambda v: isinstance(v, (int, float)) and not isinstance(v, bool), "a number", required)
        return None if v is None else float(v)

    def string(self, required: bool = False) -> str | None:
        return self._typed(lambda v: isinstance(v, str), "a string", required)

    def boolean(self, required: bool = False) -> bool | None:
        return self._typed(lambda v: isinstance(v, bool), "true or false", required)

    def strs(self) -> tuple[str, ...]:
        return tuple(n.string(required=True) for n in self.items())


@dataclass(frozen=True)
class Gpu:
    name: str | None
    manufacturer: str
    count: int
    memory_size_in_mib: int | None


@dataclass(frozen=True)
class Accelerator:
    name: str | None
    manufacturer: str | None
    count: int | None


@dataclass(frozen=True)
class NeuronDevice:
    name: str | None
    count: int
    core_count: int | None


@dataclass(frozen=True)
class NetworkCard:
    network_card_index: int | None
    maximum_network_interfaces: int | None


@dataclass(frozen=True)
class InstanceTypeInfo:
    """What the provider reads of one `describe-instance-types` entry."""

    instance_type: str
    default_vcpus: int
    memory_size_in_mib: int
    supported_architectures: tuple[str, ...]
    processor_manufacturer: str | None
    sustained_clock_speed_in_ghz: float | None
    supported_features: tuple[str, ...]
    default_network_card_index: int
    network_cards: tuple[NetworkCard, ...]
    ipv4_addresses_per_interface: int
    maximum_efa_interfaces: int | None
    ena_support: str | None
    encryption_in_transit_supported: bool | None
    gpus: tuple[Gpu, ...] | None                 # None: no GpuInfo
    inference_accelerators: tuple[Accelerator, ...] | None
    neuron_devices: tuple[NeuronDevice, ...] | None   # None: no NeuronInfo
    instance_storage_total_size_in_gb: int | None
    instance_storage_nvme_support: str | None
    has_instance_storage_info: bool
    ebs_optimized_support: str | None
    ebs_maximum_bandwidth_in_mbps: int | None
    has_ebs_optimized_info: bool
    hypervisor: str
    bare_metal: bool | None
    supported_usage_classes: tuple[str, ...]
    supported_virtualization_types: tuple[str, ...] | None
    placement_group_strategies: tuple[str, ...]

    def default_card_max_interfaces(self) -> int:
        """NetworkCards[DefaultNetworkCardIndex].MaximumNetworkInterfaces (ENILimitedPods)."""
        return self.network_cards[self.default_network_card_index].maximum_network_interfaces or 0


# UpdateInstanceTypes asks EC2 only for these (its DescribeInstanceTypes filters).
SUPPORTED_VIRTUALIZATION_TYPE = "hvm"
SUPPORTED_ARCHITECTURES = ("x86_64", "arm64")


def is_discovered(info: InstanceTypeInfo) -> bool:
    """Whether the provider's DescribeInstanceTypes filters (hvm; x86_64 or arm64) let the type
    through; a file without SupportedVirtualizationTypes is taken as hvm."""
    if info.supported_virtualization_types is not None \
            and SUPPORTED_VIRTUALIZATION_TYPE not in info.supported_virtualization_types:
        return False
    return any(a in SUPPORTED_ARCHITECTURES for a in info.supported_architectures)


def read_instance_type_info(n: Node) -> InstanceTypeInfo:
    """One entry of `InstanceTypes`; the members Go dereferences without a check are required."""
    n.obj(required=True)
    processor = n.member("ProcessorInfo").obj(required=True)
    network = n.member("NetworkInfo").obj(required=True)
    cards = tuple(NetworkCard(c.member("NetworkCardIndex").integer(), c.member("MaximumNetworkInterfaces").integer())
                  for c in network.member("NetworkCards").items(required=True))
    default_card = network.member("DefaultNetworkCardIndex").integer(required=True)
    if not 0 <= default_card < len(cards):
        raise AWSDataError(f"{network.path}.DefaultNetworkCardIndex",
                           f"{default_card} does not index NetworkCards ({len(cards)} given)")
    card_path = f"{network.path}.NetworkCards[{default_card}].MaximumNetworkInterfaces"
    if cards[default_card].maximum_network_interfaces is None:
        raise AWSDataError(card_path, "missing (expected an integer)")
    gpu_info = n.member("GpuInfo").obj()
    gpus = None if gpu_info is None else tuple(
        Gpu(g.member("Name").string(), g.member("Manufacturer").string(required=True), g.member("Count").integer(required=True),
            g.member("MemoryInfo").member("SizeInMiB").integer())
        for g in gpu_info.member("Gpus").items())
    accel_info = n.member("InferenceAcceleratorInfo").obj()
    accelerators = None if accel_info is None else tuple(
        Accelerator(a.member("Name").string(), a.member("Manufacturer").string(), a.member("Count").integer())
        for a in accel_info.member("Accelerators").items())
    neuron_info = n.member("NeuronInfo").obj()
    neurons = None if neuron_info is None else tuple(
        NeuronDevice(d.member("Name").string(), d.member("Count").integer(required=True),
                     d.member("CoreInfo").member("Count").integer())
        for d in neuron_info.member("NeuronDevices").items(required=True))
    if neurons is not None:
        if not neurons:
            raise AWSDataError(f"{neuron_info.path}.NeuronDevices", "empty (the provider reads the first device)")
        if neurons[0].core_count is None:
            raise AWSDataError(f"{neuron_info.path}.NeuronDevices[0].CoreInfo.Count", "missing (expected an integer)")
    storage = n.member("InstanceStorageInfo").obj()
    ebs = n.member("EbsInfo").obj()
    ebs_optimized = ebs.member("EbsOptimizedInfo").obj() if ebs is not None else None
    efa = network.member("EfaInfo").obj()
    virtualization = n.member("SupportedVirtualizationTypes")
    placement = n.member("PlacementGroupInfo").obj()
    return InstanceTypeInfo(
        instance_type=n.member("InstanceType").string(required=True),
        default_vcpus=n.member("VCpuInfo").member("DefaultVCpus").integer(required=True),
        memory_size_in_mib=n.member("MemoryInfo").member("SizeInMiB").integer(required=True),
        supported_architectures=processor.member("SupportedArchitectures").strs(),
        processor_manufacturer=processor.member("Manufacturer").string(),
        sustained_clock_speed_in_ghz=processor.member("SustainedClockSpeedInGhz").number(),
        supported_features=processor.member("SupportedFeatures").strs(),
        default_network_card_index=default_card,
        network_cards=cards,
        ipv4_addresses_per_interface=network.member("Ipv4AddressesPerInterface").integer(required=True),
        maximum_efa_interfaces=efa.member("MaximumEfaInterfaces").integer() if efa is not None else None,
        ena_support=network.member("EnaSupport").string(),
        encryption_in_transit_supported=network.member("EncryptionInTransitSupported").boolean(),
        gpus=gpus,
        inference_accelerators=accelerators,
        neuron_devices=neurons,
        instance_storage_total_size_in_gb=storage.member("TotalSizeInGB").integer() if storage is not None else None,
        instance_storage_nvme_support=storage.member("NvmeSupport").string() if storage is not None else None,
        has_instance_storage_info=storage is not None,
        ebs_optimized_support=ebs.member("EbsOptimizedSupport").string() if ebs is not None else None,
        ebs_maximum_bandwidth_in_mbps=(ebs_optimized.member("MaximumBandwidthInMbps").integer()
                                       if ebs_optimized is not None else None),
        has_ebs_optimized_info=ebs_optimized is not None,
        hypervisor=n.member("Hypervisor").string() or "",
        bare_metal=n.member("BareMetal").boolean(),
        supported_usage_classes=n.member("SupportedUsageClasses").strs(),
        supported_virtualization_types=virtualization.strs() if virtualization.present() else None,
        placement_group_strategies=(placement.member("SupportedStrategies").strs() if placement is not None else ()),
    )


def read_instance_types(doc: Any) -> list[InstanceTypeInfo]:
    """`describe-instance-types` output: `{"InstanceTypes": [...]}`, in file order; a type listed
    twice is an error (EC2 lists each once)."""
    root = Node(doc, "").obj(required=True)
    out: list[InstanceTypeInfo] = []
    seen: set[str] = set()
    for item in root.member("InstanceTypes").items(required=True):
        info = read_instance_type_info(item)
        if info.instance_type in seen:
            raise AWSDataError(f"{item.path}.InstanceType", f"{info.instance_type!r} is listed twice")
        seen.add(info.instance_type)
        out.append(info)
    return out


def read_instance_type_offerings(doc: Any) -> dict[str, list[str]]:
    """`describe-instance-type-offerings` output: the zones each type is sold in, in file order."""
    root = Node(doc, "").obj(required=True)
    out: dict[str, list[str]] = {}
    for item in root.member("InstanceTypeOfferings").items(required=True):
        item.obj(required=True)
        location_type = item.member("LocationType").string()
        if location_type not in (None, "availability-zone"):
            raise AWSDataError(f"{item.path}.LocationType",
                               f"{location_type!r}: the provider lists offerings by availability-zone")
        zones = out.setdefault(item.member("InstanceType").string(required=True), [])
        zone = item.member("Location").string(required=True)
        if zone not in zones:
            zones.append(zone)
    return out


@dataclass(frozen=True)
class Subnet:
    """A subnet as an EC2NodeClass's status records it: id, zone, zone ID."""

    id: str
    zone: str
    zone_id: str


def read_subnets(doc: Any) -> list[Subnet]:
    """`describe-subnets` output, in file order."""
    root = Node(doc, "").obj(required=True)
    return [Subnet(item.obj(required=True).member("SubnetId").string(required=True),
                   item.member("AvailabilityZone").string(required=True),
                   item.member("AvailabilityZoneId").string() or "")
            for item in root.member("Subnets").items(required=True)]


# DescribeCapacityReservations' state filter: the provider asks EC2 for the active ones only.
CAPACITY_RESERVATION_STATE_ACTIVE = "active"


def read_capacity_reservations(doc: Any) -> dict[str, int]:
    """`describe-capacity-reservations` output: each reservation's AvailableInstanceCount by
    CapacityReservationId, what the capacity-reservation provider's availability cache holds after
    its DescribeCapacityReservations (which filters on `state=active`: a reservation in any other
    State is not listed, so it is left out here too; an id listed twice keeps its last count)."""
    root = Node(doc, "").obj(required=True)
    out: dict[str, int] = {}
    for item in root.member("CapacityReservations").items(required=True):
        item.obj(required=True)
        rid = item.member("CapacityReservationId").string(required=True)
        count_node = item.member("AvailableInstanceCount")
        count = count_node.integer(required=True)
        if count < 0:
            raise AWSDataError(count_node.path, f"a count cannot be negative ({count})")
        state = item.member("State").string()
        if state in (None, CAPACITY_RESERVATION_STATE_ACTIVE):
            out[rid] = count
    return out
