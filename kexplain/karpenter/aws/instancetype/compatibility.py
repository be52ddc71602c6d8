"""Which instance types an EC2NodeClass can launch at all (`pkg/providers/instancetype/compatibility`);
an incompatible type stays listed, its offerings all unavailable."""
from __future__ import annotations

from typing import Any, Sequence

from kexplain.karpenter.aws import amifamily
from kexplain.karpenter.aws.ec2 import InstanceTypeInfo
from kexplain.karpenter.utils.objects import field_of

INTERFACE_TYPE_EFA_ONLY = "efa-only"


def network_interface_compatible(info: InstanceTypeInfo, network_interfaces: Sequence[Any] | None) -> bool:
    if network_interfaces is None:
        return True
    if not info.network_cards:
        return False
    if info.ena_support == "unsupported":
        return False
    for ni in network_interfaces:
        index = field_of(ni, "network_card_index") or 0
        if len(info.network_cards) <= index:
            return False
        card = next((c for c in info.network_cards if (c.network_card_index or 0) == index), None)
        if card is None or (card.maximum_network_interfaces or 0) <= (field_of(ni, "device_index") or 0):
            return False
    efa_only = sum(1 for ni in network_interfaces if field_of(ni, "interface_type") == INTERFACE_TYPE_EFA_ONLY)
    return efa_only == 0 or (info.maximum_efa_interfaces is not None and efa_only <= info.maximum_efa_interfaces)


def ami_family_compatible(info: InstanceTypeInfo, ami_family: str) -> bool:
    """a1 types do not run AL2023."""
    return not (ami_family == amifamily.AL2023 and info.instance_type.startswith("a1."))


def is_compatible_with_node_class(info: InstanceTypeInfo, node_class: Any) -> bool:
    """IsCompatibleWithNodeClass: every check passes. Its nested-virtualization, placement-group and
    connection-tracking checks pass for every class here: the pass reads none of those fields."""
    return (network_interface_compatible(info, node_class.network_interfaces())
            and ami_family_compatible(info, node_class.ami_family()))
