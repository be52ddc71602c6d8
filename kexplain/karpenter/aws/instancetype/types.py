"""One EC2 instance type as the AWS provider resolves it for an EC2NodeClass
(`pkg/providers/instancetype/types.go`: NewInstanceType, computeRequirements, computeCapacity,
the kube-reserved, system-reserved and eviction-threshold overhead, ENI-limited pods)."""
from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable, Mapping, Sequence

from kexplain.apimachinery.labels import (LABEL_ARCH, LABEL_INSTANCE_TYPE, LABEL_OS, LABEL_TOPOLOGY_REGION,
                                          LABEL_TOPOLOGY_ZONE)
from kexplain.apimachinery.quantity import (DECIMAL_SI, Quantity, QuantityError, must_parse,
                                            new_quantity, sub)
from kexplain.apimachinery.selectors import DOES_NOT_EXIST, IN
from kexplain.apimachinery.strconv import format_float
from kexplain.karpenter.apis import labels as L
from kexplain.karpenter.aws.amifamily import AMIFamily
from kexplain.karpenter.aws.ec2 import InstanceTypeInfo
from kexplain.karpenter.aws.tables import VPCLimits
from kexplain.karpenter.cloudprovider.types import RESERVATION_ID_LABEL, InstanceType, InstanceTypeOverhead, Offerings
from kexplain.karpenter.scheduling.requirement import new_requirement
from kexplain.karpenter.scheduling.requirements import Requirements, new_requirements
from kexplain.karpenter.utils.objects import field_of
from kexplain.karpenter.utils.resources import ResourceList

MEMORY_AVAILABLE = "memory.available"
NODE_FS_AVAILABLE = "nodefs.available"
INSTANCE_STORE_POLICY_RAID0 = "RAID0"
INTERFACE_TYPE_EFA_ONLY = "efa-only"
USAGE_CLASS_ON_DEMAND = "on-demand"
USAGE_CLASS_SPOT = "spot"
TENANCY_DEFAULT, TENANCY_DEDICATED = "default", "dedicated"
LABEL_WINDOWS_BUILD = "node.kubernetes.io/windows-build"

CPU, MEMORY, EPHEMERAL_STORAGE, PODS = "cpu", "memory", "ephemeral-storage", "pods"

# instanceTypeScheme: category, an optional `-Ntb` (high-memory types), generation.
_INSTANCE_TYPE_SCHEME = re.compile(r"(^[a-z]+)(\-[0-9]+tb)?([0-9]+).*\.")

# kube-reserved cpu: a share of each range of millicores (bottlerocket's formula).
_CPU_RANGES = ((0, 1000, 0.06), (1000, 2000, 0.01), (2000, 4000, 0.005), (4000, 1 << 31, 0.0025))


@dataclass(frozen=True)
class Options:
    """The provider flags that change instance types: --vm-memory-overhead-percent, --reserved-enis."""

    vm_memory_overhead_percent: float = 0.075
    reserved_enis: int = 0


def go_sprint(value: int | float) -> str:
    """fmt.Sprint of an int or a float64."""
    return format_float(value, "g") if isinstance(value, float) else str(value)


def lower_kabob_case(s: str) -> str:
    return s.replace(" ", "-").lower()


@functools.lru_cache(maxsize=4096)
def _quantity(text: str) -> Quantity:
    """resources.Quantity(text): MustParse, keeping the text where Go does (remembered: a catalog's
    thousands of types repeat a few hundred texts, and a Quantity is never changed)."""
    return must_parse(text)


class NodeClassSettingError(ValueError):
    """A kubelet setting Go's MustParse would panic on (the CRD's validation refuses it first):
    `field` names it under spec.kubelet."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def _parse_setting(value: Any, where: str) -> Quantity:
    """resource.MustParse of a kubelet setting."""
    try:
        return must_parse(str(value))
    except QuantityError as err:
        raise NodeClassSettingError(where, f"{str(value)[:80]!r}: {err}") from None


# -- requirements ----------------------------------------------------------------------------------
def get_architecture(info: InstanceTypeInfo) -> str:
    for arch in info.supported_architectures:
        if arch in L.AWS_TO_KUBE_ARCHITECTURES:
            return L.AWS_TO_KUBE_ARCHITECTURES[arch]
    return "[" + " ".join(info.supported_architectures) + "]"   # unrecognized: fmt.Sprint of the list


def get_os(info: InstanceTypeInfo, family: AMIFamily) -> list[str]:
    if family.is_windows:
        return ["windows"] if get_architecture(info) == L.ARCHITECTURE_AMD64 else []
    return ["linux"]


# The keys computeRequirements makes DoesNotExist after the memory, in its order, for the type's values
# to fill (`_insert_type_values`).
_FILLED_FROM_THE_TYPE = (
    L.LABEL_INSTANCE_EBS_BANDWIDTH, L.LABEL_INSTANCE_NETWORK_BANDWIDTH, L.LABEL_INSTANCE_CATEGORY,
    L.LABEL_INSTANCE_CAPABILITY_FLEX, L.LABEL_INSTANCE_FAMILY, L.LABEL_INSTANCE_GENERATION, L.LABEL_INSTANCE_LOCAL_NVME,
    L.LABEL_INSTANCE_SIZE, L.LABEL_INSTANCE_GPU_NAME, L.LABEL_INSTANCE_GPU_MANUFACTURER, L.LABEL_INSTANCE_GPU_COUNT,
    L.LABEL_INSTANCE_GPU_MEMORY, L.LABEL_INSTANCE_ACCELERATOR_NAME, L.LABEL_INSTANCE_ACCELERATOR_MANUFACTURER,
    L.LABEL_INSTANCE_ACCELERATOR_COUNT)


def compute_requirements(info: InstanceTypeInfo, region: str, offering_zones: Iterable[str],
                         subnet_zone_info: Sequence[Any], family: AMIFamily, bandwidth: Mapping[str, int],
                         capacity_reservations: Sequence[Any] = ()) -> Requirements:
    """computeRequirements: every well-known label of the type; zones are the type's offering
    zones that also have a subnet of the class."""
    capacity_types = [uc for uc in info.supported_usage_classes if uc in (USAGE_CLASS_ON_DEMAND, USAGE_CLASS_SPOT)]
    if capacity_reservations:
        capacity_types.append(L.CAPACITY_TYPE_RESERVED)
    available_zones = set(offering_zones) & {field_of(z, "zone") for z in subnet_zone_info}
    dne = DOES_NOT_EXIST
    reqs = new_requirements(
        new_requirement(LABEL_INSTANCE_TYPE, IN, info.instance_type),
        new_requirement(LABEL_ARCH, IN, get_architecture(info)),
        new_requirement(LABEL_OS, IN, *get_os(info, family)),
        new_requirement(LABEL_TOPOLOGY_ZONE, IN, *available_zones),
        new_requirement(LABEL_TOPOLOGY_REGION, IN, region),
        new_requirement(LABEL_WINDOWS_BUILD, dne),
        new_requirement(L.CAPACITY_TYPE_LABEL_KEY, IN, *capacity_types),
        new_requirement(L.LABEL_INSTANCE_CPU, IN, str(info.default_vcpus)),
        new_requirement(L.LABEL_INSTANCE_CPU_MANUFACTURER, dne),
        new_requirement(L.LABEL_INSTANCE_CPU_SUSTAINED_CLOCK_SPEED_MHZ, dne),
        new_requirement(L.LABEL_INSTANCE_MEMORY, IN, str(info.memory_size_in_mib)),
        *(new_requirement(key, dne) for key in _FILLED_FROM_THE_TYPE),
        new_requirement(L.LABEL_INSTANCE_HYPERVISOR, IN, info.hypervisor),
        new_requirement(L.LABEL_INSTANCE_ENCRYPTION_IN_TRANSIT_SUPPORTED, IN,
                        "true" if info.encryption_in_transit_supported else "false"),
        new_requirement(L.LABEL_INSTANCE_TENANCY, IN, TENANCY_DEFAULT, TENANCY_DEDICATED),
    )
    zone_ids = [field_of(z, "zone_id") or "" for z in subnet_zone_info if field_of(z, "zone") in available_zones]
    if zone_ids:
        reqs.add(new_requirement(L.LABEL_TOPOLOGY_ZONE_ID, IN, *zone_ids))
    _add_reservations(reqs, capacity_reservations)
    _insert_type_values(reqs, info, family, bandwidth)
    return reqs


def _add_reservations(reqs: Requirements, capacity_reservations: Sequence[Any]) -> None:
    """computeRequirements' capacity reservation labels: the reservations' ids, types and
    interruptibility, or DoesNotExist without any."""
    dne = DOES_NOT_EXIST
    if capacity_reservations:
        reqs.add(new_requirement(RESERVATION_ID_LABEL, IN, *(field_of(cr, "id") for cr in capacity_reservations)))
        reqs.add(new_requirement(L.LABEL_CAPACITY_RESERVATION_TYPE, IN,
                                 *(str(field_of(cr, "reservation_type") or "") for cr in capacity_reservations)))
        reqs.add(new_requirement(L.LABEL_CAPACITY_RESERVATION_INTERRUPTIBLE, IN,
                                 *("true" if field_of(cr, "interruptible") else "false" for cr in capacity_reservations)))
    else:
        reqs.add(*(new_requirement(key, dne) for key in (RESERVATION_ID_LABEL, L.LABEL_CAPACITY_RESERVATION_TYPE,
                                                         L.LABEL_CAPACITY_RESERVATION_INTERRUPTIBLE)))


def _insert_type_values(reqs: Requirements, info: InstanceTypeInfo, family: AMIFamily,
                        bandwidth: Mapping[str, int]) -> None:
    """computeRequirements' values read from the type, into the requirements made DoesNotExist."""
    name = info.instance_type
    family_parts = _INSTANCE_TYPE_SCHEME.search(name)
    if family_parts:
        reqs[L.LABEL_INSTANCE_CATEGORY].insert(family_parts.group(1))
        reqs[L.LABEL_INSTANCE_GENERATION].insert(family_parts.group(3))
    type_parts = name.split(".")
    if len(type_parts) == 2:
        reqs.get(L.LABEL_INSTANCE_FAMILY).insert(type_parts[0])
        reqs.get(L.LABEL_INSTANCE_SIZE).insert(type_parts[1])
    if info.has_instance_storage_info and info.instance_storage_nvme_support != "unsupported" \
            and info.instance_storage_total_size_in_gb is not None:
        reqs[L.LABEL_INSTANCE_LOCAL_NVME].insert(str(info.instance_storage_total_size_in_gb))
    reqs[L.LABEL_INSTANCE_CAPABILITY_FLEX].insert("true" if "-flex" in type_parts[0] else "false")
    if name in bandwidth:
        reqs[L.LABEL_INSTANCE_NETWORK_BANDWIDTH].insert(str(bandwidth[name]))
    if info.gpus is not None and len(info.gpus) == 1:
        gpu = info.gpus[0]
        reqs.get(L.LABEL_INSTANCE_GPU_NAME).insert(lower_kabob_case(gpu.name or ""))
        reqs.get(L.LABEL_INSTANCE_GPU_MANUFACTURER).insert(lower_kabob_case(gpu.manufacturer or ""))
        reqs.get(L.LABEL_INSTANCE_GPU_COUNT).insert(str(gpu.count or 0))
        reqs.get(L.LABEL_INSTANCE_GPU_MEMORY).insert(str(gpu.memory_size_in_mib or 0))
    if info.inference_accelerators is not None and len(info.inference_accelerators) == 1 and info.neuron_devices is None:
        acc = info.inference_accelerators[0]
        reqs.get(L.LABEL_INSTANCE_ACCELERATOR_NAME).insert(lower_kabob_case(acc.name or ""))
        reqs.get(L.LABEL_INSTANCE_ACCELERATOR_MANUFACTURER).insert(lower_kabob_case(acc.manufacturer or ""))
        reqs.get(L.LABEL_INSTANCE_ACCELERATOR_COUNT).insert(str(acc.count or 0))
    if info.neuron_devices is not None and len(info.neuron_devices) == 1:
        device = info.neuron_devices[0]
        reqs.get(L.LABEL_INSTANCE_ACCELERATOR_NAME).insert(lower_kabob_case(device.name or ""))
        reqs.get(L.LABEL_INSTANCE_ACCELERATOR_MANUFACTURER).insert("aws")
        reqs.get(L.LABEL_INSTANCE_ACCELERATOR_COUNT).insert(str(device.count))
    if family.is_windows:
        reqs.get(LABEL_WINDOWS_BUILD).insert(family.windows_build)
    # ProcessorInfo is always present here (the reader requires it, as getArchitecture does).
    reqs.get(L.LABEL_INSTANCE_CPU_MANUFACTURER).insert(lower_kabob_case(info.processor_manufacturer or ""))
    mhz = _go_round((info.sustained_clock_speed_in_ghz or 0.0) * 1000)
    reqs.get(L.LABEL_INSTANCE_CPU_SUSTAINED_CLOCK_SPEED_MHZ).insert(str(mhz))
    if info.has_ebs_optimized_info and info.ebs_optimized_support == "default":
        reqs.get(L.LABEL_INSTANCE_EBS_BANDWIDTH).insert(str(info.ebs_maximum_bandwidth_in_mbps or 0))


def _go_round(x: float) -> int:
    """math.Round: half away from zero."""
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


# -- capacity ----------------------------------------------------------------------------------------
def cpu(info: InstanceTypeInfo) -> Quantity:
    return _quantity(str(info.default_vcpus))


def memory(info: InstanceTypeInfo, options: Options) -> Quantity:
    """SizeInMiB (less Graviton's 64 MiB of CMA), less the VM overhead share, rounded up to MiB."""
    size = info.memory_size_in_mib
    if info.supported_architectures[:1] == ("arm64",):
        size -= 64
    mem = _quantity(f"{size}Mi")
    overhead_mib = math.ceil(float(mem.value) * options.vm_memory_overhead_percent / 1024 / 1024)
    return sub(mem, _quantity(f"{int(overhead_mib)}Mi"))


def _volume_size(raw: Any) -> Quantity | None:
    if raw is None:
        return None
    if isinstance(raw, Quantity):
        return raw
    return must_parse(str(raw))


def ephemeral_storage(info: InstanceTypeInfo, family: AMIFamily, block_device_mappings: Sequence[Any] | None,
                      instance_store_policy: str | None) -> Quantity:
    """The local disks' total under instanceStorePolicy RAID0, else the root volume of the block
    device mappings, else the family's default ephemeral device, else DefaultEBS (20Gi)."""
    if instance_store_policy == INSTANCE_STORE_POLICY_RAID0 and info.has_instance_storage_info \
            and info.instance_storage_total_size_in_gb is not None:
        return _quantity(f"{info.instance_storage_total_size_in_gb}G")
    if block_device_mappings:
        root = next((b for b in block_device_mappings if field_of(b, "root_volume")), None)
        if root is not None and _volume_size(field_of(field_of(root, "ebs"), "volume_size")) is not None:
            return _volume_size(field_of(field_of(root, "ebs"), "volume_size"))
        if family.is_custom:
            size = _volume_size(field_of(field_of(block_device_mappings[-1], "ebs"), "volume_size"))
            return size if size is not None else family.default_volume_size()
        device = next((b for b in block_device_mappings
                       if field_of(b, "device_name") == family.ephemeral_block_device), None)
        if device is not None and _volume_size(field_of(field_of(device, "ebs"), "volume_size")) is not None:
            return _volume_size(field_of(field_of(device, "ebs"), "volume_size"))
    return family.default_volume_size()


def aws_pod_eni(name: str, limits: Mapping[str, VPCLimits]) -> Quantity:
    lim = limits.get(name)
    return _quantity(str(lim.branch_interface) if lim is not None and lim.is_trunking_compatible else "0")


def _gpus(info: InstanceTypeInfo, maker: str) -> Quantity:
    return _quantity(str(sum(g.count for g in info.gpus or () if g.manufacturer == maker)))


def aws_neuron_cores(info: InstanceTypeInfo) -> Quantity:
    if info.neuron_devices is None:
        return _quantity("0")
    first = info.neuron_devices[0]
    return _quantity(str(first.count * (first.core_count or 0)))


def aws_neuron_devices(info: InstanceTypeInfo) -> Quantity:
    return _quantity(str(sum(d.count for d in info.neuron_devices or ())))


def efas(info: InstanceTypeInfo, network_interfaces: Sequence[Any] | None) -> Quantity:
    """The NodeClass's EFA-only interfaces when it lists interfaces, else the type's maximum."""
    if network_interfaces is not None:
        count = sum(1 for ni in network_interfaces if field_of(ni, "interface_type") == INTERFACE_TYPE_EFA_ONLY)
    else:
        count = info.maximum_efa_interfaces or 0
    return _quantity(str(count))


def eni_limited_pods(info: InstanceTypeInfo, reserved_enis: int, network_interfaces: Sequence[Any] | None) -> Quantity:
    """ENILimitedPods: (the default card's ENIs - reserved - EFA-only ones) x (IPv4 per ENI - 1) + 2."""
    interfaces = info.default_card_max_interfaces()
    efa_only = sum(1 for ni in network_interfaces or ()
                   if (field_of(ni, "network_card_index") or 0) == 0 and field_of(ni, "interface_type") == INTERFACE_TYPE_EFA_ONLY)
    usable = max(interfaces - reserved_enis - efa_only, 0)
    if usable == 0:
        return new_quantity(0, DECIMAL_SI)
    return _quantity(str(usable * (info.ipv4_addresses_per_interface - 1) + 2))


def pods(info: InstanceTypeInfo, family: AMIFamily, max_pods: int | None, pods_per_core: int | None,
         network_interfaces: Sequence[Any] | None, options: Options) -> Quantity:
    """kubelet.maxPods, else ENI-limited pods (families that support it), else 110; capped by
    podsPerCore x vCPUs where the family honours podsPerCore."""
    if max_pods is not None:
        count = int(max_pods)
    elif family.feature_flags.supports_eni_limited_pod_density:
        count = int(eni_limited_pods(info, options.reserved_enis, network_interfaces).value)
    else:
        count = 110
    if (pods_per_core or 0) > 0 and family.feature_flags.pods_per_core_enabled:
        count = min(int(pods_per_core) * info.default_vcpus, count)
    return _quantity(str(count))


def private_ipv4_address(name: str, limits: Mapping[str, VPCLimits]) -> Quantity:
    lim = limits.get(name)
    return _quantity(str(lim.ipv4_per_interface - 1) if lim is not None else "0")


def compute_capacity(info: InstanceTypeInfo, family: AMIFamily, block_device_mappings: Sequence[Any] | None,
                     instance_store_policy: str | None, network_interfaces: Sequence[Any] | None,
                     max_pods: int | None, pods_per_core: int | None, limits: Mapping[str, VPCLimits],
                     options: Options) -> ResourceList:
    return {
        CPU: cpu(info),
        MEMORY: memory(info, options),
        EPHEMERAL_STORAGE: ephemeral_storage(info, family, block_device_mappings, instance_store_policy),
        PODS: pods(info, family, max_pods, pods_per_core, network_interfaces, options),
        L.RESOURCE_AWS_POD_ENI: aws_pod_eni(info.instance_type, limits),
        L.RESOURCE_NVIDIA_GPU: _gpus(info, "NVIDIA"),
        L.RESOURCE_AMD_GPU: _gpus(info, "AMD"),
        L.RESOURCE_AWS_NEURON: aws_neuron_devices(info),
        L.RESOURCE_AWS_NEURON_CORE: aws_neuron_cores(info),
        L.RESOURCE_HABANA_GAUDI: _gpus(info, "Habana"),
        L.RESOURCE_EFA: efas(info, network_interfaces),
    }


# -- overhead ----------------------------------------------------------------------------------------
def kube_reserved_resources(cpus: Quantity, pod_count: Quantity, kube_reserved: Mapping[str, Any] | None) -> ResourceList:
    """kube-reserved: memory 11 MiB per pod + 255 MiB, ephemeral-storage 1Gi, cpu by range;
    kubelet.kubeReserved overrides."""
    out: ResourceList = {
        MEMORY: _quantity(f"{11 * math.ceil(pod_count.value) + 255}Mi"),
        EPHEMERAL_STORAGE: _quantity("1Gi"),
    }
    millis = math.ceil(cpus.value * 1000)     # (each range's share in whole millicores, summed as integers)
    shares = (int((min(millis, end) - start) * percentage) for start, end, percentage in _CPU_RANGES if millis >= start)
    out[CPU] = new_quantity(Fraction(sum(shares), 1000), DECIMAL_SI)
    for name, value in (kube_reserved or {}).items():
        out[name] = _parse_setting(value, f"spec.kubelet.kubeReserved.{name}")
    return out


def system_reserved_resources(system_reserved: Mapping[str, Any] | None) -> ResourceList:
    return {name: _parse_setting(value, f"spec.kubelet.systemReserved.{name}") for name, value in (system_reserved or {}).items()}


def _percentage(value: str, where: str) -> float:
    try:
        p = float(value.strip("%"))
    except ValueError:
        raise NodeClassSettingError(where, f"expected percentage value to be a float but got {value[:80]}") from None
    return 0.0 if p == 100 else p


def compute_eviction_signal(capacity: Quantity, signal: Any, where: str) -> Quantity:
    """A percentage of the capacity (rounded up, printed as Go's fmt prints a float), else the
    quantity as written."""
    text = str(signal)
    if text.endswith("%"):
        p = _percentage(text, where)
        return _quantity(go_sprint(float(math.ceil(float(capacity.value) / 100 * p))))
    return _parse_setting(text, where)


def eviction_threshold(mem: Quantity, storage: Quantity, eviction_hard: Mapping[str, Any] | None) -> ResourceList:
    """Memory 100Mi and 10% of the ephemeral storage; kubelet.evictionHard's memory.available and
    nodefs.available override (evictionSoft never changes allocatable)."""
    out: ResourceList = {
        MEMORY: _quantity("100Mi"),
        EPHEMERAL_STORAGE: _quantity(go_sprint(float(math.ceil(float(math.ceil(storage.value)) / 100 * 10)))),
    }
    if eviction_hard is not None:
        if MEMORY_AVAILABLE in eviction_hard:
            out[MEMORY] = compute_eviction_signal(mem, eviction_hard[MEMORY_AVAILABLE],
                                                  f"spec.kubelet.evictionHard.{MEMORY_AVAILABLE}")
        if NODE_FS_AVAILABLE in eviction_hard:
            out[EPHEMERAL_STORAGE] = compute_eviction_signal(storage, eviction_hard[NODE_FS_AVAILABLE],
                                                             f"spec.kubelet.evictionHard.{NODE_FS_AVAILABLE}")
    return out


# -- the instance type -------------------------------------------------------------------------------
def new_instance_type(info: InstanceTypeInfo, region: str, offering_zones: Iterable[str], subnet_zone_info: Sequence[Any],
                      block_device_mappings: Sequence[Any] | None, instance_store_policy: str | None,
                      network_interfaces: Sequence[Any] | None, kubelet: Any, family: AMIFamily,
                      capacity_reservations: Sequence[Any], limits: Mapping[str, VPCLimits],
                      bandwidth: Mapping[str, int], options: Options, requirements: Requirements | None = None
                      ) -> InstanceType:
    """NewInstanceType: requirements (`requirements`: computed already, shared, never changed),
    capacity and overhead (offerings come later: offering.py)."""
    max_pods, pods_per_core = field_of(kubelet, "max_pods"), field_of(kubelet, "pods_per_core")
    if requirements is None:
        requirements = compute_requirements(info, region, offering_zones, subnet_zone_info, family, bandwidth,
                                            capacity_reservations)
    capacity = compute_capacity(info, family, block_device_mappings, instance_store_policy, network_interfaces,
                                max_pods, pods_per_core, limits, options)
    memory_pods = (eni_limited_pods(info, 0, network_interfaces) if family.feature_flags.uses_eni_limited_memory_overhead
                   else pods(info, family, max_pods, pods_per_core, network_interfaces, options))
    overhead = InstanceTypeOverhead(
        kube_reserved=kube_reserved_resources(cpu(info), memory_pods, field_of(kubelet, "kube_reserved")),
        system_reserved=system_reserved_resources(field_of(kubelet, "system_reserved")),
        eviction_threshold=eviction_threshold(memory(info, options),
                                              ephemeral_storage(info, family, block_device_mappings, instance_store_policy),
                                              field_of(kubelet, "eviction_hard")),
    )
    windows = new_requirements(new_requirement(LABEL_OS, IN, "windows"))
    if requirements.compatible(windows) is None:
        capacity[L.RESOURCE_PRIVATE_IPV4_ADDRESS] = private_ipv4_address(info.instance_type, limits)
    return InstanceType(name=info.instance_type, requirements=requirements, offerings=Offerings(),
                        capacity=capacity, overhead=overhead)
