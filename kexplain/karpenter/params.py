"""Karpenter's and its AWS provider's settings for one pass: `--karpenter-config FILE`."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from kexplain.errors import InputError, Source
from kexplain.load.manifests import read_settings_document
from kexplain.features.featuregate import FeatureGateError, parse_flag

PREFERENCE_POLICIES = ("Respect", "Ignore")          # options.PreferencePolicy
MIN_VALUES_POLICIES = ("Strict", "BestEffort")       # options.MinValuesPolicy
CAPACITY_TYPES = ("on-demand", "spot", "reserved")
KEYS = ("featureGates", "preferencePolicy", "minValuesPolicy", "cpuRequests", "vmMemoryOverheadPercent",
        "reservedENIs", "instanceTypes", "zones", "unavailableOfferings")
_GATES = {"NodeRepair": "node_repair", "ReservedCapacity": "reserved_capacity",
          "SpotToSpotConsolidation": "spot_to_spot_consolidation", "NodeOverlay": "node_overlay",
          "StaticCapacity": "static_capacity"}


@dataclass(frozen=True)
class FeatureGates:
    """options.FeatureGates (DefaultFeatureGates; a gate the string does not name keeps its default)."""

    node_repair: bool = False
    reserved_capacity: bool = True
    spot_to_spot_consolidation: bool = False
    node_overlay: bool = False
    static_capacity: bool = False


@dataclass(frozen=True)
class Offering:
    """One entry of the insufficient-capacity cache."""

    instance_type: str
    zone: str
    capacity_type: str

    def __str__(self) -> str:
        return f"{self.instance_type}:{self.zone}:{self.capacity_type}"


@dataclass(frozen=True)
class Settings:
    """The pass's settings, defaults where params.yaml is silent. `instance_types` and `zones`
    are None when not given (all of the world's types; the provider's default zones)."""

    feature_gates: FeatureGates = field(default_factory=FeatureGates)
    preference_policy: str = "Respect"
    min_values_policy: str = "Strict"
    cpu_requests: int = 1000
    vm_memory_overhead_percent: float = 0.075
    reserved_enis: int = 0
    instance_types: tuple[str, ...] | None = None
    zones: tuple[str, ...] | None = None
    unavailable_offerings: tuple[Offering, ...] = ()
    unknown_gates: tuple[str, ...] = ()      # gate names Karpenter ignores (said as a warning)
    release: str = "v1.13.0"                 # --karpenter-version: its CRDs admit the NodePools

    def check_world(self, type_names: Iterable[str], zone_names: Iterable[str], src: Source | None = None) -> None:
        """An instance type, zone or offering that the AWS data lacks is an input error."""
        types, zones = set(type_names), set(zone_names)
        for name in self.instance_types or ():
            if name not in types:
                raise InputError(f"instanceTypes: {name!r} is not an instance type of the AWS data "
                                 f"({len(types)} types)", source=src)
        for name in self.zones or ():
            if name not in zones:
                raise InputError(f"zones: {name!r} is not a zone of the AWS data (zones: "
                                 f"{', '.join(sorted(zones))})", source=src)
        for off in self.unavailable_offerings:
            if off.instance_type not in types:
                raise InputError(f"unavailableOfferings: {str(off)!r}: {off.instance_type!r} is not an instance "
                                 "type of the AWS data", source=src)
            if off.zone not in zones:
                raise InputError(f"unavailableOfferings: {str(off)!r}: {off.zone!r} is not a zone of the AWS data",
                                 source=src)


def read_settings(path: str | None, max_bytes: int | None = None) -> Settings:
    """The settings of `path` (None: the defaults)."""
    if path is None:
        return Settings()
    return parse_settings(*read_settings_document(path, "Karpenter settings", max_bytes))


def parse_settings(doc: Any, src: Source) -> Settings:
    """The settings of one params.yaml document."""
    if not isinstance(doc, dict):
        raise InputError(f"expected a mapping of Karpenter settings ({', '.join(KEYS)})", source=src)
    for key in doc:
        if key not in KEYS:
            raise InputError(f"unknown key {str(key)!r} (accepted: {', '.join(KEYS)})", source=src)
    values: dict[str, Any] = {}
    if doc.get("featureGates") is not None:
        values["feature_gates"], values["unknown_gates"] = parse_feature_gates(doc["featureGates"], src)
    for key, attr, accepted in (("preferencePolicy", "preference_policy", PREFERENCE_POLICIES),
                                ("minValuesPolicy", "min_values_policy", MIN_VALUES_POLICIES)):
        if doc.get(key) is not None:
            if doc[key] not in accepted:
                raise InputError(f"{key}: expected {' or '.join(accepted)}, found {_show(doc[key])}", source=src)
            values[attr] = doc[key]
    if doc.get("cpuRequests") is not None:
        cpu = _int(doc["cpuRequests"], "cpuRequests", src)
        values["cpu_requests"] = cpu if cpu > 0 else 1000       # Options.Parse: <= 0 means the default
    if doc.get("vmMemoryOverheadPercent") is not None:
        value = doc["vmMemoryOverheadPercent"]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InputError(f"vmMemoryOverheadPercent: expected a number such as 0.075, found {_show(value)}",
                             source=src)
        if not 0 <= value < 1:
            raise InputError(f"vmMemoryOverheadPercent: expected a fraction in [0, 1) (0.075 is 7.5%), "
                             f"found {_show(value)}", source=src)
        values["vm_memory_overhead_percent"] = float(value)
    if doc.get("reservedENIs") is not None:
        enis = _int(doc["reservedENIs"], "reservedENIs", src)
        if enis < 0:
            raise InputError(f"reservedENIs: expected a count of 0 or more, found {enis}", source=src)
        values["reserved_enis"] = enis
    for key, attr in (("instanceTypes", "instance_types"), ("zones", "zones")):
        if doc.get(key) is not None:
            values[attr] = _names(doc[key], key, src)
    if doc.get("unavailableOfferings") is not None:
        values["unavailable_offerings"] = tuple(_offering(entry, src)
                                                for entry in _list(doc["unavailableOfferings"], "unavailableOfferings",
                                                                   src))
    return Settings(**values)


def parse_feature_gates(raw: Any, src: Source) -> tuple[FeatureGates, tuple[str, ...]]:
    """ParseFeatureGates: `Name=bool,...` over the defaults; unknown names are ignored and returned to
    be said."""
    if not isinstance(raw, str):
        raise InputError(f"featureGates: expected a string such as \"ReservedCapacity=true\", found {_show(raw)}",
                         source=src)
    try:
        given = parse_flag(raw)
    except FeatureGateError as err:
        raise InputError(f"featureGates: {err}", source=src) from None
    values = {attr: getattr(FeatureGates(), attr) for attr in _GATES.values()}
    unknown: list[str] = []
    for name, value in given.items():
        if name in _GATES:
            values[_GATES[name]] = value
        else:
            unknown.append(name)
    return FeatureGates(**values), tuple(unknown)


def _show(value: Any) -> str:
    return repr(value) if isinstance(value, str) else str(value)


def _int(value: Any, key: str, src: Source) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{key}: expected an integer, found {_show(value)}", source=src)
    return value


def _list(value: Any, key: str, src: Source) -> list[Any]:
    if not isinstance(value, list):
        raise InputError(f"{key}: expected a list, found {_show(value)}", source=src)
    return value


def _names(value: Any, key: str, src: Source) -> tuple[str, ...]:
    names = _list(value, key, src)
    for name in names:
        if not isinstance(name, str) or not name:
            raise InputError(f"{key}: expected names, found {_show(name)}", source=src)
    return tuple(names)


def _offering(entry: Any, src: Source) -> Offering:
    parts = entry.split(":") if isinstance(entry, str) else []
    if len(parts) != 3 or not all(parts):
        raise InputError(f"unavailableOfferings: expected instanceType:zone:capacityType, found {_show(entry)}",
                         source=src)
    if parts[2] not in CAPACITY_TYPES:
        raise InputError(f"unavailableOfferings: {entry!r}: capacity type {parts[2]!r} is not one of "
                         f"{', '.join(CAPACITY_TYPES)}", source=src)
    return Offering(*parts)
