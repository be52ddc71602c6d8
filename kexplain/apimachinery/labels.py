"""Well-known label, annotation and taint keys (k8s.io/api/core/v1 well_known_labels.go and
friends): each spelled once here, imported everywhere else."""
from __future__ import annotations

LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
LABEL_TOPOLOGY_REGION = "topology.kubernetes.io/region"
LABEL_FAILURE_DOMAIN_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
LABEL_FAILURE_DOMAIN_BETA_REGION = "failure-domain.beta.kubernetes.io/region"
LABEL_OS = "kubernetes.io/os"
LABEL_ARCH = "kubernetes.io/arch"
LABEL_METADATA_NAME = "kubernetes.io/metadata.name"

# The zone and region keys a node may carry, the GA key last (lookups try the GA key first).
ZONE_LABELS = (LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_TOPOLOGY_ZONE)
REGION_LABELS = (LABEL_FAILURE_DOMAIN_BETA_REGION, LABEL_TOPOLOGY_REGION)
# What PodTopologyLabels copies from a node onto the pods bound to it.
TOPOLOGY_LABELS = (LABEL_TOPOLOGY_ZONE, LABEL_TOPOLOGY_REGION)


def zone_of(labels: dict[str, str]) -> str:
    """A node's zone: the GA label, else the beta one, else ""."""
    return labels.get(LABEL_TOPOLOGY_ZONE) or labels.get(LABEL_FAILURE_DOMAIN_BETA_ZONE) or ""
