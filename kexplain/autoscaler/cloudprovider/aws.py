"""AWS and EKS: a node group is an Auto Scaling group (ASG), named by its ASG name.

As CA's cloudprovider/aws does (70920d3c6f5f): a group's id is the ASG's name (`AwsNodeGroup.Id`);
`NodeGroupForNode` reads the instance of the node's providerID `aws:///ZONE/INSTANCE-ID`
(`AwsRefFromProviderId`) and gives the ASG the AWS API lists it in. That list is not in the
cluster, so kexplain finds an ASG's members by a node label that names it: an EKS managed node
group's nodes carry `eks.amazonaws.com/nodegroup=NAME`, and EKS names the group's ASG
`eks-NAME-UUID`. An ASG spans the zones of its subnets: the zone does not split it.
"""
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
