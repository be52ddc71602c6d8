"""Azure and AKS: a node group is a virtual machine scale set (VMSS), named by its name, compared
case-blind (CA's cloudprovider/azure `ScaleSet.Id`, `Belongs`): members by the VMSS providerID,
else (flexible sets, VMs pools) by the AKS agent-pool label (`aks-V-DIGITS-vmss`)."""
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
