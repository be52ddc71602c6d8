"""The AWS provider's compiled-in tables that no EC2 API answers: the VPC limits
(`Limits` in pkg/providers/instancetype/zz_generated.vpclimits.go: branch interfaces for pod
ENIs, IPv4 addresses per interface for Windows' private IPv4 resource) and the network bandwidth
(`InstanceTypeBandwidthMegabits`, zz_generated.bandwidth.go: the instance-network-bandwidth label).
`--aws-data` may give them as `vpc-limits.json` and `network-bandwidth.json` with the same
field names; the shipped catalog holds the provider's own.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kexplain.karpenter.aws.ec2 import Node


@dataclass(frozen=True)
class VPCLimits:
    """What the provider reads of one type's VPC limits."""

    ipv4_per_interface: int
    is_trunking_compatible: bool
    branch_interface: int


def read_vpc_limits(doc: Any) -> dict[str, VPCLimits]:
    """`{TYPE: {"IPv4PerInterface", "IsTrunkingCompatible", "BranchInterface", ...}}`."""
    root = Node(doc, "").obj(required=True)
    out = {}
    for name in root.value:
        n = root.member(name).obj(required=True)
        out[name] = VPCLimits(ipv4_per_interface=n.member("IPv4PerInterface").integer(required=True),
                              is_trunking_compatible=bool(n.member("IsTrunkingCompatible").boolean()),
                              branch_interface=n.member("BranchInterface").integer() or 0)
    return out


def read_bandwidth(doc: Any) -> dict[str, int]:
    """`{TYPE: Mbit/s}`."""
    root = Node(doc, "").obj(required=True)
    return {name: root.member(name).integer(required=True) for name in root.value}
