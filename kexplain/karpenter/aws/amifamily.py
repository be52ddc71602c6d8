"""The AMI family facts that shape an instance type (`pkg/providers/amifamily`): ENI-limited pods,
podsPerCore, the ephemeral-storage block device, Windows' OS and build."""
from __future__ import annotations

from dataclasses import dataclass

from kexplain.apimachinery.quantity import Quantity, must_parse

AL2 = "AL2"
AL2023 = "AL2023"
BOTTLEROCKET = "Bottlerocket"
WINDOWS2019 = "Windows2019"
WINDOWS2022 = "Windows2022"
WINDOWS2025 = "Windows2025"
CUSTOM = "Custom"

# The Windows builds (pkg/apis/v1/ec2nodeclass.go): the node.kubernetes.io/windows-build label.
WINDOWS_BUILDS = {WINDOWS2019: "10.0.17763", WINDOWS2022: "10.0.20348", WINDOWS2025: "10.0.26100"}

# DefaultEBS: 20Gi gp3, encrypted.
DEFAULT_EBS_VOLUME_SIZE = "20Gi"


@dataclass(frozen=True)
class FeatureFlags:
    """FeatureFlags: what the family's bootstrap supports."""

    uses_eni_limited_memory_overhead: bool = True
    pods_per_core_enabled: bool = True
    supports_eni_limited_pod_density: bool = True


@dataclass(frozen=True)
class BlockDevice:
    """A default block device mapping: device name and volume size (a quantity text)."""

    device_name: str
    volume_size: str


@dataclass(frozen=True)
class AMIFamily:
    """One family's facts: `ephemeral_block_device` (None for Custom: unknown),
    `default_block_device_mappings`, feature flags, Windows build ("" otherwise)."""

    name: str
    feature_flags: FeatureFlags
    ephemeral_block_device: str | None
    default_block_device_mappings: tuple[BlockDevice, ...]
    windows_build: str = ""

    @property
    def is_windows(self) -> bool:
        return bool(self.windows_build)

    @property
    def is_custom(self) -> bool:
        return self.name == CUSTOM

    def default_volume_size(self) -> Quantity:
        """The size of the default mapping on the ephemeral block device, else DefaultEBS's."""
        for bdm in self.default_block_device_mappings:
            if bdm.device_name == self.ephemeral_block_device:
                return must_parse(bdm.volume_size)
        return must_parse(DEFAULT_EBS_VOLUME_SIZE)


_DEFAULT = FeatureFlags()
_FAMILIES = {
    AL2: AMIFamily(AL2, _DEFAULT, "/dev/xvda", (BlockDevice("/dev/xvda", DEFAULT_EBS_VOLUME_SIZE),)),
    AL2023: AMIFamily(AL2023, _DEFAULT, "/dev/xvda", (BlockDevice("/dev/xvda", DEFAULT_EBS_VOLUME_SIZE),)),
    BOTTLEROCKET: AMIFamily(BOTTLEROCKET, FeatureFlags(uses_eni_limited_memory_overhead=False, pods_per_core_enabled=False),
                            "/dev/xvdb", (BlockDevice("/dev/xvda", "4Gi"), BlockDevice("/dev/xvdb", DEFAULT_EBS_VOLUME_SIZE))),
    CUSTOM: AMIFamily(CUSTOM, _DEFAULT, None, ()),
    **{name: AMIFamily(name, FeatureFlags(uses_eni_limited_memory_overhead=False, supports_eni_limited_pod_density=False),
                       "/dev/sda1", (BlockDevice("/dev/sda1", "50Gi"),), build)
       for name, build in WINDOWS_BUILDS.items()},
}


def get_ami_family(name: str | None) -> AMIFamily:
    """GetAMIFamily: the family by name; anything else (AL2 included) is AL2."""
    return _FAMILIES.get(name or "", _FAMILIES[AL2])
