"""AWS and EKS: a node group is an Auto Scaling group (ASG), named by its ASG name (CA's
cloudprovider/aws, `AwsRefFromProviderId`). The ASG's instance list is not in the cluster, so
members are found by the EKS node-group label (`eks-NAME-UUID`); the zone does not split an ASG."""
from __future__ import annotations

import re

NODEGROUP_LABEL = "eks.amazonaws.com/nodegroup"
GPU_LABEL = "k8s.amazonaws.com/accelerator"        # awsCloudProvider.GPULabel()
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
# The ASG of the managed node group V: eks-V-UUID.
MANAGED_ASG_FORM = r"eks-{v}-" + _UUID
_MANAGED_ASG = re.compile(r"eks-(.+)-" + _UUID)


def managed_node_group(asg: str) -> str:
    """The EKS managed node group whose ASG is `asg` (`eks-NAME-UUID`), "" for another ASG."""
    found = _MANAGED_ASG.fullmatch(asg)
    return found.group(1) if found else ""
