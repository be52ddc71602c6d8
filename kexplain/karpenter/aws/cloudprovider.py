"""The AWS cloud provider's GetInstanceTypes (`pkg/cloudprovider/cloudprovider.go`): the instance
types of the NodePool's EC2NodeClass, before the NodePool's own requirements."""
from __future__ import annotations

from typing import Any

from kexplain.karpenter.aws.instancetype.instancetype import InstanceTypeProvider, NodeClass
from kexplain.karpenter.errors import GoError
from kexplain.karpenter.cloudprovider.types import InstanceType


def get_instance_types(node_pool: Any, node_class: NodeClass | None,
                       provider: InstanceTypeProvider) -> tuple[list[InstanceType], GoError | None]:
    """GetInstanceTypes(nodePool): ([], None) for a missing or terminating class (None for both:
    `run.AWSCloud.node_class_of`), else the provider's List (its error, e.g. `no subnets found`,
    with no types)."""
    if node_class is None:
        return [], None
    return provider.list(node_class)
