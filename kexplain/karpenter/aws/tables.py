"""The AWS provider's compiled-in tables no EC2 API answers: the VPC limits (zz_generated.vpclimits.go)
and the network bandwidth (zz_generated.bandwidth.go)."""
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
