"""The instance-type provider (`pkg/providers/instancetype/instancetype.go`): `List(nodeClass)`,
every type of the world resolved for an EC2NodeClass, with its offerings injected."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Protocol, Sequence

from kexplain.errors import InputError
from kexplain.karpenter.apis.ec2nodeclass import KubeletConfiguration
from kexplain.karpenter.aws.amifamily import get_ami_family
from kexplain.karpenter.aws.instancetype.compatibility import is_compatible_with_node_class
from kexplain.karpenter.aws.instancetype.offering import create_offerings
from kexplain.karpenter.aws.instancetype.types import NodeClassSettingError, Options, new_instance_type
from kexplain.karpenter.aws.unavailableofferings import UnavailableOfferings
from kexplain.karpenter.aws.world import World
from kexplain.karpenter.cloudprovider.types import InstanceType, Offerings
from kexplain.karpenter.errors import GoError

ERR_NO_INSTANCE_TYPES = "no instance types found"
ERR_NO_OFFERINGS = "no instance types offerings found"
ERR_NO_SUBNETS = "no subnets found"


class NodeClass(Protocol):
    """What the provider reads of an EC2NodeClass (Go's instancetype.NodeClass interface)."""

    name: str

    def ami_family(self) -> str: ...
    def block_device_mappings(self) -> Sequence[Any] | None: ...
    def capacity_reservations(self) -> Sequence[Any]: ...
    def instance_store_policy(self) -> str | None: ...
    def network_interfaces(self) -> Sequence[Any] | None: ...
    def kubelet_configuration(self) -> Any: ...
    def zone_info(self) -> Sequence["ZoneInfo"]: ...


@dataclass(frozen=True)
class ZoneInfo:
    """A zone the class has subnets in (Go's v1.ZoneInfo)."""

    zone: str
    zone_id: str
    subnet_ids: tuple[str, ...]


@dataclass(frozen=True)
class StaticNodeClass:
    """A NodeClass from values already known (a class kexplain makes up, e.g. to list a
    catalog region's types): every method of the NodeClass interface answers from a field."""

    name: str
    family: str = "AL2023"
    kubelet: KubeletConfiguration | None = None
    zones: tuple[ZoneInfo, ...] = ()
    block_devices: tuple[Any, ...] | None = None
    store_policy: str | None = None
    interfaces: tuple[Any, ...] | None = None
    reservations: tuple[Any, ...] = ()

    def ami_family(self) -> str:
        return self.family

    def block_device_mappings(self) -> Sequence[Any] | None:
        return self.block_devices

    def capacity_reservations(self) -> Sequence[Any]:
        return self.reservations

    def instance_store_policy(self) -> str | None:
        return self.store_policy

    def network_interfaces(self) -> Sequence[Any] | None:
        return self.interfaces

    def kubelet_configuration(self) -> Any:
        return self.kubelet

    def zone_info(self) -> Sequence[ZoneInfo]:
        return self.zones


def zone_info(subnets: Iterable[Any]) -> list[ZoneInfo]:
    """EC2NodeClass.ZoneInfo: the status subnets grouped by zone ID, in first-seen order."""
    groups: dict[str, list[Any]] = {}
    for s in subnets:
        groups.setdefault(_field(s, "zone_id", "zoneID") or "", []).append(s)
    return [ZoneInfo(zone=_field(g[0], "zone") or "", zone_id=zid, subnet_ids=tuple(_field(s, "id") or "" for s in g))
            for zid, g in groups.items()]


def _field(obj: Any, *names: str) -> Any:
    for name in names:
        value = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
        if value is not None:
            return value
    return None


class InstanceTypeProvider:
    """The provider over one world: its flags, the insufficient-capacity cache, ReservedCapacity."""

    def __init__(self, world: World, options: Options | None = None,
                 unavailable: UnavailableOfferings | None = None, reserved_capacity: bool = True) -> None:
        self.world = world
        self.options = options or Options()
        self.unavailable = unavailable or UnavailableOfferings()
        self.reserved_capacity = reserved_capacity
        self._names = sorted(world.instance_types)
        self._cache: dict[int, tuple[Any, list[InstanceType]]] = {}
        self._shared: dict[tuple, tuple[Any, bool, list[Any]]] = {}    # see `_resolve`

    def list(self, node_class: NodeClass) -> tuple[list[InstanceType], GoError | None]:
        """List: every type resolved for the class, by name; or Go's error (no types, offerings, subnets)."""
        if not self.world.instance_types:
            return [], GoError(ERR_NO_INSTANCE_TYPES)
        if not self.world.offerings:
            return [], GoError(ERR_NO_OFFERINGS)
        zones = list(node_class.zone_info() or ())
        if not zones:
            return [], GoError(ERR_NO_SUBNETS)
        cached = self._cache.get(id(node_class))
        if cached is None or cached[0] is not node_class:
            try:
                cached = (node_class, self._resolve(node_class, zones))
            except NodeClassSettingError as err:
                raise InputError(err.message, obj={"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass",
                                                   "metadata": {"name": node_class.name}}, field=err.field) from None
            self._cache[id(node_class)] = cached
        return list(cached[1]), None

    def get(self, node_class: NodeClass, name: str) -> tuple[InstanceType | None, GoError | None]:
        """Get: one type by name, or `instance type NAME not found in cache`."""
        types, err = self.list(node_class)
        if err is not None:
            return None, err
        found = next((it for it in types if it.name == name), None)
        if found is None:
            return None, GoError(f"instance type {name} not found in cache")
        return found, None

    def _resolve(self, node_class: NodeClass, zones: Sequence[ZoneInfo]) -> list[InstanceType]:
        family = get_ami_family(node_class.ami_family())
        kubelet = node_class.kubelet_configuration()
        reservations = list(node_class.capacity_reservations() or ())
        world, out = self.world, []
        for name in self._names:
            info = world.instance_types[name]
            mine = [r for r in reservations if _field(r, "instance_type") == name]
            # A type without reservations has the requirements and offerings of its zones and
            # family (and of whether the class can launch it) whatever the class: worked out for
            # the first class, shared by the others (read only, as Go's cached types are).
            key = (name, tuple(zones), family.windows_build) if not mine else None
            shared = self._shared.get(key) if key is not None else None
            it = new_instance_type(
                info, world.region, world.offerings.get(name, ()), zones, node_class.block_device_mappings(),
                node_class.instance_store_policy(), node_class.network_interfaces(), kubelet, family, mine,
                world.vpc_limits, world.bandwidth, self.options, shared[0] if shared is not None else None)
            compatible = is_compatible_with_node_class(info, node_class)
            if shared is not None and shared[1] == compatible:
                it.offerings = Offerings(shared[2])
            else:
                it.offerings = Offerings(create_offerings(it, zones, compatible, world.all_zones, world.pricing,
                                                          self.unavailable, reservations, self.reserved_capacity,
                                                          world.reservation_counts))
                if key is not None:
                    self._shared[key] = (it.requirements, compatible, it.offerings)
            out.append(it)
        return out
