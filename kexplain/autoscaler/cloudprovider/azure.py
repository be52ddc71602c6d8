"""Azure and AKS: a node group is a virtual machine scale set (VMSS), named by its name.

As CA's cloudprovider/azure does (70920d3c6f5f): a scale set's id is its name
(`ScaleSet.Id`), compared without regard to case (`Belongs`: strings.EqualFold); a node's
instance is its providerID, for a VMSS instance
`azure:///subscriptions/SUB/resourceGroups/RG/providers/Microsoft.Compute/virtualMachineScaleSets/NAME/virtualMachines/N`,
and `NodeGroupForNode` gives the scale set that lists it: the one that providerID names.
Instances of flexible scale sets and of VMs pools have a `.../virtualMachines/NAME` providerID
that names no scale set; they are matched by the AKS agent-pool label, whose pool V has the
scale set `aks-V-DIGITS-vmss`.
"""
from __future__ import annotations

import re

AGENTPOOL_LABEL = "kubernetes.azure.com/agentpool"
GPU_LABEL = "kubernetes.azure.com/accelerator"     # AzureCloudProvider.GPULabel()
# The scale set of the AKS agent pool V: aks-V-DIGITS-vmss.
POOL_VMSS_FORM = r"aks-{v}-\d+-vmss"
_POOL_VMSS = re.compile(r"aks-(.+)-\d+-vmss")
_VMSS_INSTANCE = re.compile(r"azure://.*/providers/Microsoft\.Compute/virtualMachineScaleSets/([^/]+)"
                            r"/virtualMachines/[^/]+", re.IGNORECASE)


def scale_set_of(provider_id: str) -> str:
    """The scale set a VMSS instance's providerID names, "" for any other providerID."""
    found = _VMSS_INSTANCE.fullmatch(provider_id)
    return found.group(1) if found else ""


def agent_pool(scale_set: str) -> str:
    """The AKS agent pool of the scale set `aks-POOL-DIGITS-vmss`, "" for another name."""
    found = _POOL_VMSS.fullmatch(scale_set)
    return found.group(1) if found else ""
