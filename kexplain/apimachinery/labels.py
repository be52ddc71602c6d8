"""Well-known label, annotation and taint keys (k8s.io/api core/v1 well_known_labels.go,
well_known_taints.go, annotation_key_constants.go, and the volume controllers' annotations):
each spelled once here, imported everywhere else."""
from __future__ import annotations

LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
LABEL_TOPOLOGY_REGION = "topology.kubernetes.io/region"
LABEL_FAILURE_DOMAIN_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
LABEL_FAILURE_DOMAIN_BETA_REGION = "failure-domain.beta.kubernetes.io/region"
LABEL_OS = "kubernetes.io/os"
LABEL_ARCH = "kubernetes.io/arch"
LABEL_OS_BETA = "beta.kubernetes.io/os"
LABEL_ARCH_BETA = "beta.kubernetes.io/arch"
LABEL_INSTANCE_TYPE = "node.kubernetes.io/instance-type"
LABEL_INSTANCE_TYPE_BETA = "beta.kubernetes.io/instance-type"
LABEL_METADATA_NAME = "kubernetes.io/metadata.name"     # a Namespace's own name

# The zone and region keys a node may carry, the GA key last (lookups try the GA key first).
ZONE_LABELS = (LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_TOPOLOGY_ZONE)
REGION_LABELS = (LABEL_FAILURE_DOMAIN_BETA_REGION, LABEL_TOPOLOGY_REGION)
# What PodTopologyLabels copies from a node onto the pods bound to it.
TOPOLOGY_LABELS = (LABEL_TOPOLOGY_ZONE, LABEL_TOPOLOGY_REGION)
# Joins the zones of a volume that lives in several (volumehelpers.LabelMultiZoneDelimiter).
LABEL_MULTI_ZONE_DELIMITER = "__"

# Taints the node lifecycle controller and `kubectl cordon` put on nodes.
TAINT_NODE_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_NODE_UNREACHABLE = "node.kubernetes.io/unreachable"
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
TAINT_NODE_MEMORY_PRESSURE = "node.kubernetes.io/memory-pressure"
TAINT_NODE_DISK_PRESSURE = "node.kubernetes.io/disk-pressure"
TAINT_NODE_PID_PRESSURE = "node.kubernetes.io/pid-pressure"
TAINT_NODE_NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable"

# Pods.
ANNOTATION_MIRROR_POD = "kubernetes.io/config.mirror"     # a static pod's copy in the API

# Volumes: what the PersistentVolume controller, the scheduler and provisioners write.
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_PROVISIONED_BY = "pv.kubernetes.io/provisioned-by"
ANN_MIGRATED_TO = "pv.kubernetes.io/migrated-to"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
ANN_BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner"
ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
ANN_MIGRATED_PLUGINS = "storage.alpha.kubernetes.io/migrated-plugins"    # on a CSINode
ANN_DEFAULT_STORAGE_CLASS = "storageclass.kubernetes.io/is-default-class"
ANN_BETA_DEFAULT_STORAGE_CLASS = "storageclass.beta.kubernetes.io/is-default-class"
# The annotations that make a StorageClass the default one (either, set to "true").
DEFAULT_STORAGE_CLASS_ANNOTATIONS = (ANN_DEFAULT_STORAGE_CLASS, ANN_BETA_DEFAULT_STORAGE_CLASS)


def zone_of(labels: dict[str, str]) -> str:
    """A node's zone: the GA label, else the beta one, else ""."""
    return labels.get(LABEL_TOPOLOGY_ZONE) or labels.get(LABEL_FAILURE_DOMAIN_BETA_ZONE) or ""
