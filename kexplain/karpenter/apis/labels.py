"""Karpenter's label vocabulary (core and AWS provider `pkg/apis/v1/labels.go`, taints.go), the sets
combined as the process sees them once the provider's `init()` has run."""
from __future__ import annotations

from typing import Iterable

from kexplain.apimachinery.labels import (LABEL_ARCH, LABEL_ARCH_BETA, LABEL_FAILURE_DOMAIN_BETA_REGION,
                                          LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_HOSTNAME, LABEL_INSTANCE_TYPE,
                                          LABEL_INSTANCE_TYPE_BETA, LABEL_OS, LABEL_OS_BETA, LABEL_TOPOLOGY_REGION,
                                          LABEL_TOPOLOGY_ZONE, TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE)

# -- the core: sigs.k8s.io/karpenter pkg/apis ---------------------------------------------------
GROUP = "karpenter.sh"
LABEL_WINDOWS_BUILD = "node.kubernetes.io/windows-build"

ARCHITECTURE_AMD64 = "amd64"
ARCHITECTURE_ARM64 = "arm64"
CAPACITY_TYPE_SPOT = "spot"
CAPACITY_TYPE_ON_DEMAND = "on-demand"
CAPACITY_TYPE_RESERVED = "reserved"

NODE_POOL_LABEL_KEY = GROUP + "/nodepool"
CAPACITY_TYPE_LABEL_KEY = GROUP + "/capacity-type"

# Karpenter's NodeSelectorOperators beyond core/v1's (nodeclaim.go): a Gt/Lt is stored as these.
NODE_SELECTOR_OP_GTE = "Gte"
NODE_SELECTOR_OP_LTE = "Lte"

# taints.go
UNREGISTERED_TAINT_KEY = GROUP + "/unregistered"
UNREGISTERED_NO_EXECUTE_TAINT = {"key": UNREGISTERED_TAINT_KEY, "effect": "NoExecute"}
TAINT_EXTERNAL_CLOUD_PROVIDER = "node.cloudprovider.kubernetes.io/uninitialized"   # k8s.io/cloud-provider/api

# -- the AWS provider: github.com/aws/karpenter-provider-aws pkg/apis ---------------------------
AWS_GROUP = "karpenter.k8s.aws"

LABEL_CAPACITY_RESERVATION_ID = AWS_GROUP + "/capacity-reservation-id"
LABEL_CAPACITY_RESERVATION_TYPE = AWS_GROUP + "/capacity-reservation-type"
LABEL_CAPACITY_RESERVATION_INTERRUPTIBLE = AWS_GROUP + "/capacity-reservation-interruptible"
LABEL_INSTANCE_HYPERVISOR = AWS_GROUP + "/instance-hypervisor"
LABEL_INSTANCE_ENCRYPTION_IN_TRANSIT_SUPPORTED = AWS_GROUP + "/instance-encryption-in-transit-supported"
LABEL_INSTANCE_CATEGORY = AWS_GROUP + "/instance-category"
LABEL_INSTANCE_CAPABILITY_FLEX = AWS_GROUP + "/instance-capability-flex"
LABEL_INSTANCE_FAMILY = AWS_GROUP + "/instance-family"
LABEL_INSTANCE_GENERATION = AWS_GROUP + "/instance-generation"
LABEL_INSTANCE_LOCAL_NVME = AWS_GROUP + "/instance-local-nvme"
LABEL_INSTANCE_SIZE = AWS_GROUP + "/instance-size"
LABEL_INSTANCE_CPU = AWS_GROUP + "/instance-cpu"
LABEL_INSTANCE_CPU_MANUFACTURER = AWS_GROUP + "/instance-cpu-manufacturer"
LABEL_INSTANCE_CPU_SUSTAINED_CLOCK_SPEED_MHZ = AWS_GROUP + "/instance-cpu-sustained-clock-speed-mhz"
LABEL_INSTANCE_MEMORY = AWS_GROUP + "/instance-memory"
LABEL_INSTANCE_EBS_BANDWIDTH = AWS_GROUP + "/instance-ebs-bandwidth"
LABEL_INSTANCE_NETWORK_BANDWIDTH = AWS_GROUP + "/instance-network-bandwidth"
LABEL_INSTANCE_GPU_NAME = AWS_GROUP + "/instance-gpu-name"
LABEL_INSTANCE_GPU_MANUFACTURER = AWS_GROUP + "/instance-gpu-manufacturer"
LABEL_INSTANCE_GPU_COUNT = AWS_GROUP + "/instance-gpu-count"
LABEL_INSTANCE_GPU_MEMORY = AWS_GROUP + "/instance-gpu-memory"
LABEL_INSTANCE_ACCELERATOR_NAME = AWS_GROUP + "/instance-accelerator-name"
LABEL_INSTANCE_ACCELERATOR_MANUFACTURER = AWS_GROUP + "/instance-accelerator-manufacturer"
LABEL_INSTANCE_ACCELERATOR_COUNT = AWS_GROUP + "/instance-accelerator-count"
LABEL_NODE_CLASS = AWS_GROUP + "/ec2nodeclass"
LABEL_INSTANCE_TENANCY = AWS_GROUP + "/instance-tenancy"
LABEL_PLACEMENT_GROUP_ID = AWS_GROUP + "/placement-group-id"
LABEL_PLACEMENT_GROUP_PARTITION = AWS_GROUP + "/placement-group-partition"
LABEL_TOPOLOGY_ZONE_ID = "topology.k8s.aws/zone-id"
# The EBS CSI driver's zone key, normalized to the zone by the provider's operator (operator.go).
LABEL_EBS_CSI_ZONE = "topology.ebs.csi.aws.com/zone"

RESOURCE_NVIDIA_GPU = "nvidia.com/gpu"
RESOURCE_AMD_GPU = "amd.com/gpu"
RESOURCE_AWS_NEURON = "aws.amazon.com/neuron"
RESOURCE_AWS_NEURON_CORE = "aws.amazon.com/neuroncore"
RESOURCE_HABANA_GAUDI = "habana.ai/gaudi"
RESOURCE_AWS_POD_ENI = "vpc.amazonaws.com/pod-eni"
RESOURCE_PRIVATE_IPV4_ADDRESS = "vpc.amazonaws.com/PrivateIPv4Address"
RESOURCE_EFA = "vpc.amazonaws.com/efa"

AWS_TO_KUBE_ARCHITECTURES = {"x86_64": ARCHITECTURE_AMD64, ARCHITECTURE_ARM64: ARCHITECTURE_ARM64}

AMI_FAMILY_BOTTLEROCKET = "Bottlerocket"
AMI_FAMILY_AL2 = "AL2"
AMI_FAMILY_AL2023 = "AL2023"
AMI_FAMILY_WINDOWS2019 = "Windows2019"
AMI_FAMILY_WINDOWS2022 = "Windows2022"
AMI_FAMILY_WINDOWS2025 = "Windows2025"
AMI_FAMILY_CUSTOM = "Custom"

_AWS_WELL_KNOWN_LABELS = (
    LABEL_CAPACITY_RESERVATION_ID, LABEL_CAPACITY_RESERVATION_TYPE, LABEL_CAPACITY_RESERVATION_INTERRUPTIBLE,
    LABEL_INSTANCE_HYPERVISOR, LABEL_INSTANCE_ENCRYPTION_IN_TRANSIT_SUPPORTED, LABEL_INSTANCE_CATEGORY,
    LABEL_INSTANCE_CAPABILITY_FLEX, LABEL_INSTANCE_FAMILY, LABEL_INSTANCE_GENERATION, LABEL_INSTANCE_SIZE,
    LABEL_INSTANCE_LOCAL_NVME, LABEL_INSTANCE_CPU, LABEL_INSTANCE_CPU_MANUFACTURER,
    LABEL_INSTANCE_CPU_SUSTAINED_CLOCK_SPEED_MHZ, LABEL_INSTANCE_MEMORY, LABEL_INSTANCE_EBS_BANDWIDTH,
    LABEL_INSTANCE_NETWORK_BANDWIDTH, LABEL_INSTANCE_GPU_NAME, LABEL_INSTANCE_GPU_MANUFACTURER,
    LABEL_INSTANCE_GPU_COUNT, LABEL_INSTANCE_GPU_MEMORY, LABEL_INSTANCE_ACCELERATOR_NAME,
    LABEL_INSTANCE_ACCELERATOR_MANUFACTURER, LABEL_INSTANCE_ACCELERATOR_COUNT, LABEL_TOPOLOGY_ZONE_ID,
    LABEL_INSTANCE_TENANCY, LABEL_WINDOWS_BUILD, LABEL_PLACEMENT_GROUP_ID, LABEL_PLACEMENT_GROUP_PARTITION,
)

# -- the sets as the running process has them (core, then the provider's init) ------------------
# RestrictedLabelDomains: reserved by Karpenter (and the provider).
RESTRICTED_LABEL_DOMAINS = frozenset({GROUP, AWS_GROUP})

# WellKnownLabels: labels Karpenter knows the values of (from instance types and offerings), which
# NodePools and pods may narrow; an undefined one is allowed where a custom label is not.
WELL_KNOWN_LABELS = frozenset({
    NODE_POOL_LABEL_KEY, LABEL_TOPOLOGY_ZONE, LABEL_TOPOLOGY_REGION, LABEL_INSTANCE_TYPE, LABEL_ARCH,
    LABEL_OS, CAPACITY_TYPE_LABEL_KEY, LABEL_WINDOWS_BUILD, *_AWS_WELL_KNOWN_LABELS,
})

# WellKnownValuesForRequirements: the only values that make sense for these keys.
WELL_KNOWN_VALUES_FOR_REQUIREMENTS: dict[str, frozenset[str]] = {
    CAPACITY_TYPE_LABEL_KEY: frozenset({CAPACITY_TYPE_ON_DEMAND, CAPACITY_TYPE_SPOT, CAPACITY_TYPE_RESERVED}),
    LABEL_INSTANCE_TENANCY: frozenset({"dedicated", "default"}),
}
# Insertion order of Go's sets as first built (a Go set prints in no fixed order; see
# `go_set_text`).
_WELL_KNOWN_VALUES_ORDER = {
    CAPACITY_TYPE_LABEL_KEY: (CAPACITY_TYPE_ON_DEMAND, CAPACITY_TYPE_SPOT, CAPACITY_TYPE_RESERVED),
    LABEL_INSTANCE_TENANCY: ("dedicated", "default"),
}


# RestrictedLabels: may not be required at all (they would interfere with provisioning).
RESTRICTED_LABELS = frozenset({LABEL_HOSTNAME})

# NormalizedLabels: aliases translated to the well-known key wherever a requirement is built.
NORMALIZED_LABELS: dict[str, str] = {
    LABEL_FAILURE_DOMAIN_BETA_ZONE: LABEL_TOPOLOGY_ZONE,
    LABEL_ARCH_BETA: LABEL_ARCH,
    LABEL_OS_BETA: LABEL_OS,
    LABEL_INSTANCE_TYPE_BETA: LABEL_INSTANCE_TYPE,
    LABEL_FAILURE_DOMAIN_BETA_REGION: LABEL_TOPOLOGY_REGION,
    LABEL_EBS_CSI_ZONE: LABEL_TOPOLOGY_ZONE,
}

# Taints a node carries while it initializes (pkg/scheduling KnownEphemeralTaints).
KNOWN_EPHEMERAL_TAINTS = (
    {"key": TAINT_NODE_NOT_READY, "effect": "NoSchedule"},
    {"key": TAINT_NODE_NOT_READY, "effect": "NoExecute"},
    {"key": TAINT_NODE_UNREACHABLE, "effect": "NoSchedule"},
    {"key": TAINT_EXTERNAL_CLOUD_PROVIDER, "effect": "NoSchedule", "value": "true"},
    UNREGISTERED_NO_EXECUTE_TAINT,
)
KNOWN_EPHEMERAL_TAINT_KEY_PREFIXES = ("readiness.k8s.io/",)


def go_list(values: Iterable[str]) -> str:
    """A []string as Go's %v prints it: `[a b c]`."""
    return "[" + " ".join(values) + "]"


def _restricted_message(key: str) -> str:
    return (f"using label {key} is not allowed as it might interfere with the internal provisioning logic; "
            f"specify a well known label: {go_list(sorted(WELL_KNOWN_LABELS))}, or a custom label that does not "
            f"use a restricted domain: {go_list(sorted(RESTRICTED_LABEL_DOMAINS))}")


def get_label_domain(key: str) -> str:
    """The part before the first `/`, "" without one (GetLabelDomain)."""
    domain, sep, _ = key.partition("/")
    return domain if sep else ""


def is_restricted_label(key: str) -> str | None:
    """IsRestrictedLabel: None, or Go's error text when `key` is in a restricted domain (or a
    subdomain of one) without being well known, or is a restricted label."""
    if key in WELL_KNOWN_LABELS:
        return None
    domain = get_label_domain(key)
    for restricted in RESTRICTED_LABEL_DOMAINS:
        if domain == restricted or domain.endswith("." + restricted):
            return _restricted_message(key)
    if key in RESTRICTED_LABELS:
        return _restricted_message(key)
    return None


def go_set_text(key: str) -> str:
    """WellKnownValuesForRequirements[key] as Go's %v prints a sets.Set (a map:
    `map[a:{} b:{}]`, keys sorted by fmt)."""
    values = WELL_KNOWN_VALUES_FOR_REQUIREMENTS.get(key, frozenset())
    return "map[" + " ".join(f"{v}:{{}}" for v in sorted(values)) + "]"


def go_unsorted_list(key: str) -> list[str]:
    """WellKnownValuesForRequirements[key].UnsortedList(): Go's map order is random; this gives
    the order the set was written in, one of the orders Go may print."""
    return list(_WELL_KNOWN_VALUES_ORDER.get(key, ()))
